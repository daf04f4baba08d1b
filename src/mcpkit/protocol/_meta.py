"""Per-request ``_meta`` of the modern era (2026-07-28): detection and validation.

A modern request carries its version, the client's capabilities and identity in
``params._meta`` because there is no session to remember them. A request missing a required key
is malformed: -32602 (HTTP 400), with a message that names the key so the client's author knows
what to add. Parsing happens once per request, into :class:`RequestMeta`.

OpenTelemetry keys (``traceparent``, ``tracestate``, ``baggage``) are read when they are strings
and otherwise ignored: a broken trace header must never fail a request (W3C Trace Context says to
start a new trace instead).
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from mcpkit.protocol._errors import InvalidParams
from mcpkit.types import meta as keys
from mcpkit.types._versions import Era

__all__ = [
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "LOG_LEVELS",
    "LOG_LEVEL_KEY",
    "PROTOCOL_VERSION_KEY",
    "RequestMeta",
    "is_modern_request",
    "log_allowed",
    "log_level_enabled",
    "declared_version",
    "parse_request_meta",
    "progress_token_of",
    "request_era",
    "request_meta",
]

# The key names are spelled once, in mcpkit.types.meta; these are the protocol layer's names.
PROTOCOL_VERSION_KEY: Final = keys.PROTOCOL_VERSION
CLIENT_CAPABILITIES_KEY: Final = keys.CLIENT_CAPABILITIES
CLIENT_INFO_KEY: Final = keys.CLIENT_INFO
LOG_LEVEL_KEY: Final = keys.LOG_LEVEL
PROGRESS_TOKEN_KEY: Final = keys.PROGRESS_TOKEN
TRACE_KEYS: Final = ("traceparent", "tracestate", "baggage")

LOG_LEVELS: Final[tuple[str, ...]] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""RFC 5424 severities, least severe first."""
_SEVERITY: Final = {level: rank for rank, level in enumerate(LOG_LEVELS)}


class RequestMeta(msgspec.Struct, frozen=True):
    """What a modern request's ``_meta`` declares."""

    protocol_version: str
    client_capabilities: dict[str, Any]
    client_info: dict[str, Any] | None = None
    log_level: str | None = None
    """``None`` means the server MUST NOT send ``notifications/message`` for this request."""
    progress_token: str | int | None = None
    traceparent: str | None = None
    tracestate: str | None = None
    baggage: str | None = None
    raw: dict[str, Any] = msgspec.field(default_factory=dict)
    """The whole ``_meta`` object, for extension keys (left out of the repr)."""

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__struct_fields__[:-1])
        return f"RequestMeta({shown})"


def is_modern_request(params: Any) -> bool:
    """Whether a request declares a modern version in ``_meta`` (how a dual-era server tells).

    This is *the* era detection: a message whose ``params._meta`` names a protocol version is a
    2026-07-28 message (even ``initialize``: it is then answered -32601), anything else belongs to
    a handshake-era session. Every transport and the dispatcher ask this one function.
    """
    if not params or not isinstance(params, dict):
        return False
    meta = params.get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_KEY in meta


def request_era(params: Any) -> Era:
    """The era a message belongs to, from its params alone (see :func:`is_modern_request`)."""
    return "modern" if is_modern_request(params) else "legacy"


def progress_token_of(params: Any) -> str | int | None:
    """The ``_meta.progressToken`` a request asks progress on, or ``None`` (absent or invalid)."""
    if not params or not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    token = meta.get(PROGRESS_TOKEN_KEY) if isinstance(meta, dict) else None
    if isinstance(token, bool) or not isinstance(token, str | int):
        return None
    return token


def _missing(key: str) -> InvalidParams:
    return InvalidParams(
        f'Missing required "_meta.{key}": every 2026-07-28 request must carry '
        f'"_meta" with "{PROTOCOL_VERSION_KEY}" and "{CLIENT_CAPABILITIES_KEY}"'
    )


_OPTIONAL_KEYS: Final = frozenset({LOG_LEVEL_KEY, PROGRESS_TOKEN_KEY, *TRACE_KEYS})


def parse_request_meta(params: Any) -> RequestMeta:
    """Validate ``params._meta`` of a modern request; raises -32602 naming the bad key.

    The version is only checked for type here; whether the server supports it is
    :func:`~mcpkit.protocol._versions.check_modern_version`'s job (-32022).
    """
    # The hot path: the usual _meta (version, capabilities, client info, none of the optional
    # keys), checked by exact type. Anything else goes through the full checks below, which
    # word every error; both give the same RequestMeta (tests/protocol/test_meta.py).
    if type(params) is dict:
        meta = params.get("_meta")
        if type(meta) is dict and _OPTIONAL_KEYS.isdisjoint(meta):
            version = meta.get(PROTOCOL_VERSION_KEY)
            capabilities = meta.get(CLIENT_CAPABILITIES_KEY)
            info = meta.get(CLIENT_INFO_KEY)
            if (
                type(version) is str
                and type(capabilities) is dict
                and (
                    info is None
                    or (
                        type(info) is dict
                        and type(info.get("name")) is str
                        and type(info.get("version")) is str
                    )
                )
            ):
                return RequestMeta(version, capabilities, info, None, None, None, None, None, meta)
    return _parse_request_meta(params)


