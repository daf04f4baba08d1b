"""How per-tool scope requirements meet whatever verified the request's token.

The HTTP transport puts the verified access token (any object with a ``scopes`` attribute or
key) into the request; a tool declared with ``required_scopes`` is refused with a -32600-style
error unless every scope is present. ``mcpkit.contrib.auth`` turns the same requirement into an
HTTP 403 ``insufficient_scope`` challenge before the request reaches the server when it can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcpkit.protocol._errors import InvalidRequest

__all__ = [
    "ScopeRequired",
    "check_tool_scopes",
    "token_scopes",
]


class ScopeRequired(InvalidRequest):
    """The caller's token lacks scopes a tool requires."""

    def __init__(self, required: Sequence[str]) -> None:
        super().__init__(
            f"This tool needs the scope(s): {' '.join(required)}",
            {"requiredScopes": list(required)},
        )
        self.required = tuple(required)


def token_scopes(token: Any) -> set[str]:
    scopes = token.get("scopes") if isinstance(token, dict) else getattr(token, "scopes", None)
    if isinstance(scopes, str):
        return set(scopes.split())
    return {s for s in scopes if isinstance(s, str)} if scopes else set()


def check_tool_scopes(token: Any, required: Sequence[str]) -> None:
    if not set(required) <= token_scopes(token):
        raise ScopeRequired(required)
