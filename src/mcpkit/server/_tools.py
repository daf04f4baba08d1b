"""Tools: a typed Python function becomes an MCP tool.

Everything a call needs — the input and output schemas, the argument validator, which parameter
receives the :class:`~mcpkit.server._context.Context` — is computed once, so a call costs one
validation pass plus the function itself: at registration, or, for a tool whose signature is
plain (see :class:`RegisteredTool`), at its first listing or call; whatever can be wrong with a
tool is refused at registration either way.

What comes back to the client:

* a tool's own failure (bad arguments, an exception, a timeout) is a ``CallToolResult`` with
  ``isError: true`` and a message the model can act on, never a crash or a protocol error;
* a ``str`` becomes one text block; content-block dicts (see :mod:`mcpkit.server.content`) pass
  through; a :class:`ToolResult` gives full control;
* anything with an output schema (dataclasses, TypedDicts, Structs, pydantic models, dicts,
  numbers, lists) becomes ``structuredContent`` plus its JSON text as a fallback block.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import types
import typing
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

import msgspec

from mcpkit.protocol._errors import JSONRPCError, UsageError
from mcpkit.server._context import Context, InputRequired
from mcpkit.server._names import validate_tool_name
from mcpkit.server._signature import ArgumentError
from mcpkit.types._jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.protocol._schema_dialects import CompiledSchema
    from mcpkit.server._signature import ToolSignature

logger = logging.getLogger("mcpkit.server")

__all__ = [
    "INTERNAL_ERROR_META",
    "ArgumentValidator",
    "Header",
    "RegisteredTool",
    "TaskStart",
    "TaskSupport",
    "ToolError",
    "ToolResult",
    "error_result",
]

TaskSupport = Literal["forbidden", "optional", "required"]
"""Whether calls may (``optional``) or must (``required``) run as tasks; see
:mod:`mcpkit.server.tasks`."""
TaskStart = Literal["immediate", "explicit"]
"""When a task call becomes a task: before the body runs, or at its ``start_task(ctx)``."""
_TASK_SUPPORT_VALUES: Final = ("forbidden", "optional", "required")
_TASK_START_VALUES: Final = ("immediate", "explicit")


class Header(msgspec.Struct, frozen=True):
    """Mirror a parameter into the ``Mcp-Param-{name}`` HTTP header (2026-07-28).

    ``def f(region: Annotated[str, Header("Region")])`` adds ``"x-mcp-header": "Region"`` to the
    property, so HTTP intermediaries can route on it without reading the body. Only string,
    integer and boolean parameters qualify; never annotate secrets.
    """

    name: str


def _apply_headers(hints: dict[str, Any], schema: JSONObject) -> None:
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for param, hint in hints.items():
        if param == "return" or typing.get_origin(hint) is not typing.Annotated:
            continue
        for extra in hint.__metadata__:
            if isinstance(extra, Header) and isinstance(properties.get(param), dict):
                # (imported here: the HTTP header module is not part of a stdio server's start)
                from mcpkit.protocol._http_headers import X_MCP_HEADER

                properties[param] = {**properties[param], X_MCP_HEADER: extra.name}


class ToolError(Exception):
    """Raise from a tool to return ``isError: true`` with exactly this message."""

    def __init__(self, message: str) -> None:
        if not isinstance(message, str):
            raise TypeError(
                f"ToolError(message): message must be a str, got {type(message).__name__} "
                f"{message!r}"
            )
        super().__init__(message)


class ToolResult(msgspec.Struct):
    """Full control over a tool's result."""

    content: list[JSONObject] = msgspec.field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False
    meta: JSONObject | None = None

    def to_wire(self) -> JSONObject:
        out: JSONObject = {"content": self.content}
        if self.structured_content is not None:
            out["structuredContent"] = self.structured_content
        if self.is_error:
            out["isError"] = True
        if self.meta:
            out["_meta"] = self.meta
        return out


def _is_context(tp: Any) -> bool:
    return tp is Context or (isinstance(tp, type) and issubclass(tp, Context))


