"""Tool signatures: a Python function's parameters and return type as MCP schemas + validators.

:func:`analyze_function` does all the reflection once, at registration, and returns a
:class:`ToolSignature`. Per call, :meth:`ToolSignature.validate_arguments` is one
``msgspec.convert`` into a precompiled Struct (plus a pydantic validation only for parameters
typed with pydantic models), and :meth:`ToolSignature.serialize_output` is one conversion to
builtins, one validating ``msgspec.convert`` and one JSON encode.

Decisions worth knowing:

* **Numbers**: a JSON integer is accepted for a ``float`` parameter; a string is never coerced to a
  number or boolean (a model that sends ``"5"`` for an ``int`` gets an error it can fix), and a
  float is not accepted for an ``int``. ``coerce_strings=True`` relaxes this for prompt and URI
  template arguments, which travel as strings on the wire.
* **Unknown arguments are rejected** (``additionalProperties: false``), and so is a missing
  required one; the error names the field.
* **Defaults**: an omitted optional argument is simply not passed, so the function's own default
  applies with exact Python semantics. The default is also written into the schema when it is
  JSON-encodable.
* **Output wrapping**: 2025 revisions require ``structuredContent`` (and ``outputSchema``) to be a
  JSON object; 2026-07-28 allows any JSON value. A tool's schema is advertised once for both eras,
  so a return type whose values are not always objects (``int``, ``list[str]``, ``Model | None``)
  is wrapped as ``{"result": value}`` in *both* eras (``output_wrapped`` is then true). The text
  fallback block always carries the bare value's JSON.
* **No output schema** for ``str``, ``None``, ``Any``, an unannotated return, or content types (as
  recognised by the caller's ``is_content`` predicate): those results are text or content, not
  structured data.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

import msgspec
import msgspec.json
import msgspec.structs

from mcpkit.protocol._errors import UsageError
from mcpkit.server._schema.docstrings import parse_docstring
from mcpkit.server._schema.errors import ArgumentError, InvalidToolOutput
from mcpkit.server._schema.hints import (
    ParamMeta,
    classify,
    is_pydantic_type,
    normalize,
    read_metadata,
    strip_annotated,
    type_repr,
)
from mcpkit.server._schema.jsonschema import (
    JSONSchema,
    inline_refs,
    is_object_schema,
    merge_defs,
    msgspec_schema,
    resolve_ref,
)
from mcpkit.server._schema.pydantic_bridge import PydanticType, dump_model
from mcpkit.server._schema.reflect import read_signature

__all__ = ["WRAPPED_RESULT_KEY", "ToolSignature", "analyze_function"]

WRAPPED_RESULT_KEY: Final = "result"
"""The key a non-object return value is wrapped under in ``structuredContent``."""

_ARGS_STRUCT_NAME: Final = "mcpkit_ToolArguments"
_NO_DEFAULT: Final[Any] = inspect.Parameter.empty
_Kind = inspect._ParameterKind
_NO_META: Final = ParamMeta(None, ())
_SEQUENCE_ORIGINS: Final = frozenset({list, tuple, Sequence, Union, types.UnionType})

OutputMode = Literal["none", "msgspec", "pydantic"]


class ToolSignature:
    """Everything derived from one function's signature, computed once at registration.

    Attributes:
        input_schema: the ``inputSchema`` (JSON Schema 2020-12, ``type: object``).
        output_schema: the ``outputSchema`` or ``None`` (text/content/untyped results).
        output_wrapped: true when structured output is ``{"result": value}`` (see module doc).
        parameters: names of the arguments a client supplies, in signature order.
        injected: names of the parameters the framework supplies (e.g. the ``Context`` one).
        description: the docstring's prose (without parameter sections), or ``None``.
        annotations: every parameter's annotation (``Annotated`` kept) and ``"return"``, as
            evaluated once at registration, so callers need no second ``get_type_hints``.
    """

    __slots__ = (
        "_all_required",
        "_enums",
        "_fields",
        "_fills",
        "_out_pydantic",
        "_out_type",
        "_output_mode",
        "_pydantic_params",
        "_strict",
        "_struct",
        "_where",
        "annotations",
        "description",
        "injected",
        "input_schema",
        "output_schema",
        "output_wrapped",
        "parameters",
    )

    def __init__(
        self,
        *,
        input_schema: JSONSchema,
        output_schema: JSONSchema | None,
        output_wrapped: bool,
        parameters: tuple[str, ...],
        injected: tuple[str, ...],
        description: str | None,
        struct: type[msgspec.Struct] | None,
        fields: tuple[tuple[Any, ...], ...],
        strict: bool,
        pydantic_params: tuple[tuple[str, PydanticType], ...],
        fills: tuple[tuple[str, Callable[[], Any]], ...],
        enums: dict[str, list[Any]],
        output_mode: OutputMode,
        out_type: Any,
        out_pydantic: PydanticType | None,
        where: str,
        annotations: dict[str, Any],
    ) -> None:
        self.annotations = annotations
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.output_wrapped = output_wrapped
        self.parameters = parameters
        self.injected = injected
        self.description = description
        self._struct = struct
        self._fields = fields
        self._all_required = all(len(field) == 2 for field in fields)
        """Every field is a ``(name, type)`` pair: no default, so never ``UNSET``."""
        self._strict = strict
        self._pydantic_params = pydantic_params
        self._fills = fills
        self._enums = enums
        self._output_mode: OutputMode = output_mode
        self._out_type = out_type
        self._out_pydantic = out_pydantic
        self._where = where

    def __repr__(self) -> str:
        return f"<ToolSignature of {self._where} ({', '.join(self.parameters)})>"

    def validate_arguments(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Convert JSON ``args`` into keyword arguments for the function.

        Returns the keyword arguments (omitted optional parameters are left out so the
        function's defaults apply; injected parameters are not included). Raises
        :class:`ArgumentError` (-32602) naming the offending field.
        """
        struct = self._struct
        if struct is None:
            struct = self._struct = _define_struct(self._fields)
        try:
            obj = msgspec.convert({} if args is None else args, struct, strict=self._strict)
        except msgspec.ValidationError as exc:
            raise ArgumentError.from_msgspec(
                str(exc), allowed=self.parameters, enums=self._enums
            ) from None
        values = msgspec.structs.astuple(obj)
        if self._all_required:  # no field can be UNSET: no filtering comprehension
            kwargs = dict(zip(self.parameters, values, strict=True))
        else:
            unset = msgspec.UNSET
            kwargs = {k: v for k, v in zip(self.parameters, values, strict=True) if v is not unset}
        for name, adapter in self._pydantic_params:
            if name in kwargs:
                kwargs[name] = adapter.validate_argument(kwargs[name], name=name)
        for name, factory in self._fills:
            if name not in kwargs:
                kwargs[name] = factory()
        return kwargs

    def serialize_output(self, value: Any) -> tuple[Any | None, str]:
        """``(structuredContent, text)`` for a tool's return value.

        With an output schema, ``structured`` is the JSON-able value (wrapped as
        ``{"result": ...}`` when ``output_wrapped``), checked against the return annotation
        first: a mismatch raises :class:`InvalidToolOutput`. ``text`` is the compact JSON of
        the bare value, for the backwards-compatible text block.

        Without an output schema, ``structured`` is ``None`` and ``text`` is the string itself,
        ``""`` for ``None``, or the JSON of any other value. Content-block results are the
        caller's business: detect them before calling this.
        """
        mode = self._output_mode
        if mode == "none":
            if value is None:
                return None, ""
            if isinstance(value, str):
                return None, value
            try:
                return None, msgspec.json.encode(value, enc_hook=dump_model).decode()
            except (TypeError, NotImplementedError) as exc:
                raise self._output_error(value, str(exc)) from None
        if mode == "pydantic":
            assert self._out_pydantic is not None
            try:
                builtins = self._out_pydantic.validate_output(value)
            except ValueError as exc:
                raise self._output_error(value, str(exc)) from None
        else:
            try:
                builtins = msgspec.to_builtins(value, enc_hook=dump_model, str_keys=True)
                msgspec.convert(builtins, self._out_type, strict=True)
            except (msgspec.ValidationError, TypeError, NotImplementedError) as exc:
                raise self._output_error(value, str(exc)) from None
        text = msgspec.json.encode(builtins).decode()
        return ({WRAPPED_RESULT_KEY: builtins} if self.output_wrapped else builtins), text

    def _output_error(self, value: Any, detail: str) -> InvalidToolOutput:
        declared = type_repr(self._out_type)
        return InvalidToolOutput(
            f"{self._where} returned {type(value).__qualname__}, which does not match its "
            f"return annotation {declared}: {detail}"
        )


