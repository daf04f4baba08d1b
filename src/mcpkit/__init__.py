"""mcpkit: the Model Context Protocol for Python.

The names most programs need are importable from here::

    from mcpkit import Server, Context, Client, SyncClient, Host, ToolError

plus every exception of :mod:`mcpkit.errors`. Everything else lives in its subpackage
(``mcpkit.server``, ``mcpkit.client``, ``mcpkit.types`` …); ``docs/api.md`` lists the whole
public surface on one page. Names load on first use (PEP 562), so ``import mcpkit`` stays cheap
for a stdio server's start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from mcpkit import errors as _errors
from mcpkit._version import __version__

if TYPE_CHECKING:
    from mcpkit.client import Client, Host, SyncClient, SyncHost
    from mcpkit.errors import (
        AuthorizationError,
        ClientError,
        ConnectionBroken,
        ConnectionClosed,
        HeaderMismatch,
        IncompatibleServer,
        InputRequiredLoopExceeded,
        InputValidationError,
        InternalError,
        InvalidParams,
        InvalidRequest,
        JSONRPCError,
        LocalProtocolError,
        MCPError,
        MemoTooLarge,
        MethodNotFound,
        MissingRequiredClientCapability,
        MissingServerCapability,
        OutputValidationError,
        ParseError,
        RemoteProtocolError,
        RequestCancelled,
        RequestTimeout,
        ResourceNotFound,
        ScopeRequired,
        ServerMisbehaved,
        ServerStartError,
        ServerUnavailable,
        SessionReplaced,
        SSEProtocolError,
        TaskCancelled,
        TasksUnsupported,
        ToolError,
        TooManyInFlight,
        TransportError,
        UnknownTool,
        UnsupportedInEra,
        UnsupportedProtocolVersion,
        URLElicitationRequired,
        UsageError,
    )
    from mcpkit.server import Context, ElicitAnswer, Server


__all__ = [
    "AuthorizationError",
    "Client",
    "ClientError",
    "ConnectionBroken",
    "ConnectionClosed",
    "Context",
    "ElicitAnswer",
    "HeaderMismatch",
    "Host",
    "IncompatibleServer",
    "InputRequiredLoopExceeded",
    "InputValidationError",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "JSONRPCError",
    "LocalProtocolError",
    "MCPError",
    "MemoTooLarge",
    "MethodNotFound",
    "MissingRequiredClientCapability",
    "MissingServerCapability",
    "OutputValidationError",
    "ParseError",
    "RemoteProtocolError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "SSEProtocolError",
    "ScopeRequired",
    "Server",
    "ServerMisbehaved",
    "ServerStartError",
    "ServerUnavailable",
    "SessionReplaced",
    "SyncClient",
    "SyncHost",
    "TaskCancelled",
    "TasksUnsupported",
    "TooManyInFlight",
    "ToolError",
    "TransportError",
    "URLElicitationRequired",
    "UnknownTool",
    "UnsupportedInEra",
    "UnsupportedProtocolVersion",
    "UsageError",
    "__version__",
]

_WHERE: dict[str, str] = {
    "Client": "mcpkit.client",
    "Context": "mcpkit.server",
    "ElicitAnswer": "mcpkit.server",
    "Host": "mcpkit.client",
    "Server": "mcpkit.server",
    "SyncClient": "mcpkit.client",
    "SyncHost": "mcpkit.client",
    **dict.fromkeys(_errors.__all__, "mcpkit.errors"),
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mcpkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