def error_result(message: str) -> JSONObject:
    return {"content": [{"type": "text", "text": message}], "isError": True}


INTERNAL_ERROR_META: Final = "io.mcpkit/internalError"
"""``_meta`` key of an ``isError`` result made from an exception the tool did not mean to raise
(not a ``ToolError``): a REST facade in front hides its text by default."""


def _internal_error_result(tool: str, exc: BaseException, masked: bool) -> JSONObject:
    """The ``isError`` result of an unexpected exception: its text, or with ``masked`` (the
    server's ``mask_errors``) a generic one and a reference also written to the server's log."""
    if masked:
        import secrets  # here, not at import: it loads hashlib and OpenSSL, ~2 % of a start

        reference = secrets.token_hex(4)
        logger.error("tool %r failed: error reference %s", tool, reference)
        text = f"Error executing tool {tool}: internal error (reference {reference})"
    else:
        text = f"Error executing tool {tool}: {exc}"
    result = error_result(text)
    result["_meta"] = {INTERNAL_ERROR_META: True}
    return result


def _is_content_block(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("type"), str)
        and (value["type"] in ("text", "image", "audio", "resource", "resource_link"))
    )


_Options = tuple[
    str | None,  # title
    str | None,  # description
    "JSONObject | None",  # annotations
    "Sequence[JSONObject] | None",  # icons
    "JSONObject | None",  # meta
    bool | None,  # structured_output
    bool,  # ref_free
]
"""What a tool's definition is built from besides its function (kept until it is built)."""

_SCALARS: Final = {"str": str, "int": int, "float": float, "bool": bool}
_CO_PLAIN_EXCLUDED: Final = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS
_PLAIN_DEFAULT_TYPES: Final = frozenset({str, int, float, bool, type(None)})
_MISSING: Final[Any] = object()
_NO_RETURN: Final = (None, "None")  # a return annotation that needs no lookup


def _plain_annotations() -> tuple[dict[str, tuple[tuple[str, Any], ...]], frozenset[Any]]:
    """The annotations a plain tool may use: as source text (with the names the text looks up
    and what each must be) and as objects.

    They are the types whose schema :mod:`mcpkit.server._schema.signature` takes from its fixed
    table (``str``, ``int``, ``float``, ``bool``, their lists and optionals, ``Any``,
    ``dict[str, Any]``): no schema generator runs for them, so nothing about them can fail later.
    ``tests/server/test_tools_lazy.py`` checks that every one of them builds.
    """
    texts: dict[str, tuple[tuple[str, Any], ...]] = {
        "Any": (("Any", Any),),
        "dict[str, Any]": (("dict", dict), ("str", str), ("Any", Any)),
    }
    objects: set[Any] = {Any, dict[str, Any]}
    scalar_type: Any
    for text, scalar_type in _SCALARS.items():
        tp: Any = scalar_type
        scalar = ((text, tp),)
        texts[text] = scalar
        texts[f"list[{text}]"] = (("list", list), *scalar)
        texts[f"{text} | None"] = scalar
        texts[f"Optional[{text}]"] = (("Optional", typing.Optional), *scalar)
        optional = typing.Optional[tp]  # noqa: UP045  # what Optional[int] evaluates to
        objects.update((tp, list[tp], tp | None, optional))
    return texts, frozenset(objects)


_PLAIN_TEXTS, _PLAIN_OBJECTS = _plain_annotations()