def _describe(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"function {name}"


def _is_field_info(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "FieldInfo" and cls.__module__.startswith("pydantic")


def _is_injected(annotation: Any, predicate: Callable[[Any], bool] | None) -> bool:
    if predicate is None or annotation is _NO_DEFAULT:
        return False
    base, _ = strip_annotated(annotation)
    origin = get_origin(base)
    candidates = [base]
    if origin in (Union, types.UnionType):
        candidates.extend(a for a in get_args(base) if a is not type(None))
    elif origin is not None:
        candidates.append(origin)
    for candidate in candidates:
        try:
            if predicate(candidate):
                return True
        except TypeError:  # e.g. issubclass() on a non-class
            continue
    return False


def _is_content(annotation: Any, predicate: Callable[[Any], bool] | None) -> bool:
    if predicate is None:
        return False
    base, _ = strip_annotated(annotation)
    try:
        if predicate(base):
            return True
    except TypeError:
        pass
    if get_origin(base) in _SEQUENCE_ORIGINS:
        members = [a for a in get_args(base) if a is not Ellipsis and a is not type(None)]
        return bool(members) and all(_is_content(a, predicate) for a in members)
    return False


def _plain_schemas() -> dict[Any, bytes]:
    """The schemas msgspec generates for the most common parameter types, precomputed.

    Generating a schema through msgspec costs ~0.2 ms per tool (it inspects a whole Struct);
    with these, a tool whose parameters are all plain types (most tools) skips the generator,
    and a server with 1,000 tools starts several times faster. The table is checked against
    msgspec's own output in tests/server/test_signature_fast_path.py.
    """
    scalars: dict[Any, JSONSchema] = {
        str: {"type": "string"},
        int: {"type": "integer"},
        float: {"type": "number"},
        bool: {"type": "boolean"},
    }
    table: dict[Any, JSONSchema] = {Any: {}, dict[str, Any]: {"type": "object"}}
    for tp, schema in scalars.items():
        table[tp] = schema
        table[list[tp]] = {"type": "array", "items": schema}  # type: ignore[valid-type]
        optional = {"anyOf": [schema, {"type": "null"}]}
        table[tp | None] = optional
        table[Union[tp, None]] = optional  # noqa: UP007  # typing.Optional spells it this way
    # Kept encoded: each tool decodes its own copy, so no two schemas share a nested object.
    return {tp: msgspec.json.encode(schema) for tp, schema in table.items()}


_PLAIN_SCHEMAS: Final = _plain_schemas()
_PLAIN_DECODE: Final = msgspec.json.Decoder(dict[str, Any]).decode


def _is_hashable(tp: Any) -> bool:
    try:
        hash(tp)
    except TypeError:  # e.g. Literal of an unhashable value, Annotated with a dict
        return False
    return True


def _define_struct(fields: Sequence[tuple[Any, ...]]) -> type[msgspec.Struct]:
    """The Struct that validates a call's arguments (one field per client-supplied parameter)."""
    return msgspec.defstruct(_ARGS_STRUCT_NAME, fields, forbid_unknown_fields=True, gc=False)


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _json_default(value: Any) -> tuple[bool, Any]:
    try:
        return True, msgspec.to_builtins(value, enc_hook=dump_model, str_keys=True)
    except (TypeError, NotImplementedError):
        return False, None


def analyze_function(
    fn: Callable[..., Any],
    *,
    ref_free: bool = False,
    skip_params: Callable[[Any], bool] | None = None,
    is_content: Callable[[Any], bool] | None = None,
    coerce_strings: bool = False,
) -> ToolSignature:
    """Derive a :class:`ToolSignature` from ``fn``'s signature, type hints and docstring.

    Args:
        fn: the tool function (sync or async; bound methods and partials work).
        ref_free: inline every ``$ref`` (for clients that cannot follow references); recursive
            types then raise :class:`UsageError`.
        skip_params: recognises injected parameter types (e.g. ``Context``); called with the
            annotation, its generic origin, and each non-None member of an Optional/union.
            Such parameters are left out of the schema; their names are in ``injected``.
        is_content: recognises content-block return types (also inside lists/unions); such a
            return type gets no output schema.
        coerce_strings: accept strings for numbers and booleans (prompt and URI-template
            arguments travel as strings).

    Raises :class:`UsageError` for anything that cannot become a schema (``*args``,
    positional-only parameters, unsupported types, unresolvable string annotations).
    """
    where = _describe(fn)
    try:
        params, return_annotation = read_signature(fn)
    except (NameError, SyntaxError) as exc:
        raise UsageError(f"{where}: cannot resolve a type annotation: {exc}") from None
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: cannot read the signature: {exc}") from None
    docs = parse_docstring(inspect.getdoc(fn))

    fields: list[tuple[Any, ...]] = []
    names: list[str] = []
    injected: list[str] = []
    required: list[str] = []
    descriptions: dict[str, str] = {}
    defaults: dict[str, Any] = {}
    pydantic_params: list[tuple[str, PydanticType]] = []
    fills: list[tuple[str, Callable[[], Any]]] = []
    plain_schemas: dict[str, bytes] = {}

    for param in params:
        pwhere = f"{where}, parameter {param.name!r}"
        if param.kind in (_Kind.VAR_POSITIONAL, _Kind.VAR_KEYWORD):
            raise UsageError(f"{pwhere}: *args/**kwargs cannot be described by a schema")
        if param.kind is _Kind.POSITIONAL_ONLY:
            raise UsageError(f"{pwhere}: positional-only parameters are not supported")
        if _is_injected(param.annotation, skip_params):
            injected.append(param.name)
            continue
        annotation = Any if param.annotation is _NO_DEFAULT else param.annotation
        default = param.default
        extra: tuple[Any, ...] = ()
        if _is_field_info(default):  # def f(x: int = Field(3, ge=1))
            extra = (default,)
            if default.is_required():
                default = _NO_DEFAULT
            elif default.default_factory is not None:
                fills.append((param.name, default.default_factory))
                default = _NO_DEFAULT
            else:
                fills.append((param.name, _constant(default.default)))
                default = default.default
        is_required = default is _NO_DEFAULT and not any(n == param.name for n, _ in fills)

        _, metadata = strip_annotated(annotation)
        meta = read_metadata((*metadata, *extra), where=pwhere) if metadata or extra else _NO_META
        description = meta.description or docs.params.get(param.name)
        if description:
            descriptions[param.name] = description
        if default is not _NO_DEFAULT:
            ok, encoded = _json_default(default)
            if ok:
                defaults[param.name] = encoded

        ftype = normalize(annotation, where=pwhere)
        if extra:
            extra_meta = read_metadata(extra, where=pwhere).metas
            if extra_meta:
                ftype = Annotated[(ftype, *extra_meta)]
        plain = _PLAIN_SCHEMAS.get(ftype) if _is_hashable(ftype) else None
        if plain is not None:
            plain_schemas[param.name] = plain
        elif classify(ftype, where=pwhere) == "pydantic":
            pydantic_params.append((param.name, PydanticType(annotation, where=pwhere)))
            ftype = Any
        names.append(param.name)
        if is_required:
            required.append(param.name)
            fields.append((param.name, ftype))
        else:
            fields.append((param.name, Union[ftype, msgspec.UnsetType], msgspec.UNSET))  # noqa: UP007

    struct: type[msgspec.Struct] | None = None
    defs: dict[str, JSONSchema] = {}
    if len(plain_schemas) == len(names):
        # Every parameter is a plain type: the schema comes from the table, and the Struct
        # (which cannot fail for these types) is built by the first call that needs it.
        root: JSONSchema = {"properties": {n: _PLAIN_DECODE(plain_schemas[n]) for n in names}}
    else:
        try:
            struct = _define_struct(fields)
            root, defs = msgspec_schema(struct)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{where}: cannot build an argument schema: {exc}") from None

    properties: dict[str, JSONSchema] = root.get("properties", {})
    for name, adapter in pydantic_params:
        pschema, pdefs = adapter.schema("validation")
        pschema.pop("title", None)
        properties[name] = pschema
        merge_defs(defs, pdefs, where=where)
    enums: dict[str, list[Any]] = {}
    for name in names:
        prop = properties.setdefault(name, {})
        if name in descriptions:
            prop.setdefault("description", descriptions[name])
        if name in defaults:
            prop["default"] = defaults[name]
        resolved = resolve_ref(prop, defs)
        if isinstance(resolved.get("enum"), list):
            enums[name] = resolved["enum"]
    input_schema: JSONSchema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    if defs:
        input_schema["$defs"] = defs
    if ref_free:
        input_schema = inline_refs(input_schema)

    output_schema, wrapped, mode, out_type, out_pyd = _analyze_return(
        return_annotation, where=where, is_content=is_content, ref_free=ref_free
    )
    return ToolSignature(
        input_schema=input_schema,
        output_schema=output_schema,
        output_wrapped=wrapped,
        parameters=tuple(names),
        injected=tuple(injected),
        description=docs.summary,
        struct=struct,
        fields=tuple(fields),
        strict=not coerce_strings,
        pydantic_params=tuple(pydantic_params),
        fills=tuple(fills),
        enums=enums,
        output_mode=mode,
        out_type=out_type,
        out_pydantic=out_pyd,
        where=where,
        annotations={
            **{p.name: p.annotation for p in params if p.annotation is not _NO_DEFAULT},
            "return": return_annotation,
        },
    )


def _analyze_return(
    annotation: Any,
    *,
    where: str,
    is_content: Callable[[Any], bool] | None,
    ref_free: bool,
) -> tuple[JSONSchema | None, bool, OutputMode, Any, PydanticType | None]:
    """``(output_schema, wrapped, mode, normalized type, pydantic adapter)`` for a return type."""
    rwhere = f"{where}, return annotation"
    base, _ = strip_annotated(annotation)
    if base in (_NO_DEFAULT, Any, str, None, type(None), object) or _is_content(
        annotation, is_content
    ):
        return None, False, "none", annotation, None
    out_type = normalize(annotation, where=rwhere)
    out_pyd: PydanticType | None = None
    if classify(out_type, where=rwhere) == "pydantic" or is_pydantic_type(base):
        out_pyd = PydanticType(annotation, where=rwhere)
        schema, defs = out_pyd.schema("serialization")
        mode: OutputMode = "pydantic"
    else:
        try:
            schema, defs = msgspec_schema(out_type)
        except (TypeError, ValueError) as exc:
            raise UsageError(f"{rwhere}: cannot build an output schema: {exc}") from None
        mode = "msgspec"
    wrapped = not is_object_schema(schema, defs)
    if wrapped:
        schema = {
            "type": "object",
            "properties": {WRAPPED_RESULT_KEY: schema},
            "required": [WRAPPED_RESULT_KEY],
        }
    if defs:
        schema["$defs"] = defs
    if ref_free:
        schema = inline_refs(schema)
    return schema, wrapped, mode, out_type, out_pyd
