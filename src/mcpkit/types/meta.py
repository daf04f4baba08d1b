"""The reserved ``_meta`` keys and the ``_meta`` key syntax.

A key is an optional *prefix* and a *name*: ``[label(.label)*/]name``. Labels start with a letter,
end with a letter or digit, and contain letters, digits and hyphens. A name, unless empty, starts
and ends with an alphanumeric and may contain ``-``, ``_``, ``.`` and alphanumerics in between.
A prefix whose second label is ``modelcontextprotocol`` or ``mcp`` is reserved for the spec
(``io.modelcontextprotocol/``, ``dev.mcp/``; not ``com.example.mcp/``). The unprefixed keys
``progressToken``, ``traceparent``, ``tracestate`` and ``baggage`` are also reserved.

Values at reserved keys are read through the accessors here, so no layer spells a key twice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "BAGGAGE",
    "CLIENT_CAPABILITIES",
    "CLIENT_INFO",
    "LOG_LEVEL",
    "MCP_PREFIX",
    "MODEL_IMMEDIATE_RESPONSE",
    "PROGRESS_TOKEN",
    "PROTOCOL_VERSION",
    "RELATED_TASK",
    "RESERVED_KEYS",
    "SERVER_INFO",
    "SUBSCRIPTION_ID",
    "TRACEPARENT",
    "TRACESTATE",
    "get_client_capabilities",
    "get_client_info",
    "get_log_level",
    "get_progress_token",
    "get_protocol_version",
    "get_subscription_id",
    "invalid_meta_keys",
    "is_reserved_key",
    "meta_key_error",
]

MCP_PREFIX: Final = "io.modelcontextprotocol/"

PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
"""2026-07-28 request ``_meta``: the request's revision (required)."""
CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
"""2026-07-28 request ``_meta``: the client's capabilities for this request (required)."""
CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
"""2026-07-28 request ``_meta``: an ``Implementation`` (should be sent)."""
LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
"""2026-07-28 request ``_meta``: opt in to ``notifications/message`` at this level or above."""
SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
"""2026-07-28 notification / listen-result ``_meta``: the id of the ``subscriptions/listen``."""
SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
"""2026-07-28 result ``_meta``: an ``Implementation`` (should be sent)."""
RELATED_TASK: Final = "io.modelcontextprotocol/related-task"
"""2025-11-25 Tasks: ``{"taskId": ...}`` on every message associated with a task."""
MODEL_IMMEDIATE_RESPONSE: Final = "io.modelcontextprotocol/model-immediate-response"
"""2025-11-25 Tasks: optional text for the model while a task runs."""
PROGRESS_TOKEN: Final = "progressToken"
TRACEPARENT: Final = "traceparent"
TRACESTATE: Final = "tracestate"
BAGGAGE: Final = "baggage"

RESERVED_KEYS: Final[frozenset[str]] = frozenset(
    {
        PROTOCOL_VERSION,
        CLIENT_CAPABILITIES,
        CLIENT_INFO,
        LOG_LEVEL,
        SUBSCRIPTION_ID,
        SERVER_INFO,
        RELATED_TASK,
        MODEL_IMMEDIATE_RESPONSE,
        PROGRESS_TOKEN,
        TRACEPARENT,
        TRACESTATE,
        BAGGAGE,
    }
)
"""Every key the spec (core and official extensions mcpkit knows) defines."""

_UNPREFIXED_RESERVED: Final = frozenset({PROGRESS_TOKEN, TRACEPARENT, TRACESTATE, BAGGAGE})
_RESERVED_SECOND_LABELS: Final = frozenset({"modelcontextprotocol", "mcp"})

_LABEL: Final = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_PREFIX_RE: Final = rf"{_LABEL}(?:\.{_LABEL})*"
_NAME_RE: Final = r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?"
# Compiled (and cached by ``re``) on first use, not at import: most programs never check a key.


def meta_key_error(key: str) -> str | None:
    """Why ``key`` is not a valid ``_meta`` key, or ``None`` when it is valid."""
    prefix, slash, name = key.rpartition("/")
    if slash and not re.fullmatch(_PREFIX_RE, prefix):
        return (
            f"invalid _meta key {key!r}: the prefix must be dot-separated labels that start with "
            "a letter, end with a letter or digit and contain only letters, digits and '-', "
            "followed by '/'"
        )
    if not re.fullmatch(_NAME_RE, name):
        return (
            f"invalid _meta key {key!r}: the name must start and end with a letter or digit "
            "and contain only letters, digits, '-', '_' and '.'"
        )
    return None


def is_reserved_key(key: str) -> bool:
    """Whether ``key`` belongs to the spec: a reserved prefix, or a reserved unprefixed key."""
    prefix, slash, _ = key.rpartition("/")
    if not slash:
        return key in _UNPREFIXED_RESERVED
    labels = prefix.split(".")
    return len(labels) >= 2 and labels[1] in _RESERVED_SECOND_LABELS


def invalid_meta_keys(meta: Mapping[str, Any]) -> list[str]:
    """One message per key of ``meta`` that breaks the key syntax (empty when all are valid)."""
    problems = []
    for key in meta:
        problem = meta_key_error(key)
        if problem is not None:
            problems.append(problem)
    return problems


def _get(meta: Mapping[str, Any] | None, key: str) -> Any:
    return None if meta is None else meta.get(key)


def get_protocol_version(meta: Mapping[str, Any] | None) -> str | None:
    value = _get(meta, PROTOCOL_VERSION)
    return value if isinstance(value, str) else None


def get_client_capabilities(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The raw capability object (use :func:`mcpkit.types.has_capability` on it directly, or
    :func:`mcpkit.types.decode` it into ``ClientCapabilities``)."""
    value = _get(meta, CLIENT_CAPABILITIES)
    return value if isinstance(value, dict) else None


def get_client_info(meta: Mapping[str, Any] | None) -> dict[str, Any] | None:
    value = _get(meta, CLIENT_INFO)
    return value if isinstance(value, dict) else None


def get_log_level(meta: Mapping[str, Any] | None) -> str | None:
    value = _get(meta, LOG_LEVEL)
    return value if isinstance(value, str) else None


def get_progress_token(meta: Mapping[str, Any] | None) -> int | str | None:
    value = _get(meta, PROGRESS_TOKEN)
    if isinstance(value, bool):
        return None
    return value if isinstance(value, int | str) else None


def get_subscription_id(meta: Mapping[str, Any] | None) -> int | str | None:
    value = _get(meta, SUBSCRIPTION_ID)
    if isinstance(value, bool):
        return None
    return value if isinstance(value, int | str) else None