def _is_plain_function(fn: Callable[..., Any]) -> bool:
    """Whether ``fn``'s schemas can be built later without any chance of failing.

    True for a plain function (no ``*args``/``**kwargs``, no positional-only parameters, no
    ``__wrapped__``/``__signature__``) whose parameters and return type are plain annotations
    (or none) and whose defaults are ``str``/``int``/``float``/``bool``/``None``. A few
    dictionary lookups per parameter (registering 1,000 tools must stay cheap); anything else
    is analysed at registration.
    """
    if type(fn) is not types.FunctionType:
        return False
    extra = fn.__dict__  # what functools.wraps or a __signature__ would have set
    if extra and ("__wrapped__" in extra or "__signature__" in extra):
        return False
    code = fn.__code__
    if code.co_flags & _CO_PLAIN_EXCLUDED or code.co_posonlyargcount:
        return False
    for default in fn.__defaults__ or ():
        if type(default) not in _PLAIN_DEFAULT_TYPES:
            return False
    if fn.__kwdefaults__:
        for default in fn.__kwdefaults__.values():
            if type(default) not in _PLAIN_DEFAULT_TYPES:
                return False
    # Annotation strings are evaluated in the function's module: the names they use must be
    # the builtins and typing objects the table means, not something the module rebound.
    namespace = fn.__globals__
    builtins = getattr(fn, "__builtins__", None)
    if not isinstance(builtins, dict):
        return False
    for name, annotation in fn.__annotations__.items():  # parameters without one are Any
        if type(annotation) is str:
            lookups = _PLAIN_TEXTS.get(annotation)
            if lookups is not None:
                for ident, expected in lookups:
                    value = namespace.get(ident, _MISSING)
                    if value is _MISSING:
                        value = builtins.get(ident, _MISSING)
                    if value is not expected:
                        return False
                continue
        else:
            try:
                if annotation in _PLAIN_OBJECTS:
                    continue
            except TypeError:  # unhashable
                return False
        if name != "return" or annotation not in _NO_RETURN:
            return False
    return True


def _hidden_from_model(meta: JSONObject) -> bool:
    from mcpkit.protocol._apps import visible_to_model

    return not visible_to_model({"_meta": meta})


def _with_optional_fields(
    definition: JSONObject,
    output_schema: JSONObject | None,
    annotations: Any,
    icons: Any,
    meta: Any,
) -> JSONObject:
    """``definition`` with the fields a tool lists only when set, in the schema's order (both
    ways of making a tool, from a signature and from given schemas, end here)."""
    if output_schema is not None:
        definition["outputSchema"] = output_schema
    if annotations:
        definition["annotations"] = annotations
    if icons:
        definition["icons"] = list(icons)
    if meta:
        definition["_meta"] = meta
    return definition


