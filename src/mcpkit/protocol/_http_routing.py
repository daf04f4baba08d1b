"""Which era, and which path, one Streamable HTTP request takes on a (dual-era) server.

A server that speaks both eras on one endpoint decides per request (spec: basic/versioning,
"dual-era"), from the HTTP method, a few headers and the decoded body:

* ``initialize`` → the legacy handshake (:attr:`RouteKind.LEGACY_INITIALIZE`);
* a legacy ``MCP-Protocol-Version`` header, or an ``Mcp-Session-Id``, → an existing legacy
  session (:attr:`RouteKind.LEGACY_SESSION`);
* ``_meta.io.modelcontextprotocol/protocolVersion`` in the body → the stateless modern path
  (:attr:`RouteKind.MODERN`), after the full header/body validation;
* anything else that is wrong → :attr:`RouteKind.ERROR` with the HTTP status and the JSON-RPC
  error to send (:class:`HttpRejection`).

The order of the modern checks matters to clients: a missing ``_meta`` version is -32602, a
header/``_meta`` disagreement -32020, an unsupported version -32022 (so a newer client learns what
to retry with before anything else is judged), the rest of ``_meta`` -32602, then the mirrored
headers -32020. All four come with HTTP 400, which a dual-era client reads as "this server is
modern". Also here: the media-type checks (406/415), GET/DELETE per era (405 when modern-only),
the HTTP status of a JSON-RPC error per era, and session ids.

Call order in a server: :func:`check_media` (before reading the body), decode the body,
:func:`route_request`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import msgspec

from mcpkit.protocol._errors import (
    HEADER_MISMATCH,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
    HeaderMismatch,
    InvalidRequest,
    JSONRPCError,
    UsageError,
)
from mcpkit.protocol._http_headers import (
    MCP_PROTOCOL_VERSION_HEADER,
    ParamHeaders,
    check_request_headers,
    normalize_headers,
)
from mcpkit.protocol._meta import PROTOCOL_VERSION_KEY, RequestMeta, parse_request_meta
from mcpkit.protocol._versions import check_modern_version, unsupported_version_error
from mcpkit.types._jsonrpc import ErrorResponse, RequestId
from mcpkit.types._versions import (
    ALL_VERSIONS,
    DEFAULT_HTTP_LEGACY_VERSION,
    Era,
    is_legacy,
    is_modern,
)

__all__ = [
    "LAST_EVENT_ID_HEADER",
    "MAX_SESSION_ID_LENGTH",
    "MCP_SESSION_ID_HEADER",
    "SESSION_ID_BYTES",
    "SSE_RESPONSE_HEADERS",
    "HttpRejection",
    "Route",
    "RouteKind",
    "check_media",
    "is_valid_session_id",
    "new_session_id",
    "route_request",
    "session_version_error",
    "status_for_error",
]

MCP_SESSION_ID_HEADER: Final = "Mcp-Session-Id"
LAST_EVENT_ID_HEADER: Final = "Last-Event-ID"
SESSION_ID_BYTES: Final = 32
"""Entropy of a minted session id (256 bits, URL-safe base64: 43 characters)."""
MAX_SESSION_ID_LENGTH: Final = 128
"""Longer ``Mcp-Session-Id`` values are refused before any lookup."""
SSE_RESPONSE_HEADERS: Final[tuple[tuple[str, str], ...]] = (
    ("content-type", "text/event-stream"),
    ("cache-control", "no-cache"),
    ("x-accel-buffering", "no"),
)
"""Headers of every SSE response; ``X-Accel-Buffering: no`` stops nginx from holding events."""

_JSON: Final = "application/json"
_SSE: Final = "text/event-stream"

ToolHeadersLookup = Callable[[str], Mapping[str, Any] | ParamHeaders | None]
"""Tool name → its ``inputSchema`` (or compiled :class:`ParamHeaders`), ``None`` if unknown."""


class RouteKind(enum.Enum):
    LEGACY_INITIALIZE = "legacy-initialize"
    """An ``initialize`` request: start a legacy session (mint ``Mcp-Session-Id`` if stateful)."""
    LEGACY_SESSION = "legacy-session"
    """A message for an existing legacy session (look up ``session_id``; 404 if unknown)."""
    MODERN = "modern"
    """A stateless 2026-07-28 message whose headers and ``_meta`` have been validated."""
    ERROR = "error"
    """Refuse the request with :attr:`Route.rejection`."""


@dataclass(frozen=True, slots=True)
class HttpRejection:
    """An HTTP error answer: the status, the JSON-RPC error for the body, extra headers."""

    status: int
    error: JSONRPCError
    headers: tuple[tuple[str, str], ...] = ()

    def response(self, request_id: RequestId | None = None) -> ErrorResponse:
        """The body to send (its ``id`` is the request's when it could be read, else none)."""
        return ErrorResponse(id=request_id, error=self.error.to_error_object())


class Route(msgspec.Struct, frozen=True):
    """Where one request goes. Only the fields that apply to ``kind`` are set.

    ``protocol_version`` is the version to speak: the ``_meta`` version (modern), the header's
    (legacy; ``2025-03-26`` when a legacy request has none, though a server that knows the
    session's negotiated version should prefer that), or the version ``initialize`` asks for.

    A frozen struct rather than a frozen dataclass: every request makes one, and a frozen
    dataclass sets each field through ``object.__setattr__`` (~12 k instructions per route,
    more than the rest of routing a legacy request; callgrind).
    """

    kind: RouteKind
    protocol_version: str | None = None
    session_id: str | None = None
    last_event_id: str | None = None
    meta: RequestMeta | None = None
    """The parsed ``_meta`` of a modern request (not of a notification), so it is read once."""
    rejection: HttpRejection | None = None

    @staticmethod
    def error(status: int, error: JSONRPCError, *headers: tuple[str, str]) -> Route:
        return Route(RouteKind.ERROR, rejection=HttpRejection(status, error, headers))


def new_session_id() -> str:
    """A fresh, unguessable session id (only visible ASCII, as the spec requires)."""
    import secrets

    return secrets.token_urlsafe(SESSION_ID_BYTES)


def is_valid_session_id(value: str) -> bool:
    """Whether ``value`` could be a session id: 1..128 characters of visible ASCII (0x21-0x7E)."""
    # ASCII, no control character (isprintable) and no space: exactly 0x21-0x7E
    return (
        0 < len(value) <= MAX_SESSION_ID_LENGTH
        and value.isascii()
        and value.isprintable()
        and " " not in value
    )


def status_for_error(code: int, era: Era) -> int:
    """The HTTP status of a JSON-RPC error answered directly (not inside an SSE stream).

    Both eras: -32700 (unreadable body) and -32600 (not a valid message) → 400. Modern only:
    -32020, -32021, -32022 → 400 and -32601 (unknown method) → 404, whose JSON-RPC body tells it
    apart from a 404 of a server without the endpoint. Everything else is an ordinary answer
    (200): a legacy client reads the error from the body, and a 4xx would hide it from some
    clients. Note that a *missing ``_meta``* (-32602) is a 400, but -32602 in general is not:
    :func:`route_request` sets that status itself.
    """
    if code in (PARSE_ERROR, INVALID_REQUEST):
        return 400
    if era == "modern":
        if code in (
            HEADER_MISMATCH,
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            UNSUPPORTED_PROTOCOL_VERSION,
        ):
            return 400
        if code == METHOD_NOT_FOUND:
            return 404
    return 200


# ---------------------------------------------------------------------------------------------
# Media types
# ---------------------------------------------------------------------------------------------


_ACCEPTS_CACHE: Final[dict[tuple[str, str], bool]] = {}
"""Answers of :func:`_accepts` for recent ``Accept`` values: a client sends the same one on
every request, and parsing it costs more than the rest of the media checks."""
_ACCEPTS_CACHE_SIZE: Final = 256
_ACCEPTS_CACHED_LENGTH: Final = 256
"""Longer values are parsed every time (the cache stays small whatever clients send)."""


def _accepts(accept: str, wanted: str) -> bool:
    """Whether an ``Accept`` value admits ``wanted``: the most specific matching range decides,
    and ``q=0`` on it refuses (RFC 9110 §12.5.1)."""
    if len(accept) > _ACCEPTS_CACHED_LENGTH:
        return _parse_accepts(accept, wanted)
    key = (accept, wanted)
    known = _ACCEPTS_CACHE.get(key)
    if known is None:
        if len(_ACCEPTS_CACHE) >= _ACCEPTS_CACHE_SIZE:
            _ACCEPTS_CACHE.clear()
        known = _ACCEPTS_CACHE[key] = _parse_accepts(accept, wanted)
    return known


def _parse_accepts(accept: str, wanted: str) -> bool:
    major = wanted.split("/", 1)[0]
    best: tuple[int, bool] | None = None  # (specificity, acceptable)
    for item in accept.split(","):
        media, _, params = item.partition(";")
        media = media.strip().lower()
        specificity = {wanted: 2, f"{major}/*": 1, "*/*": 0}.get(media)
        if specificity is None or (best is not None and best[0] >= specificity):
            continue
        acceptable = True
        for param in params.split(";"):
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    acceptable = float(value.strip()) > 0
                except ValueError:
                    acceptable = False
        best = (specificity, acceptable)
    return best is not None and best[1]


def check_media(
    http_method: str, headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]]
) -> HttpRejection | None:
    """The 406/415 checks, done before the body is read.

    POST: ``Content-Type`` must be ``application/json`` (415 otherwise) and ``Accept`` must admit
    both ``application/json`` and ``text/event-stream`` (406). GET: ``Accept`` must admit
    ``text/event-stream``. A request without ``Accept`` accepts anything (RFC 9110 §12.5.1), so
    ``curl`` works; wildcards like ``*/*`` count.
    """
    h = normalize_headers(headers)
    method = http_method.upper()
    accept = h.get("accept")
    if method == "POST":
        content_type = h.get("content-type", "").partition(";")[0].strip().lower()
        if content_type != _JSON:
            return HttpRejection(
                415,
                InvalidRequest(
                    f"Unsupported Media Type: send the JSON-RPC message with "
                    f"'Content-Type: {_JSON}' (got {content_type or 'none'!r})"
                ),
            )
        if accept is not None and not (_accepts(accept, _JSON) and _accepts(accept, _SSE)):
            return HttpRejection(
                406,
                InvalidRequest(
                    f"Not Acceptable: the Accept header must list both {_JSON} and {_SSE} "
                    f"(got {accept[:100]!r})"
                ),
            )
    elif method == "GET" and accept is not None and not _accepts(accept, _SSE):
        return HttpRejection(
            406,
            InvalidRequest(f"Not Acceptable: a GET stream needs 'Accept: {_SSE}' (got {accept!r})"),
        )
    return None


