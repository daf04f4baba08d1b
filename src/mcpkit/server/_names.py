"""Name rules: tool names and ``_meta`` keys.

Tool names (both revisions, SHOULD): 1-128 characters of ``[A-Za-z0-9_.-]``, case-sensitive.
mcpkit enforces this at registration so a bad name is found by its author, not by a client.

``_meta`` keys: an optional prefix of dot-separated labels followed by ``/`` (labels start with a
letter and end with a letter or digit, hyphens inside), then a name that begins and ends with an
alphanumeric and may contain ``-``, ``_``, ``.`` inside. A prefix whose *second* label is
``modelcontextprotocol`` or ``mcp`` is reserved for MCP itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from mcpkit.protocol._errors import UsageError

__all__ = [
    "TOOL_NAME_MAX_LENGTH",
    "is_reserved_meta_key",
    "validate_meta",
    "validate_meta_key",
    "validate_tool_name",
]

TOOL_NAME_MAX_LENGTH: Final = 128
_TOOL_NAME_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
)
_LABEL = r"[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_META_PREFIX: Final = rf"{_LABEL}(?:\.{_LABEL})*"
_META_NAME: Final = r"(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?"
# Patterns are compiled (and cached by ``re``) on first use: a server that never checks a
# ``_meta`` key does not pay for them at start.
_RESERVED_SECOND_LABELS: Final = frozenset({"modelcontextprotocol", "mcp"})


def validate_tool_name(name: str, *, kind: str = "tool") -> None:
    """Raise :class:`UsageError` unless ``name`` is a valid tool name, naming the problem.

    ``kind`` only changes the wording (e.g. ``"prompt"``).
    """
    if not isinstance(name, str):
        raise UsageError(f"{kind} name must be a string, not {type(name).__qualname__}")
    if not name:
        raise UsageError(f"{kind} name must not be empty")
    if len(name) > TOOL_NAME_MAX_LENGTH:
        raise UsageError(
            f"{kind} name {name[:40]!r}... is {len(name)} characters long; "
            f"the limit is {TOOL_NAME_MAX_LENGTH}"
        )
    if _TOOL_NAME_CHARS.issuperset(name):
        return
    for index, char in enumerate(name):
        if char not in _TOOL_NAME_CHARS:
            raise UsageError(
                f"{kind} name {name!r} contains the character {char!r} at position {index}; "
                "only letters, digits, '_', '.' and '-' are allowed"
            )


def _split(key: str) -> tuple[str | None, str]:
    prefix, slash, name = key.rpartition("/")
    return (prefix, name) if slash else (None, key)


def validate_meta_key(key: str) -> None:
    """Raise :class:`UsageError` unless ``key`` follows the ``_meta`` key-name format."""
    if not isinstance(key, str):
        raise UsageError(f"_meta key must be a string, not {type(key).__qualname__}")
    prefix, name = _split(key)
    if prefix is not None and not re.fullmatch(_META_PREFIX, prefix):
        raise UsageError(
            f"_meta key {key!r}: the prefix {prefix + '/'!r} must be dot-separated labels "
            "(each starting with a letter, ending with a letter or digit), e.g. 'com.example/'"
        )
    if not re.fullmatch(_META_NAME, name):
        raise UsageError(
            f"_meta key {key!r}: the name {name!r} must begin and end with a letter or digit "
            "and contain only letters, digits, '-', '_' and '.'"
        )


def is_reserved_meta_key(key: str) -> bool:
    """True when ``key``'s prefix is reserved for MCP.

    A prefix is reserved when its second label is ``modelcontextprotocol`` or ``mcp``.

    Unprefixed keys are not reserved by this rule (though revisions reserve a few by name,
    such as ``progressToken``).
    """
    prefix, _ = _split(key)
    if prefix is None:
        return False
    labels = prefix.split(".")
    return len(labels) >= 2 and labels[1] in _RESERVED_SECOND_LABELS


def validate_meta(meta: Mapping[str, Any], *, allow_reserved: bool = False) -> None:
    """Check every key of a user-supplied ``_meta`` object.

    User code should not set MCP-reserved keys; the framework sets those itself, so it passes
    ``allow_reserved=True``.
    """
    for key in meta:
        validate_meta_key(key)
        if not allow_reserved and is_reserved_meta_key(key):
            raise UsageError(
                f"_meta key {key!r} uses a prefix reserved for MCP; use your own prefix, "
                "e.g. 'com.example/...'"
            )