class RegisteredTool:
    """A tool as the server keeps it: its wire description and how to call it.

    A tool whose signature is plain (:func:`_is_plain_function`: parameters of the types whose
    schema is a fixed table, simple defaults, a plain return type) cannot fail to become a
    schema, so its definition, input and output schemas and validator are built by the first
    ``tools/list`` or call that needs them: a server with 1,000 such tools starts without
    building 1,000 schemas. Every other tool (and every hand-written ``input_schema``) is
    analysed here, so whatever can be wrong with a tool is still raised at registration.
    """

    __slots__ = (
        "_call_async",
        "_context_param",
        "_definition",
        "_pending",
        "_schema_validator",
        "_signature",
        "app_only",
        "fn",
        "name",
        "required_scopes",
        "task_start",
        "task_support",
        "timeout",
    )

    _pending: _Options | None
    """What registration deferred (a plain tool), built by the first listing or call."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: JSONObject | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
        timeout: float | None = None,
        structured_output: bool | None = None,
        ref_free: bool = False,
        required_scopes: Sequence[str] = (),
        input_schema: JSONObject | None = None,
        task_support: TaskSupport = "forbidden",
        task_start: TaskStart = "immediate",
    ) -> None:
        self._set_common(
            fn, name or fn.__name__, meta, timeout, required_scopes, task_support, task_start
        )
        options: _Options = (
            title,
            description,
            annotations,
            icons,
            meta,
            structured_output,
            ref_free,
        )
        if input_schema is None and structured_output is not True and _is_plain_function(fn):
            self._pending = options  # nothing left that could fail
            return
        self._build(options, input_schema)

    def _set_common(
        self,
        fn: Callable[..., Any],
        name: str,
        meta: JSONObject | None,
        timeout: float | None,
        required_scopes: Sequence[str],
        task_support: TaskSupport,
        task_start: TaskStart,
    ) -> None:
        """What every tool has, however it is declared (checked here, at registration)."""
        self.fn = fn
        self.name = name
        validate_tool_name(name)
        if task_support not in _TASK_SUPPORT_VALUES:
            raise UsageError(
                f"tool {name!r}: task_support must be one of {', '.join(_TASK_SUPPORT_VALUES)}"
            )
        if task_start not in _TASK_START_VALUES:
            raise UsageError(
                f"tool {name!r}: task_start must be one of {', '.join(_TASK_START_VALUES)}"
            )
        self.task_support: TaskSupport = task_support
        self.task_start: TaskStart = task_start
        self.timeout = timeout
        self.required_scopes = tuple(required_scopes)
        self.app_only = meta is not None and _hidden_from_model(meta)
        """MCP Apps: only an app may call it (``_meta.ui.visibility`` without ``"model"``)."""
        self._schema_validator: ArgumentValidator | None = None
        self._definition: JSONObject | None = None
        self._signature: ToolSignature | None = None
        self._context_param: str | None = None
        self._call_async = False
        self._pending = None

    @classmethod
    def from_schema(
        cls,
        fn: Callable[..., Any],
        *,
        name: str,
        input_schema: JSONObject,
        output_schema: JSONObject | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: JSONObject | None = None,
        icons: Sequence[JSONObject] | None = None,
        meta: JSONObject | None = None,
        timeout: float | None = None,
        required_scopes: Sequence[str] = (),
        task_support: TaskSupport = "forbidden",
        task_start: TaskStart = "immediate",
        validator: ArgumentValidator | None = None,
    ) -> RegisteredTool:
        """A tool declared by JSON Schema and a callable, not by a Python signature.

        For tools whose contract is data (generated from an OpenAPI document, loaded from a
        file, proxied): ``fn(**arguments)`` (sync or async) receives the arguments, validated
        against ``input_schema``, as keyword arguments. Nothing is read from ``fn``'s signature
        or docstring, so registering thousands of them stays cheap.

        ``input_schema`` (root ``type: object``) is checked and compiled here, once, as
        ``@server.tool(input_schema=...)`` does: its ``$schema`` dialect (2020-12 by default),
        local ``$ref``\\ s only; a broken schema is a :class:`UsageError` now, not at the first
        call. ``output_schema`` is published as the tool's ``outputSchema`` and checked here
        the same way; a value ``fn`` returns (other than a :class:`ToolResult`) becomes
        ``structuredContent`` and its JSON text.

        ``validator`` replaces the compiled check of the arguments with the caller's own (an
        :class:`ArgumentValidator`: a faster engine, or one compiled on first use for a
        document's worth of generated tools); the caller then vouches for both schemas, and
        only their shape (JSON objects, an object root) is checked here.
        """
        tool = cls.__new__(cls)
        tool._set_common(fn, name, meta, timeout, required_scopes, task_support, task_start)
        if not isinstance(input_schema, dict) or input_schema.get("type") != "object":
            raise UsageError(f"tool {name!r}: input_schema must have type 'object' at its root")
        if output_schema is not None and not isinstance(output_schema, dict):
            raise UsageError(f"tool {name!r}: output_schema must be a JSON object")
        if validator is None:
            validator = _compile_schema(name, input_schema)
            if output_schema is not None:
                _check_output_schema(name, output_schema)
        problem = _header_problem(input_schema)
        if problem is not None:  # HTTP clients would drop the tool: refuse it here instead
            raise UsageError(f"tool {name!r}: invalid x-mcp-header annotation: {problem}")
        tool._schema_validator = validator
        tool._call_async = inspect.iscoroutinefunction(inspect.unwrap(fn))
        definition: JSONObject = {"name": name}
        if title:
            definition["title"] = title
        if description:
            definition["description"] = description
        definition["inputSchema"] = input_schema
        tool._definition = _with_optional_fields(
            definition, output_schema, annotations, icons, meta
        )
        return tool

    def _complete(self) -> None:
        """Build what registration deferred (a plain tool's first listing or call)."""
        options = self._pending
        if options is not None:
            self._build(options, None)
            self._pending = None

    @property
    def definition(self) -> JSONObject:
        """The ``Tool`` object of ``tools/list`` (built on first use for a plain tool)."""
        if self._pending is not None:
            self._complete()
        assert self._definition is not None
        return self._definition

    @definition.setter
    def definition(self, value: JSONObject) -> None:
        self._definition = value

    @property
    def signature(self) -> ToolSignature:
        """What the function's signature says: schemas and the argument validator."""
        if self._pending is not None:
            self._complete()
        assert self._signature is not None
        return self._signature

    def _build(self, options: _Options, input_schema: JSONObject | None) -> None:
        from mcpkit.server._signature import analyze_function

        fn = self.fn
        title, description, annotations, icons, meta, structured_output, ref_free = options
        if input_schema is not None:
            # A hand-written schema (contract-first): validate with JSON Schema, pass the
            # arguments through as keyword arguments; the function may take **arguments.
            self._schema_validator = _compile_schema(self.name, input_schema)
            signature = analyze_function(
                _without_var_kwargs(fn), ref_free=ref_free, skip_params=_is_context
            )
        else:
            signature = analyze_function(fn, ref_free=ref_free, skip_params=_is_context)
        self._signature = signature
        self._context_param = signature.injected[0] if signature.injected else None
        target = inspect.unwrap(fn)
        self._call_async = inspect.iscoroutinefunction(target)
        doc = inspect.getdoc(fn)
        summary = description if description is not None else _summary(doc)
        definition: JSONObject = {"name": self.name}
        if title:
            definition["title"] = title
        if summary:
            definition["description"] = summary
        if input_schema is None:
            input_schema = dict(signature.input_schema)
            _apply_headers(signature.annotations, input_schema)
        problem = _header_problem(input_schema)
        if problem is not None:  # HTTP clients would drop the tool: refuse it here instead
            raise UsageError(f"tool {self.name!r}: invalid x-mcp-header annotation: {problem}")
        definition["inputSchema"] = input_schema
        output_schema = signature.output_schema
        own_result = _returns_tool_result(signature)  # never its class as an outputSchema
        raw_content = structured_output is None and _returns_raw_content(signature)
        if structured_output is False or raw_content or own_result:
            output_schema = None
        self._definition = _with_optional_fields(
            definition, output_schema, annotations, icons, meta
        )
        if structured_output is True and own_result:
            raise UsageError(
                f"tool {self.name!r}: a ToolResult says for itself what it carries (its "
                "structured_content); structured_output=True would publish the ToolResult class "
                "as the outputSchema: drop it, or return a typed value (a dataclass, TypedDict …)"
            )
        if structured_output is True and output_schema is None:
            raise UsageError(
                f"tool {self.name!r}: structured_output=True needs a return annotation "
                "with a JSON shape (a dataclass, TypedDict, model, dict, list or number)"
            )

    def wire(self, modern: bool) -> JSONObject:
        """The ``Tool`` object for ``tools/list`` (2025 requires an object output root)."""
        return self.definition

    async def call(self, arguments: JSONObject | None, ctx: Context) -> JSONObject:
        """Run the tool and build its ``CallToolResult``; failures become ``isError`` results."""
        if self._pending is not None:
            self._complete()
        if self._schema_validator is not None:
            problems = _schema_problems(self._schema_validator, arguments or {})
            if problems:
                return error_result(f"Invalid arguments: {problems}")
            values = dict(arguments or {})
        else:
            signature = self._signature  # (built: _pending is None by now)
            assert signature is not None
            try:
                values = signature.validate_arguments(arguments or {})
            except ArgumentError as exc:
                return error_result(str(exc.message))
        if self._context_param is not None:
            values[self._context_param] = ctx
        try:
            if self._call_async:
                coro = self.fn(**values)
            else:
                coro = asyncio.to_thread(functools.partial(self.fn, **values))
            if self.timeout is not None:
                value = await asyncio.wait_for(coro, self.timeout)
            else:
                value = await coro
        except InputRequired:
            raise
        except ToolError as exc:
            return error_result(str(exc))
        except TimeoutError as exc:
            if self.timeout is None:  # the body's own timeout, not ours
                logger.exception("tool %s raised", self.name)
                masked = bool(getattr(getattr(ctx, "server", None), "mask_errors", False))
                return _internal_error_result(self.name, exc or TimeoutError("timed out"), masked)
            return error_result(f"Tool {self.name!r} timed out after {self.timeout:g} s")
        except asyncio.CancelledError:
            raise
        except JSONRPCError:
            raise  # deliberate protocol errors (e.g. a missing client capability) stay errors
        except Exception as exc:
            logger.exception("tool %r raised (the client gets an isError result)", self.name)
            masked = bool(getattr(getattr(ctx, "server", None), "mask_errors", False))
            return _internal_error_result(self.name, exc, masked)
        return self._to_result(value)

    def _to_result(self, value: Any) -> JSONObject:
        if isinstance(value, ToolResult):
            return value.to_wire()
        definition = self._definition  # (built: only call() gets here)
        assert definition is not None
        if definition.get("outputSchema") is not None:
            if self._signature is None:  # declared by schema (from_schema): no annotation
                structured = _json_value(self.name, value)
                text = msgspec.json.encode(structured).decode()
                return {
                    "content": [{"type": "text", "text": text}],
                    "structuredContent": structured,
                }
            structured, text = self.signature.serialize_output(value)
            return {"content": [{"type": "text", "text": text}], "structuredContent": structured}
        if value is None:
            return {"content": []}
        if isinstance(value, str):
            return {"content": [{"type": "text", "text": value}]}
        if _is_content_block(value):
            return {"content": [value]}
        if isinstance(value, list | tuple) and all(_is_content_block(v) for v in value):
            return {"content": list(value)}
        if self._signature is None:
            text = _json_text(self.name, value)
        else:
            _, text = self.signature.serialize_output(value)
        return {"content": [{"type": "text", "text": text}]}


def _json_value(name: str, value: Any) -> Any:
    """A schema-declared tool's return value as JSON data (no annotation says how to convert)."""
    try:
        return msgspec.to_builtins(value, str_keys=True)
    except (TypeError, ValueError) as exc:
        from mcpkit.server._signature import InvalidToolOutput

        raise InvalidToolOutput(
            f"tool {name!r} returned {type(value).__qualname__}, which is not JSON data: {exc}"
        ) from None


def _json_text(name: str, value: Any) -> str:
    """A schema-declared tool's return value as JSON text (its only content block)."""
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError):
        return msgspec.json.encode(_json_value(name, value)).decode()  # raises the tool's error