def _parse_request_meta(params: Any) -> RequestMeta:
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InvalidParams('"params" must be an object')
    meta = params.get("_meta")
    if meta is None:
        raise InvalidParams(
            f'Missing required "_meta": every 2026-07-28 request must carry "_meta" with '
            f'"{PROTOCOL_VERSION_KEY}" and "{CLIENT_CAPABILITIES_KEY}"'
        )
    if not isinstance(meta, dict):
        raise InvalidParams('"_meta" must be an object')

    if PROTOCOL_VERSION_KEY not in meta:
        raise _missing(PROTOCOL_VERSION_KEY)
    version = meta[PROTOCOL_VERSION_KEY]
    if not isinstance(version, str):
        raise InvalidParams(f'"_meta.{PROTOCOL_VERSION_KEY}" must be a string, like "2026-07-28"')

    if CLIENT_CAPABILITIES_KEY not in meta:
        raise _missing(CLIENT_CAPABILITIES_KEY)
    capabilities = meta[CLIENT_CAPABILITIES_KEY]
    if not isinstance(capabilities, dict):
        raise InvalidParams(
            f'"_meta.{CLIENT_CAPABILITIES_KEY}" must be an object ({{}} declares no capabilities)'
        )

    client_info = meta.get(CLIENT_INFO_KEY)
    if client_info is not None and not (
        isinstance(client_info, dict)
        and isinstance(client_info.get("name"), str)
        and isinstance(client_info.get("version"), str)
    ):
        raise InvalidParams(
            f'"_meta.{CLIENT_INFO_KEY}" must be an object with string "name" and "version"'
        )

    log_level = meta.get(LOG_LEVEL_KEY)
    # isinstance first: a JSON object or array is unhashable, and ``in`` would raise TypeError
    if log_level is not None and (not isinstance(log_level, str) or log_level not in _SEVERITY):
        raise InvalidParams(
            f'Unknown log level {log_level!r} in "_meta.{LOG_LEVEL_KEY}"; expected one of '
            f"{', '.join(LOG_LEVELS)}"
        )

    token = meta.get(PROGRESS_TOKEN_KEY)
    if token is not None and (isinstance(token, bool) or not isinstance(token, str | int)):
        raise InvalidParams('"_meta.progressToken" must be a string or an integer')

    # Three direct lookups rather than a loop over TRACE_KEYS: this runs on every request.
    traceparent = meta.get("traceparent")
    tracestate = meta.get("tracestate")
    baggage = meta.get("baggage")
    return RequestMeta(
        protocol_version=version,
        client_capabilities=capabilities,
        client_info=client_info,
        log_level=log_level,
        progress_token=token,
        traceparent=traceparent if isinstance(traceparent, str) else None,
        tracestate=tracestate if isinstance(tracestate, str) else None,
        baggage=baggage if isinstance(baggage, str) else None,
        raw=meta,
    )


def request_meta(
    version: str,
    capabilities: dict[str, Any],
    client_info: dict[str, Any],
    log_level: str | None = None,
) -> dict[str, Any]:
    """The ``_meta`` a 2026-07-28 client puts on every request (what :func:`parse_request_meta`
    reads back)."""
    meta: dict[str, Any] = {
        PROTOCOL_VERSION_KEY: version,
        CLIENT_CAPABILITIES_KEY: capabilities,
        CLIENT_INFO_KEY: client_info,
    }
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    return meta


def declared_version(params: Any) -> str | None:
    """The revision a request's ``_meta`` names, when it names one as a string."""
    if not params or not isinstance(params, dict):
        return None
    meta = params.get("_meta")
    return keys.get_protocol_version(meta) if isinstance(meta, dict) else None


def log_allowed(level: str, threshold: str | None, era: Era) -> bool:
    """Whether ``notifications/message`` at ``level`` may be sent, for both eras.

    Legacy: ``threshold`` is what ``logging/setLevel`` asked for, and with none set everything
    may be sent. 2026-07-28: ``threshold`` is the request's ``_meta`` log level, and without one
    nothing may be sent.
    """
    if threshold is None:
        return era == "legacy"
    return log_level_enabled(level, threshold)


def log_level_enabled(level: str, threshold: str | None) -> bool:
    """Whether a message at ``level`` may be sent when the request asked for ``threshold``.

    ``threshold=None`` (no ``logLevel`` in ``_meta``) means nothing may be sent.
    """
    if threshold is None:
        return False
    return _SEVERITY.get(level, len(LOG_LEVELS)) >= _SEVERITY.get(threshold, 0)
