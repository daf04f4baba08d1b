"""Typed ``error.data`` of the MCP-specific JSON-RPC errors.

The error codes and exception classes live in :mod:`mcpkit.protocol._errors`; these are only the
shapes of their ``data`` member, for building and reading them with :func:`~mcpkit.types.decode`.
"""

from __future__ import annotations

from mcpkit.types._base import WireModel
from mcpkit.types._capabilities import ClientCapabilities
from mcpkit.types._elicitation import ElicitRequestParams

__all__ = [
    "MissingRequiredClientCapabilityData",
    "ResourceNotFoundData",
    "URLElicitationRequiredData",
    "UnsupportedProtocolVersionData",
]


class UnsupportedProtocolVersionData(WireModel, kw_only=True):
    """-32022 (2026-07-28); also the data of a legacy ``initialize`` refusal (-32602)."""

    supported: list[str]
    requested: str


class MissingRequiredClientCapabilityData(WireModel, kw_only=True):
    """-32021 (2026-07-28)."""

    required_capabilities: ClientCapabilities


class URLElicitationRequiredData(WireModel, kw_only=True):
    """-32042 (2025-11-25 only): URL-mode elicitations the user must complete first."""

    elicitations: list[ElicitRequestParams]


class ResourceNotFoundData(WireModel, kw_only=True):
    """-32002 (legacy) or -32602 (2026-07-28) for an unknown resource."""

    uri: str
