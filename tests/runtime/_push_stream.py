"""A message stream that pushes what it receives (as the stdio pipes do) and records what is
sent: the session tests' stand-in for a pipe, with no process or loop plumbing of its own."""

from __future__ import annotations

import asyncio
from typing import Any

from mcpkit.protocol._errors import MessageDecodeError
from mcpkit.types._jsonrpc import Message


class PushStream:
    """A stream that pushes (``start_push``) and records what is sent."""

    def __init__(self) -> None:
        self.sent: list[Message] = []
        self.deliver: Any = None
        self.sent_event = asyncio.Event()

    def start_push(self, deliver: Any, ended: Any) -> bool:
        self.deliver = deliver
        return True

    async def send(self, message: Message) -> None:
        self.sent.append(message)
        self.sent_event.set()

    async def receive(self) -> Message | MessageDecodeError | None:  # pragma: no cover
        raise AssertionError("a pushing stream is never pulled")

    async def aclose(self) -> None:
        pass
