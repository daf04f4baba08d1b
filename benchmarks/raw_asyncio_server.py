"""The bare asyncio + msgspec floor: the raw floor's answers behind a bare asyncio pipe protocol.

No library, no tasks: lines are decoded by msgspec in ``data_received`` and answered at once with
``transport.write``. Its numbers are what the asyncio event loop and a compiled codec alone cost,
i.e. the least any asyncio stdio server with msgspec can cost. It is the anchor of the "start →
first answer" budget (DESIGN.md §4: at most 1.3 times this server): the imports of ``asyncio`` and
``msgspec`` are most of any such server's start, so the plain stdlib floor (``json``, no event
loop) would hold mcpkit to a start that no asyncio server can reach.

Pipe reads are 64 KiB, as in mcpkit: asyncio's default 256 KiB read buffer is an mmap, mremap
and munmap per message, which would bill the loop for an allocator artefact.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import msgspec
from httpserve import ServerArgs
from raw_stdio_server import TOOLS, answer
from toolset import raw_definition

PIPE_READ_BYTES = 64 * 1024
_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


class LineProtocol(asyncio.Protocol):
    def __init__(self, out: asyncio.WriteTransport, done: asyncio.Future[None]) -> None:
        self._buffer = b""
        self._out = out
        self._done = done

    def data_received(self, data: bytes) -> None:
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        for line in lines:
            if line.strip():
                response = answer(_decode(line))
                if response is not None:
                    self._out.write(_encode(response) + b"\n")

    def eof_received(self) -> bool:
        if not self._done.done():
            self._done.set_result(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done.done():
            self._done.set_result(None)


async def serve() -> None:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(1, "wb", 0))
    reader, _ = await loop.connect_read_pipe(lambda: LineProtocol(out, done), os.fdopen(0, "rb", 0))
    if isinstance(getattr(reader, "max_size", None), int):
        reader.max_size = PIPE_READ_BYTES  # type: ignore[attr-defined]
    await done


if __name__ == "__main__":
    TOOLS.extend(raw_definition(i) for i in range(ServerArgs(sys.argv).tools))
    asyncio.run(serve())