def _check_output_schema(name: str, schema: JSONObject) -> None:
    """An ``output_schema`` given with :meth:`RegisteredTool.from_schema`, checked once."""
    from mcpkit.protocol._schema_dialects import SchemaProblem, compile_schema

    try:
        compile_schema(schema)
    except SchemaProblem as exc:
        raise UsageError(f"tool {name!r}: output_schema is not usable: {exc}") from None


def _header_problem(input_schema: JSONObject) -> str | None:
    """The x-mcp-header lint, run (and its module imported) only for schemas that use it."""
    import msgspec

    if b'"x-mcp-header"' not in msgspec.json.encode(input_schema):
        return None
    from mcpkit.protocol._http_headers import tool_header_problem

    return tool_header_problem(input_schema)


class ArgumentValidator(typing.Protocol):
    """What checks the arguments of a tool declared by a JSON Schema.

    :class:`~mcpkit.protocol.CompiledSchema` is one (what ``input_schema=`` compiles to); a
    caller with its own validator (a faster engine, one compiled on first use for thousands of
    generated tools) passes it to :meth:`RegisteredTool.from_schema`.
    """

    def errors(self, value: Any) -> list[tuple[str, str]]:
        """Every ``(json_path, message)`` problem of ``value`` (``$.a[0].b``), ``[]`` if valid."""
        ...