# ---------------------------------------------------------------------------------------------
# Routing
# ---------------------------------------------------------------------------------------------


_VERSION_KEY: Final = MCP_PROTOCOL_VERSION_HEADER.lower()
_SESSION_KEY: Final = MCP_SESSION_ID_HEADER.lower()
_LAST_EVENT_KEY: Final = LAST_EVENT_ID_HEADER.lower()
"""Header keys as they are in normalised (lower-cased) headers, spelled once."""


def _header(h: Mapping[str, str], key: str) -> str | None:
    """A header's value, trimmed; ``key`` is its lower-cased name."""
    value = h.get(key)
    return None if value is None else value.strip(" \t")


_ERAS: Final[dict[tuple[str, ...], tuple[bool, bool]]] = {}
"""``(legacy_ok, modern_ok)`` per tuple of supported versions: a server passes the same tuple on
every request, so its eras are worked out once."""


def _eras(supported: Sequence[str]) -> tuple[bool, bool]:
    """``(legacy_ok, modern_ok)`` for a server speaking ``supported``; a
    :class:`~mcpkit.protocol._errors.UsageError` when it names no known version."""
    known = _ERAS.get(supported) if type(supported) is tuple else None
    if known is None:
        known = (any(is_legacy(v) for v in supported), any(is_modern(v) for v in supported))
        if not (known[0] or known[1]):
            raise UsageError(f"supported_versions names no known protocol version: {supported}")
        if type(supported) is tuple and len(_ERAS) < 64:
            _ERAS[supported] = known
    return known


