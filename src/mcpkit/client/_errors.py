"""Errors the client raises on its own account.

Remote errors (the server answered with a JSON-RPC error) come from
:mod:`mcpkit.protocol._errors` with ``remote=True``; transport failures are
:class:`~mcpkit.protocol._errors.ConnectionClosed` (we closed) or
:class:`~mcpkit.protocol._errors.ConnectionBroken` (the server went away). Everything here is a
*local* verdict — a schema check, a negotiation that found no common ground, a server that broke
the rules — so none of these classes derives from :class:`~mcpkit.protocol._errors.JSONRPCError`
and none can be mistaken for something the server sent. One exception: :class:`UnknownTool` is
also the ``InvalidParams`` (-32602) a server answers for a tool it does not have, so
``call_tool("nope")`` raises the same type from a ``Client`` (the server said so: ``remote``) as
from a ``Host`` (no server offers it), and code catching ``InvalidParams`` still catches it.
"""

from __future__ import annotations

from typing import Any

from mcpkit.protocol._errors import InvalidParams, LocalProtocolError, MCPError, RemoteProtocolError

__all__ = [
    "ClientError",
    "IncompatibleServer",
    "InputRequiredLoopExceeded",
    "InputValidationError",
    "OutputValidationError",
    "ServerMisbehaved",
    "ServerUnavailable",
    "UnknownTool",
    "UnsupportedInEra",
]


class ClientError(MCPError):
    """Base class of the client's local errors."""


class IncompatibleServer(ClientError):
    """Era negotiation found no protocol version both sides speak, or ``mode`` forbids the era."""

    def __init__(self, message: str, *, supported: list[str] | None = None) -> None:
        super().__init__(message)
        self.supported = supported or []


class UnsupportedInEra(ClientError, LocalProtocolError):
    """The method does not exist in the negotiated era (e.g. ``ping`` with a 2026-07-28 server)."""


class ServerMisbehaved(ClientError, RemoteProtocolError):
    """The server broke the protocol without sending an error: a result of the wrong shape, an
    input request for a capability we never declared, a subscription that was never acknowledged.
    """


class InputRequiredLoopExceeded(ServerMisbehaved):
    """A 2026 request kept answering ``input_required`` after the bounded number of rounds."""

    def __init__(self, method: str, rounds: int) -> None:
        super().__init__(
            f"{method} still required input after {rounds} rounds; giving up "
            f"(raise max_input_rounds if the server legitimately needs more)"
        )
        self.method = method
        self.rounds = rounds


class UnknownTool(ClientError, InvalidParams, LookupError):
    """A tool name that the server (or host) does not list; an ``InvalidParams`` (-32602).

    ``message`` is the server's own words when it answered (``remote``), followed by the tools
    it does list.
    """

    def __init__(
        self,
        name: str,
        known: list[str] | None = None,
        *,
        message: str | None = None,
        data: Any = None,
        remote: bool = False,
    ) -> None:
        hint = f"; known tools: {', '.join(sorted(known)[:20])}" if known else ""
        super().__init__((message or f"unknown tool {name!r}") + hint, data, remote=remote)
        self.name = name


class _SchemaError(ClientError, ValueError):
    def __init__(self, message: str, *, tool: str, path: str, detail: str, value: Any) -> None:
        super().__init__(message)
        self.tool = tool
        self.path = path
        """JSON path of the offending value (``$`` for the root)."""
        self.detail = detail
        self.value = value


class InputValidationError(_SchemaError):
    """Arguments failed the tool's ``inputSchema``; nothing was sent to the server."""


class OutputValidationError(_SchemaError, ServerMisbehaved):
    """A tool's ``structuredContent`` does not match its ``outputSchema`` (strict mode)."""


class ServerUnavailable(ClientError):
    """A host's server is not connected right now (starting, restarting or given up on)."""
