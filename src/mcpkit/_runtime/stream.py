"""The one interface between the runtime and every transport."""

from __future__ import annotations

from typing import Protocol

from mcpkit.protocol._errors import MessageDecodeError
from mcpkit.types._jsonrpc import Message


class MessageStream(Protocol):
    """A bidirectional stream of JSON-RPC messages.

    * ``send`` writes one message; it raises :class:`~mcpkit.protocol._errors.ConnectionClosed` if
      we closed the stream and :class:`~mcpkit.protocol._errors.ConnectionBroken` if the peer went
      away.
    * ``receive`` returns the next message; a :class:`MessageDecodeError` *item* when the peer sent
      something that is not a valid message (the session answers it and carries on); ``None`` at a
      clean end of stream. It raises ``ConnectionBroken`` when the stream failed.
    * ``aclose`` is idempotent and never raises.

    A stream may also offer ``start_push(deliver, ended) -> bool`` (both stdio ends' do):
    the session calls it once, before receiving anything, and when it returns ``True`` no
    ``receive`` follows — every message is handed to ``deliver`` from the event loop's read
    callback, and ``ended`` is told once that the input ended (``None``: cleanly, or a
    ``ConnectionBroken``). That saves a task wake-up per read on the hot path.

    A stream may also offer ``send_nowait(message) -> Awaitable[None] | None`` (both stdio
    ends' do): ``send`` without a coroutine when none is needed. It writes the usual message at
    once and returns ``None``; otherwise it writes nothing and returns what to await instead
    (which sends the message, or raises what ``send`` raises). The session sends its own
    requests through it.
    """

    async def send(self, message: Message) -> None: ...

    async def receive(self) -> Message | MessageDecodeError | None: ...

    async def aclose(self) -> None: ...