def _legacy(
    h: Mapping[str, str],
    supported: Sequence[str],
    modern_ok: bool,
    *,
    last_event_id: str | None = None,
    version: str | None = None,
) -> Route:
    """An existing legacy session: check the session id's shape and the version header
    (``version``: its trimmed value when the caller read it already)."""
    session_id = _header(h, _SESSION_KEY)
    if session_id is not None and not is_valid_session_id(session_id):
        return Route.error(
            400,
            InvalidRequest(
                f"Malformed {MCP_SESSION_ID_HEADER}: it must be 1-{MAX_SESSION_ID_LENGTH} visible "
                "ASCII characters, exactly as the server issued it"
            ),
        )
    if version is None:
        version = _header(h, _VERSION_KEY)
    if version is None:
        version = DEFAULT_HTTP_LEGACY_VERSION
    elif not (is_legacy(version) and version in supported):
        return _bad_version(version, supported, modern_ok)
    return Route(
        RouteKind.LEGACY_SESSION,
        protocol_version=version,
        session_id=session_id,
        last_event_id=last_event_id,
    )


def _bad_version(version: str, supported: Sequence[str], modern_ok: bool) -> Route:
    """400 for an unknown or unsupported ``MCP-Protocol-Version`` header.

    A server that speaks modern answers -32022 with ``supported``; a legacy-only server must not
    (a dual-era client would take a recognised modern error to mean "modern, do not fall back").
    """
    if modern_ok:
        return Route.error(400, unsupported_version_error(version, supported))
    listed = sorted(supported, reverse=True)
    return Route.error(
        400,
        InvalidRequest(
            f"Unsupported {MCP_PROTOCOL_VERSION_HEADER} {version[:40]!r}: send the version "
            f"negotiated by initialize (this server supports {', '.join(listed)})",
            {"supported": listed, "requested": version},
        ),
    )