def _compile_schema(name: str, schema: JSONObject) -> CompiledSchema:
    """A hand-written ``input_schema``, compiled once at registration.

    Its ``$schema`` dialect is honoured (2020-12 when absent) and an unknown one refused here,
    not at the first call; only local ``$ref``\\ s resolve, never a URL (see
    :mod:`mcpkit.protocol._schema_dialects`, which the client uses for ``outputSchema`` too).
    """
    from mcpkit.protocol._schema_dialects import SchemaProblem, compile_schema, external_refs

    if schema.get("type") != "object":
        raise UsageError(f"tool {name!r}: input_schema must have type 'object' at its root")
    remote = external_refs(schema)
    if remote:
        raise UsageError(
            f"tool {name!r}: input_schema refers to {remote[0]!r}, outside the schema; "
            "references are never fetched, so put the definition under $defs"
        )
    try:
        return compile_schema(schema)
    except SchemaProblem as exc:
        raise UsageError(f"tool {name!r}: input_schema is not usable: {exc}") from None


def _schema_problems(compiled: ArgumentValidator, arguments: JSONObject) -> str:
    parts = []
    for path, message in compiled.errors(arguments)[:5]:
        where = path[2:] if path.startswith("$.") else path[1:]
        parts.append(f"`{where}`: {message}" if where else message)
    return "; ".join(parts)


