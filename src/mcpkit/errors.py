"""Every exception mcpkit users raise or catch, importable from one place.

* **Raise from a tool, resource or prompt**: :class:`ToolError` (the model reads it as an
  ``isError`` result), :class:`InvalidParams`, :class:`ResourceNotFound`, :class:`ScopeRequired`,
  :class:`URLElicitationRequired`, or any :class:`JSONRPCError` with your own ``code``.
* **Catch around a client call**: :class:`MCPError` is the base of everything;
  :class:`JSONRPCError` (and its subclasses) is an error answer from the server;
  :class:`ClientError` and its subclasses are the client's own verdicts (unreachable server,
  wrong era, invalid arguments, a misbehaving server); :class:`TransportError`,
  :class:`RequestTimeout` and :class:`RequestCancelled` are about the connection.
  :class:`ServerStartError` says a stdio server's command could not be started,
  :class:`SessionReplaced` that a legacy HTTP server forgot the session a request was sent in,
  :class:`MissingServerCapability` that the server does not declare what a method needs.
* :class:`UsageError` means the API was used wrongly (a bad argument, a duplicate name);
  :class:`MemoTooLarge` is one (a tool's ``ctx.memo`` entries past their bound).

Loaded lazily: ``import mcpkit.errors`` costs nothing until a name is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpkit.client._errors import (
        ClientError,
        IncompatibleServer,
        InputRequiredLoopExceeded,
        InputValidationError,
        OutputValidationError,
        ServerMisbehaved,
        ServerUnavailable,
        UnknownTool,
        UnsupportedInEra,
    )
    from mcpkit.client._tasks import TaskCancelled, TasksUnsupported
    from mcpkit.protocol._errors import (
        AuthorizationError,
        ConnectionBroken,
        ConnectionClosed,
        HeaderMismatch,
        InternalError,
        InvalidParams,
        InvalidRequest,
        JSONRPCError,
        LocalProtocolError,
        MCPError,
        MethodNotFound,
        MissingRequiredClientCapability,
        MissingServerCapability,
        ParseError,
        RemoteProtocolError,
        RequestCancelled,
        RequestTimeout,
        ResourceNotFound,
        SessionReplaced,
        SSEProtocolError,
        TooManyInFlight,
        TransportError,
        UnsupportedProtocolVersion,
        URLElicitationRequired,
        UsageError,
    )
    from mcpkit.server._auth_hooks import ScopeRequired
    from mcpkit.server._memo import MemoTooLarge
    from mcpkit.server._tools import ToolError
    from mcpkit.transports._stdio_client import ServerStartError

__all__ = [
    "AuthorizationError",
    "ClientError",
    "ConnectionBroken",
    "ConnectionClosed",
    "HeaderMismatch",
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
    "ServerMisbehaved",
    "ServerStartError",
    "ServerUnavailable",
    "SessionReplaced",
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
]

_CLIENT = "mcpkit.client._errors"
_PROTOCOL = "mcpkit.protocol._errors"
_WHERE: dict[str, str] = {
    **dict.fromkeys(
        (
            "ClientError",
            "IncompatibleServer",
            "InputRequiredLoopExceeded",
            "InputValidationError",
            "OutputValidationError",
            "ServerMisbehaved",
            "ServerUnavailable",
            "UnknownTool",
            "UnsupportedInEra",
        ),
        _CLIENT,
    ),
    "TaskCancelled": "mcpkit.client._tasks",
    "TasksUnsupported": "mcpkit.client._tasks",
    "ScopeRequired": "mcpkit.server._auth_hooks",
    "ToolError": "mcpkit.server._tools",
    "MemoTooLarge": "mcpkit.server._memo",
    "ServerStartError": "mcpkit.transports._stdio_client",
}


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'mcpkit.errors' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE.get(name, _PROTOCOL)), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