def _modern(
    h: Mapping[str, str],
    body: Mapping[str, Any],
    params: Any,
    meta: Any,
    header_version: str | None,
    supported: Sequence[str],
    tool_headers: ToolHeadersLookup | None,
) -> Route:
    """The modern checks, in the order clients rely on (module docstring); ``params`` and
    ``meta`` are the body's (``None`` when absent or not objects), ``header_version`` the
    trimmed ``MCP-Protocol-Version`` header, as :func:`route_request` read them."""
    version = meta.get(PROTOCOL_VERSION_KEY) if meta is not None else None
    try:
        if version is None:
            parse_request_meta(body.get("params"))  # raises -32602 naming what is missing
        if header_version is None:
            raise HeaderMismatch(
                f"Header mismatch: the {MCP_PROTOCOL_VERSION_HEADER} header is required and must "
                f"equal _meta.{PROTOCOL_VERSION_KEY} ({str(version)[:40]!r})",
                {"header": MCP_PROTOCOL_VERSION_HEADER},
            )
        if header_version != version:
            raise HeaderMismatch(
                f"Header mismatch: {MCP_PROTOCOL_VERSION_HEADER} header value "
                f"{header_version[:40]!r} does not match body value {str(version)[:40]!r} "
                f"(_meta.{PROTOCOL_VERSION_KEY})",
                {"header": MCP_PROTOCOL_VERSION_HEADER},
            )
        check_modern_version(version, supported)
        # Requests must carry the whole _meta; a notification (none is defined for HTTP) only
        # needs the version that routed it here.
        parsed = parse_request_meta(params) if "id" in body else None
        schema = None
        method = body.get("method")
        if tool_headers is not None and method == "tools/call":
            name = params.get("name") if params is not None else None
            schema = tool_headers(name) if isinstance(name, str) else None
        # (the version header was compared just above: the header checks skip it)
        check_request_headers(
            h, body, params if params is not None else {}, schema, version_checked=True
        )
    except JSONRPCError as exc:
        return Route.error(400, exc)
    return Route(RouteKind.MODERN, protocol_version=version, meta=parsed)


def session_version_error(negotiated: str | None, header: str | None) -> JSONRPCError | None:
    """The error for a legacy session's request whose ``MCP-Protocol-Version`` header names
    another revision than the session negotiated, or ``None`` when it may be served.

    The spec has the client repeat the negotiated revision on every request of the session, so
    a request naming another one was built for a different conversation: 400 with -32600, the
    message naming the revision to send. A missing header is fine (a 2025-03-26 client sends
    none, and the session knows its revision), and so is a session that negotiated nothing yet.
    ``header`` is the raw value; it is compared stripped.
    """
    if header is None or negotiated is None:
        return None
    sent = header.strip(" \t")
    if sent == negotiated:
        return None
    return InvalidRequest(
        f"Bad Request: this session negotiated protocol version {negotiated}; "
        f"send {MCP_PROTOCOL_VERSION_HEADER}: {negotiated} (got {sent[:40]!r})"
    )


def _method_not_allowed(http_method: str, legacy_ok: bool, why: str) -> Route:
    allow = "GET, POST, DELETE" if legacy_ok else "POST"
    return Route.error(
        405,
        InvalidRequest(f"Method Not Allowed: {http_method} {why}; this endpoint allows {allow}"),
        ("allow", allow),
    )


