"""Request-metadata headers of Streamable HTTP 2026-07-28: what clients send, what servers check.

A modern POST mirrors parts of its body into headers so that load balancers and gateways can route
without parsing JSON: ``MCP-Protocol-Version`` (= ``_meta`` version), ``Mcp-Method`` (= ``method``),
``Mcp-Name`` (= ``params.name`` / ``params.uri`` / ``params.taskId``) and one ``Mcp-Param-{Name}``
per tool argument annotated with ``x-mcp-header``. Because an intermediary may act on the headers
while the server acts on the body, the server MUST reject any disagreement (400 + -32020
``HeaderMismatch``); this module is both halves of that contract, as pure functions:

* :func:`encode_header_value` / :func:`decode_header_value` — the ``=?base64?...?=`` sentinel.
* :func:`lint_x_mcp_header` / :func:`header_params` / :func:`compile_header_params` — the
  annotation rules. A client drops a tool that breaks them; a server refuses to register it.
* :func:`request_headers` — the headers a client must send for a body.
* :func:`validate_request_headers` — the server's check, raising
  :class:`~mcpkit.protocol._errors.HeaderMismatch` with a message naming the header.

Compile a tool's annotations once (:func:`compile_header_params`) and pass the result where a
schema is accepted: the hot path then never walks a schema.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from mcpkit.protocol._errors import HeaderMismatch, UsageError
from mcpkit.protocol._meta import PROTOCOL_VERSION_KEY

__all__ = [
    "BASE64_PREFIX",
    "BASE64_SUFFIX",
    "MAX_SAFE_INTEGER",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PARAM_PREFIX",
    "MCP_PROTOCOL_VERSION_HEADER",
    "X_MCP_HEADER",
    "HeaderProblem",
    "InvalidHeaderValue",
    "ParamHeader",
    "ParamHeaders",
    "compile_header_params",
    "decode_header_value",
    "encode_header_value",
    "header_params",
    "lint_x_mcp_header",
    "name_source",
    "normalize_headers",
    "request_headers",
    "tool_header_problem",
    "validate_request_headers",
]

MCP_PROTOCOL_VERSION_HEADER: Final = "MCP-Protocol-Version"
MCP_METHOD_HEADER: Final = "Mcp-Method"
MCP_NAME_HEADER: Final = "Mcp-Name"
MCP_PARAM_PREFIX: Final = "Mcp-Param-"
X_MCP_HEADER: Final = "x-mcp-header"
_VERSION_KEY: Final = MCP_PROTOCOL_VERSION_HEADER.lower()
_METHOD_KEY: Final = MCP_METHOD_HEADER.lower()
_NAME_KEY: Final = MCP_NAME_HEADER.lower()
"""The headers' keys in normalised (lower-cased) headers, spelled once."""
_VERSION_SOURCE: Final = f"_meta.{PROTOCOL_VERSION_KEY}"

BASE64_PREFIX: Final = "=?base64?"
BASE64_SUFFIX: Final = "?="
MAX_SAFE_INTEGER: Final = 2**53 - 1
"""Integers mirrored into headers must survive a JavaScript ``Number`` (±(2^53 - 1))."""
MAX_SCHEMA_DEPTH: Final = 64
"""Schemas nested deeper than this are refused (they come from untrusted servers)."""
MAX_ECHOED_CHARS: Final = 80
"""How much of a received value an error message quotes."""

ParamType = Literal["string", "integer", "boolean"]

