"""``--wire``: record every message exchanged with the server, exactly as it went over the wire.

A :class:`WireLog` wraps the client's connector: for a stream (stdio) it wraps the message
stream; for HTTP it wraps the exchange transport (each POST's request and response, plus the
notifications that arrived on its stream) and any legacy session stream it opens. The client
cannot tell the difference. Entries are ``(direction, message dict)`` with ``→`` for what we
sent and ``←`` for what the server sent.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from mcpkit.protocol import MessageDecodeError
from mcpkit.types import JSONObject, Message, Notification, message_to_dict

__all__ = ["MAX_WIRE_ENTRIES", "WireLog"]

MAX_WIRE_ENTRIES: Final = 10_000
"""Messages kept; a longer conversation keeps its first entries and counts the rest."""

SENT: Final = "→"
RECEIVED: Final = "←"


class WireLog:
    """The transcript of one connection; :meth:`wrap` a connector to fill it."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, JSONObject]] = []
        self.dropped = 0

    def add(self, direction: str, message: Message | JSONObject) -> None:
        if len(self.entries) >= MAX_WIRE_ENTRIES:
            self.dropped += 1
            return
        data = message if isinstance(message, dict) else message_to_dict(message)
        self.entries.append((direction, data))

    def wrap(self, connector: Any) -> Any:
        from mcpkit.client import StreamConnector

        if isinstance(connector, StreamConnector):
            return _RecordingStreamConnector(connector, self)
        return _RecordingHttpConnector(connector, self)


class _RecordingStream:
    def __init__(self, inner: Any, log: WireLog) -> None:
        self._inner = inner
        self._log = log

    async def send(self, message: Message) -> None:
        self._log.add(SENT, message)
        await self._inner.send(message)

    async def receive(self) -> Message | MessageDecodeError | None:
        message = await self._inner.receive()
        if message is not None and not isinstance(message, MessageDecodeError):
            self._log.add(RECEIVED, message)
        return message  # type: ignore[no-any-return]

    async def aclose(self) -> None:
        await self._inner.aclose()

    @property
    def session_id(self) -> str | None:
        """The inner stream's ``Mcp-Session-Id`` (legacy HTTP), read by the client."""
        value = getattr(self._inner, "session_id", None)
        return value if isinstance(value, str) else None

    def bind_connection(self, connection: Any) -> None:
        bind = getattr(self._inner, "bind_connection", None)
        if bind is not None:
            bind(connection)


class _RecordingStreamConnector:
    def __init__(self, inner: Any, log: WireLog) -> None:
        self._inner = inner
        self._log = log

    def describe(self) -> str:
        return str(self._inner.describe())

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[Any]:
        async with self._inner.connect() as stream:
            yield _RecordingStream(stream, self._log)


class _RecordingExchange:
    def __init__(self, inner: Any, log: WireLog) -> None:
        self._inner = inner
        self._log = log

    async def exchange(
        self,
        request: Any,
        *,
        protocol_version: str,
        on_notification: Any,
        tool: Mapping[str, Any] | None = None,
    ) -> Any:
        self._log.add(SENT, request)

        async def sink(note: Notification) -> None:
            self._log.add(RECEIVED, note)
            await on_notification(note)

        response = await self._inner.exchange(
            request, protocol_version=protocol_version, on_notification=sink, tool=tool
        )
        self._log.add(RECEIVED, response)
        return response

    @contextlib.asynccontextmanager
    async def open_legacy_stream(self) -> AsyncIterator[Any]:
        async with self._inner.open_legacy_stream() as stream:
            yield _RecordingStream(stream, self._log)


class _RecordingHttpConnector:
    def __init__(self, inner: Any, log: WireLog) -> None:
        self._inner = inner
        self._log = log

    def describe(self) -> str:
        return str(self._inner.describe())

    @contextlib.asynccontextmanager
    async def connect_http(self) -> AsyncIterator[Any]:
        async with self._inner.connect_http() as transport:
            yield _RecordingExchange(transport, self._log)