def route_request(
    http_method: str,
    headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]],
    body: Any = None,
    *,
    supported_versions: Sequence[str] = ALL_VERSIONS,
    tool_headers: ToolHeadersLookup | None = None,
) -> Route:
    """Decide the path of one request to the MCP endpoint.

    ``body`` is the decoded JSON of a POST (ignored for GET/DELETE). ``supported_versions`` says
    which eras the server speaks: with no legacy version, GET/DELETE get 405, session ids are
    ignored and ``initialize`` gets 400 + -32022 naming the supported versions; with no modern
    version, modern requests get 400. ``tool_headers`` looks up a tool's schema so ``tools/call``
    also has its ``Mcp-Param-*`` headers checked (an unknown tool skips that; the dispatcher then
    answers -32602). A status of 400/404/405 always comes with a JSON-RPC error body.
    """
    legacy_ok, modern_ok = _eras(supported_versions)
    try:
        h = normalize_headers(headers)
    except HeaderMismatch as exc:
        return Route.error(400, exc)
    method = http_method.upper()
    if method == "POST":
        return route_post(h, body, supported_versions=supported_versions, tool_headers=tool_headers)
    if method in ("GET", "DELETE"):
        if not legacy_ok:
            return _method_not_allowed(method, False, "is not part of protocol 2026-07-28")
        version = _header(h, _VERSION_KEY)
        if version is not None and is_modern(version):
            return _method_not_allowed(
                method, True, f"has no meaning in protocol {version} (send POST requests)"
            )
        last = _header(h, _LAST_EVENT_KEY) if method == "GET" else None
        return _legacy(h, supported_versions, modern_ok, last_event_id=last)
    return _method_not_allowed(method, legacy_ok, "is not supported")


def route_post(
    h: Mapping[str, str],
    body: Any,
    *,
    supported_versions: Sequence[str] = ALL_VERSIONS,
    tool_headers: ToolHeadersLookup | None = None,
) -> Route:
    """:func:`route_request` for a POST whose headers are normalised already (``h``, as
    :func:`~mcpkit.protocol._http_headers.normalize_headers` returns them): what a server that
    normalised them for its own checks calls, so they are not looked at again."""
    legacy_ok, modern_ok = _eras(supported_versions)
    if not (type(body) is dict or isinstance(body, Mapping)):
        return Route.error(
            400,
            InvalidRequest(
                "Invalid Request: the POST body must be one JSON-RPC message object "
                "(batches are not supported)"
            ),
        )
    rpc_method = body.get("method")
    if not isinstance(rpc_method, str):
        if "id" in body and ("result" in body or "error" in body):
            if legacy_ok and (
                _header(h, _SESSION_KEY) is not None
                or not is_modern(_header(h, _VERSION_KEY) or "")
            ):
                return _legacy(h, supported_versions, modern_ok)
            return Route.error(
                400,
                InvalidRequest("Invalid Request: clients must not send responses in 2026-07-28"),
            )
        return Route.error(
            400, InvalidRequest("Invalid Request: the body is not a JSON-RPC request")
        )

    params: Any = body.get("params")
    if not (type(params) is dict or isinstance(params, Mapping)):
        params = None
    if rpc_method == "initialize":
        requested = params.get("protocolVersion") if params is not None else None
        if not legacy_ok:
            shown = requested if isinstance(requested, str) else "none"
            return Route.error(400, unsupported_version_error(shown, supported_versions))
        return Route(
            RouteKind.LEGACY_INITIALIZE,
            protocol_version=requested if isinstance(requested, str) else None,
            session_id=_header(h, _SESSION_KEY),
        )

    header_version = _header(h, _VERSION_KEY)
    meta: Any = params.get("_meta") if params is not None else None
    if meta is not None and type(meta) is not dict and not isinstance(meta, Mapping):
        meta = None  # (``None`` first: an ABC check of it costs as much as the rest here)
    has_meta_version = meta is not None and PROTOCOL_VERSION_KEY in meta
    if modern_ok and has_meta_version:
        # A 2026 body is a 2026 request, whatever else came with it (a legacy version header,
        # a session id): the modern checks answer a header that disagrees with 400 + -32020.
        return _modern(h, body, params, meta, header_version, supported_versions, tool_headers)
    if legacy_ok and header_version is not None and is_legacy(header_version):
        return _legacy(h, supported_versions, modern_ok, version=header_version)
    if modern_ok and (
        has_meta_version
        or not legacy_ok
        or (header_version is not None and is_modern(header_version))
    ):
        return _modern(h, body, params, meta, header_version, supported_versions, tool_headers)
    if header_version is None:
        # No version anywhere: a 2025-03-26 client (the header came in 2025-06-18).
        return _legacy(h, supported_versions, modern_ok)
    return _bad_version(header_version, supported_versions, modern_ok)