_NAME_FIELD: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    # Tasks extension (SEP-2663): exactly these three; 2025's tasks/result and tasks/list are
    # not 2026 methods, so a server answers them -32601 without asking for a header.
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
_TCHAR: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TCHAR_OR_SLASH: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z/]+")
"""What a method name may contain to travel in ``Mcp-Method`` (all MCP methods do)."""
_OWS: Final = " \t"
_NUMBER: Final = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_PRIMITIVES: Final[dict[str, ParamType]] = {
    "string": "string",
    "integer": "integer",
    "boolean": "boolean",
}
# Keywords whose value is one subschema, a list of subschemas, or a name -> subschema map. An
# annotation found under any of them is not statically reachable (only ``properties`` chains are).
_ONE: Final = frozenset(
    {
        "additionalProperties", "items", "contains", "propertyNames", "not", "if", "then", "else",
        "unevaluatedItems", "unevaluatedProperties", "additionalItems",
    }
)  # fmt: skip
_MANY: Final = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_MAP: Final = frozenset(
    {"patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)


class InvalidHeaderValue(ValueError):
    """A header value has characters HTTP forbids, or a broken ``=?base64?...?=`` payload."""


@dataclass(frozen=True, slots=True)
class HeaderProblem:
    """One broken ``x-mcp-header`` annotation: where (a JSON pointer) and why."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


@dataclass(frozen=True, slots=True)
class ParamHeader:
    """An annotated argument: its path under ``arguments``, its header and its declared type."""

    path: tuple[str, ...]
    header: str
    """The full header name, e.g. ``Mcp-Param-Region``."""
    type: ParamType


@dataclass(frozen=True, slots=True)
class ParamHeaders:
    """A tool's compiled annotations (see :func:`compile_header_params`); immutable and hashable."""

    params: tuple[ParamHeader, ...] = ()


_NO_PARAMS: Final = ParamHeaders()


def _quote(value: str) -> str:
    text = value if len(value) <= MAX_ECHOED_CHARS else value[:MAX_ECHOED_CHARS] + "..."
    return repr(text)


# ---------------------------------------------------------------------------------------------
# Value encoding
# ---------------------------------------------------------------------------------------------


def _is_plain(text: str) -> bool:
    """Whether ``text`` can travel as-is: visible ASCII or inner spaces, and not sentinel-like."""
    if text != text.strip(" "):
        return False
    if any(not (" " <= ch <= "~") for ch in text):
        return False
    return not (text.startswith(BASE64_PREFIX) and text.endswith(BASE64_SUFFIX))


def encode_header_value(value: str | int | bool) -> str:
    """The header form of an argument value: strings as-is, integers in decimal, ``true``/``false``.

    A string with non-ASCII or control characters (tab included), leading or trailing spaces, or
    that looks like the sentinel itself is sent as ``=?base64?<base64 of UTF-8>?=``. Integers
    outside the JavaScript-safe range raise :class:`~mcpkit.protocol._errors.UsageError`: the spec
    forbids them because intermediaries written in JavaScript would round them.
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise UsageError(
                f"integer {value} is outside the range a header may carry (±{MAX_SAFE_INTEGER})"
            )
        return str(value)
    if not isinstance(value, str):
        raise UsageError(
            f"only strings, integers and booleans can be header values, not {type(value).__name__}"
        )
    if _is_plain(value):
        return value
    return BASE64_PREFIX + base64.b64encode(value.encode("utf-8")).decode("ascii") + BASE64_SUFFIX


def decode_header_value(raw: str) -> str:
    """The value a header carries: optional whitespace trimmed, the base64 sentinel undone.

    Raises :class:`InvalidHeaderValue` for characters outside visible ASCII, space and tab, and for
    a sentinel whose payload is not canonical, padded base64 of UTF-8. A value missing either
    marker is a literal (``=?base64?abc`` means exactly that).
    """
    value = raw.strip(_OWS)
    if not (value.isascii() and value.isprintable()):  # visible ASCII and space pass at once
        for ch in value:
            if not (" " <= ch <= "~" or ch == "\t"):
                raise InvalidHeaderValue(f"character {ch!r} is not allowed in a header value")
    if not (
        len(value) >= len(BASE64_PREFIX) + len(BASE64_SUFFIX)
        and value.startswith(BASE64_PREFIX)
        and value.endswith(BASE64_SUFFIX)
    ):
        return value
    payload = value[len(BASE64_PREFIX) : -len(BASE64_SUFFIX)]
    try:
        decoded = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidHeaderValue(
            f"{_quote(payload)} is not valid padded base64 (alphabet A-Z a-z 0-9 + /, length a "
            "multiple of 4)"
        ) from None
    if base64.b64encode(decoded).decode("ascii") != payload:
        raise InvalidHeaderValue(f"{_quote(payload)} is not canonical base64")
    try:
        return decoded.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidHeaderValue("the base64 payload is not UTF-8 text") from None


# ---------------------------------------------------------------------------------------------
# x-mcp-header annotations
# ---------------------------------------------------------------------------------------------


def _param_type(schema: Mapping[str, Any]) -> ParamType | None:
    """The primitive type of an annotated property; ``["string", "null"]`` counts as string."""
    declared = schema.get("type")
    if isinstance(declared, list) and all(isinstance(t, str) for t in declared):
        kinds = [t for t in declared if t != "null"]
        if len(kinds) == 1 and len(set(declared)) == len(declared):
            declared = kinds[0]
    return _PRIMITIVES.get(declared) if isinstance(declared, str) else None


def _check_annotation(
    schema: Mapping[str, Any], pointer: str, reachable: bool, problems: list[HeaderProblem]
) -> None:
    name = schema[X_MCP_HEADER]
    if not reachable:
        problems.append(
            HeaderProblem(
                pointer,
                "x-mcp-header is only allowed on a property reached from the root through "
                "'properties' keys alone (not items, allOf/anyOf/oneOf/not, if/then/else, $defs "
                "or $ref)",
            )
        )
        return
    if not isinstance(name, str) or not name:
        problems.append(HeaderProblem(pointer, "x-mcp-header must be a non-empty string"))
        return
    if "\r" in name or "\n" in name:
        problems.append(HeaderProblem(pointer, "x-mcp-header must not contain CR or LF"))
    elif not _TCHAR.fullmatch(name):
        problems.append(
            HeaderProblem(
                pointer,
                f"x-mcp-header {_quote(name)} is not an HTTP token (letters, digits and "
                "!#$%&'*+-.^_`|~ only; no spaces, colons or non-ASCII)",
            )
        )
    kind = _param_type(schema)
    if kind is None:
        problems.append(
            HeaderProblem(
                pointer,
                f'x-mcp-header {_quote(name)} needs a property declaring "type": "string", '
                f'"integer" or "boolean" (got {schema.get("type", "no type")!r}; '
                "numbers, objects, arrays and null cannot be mirrored)",
            )
        )
    elif kind == "integer":
        declared = [schema.get("const"), schema.get("default")]
        if isinstance(schema.get("enum"), list):
            declared.extend(schema["enum"])
        problems.extend(
            HeaderProblem(pointer, f"{value} is outside the JavaScript-safe integer range")
            for value in declared
            if isinstance(value, int)
            and not isinstance(value, bool)
            and abs(value) > MAX_SAFE_INTEGER
        )


def _walk(
    schema: Any,
    pointer: str,
    reachable: bool,
    depth: int,
    found: list[tuple[tuple[str, ...], str, Mapping[str, Any]]],
    path: tuple[str, ...],
    problems: list[HeaderProblem],
) -> None:
    if not isinstance(schema, Mapping):
        return
    if depth > MAX_SCHEMA_DEPTH:
        problems.append(HeaderProblem(pointer, f"schema nested deeper than {MAX_SCHEMA_DEPTH}"))
        return
    if X_MCP_HEADER in schema:
        # The root is no property, so an annotation there is unreachable by definition.
        _check_annotation(schema, pointer, reachable and bool(path), problems)
        if reachable and path and isinstance(schema[X_MCP_HEADER], str):
            found.append((path, schema[X_MCP_HEADER], schema))
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for key, sub in properties.items():
            _walk(
                sub,
                f"{pointer}/properties/{_escape(key)}",
                reachable,
                depth + 1,
                found,
                (*path, key),
                problems,
            )
    for keyword, value in schema.items():
        here = f"{pointer}/{_escape(keyword)}"
        if keyword in _ONE and isinstance(value, Mapping):
            _walk(value, here, False, depth + 1, found, path, problems)
        if keyword in _MANY and isinstance(value, list):
            for i, sub in enumerate(value):
                _walk(sub, f"{here}/{i}", False, depth + 1, found, path, problems)
        if keyword in _MAP and isinstance(value, Mapping):
            for key, sub in value.items():
                _walk(sub, f"{here}/{_escape(key)}", False, depth + 1, found, path, problems)


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def _collect(
    input_schema: Any,
) -> tuple[list[HeaderProblem], list[tuple[tuple[str, ...], str, Mapping[str, Any]]]]:
    problems: list[HeaderProblem] = []
    found: list[tuple[tuple[str, ...], str, Mapping[str, Any]]] = []
    if not isinstance(input_schema, Mapping):
        return [HeaderProblem("", "inputSchema must be a JSON object")], found
    _walk(input_schema, "", True, 0, found, (), problems)
    seen: dict[str, str] = {}
    for path, name, _ in found:
        folded = name.lower()
        if folded in seen:
            problems.append(
                HeaderProblem(
                    "/properties/" + "/properties/".join(_escape(p) for p in path),
                    f"x-mcp-header {_quote(name)} repeats {_quote(seen[folded])}; names must be "
                    "unique within a tool, ignoring case",
                )
            )
        else:
            seen[folded] = name
    return problems, found


def lint_x_mcp_header(input_schema: Any) -> list[HeaderProblem]:
    """Every way the ``x-mcp-header`` annotations of a tool's ``inputSchema`` break the rules.

    An empty list means the tool is valid (a schema without annotations is trivially valid).
    """
    return _collect(input_schema)[0]


def tool_header_problem(input_schema: Any) -> str | None:
    """One line describing why a tool must be dropped (HTTP clients), or ``None`` if it is fine."""
    problems = lint_x_mcp_header(input_schema)
    return "; ".join(str(p) for p in problems) if problems else None


def compile_header_params(input_schema: Any) -> ParamHeaders:
    """A tool's annotations, checked and ready for :func:`request_headers` and validation.

    Raises :class:`~mcpkit.protocol._errors.UsageError` listing the problems when the annotations
    are invalid (a server must not register such a tool; a client must have dropped it).
    """
    problems, found = _collect(input_schema)
    if problems:
        raise UsageError("invalid x-mcp-header annotations: " + "; ".join(str(p) for p in problems))
    params = []
    for path, name, schema in found:
        kind = _param_type(schema)
        assert kind is not None  # guaranteed by the lint above
        params.append(ParamHeader(path, MCP_PARAM_PREFIX + name, kind))
    return ParamHeaders(tuple(params))


def header_params(input_schema: Any) -> dict[tuple[str, ...], str]:
    """Argument path (``("region",)``, ``("target", "zone")``) → header name (``Mcp-Param-...``).

    Raises :class:`~mcpkit.protocol._errors.UsageError` when the annotations are invalid.
    """
    return {p.path: p.header for p in compile_header_params(input_schema).params}


def _params_of(tool_input_schema: Mapping[str, Any] | ParamHeaders | None) -> ParamHeaders:
    if tool_input_schema is None:
        return _NO_PARAMS
    if isinstance(tool_input_schema, ParamHeaders):
        return tool_input_schema
    return compile_header_params(tool_input_schema)


# ---------------------------------------------------------------------------------------------
# Client side: which headers a body needs
# ---------------------------------------------------------------------------------------------


def name_source(method: str) -> str | None:
    """The ``params`` field ``Mcp-Name`` mirrors for ``method``, or ``None`` if it has none."""
    return _NAME_FIELD.get(method)


_MISSING: Final = object()


def _lookup(arguments: Any, path: tuple[str, ...]) -> Any:
    value = arguments
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _params(body: Mapping[str, Any]) -> Mapping[str, Any]:
    params = body.get("params")
    return params if type(params) is dict or isinstance(params, Mapping) else {}


def request_headers(
    body: Mapping[str, Any],
    *,
    protocol_version: str,
    tool_input_schema: Mapping[str, Any] | ParamHeaders | None = None,
) -> dict[str, str]:
    """The request-metadata headers a client must send with ``body`` (a request or notification).

    ``tool_input_schema`` is the called tool's ``inputSchema`` (or its compiled
    :class:`ParamHeaders`) for ``tools/call``; an argument that is absent or ``null`` gets no
    header. Raises :class:`~mcpkit.protocol._errors.UsageError` for values a header cannot carry (an
    object where the schema promised a string, an unsafe integer, a method with control
    characters).
    """
    method = body.get("method")
    if not isinstance(method, str) or not _TCHAR_OR_SLASH.fullmatch(method):
        raise UsageError(f"cannot mirror method {method!r} into the {MCP_METHOD_HEADER} header")
    headers = {MCP_PROTOCOL_VERSION_HEADER: protocol_version, MCP_METHOD_HEADER: method}
    params = _params(body)
    field = name_source(method)
    if field is not None and isinstance(params.get(field), str):
        headers[MCP_NAME_HEADER] = encode_header_value(params[field])
    if method == "tools/call":
        arguments = params.get("arguments")
        for param in _params_of(tool_input_schema).params:
            value = _lookup(arguments, param.path)
            if value is _MISSING or value is None:
                continue
            if isinstance(value, float):
                value = int(value) if value.is_integer() else repr(value)
            if not isinstance(value, str | int):
                raise UsageError(
                    f"argument {'.'.join(param.path)!r} is mirrored into {param.header}, so it "
                    f"must be a {param.type}, not {type(value).__name__}"
                )
            headers[param.header] = encode_header_value(value)
    return headers


# ---------------------------------------------------------------------------------------------
# Server side: do the headers agree with the body?
# ---------------------------------------------------------------------------------------------


class _Normalized(dict[str, str]):
    """What :func:`normalize_headers` returns: a plain dict it recognises when it gets it back.

    One POST passes its headers through several checks (media types, routing, the 2026 header
    validation), each of which accepts raw ASGI pairs too and so normalises its input; handing
    them the normalised dict makes every call after the first free (it was 4 passes per request).
    """

    __slots__ = ()


_DECODED: Final[dict[Any, tuple[str, str]]] = {}
"""Recent ASGI header pairs, decoded: a client sends the same headers on every request (all
but ``Content-Length``, usually), and decoding both halves costs more than one look-up."""
_DECODED_SIZE: Final = 512
_DECODED_MAX_BYTES: Final = 256
"""Longer pairs are decoded every time (the table stays small whatever clients send)."""


def _decode_pair(pair: tuple[bytes, bytes]) -> tuple[str, str]:
    """One ASGI header pair as ``(lower-cased name, value)``, remembered if it is short (and
    made of bytes: a pair of ``bytearray`` is decoded, but cannot be a key)."""
    raw_name, raw_value = pair
    decoded = (raw_name.decode("latin-1").lower(), raw_value.decode("latin-1"))
    if (
        type(pair) is tuple
        and type(raw_name) is bytes
        and type(raw_value) is bytes
        and len(raw_name) + len(raw_value) <= _DECODED_MAX_BYTES
    ):
        if len(_DECODED) >= _DECODED_SIZE:
            _DECODED.clear()
        _DECODED[pair] = decoded
    return decoded


def normalize_headers(
    headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]],
) -> dict[str, str]:
    """Lower-cased names → values, from a mapping or ASGI-style pairs (bytes read as Latin-1).

    A repeated ``Mcp-*`` header raises :class:`~mcpkit.protocol._errors.HeaderMismatch`: two
    copies could let an intermediary route on one while the server reads the other. Other repeated
    headers are joined with ``", "`` as HTTP list syntax allows. The result of an earlier call is
    returned as it is (treat it as read-only).
    """
    if type(headers) is _Normalized:
        return headers
    out: dict[str, str]
    if type(headers) is list:  # ASGI: byte pairs, usually no repeats
        known = _DECODED
        try:  # every pair seen before (a client repeats its headers): no Python-level loop
            seen: list[Any] = list(map(known.get, headers))
        except TypeError:  # an unhashable pair: the loop below
            seen = [None]
        if None not in seen:
            out = _Normalized(seen)
            if len(out) == len(seen):
                return out
            # (fewer names than pairs: one repeats, which the loops below handle)
        out = _Normalized()
        try:
            for pair in headers:
                decoded = known.get(pair) if type(pair) is tuple else None
                if decoded is None:
                    decoded = _decode_pair(pair)
                name, value = decoded
                if name in out:
                    break
                out[name] = value
            else:
                return out
        except AttributeError:  # a str among them: the general path below
            pass
        out.clear()
    else:
        out = _Normalized()
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    for raw_name, raw_value in pairs:
        name = (raw_name.decode("latin-1") if isinstance(raw_name, bytes) else raw_name).lower()
        value = raw_value.decode("latin-1") if isinstance(raw_value, bytes) else raw_value
        if name in out:
            if name.startswith("mcp-"):
                raise HeaderMismatch(
                    f"Header mismatch: the {name} header was sent more than once; send it once",
                    {"header": name},
                )
            out[name] = f"{out[name]}, {value}"
        else:
            out[name] = value
    return out


def _mismatch(header: str, message: str) -> HeaderMismatch:
    return HeaderMismatch(f"Header mismatch: {message}", {"header": header})


_VALUES: Final[dict[str, str]] = {}
"""Recent header values accepted by :func:`decode_header_value`, decoded: a client sends the
same ``Mcp-Name`` for every call of the same tool. A malformed value is never kept (it is
decoded, and refused, every time)."""
_VALUES_SIZE: Final = 512
_VALUES_MAX_CHARS: Final = 256
"""Longer values are decoded every time (the table stays small whatever clients send)."""


def _decoded(headers: Mapping[str, str], header: str, key: str | None = None) -> str | None:
    """``header``'s value decoded (:func:`decode_header_value`); ``key`` is its lower-cased name
    when the caller has it at hand."""
    raw = headers.get(key or header.lower())
    if raw is None:
        return None
    value = _VALUES.get(raw)
    if value is None:
        try:
            value = decode_header_value(raw)
        except InvalidHeaderValue as exc:
            raise _mismatch(header, f"the {header} header is malformed: {exc}") from None
        if len(raw) <= _VALUES_MAX_CHARS:
            if len(_VALUES) >= _VALUES_SIZE:
                _VALUES.clear()
            _VALUES[raw] = value
    return value


def _plain(headers: Mapping[str, str], header: str, key: str) -> str | None:
    """``header``'s value (``key``: its lower-cased name) trimmed; only visible ASCII may be in
    it (0x21-0x7E: ASCII, printable, no space)."""
    raw = headers.get(key)
    if raw is None:
        return None
    value = raw.strip(_OWS)
    if not (value.isascii() and value.isprintable()) or " " in value:
        raise _mismatch(header, f"the {header} header has characters outside visible ASCII")
    return value


def _require_equal(header: str, received: str | None, expected: str, source: str) -> None:
    if received is None:
        raise _mismatch(
            header, f"the {header} header is required and must be {_quote(expected)} ({source})"
        )
    if received != expected:
        raise _mismatch(
            header,
            f"{header} header value {_quote(received)} does not match body value "
            f"{_quote(expected)} ({source}); header values are case-sensitive",
        )


def _number_matches(header_value: str, body_value: float) -> bool:
    """Numeric equality (``42.0`` equals ``42``): exact for integers, as doubles otherwise."""
    if not _NUMBER.fullmatch(header_value):
        return False
    if isinstance(body_value, float) and not body_value.is_integer():
        return float(header_value) == body_value
    from decimal import Decimal, InvalidOperation

    try:
        return Decimal(header_value) == Decimal(int(body_value))
    except InvalidOperation:
        return False


def _check_param(headers: Mapping[str, str], param: ParamHeader, arguments: Any) -> None:
    header = param.header
    where = "arguments." + ".".join(param.path)
    value = _lookup(arguments, param.path)
    received = _decoded(headers, header)
    if value is _MISSING or value is None:
        if received is not None:
            raise _mismatch(
                header, f"the {header} header is present but {where} is absent or null; omit it"
            )
        return
    if received is None:
        raise _mismatch(
            header, f"{where} is in the body, so the {header} header is required and must match"
        )
    # Compare by the body value's JSON type: the header mirrors what the body says, and whether
    # that fits the declared type is the argument validator's call (an isError result).
    if isinstance(value, bool):
        ok = received == ("true" if value else "false")
    elif isinstance(value, int | float):
        ok = _number_matches(received, value)
    else:
        ok = isinstance(value, str) and received == value
    if not ok:
        raise _mismatch(
            header,
            f"{header} header value {_quote(received)} does not match body value "
            f"{_quote(str(value))} ({where}, declared {param.type})",
        )


def validate_request_headers(
    headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]],
    body: Mapping[str, Any],
    *,
    tool_input_schema: Mapping[str, Any] | ParamHeaders | None = None,
) -> None:
    """Check a modern POST's headers against its body; raise -32020 ``HeaderMismatch`` if not equal.

    Header names are matched case-insensitively, values case-sensitively after trimming optional
    whitespace; ``Mcp-Name`` and ``Mcp-Param-*`` are base64-decoded first and integers compare
    numerically (``42.0`` equals ``42``). For requests, ``MCP-Protocol-Version`` and ``Mcp-Method``
    are required, and ``Mcp-Name`` whenever the method has a name in the body. For notifications
    (whose header rules the spec leaves open) only headers that are present are compared. Pass the
    called tool's schema (or :class:`ParamHeaders`) to also check ``Mcp-Param-*``; a value present
    in the body needs its header, and a header for an absent or null value is rejected too.
    """
    params: Any = body.get("params")
    if not (type(params) is dict or isinstance(params, Mapping)):
        params = {}
    check_request_headers(
        normalize_headers(headers), body, params, tool_input_schema, version_checked=False
    )


def check_request_headers(
    lowered: Mapping[str, str],
    body: Mapping[str, Any],
    params: Mapping[str, Any],
    tool_input_schema: Mapping[str, Any] | ParamHeaders | None,
    *,
    version_checked: bool,
) -> None:
    """:func:`validate_request_headers` on what a router already has at hand: normalised headers,
    the body's ``params`` (a mapping: ``{}`` when it has none) and, with ``version_checked``, the
    ``MCP-Protocol-Version`` header already found equal to ``_meta``'s version.

    Each comparison that holds costs one ``!=``: the messages (and their f-strings) are built
    only for a header that disagrees.
    """
    is_request = "id" in body
    if not version_checked:
        meta: Any = params.get("_meta")
        is_map = type(meta) is dict or isinstance(meta, Mapping)  # (an ABC check costs more)
        version = meta.get(PROTOCOL_VERSION_KEY) if is_map else None
        received_version = _plain(lowered, MCP_PROTOCOL_VERSION_HEADER, _VERSION_KEY)
        if (
            isinstance(version, str)
            and (is_request or received_version is not None)
            and received_version != version
        ):
            _require_equal(MCP_PROTOCOL_VERSION_HEADER, received_version, version, _VERSION_SOURCE)

    method = body.get("method")
    if not isinstance(method, str):
        return
    received_method = _plain(lowered, MCP_METHOD_HEADER, _METHOD_KEY)
    if (is_request or received_method is not None) and received_method != method:
        _require_equal(MCP_METHOD_HEADER, received_method, method, "method")

    field = _NAME_FIELD.get(method)
    if field is not None:
        expected = params.get(field)
        received_name = _decoded(lowered, MCP_NAME_HEADER, _NAME_KEY)
        if isinstance(expected, str):
            if (is_request or received_name is not None) and received_name != expected:
                _require_equal(MCP_NAME_HEADER, received_name, expected, f"params.{field}")
        elif expected is None and received_name is not None:
            raise _mismatch(
                MCP_NAME_HEADER,
                f"the {MCP_NAME_HEADER} header is present but params.{field} is absent",
            )

    if method == "tools/call" and tool_input_schema is not None:
        arguments = params.get("arguments")
        for param in _params_of(tool_input_schema).params:
            _check_param(lowered, param, arguments)