def _without_var_kwargs(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A stand-in whose signature drops ``**kwargs`` so the rest can still be analysed."""
    signature = inspect.signature(fn)
    hints = typing.get_type_hints(fn, include_extras=True)  # resolved in fn's own module
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.kind is not p.VAR_KEYWORD
    ]
    resolved = signature.replace(
        parameters=params, return_annotation=hints.get("return", signature.return_annotation)
    )

    def stand_in(*args: Any, **kwargs: Any) -> Any:  # never called
        raise AssertionError

    stand_in.__signature__ = resolved  # type: ignore[attr-defined]
    stand_in.__annotations__ = {p.name: p.annotation for p in params} | {
        "return": resolved.return_annotation
    }
    stand_in.__name__ = fn.__name__
    stand_in.__doc__ = fn.__doc__
    return stand_in


_RAW_CONTENT_ANNOTATIONS: Final = (
    dict,
    dict[str, Any],
    list[dict[str, Any]],
    list[dict],  # type: ignore[type-arg]
)


def _returns_tool_result(signature: ToolSignature) -> bool:
    """The function is annotated to return a :class:`ToolResult` (or an optional one)."""
    returned = signature.annotations.get("return")
    if typing.get_origin(returned) is typing.Annotated:
        returned = typing.get_args(returned)[0]
    return returned is ToolResult or ToolResult in typing.get_args(returned)


def _returns_raw_content(signature: ToolSignature) -> bool:
    """Untyped dicts (or lists of them) are content blocks, not structured output; a
    :class:`ToolResult` says for itself what it carries.

    Structured output wants a shape: a TypedDict, dataclass, Struct or model. A bare
    ``dict[str, Any]`` says nothing a schema could promise, and is how content blocks from
    :mod:`mcpkit.server.content` are typed.
    """
    returned = signature.annotations.get("return")
    if typing.get_origin(returned) is typing.Annotated:
        returned = typing.get_args(returned)[0]
    return returned in _RAW_CONTENT_ANNOTATIONS or returned is ToolResult


def _summary(doc: str | None) -> str | None:
    """The docstring up to its parameter section (which feeds the schema instead)."""
    if not doc:
        return None
    lines: list[str] = []
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.rstrip(":") in ("Args", "Arguments", "Parameters", "Returns", "Raises") or (
            stripped.startswith(":param")
        ):
            break
        lines.append(line)
    text = "\n".join(lines).strip()
    return text or None
