"""What the Streamable HTTP app needs from a server (``mcpkit.server.Server`` satisfies it).

The transport layer may not import the server framework (layers point down), so the app talks
to this small protocol instead. Anything with these members can be served over HTTP.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Protocol

from mcpkit._runtime.outbound import Outbound
from mcpkit.protocol._lifecycle import ServerLifecycle
from mcpkit.protocol._meta import RequestMeta
from mcpkit.types._jsonrpc import JSONObject, Request

__all__ = ["Conversation", "HttpServable"]


class Conversation(Protocol):
    """What the app needs of the server's per-conversation state (``new_connection``'s
    result): somewhere to point the conversation's unsolicited notifications (its GET stream).
    The app hands it back to ``handle_request`` / ``handle_notification`` unchanged."""

    notify: Outbound | None


class HttpServable(Protocol):
    """The server side of the HTTP app.

    * ``supported_versions`` — every protocol version the server speaks (decides the eras the
      endpoint serves: no legacy version means GET/DELETE get 405 and no sessions exist);
    * ``new_connection(session_id, lifecycle=...)`` — per-conversation legacy state (a session,
      or one stateless POST); the app passes the ``lifecycle`` of the conversation's
      :class:`~mcpkit.protocol._connection.ServerConnection`, which the state must share (the
      engine feeds it every message; the server must not again).
      The app sets its ``notify`` attribute to an :class:`~mcpkit._runtime.outbound.Outbound`
      for unsolicited notifications (the GET stream);
    * ``handle_request`` / ``handle_notification`` — serve one message (a request raises
      ``JSONRPCError`` to answer with an error; a notification may be sync or async); a 2026
      request comes with ``meta``, its ``_meta`` as the router validated it (its version
      against ``supported_versions``, read on that request);
    * ``running()`` — the server's lifespan, entered once for the app's life;
    * ``tool_input_schema(name)`` — a tool's ``inputSchema`` (``None`` if unknown), so the app
      can check ``Mcp-Param-*`` headers before dispatching;
    * optionally ``listen_hub`` with ``close_where(predicate)`` — ends open
      ``subscriptions/listen`` requests with their final result when shutdown starts.
    * optionally ``card_metadata()`` — ``serverInfo``, ``supportedVersions`` and
      ``capabilities`` for the Server Card (needed with ``server_card=True``; experimental).
    """

    @property
    def supported_versions(self) -> Sequence[str]: ...

    def new_connection(
        self, session_id: str | None = None, *, lifecycle: ServerLifecycle
    ) -> Conversation: ...

    def handle_request(
        self,
        request: Request,
        outbound: Outbound,
        *,
        connection: Any = None,
        auth: Any = None,
        meta: RequestMeta | None = None,
    ) -> Awaitable[JSONObject]: ...

    def handle_notification(self, method: str, params: JSONObject | None, connection: Any) -> Any:
        """Plain or async (an awaitable result is awaited)."""
        ...

    def running(self) -> contextlib.AbstractAsyncContextManager[Any]: ...

    def tool_input_schema(self, name: str) -> Mapping[str, Any] | None: ...
