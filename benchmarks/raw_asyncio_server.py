"""A reference, not an anchor: the raw floor's answers behind a bare asyncio pipe protocol.

No library, no tasks: lines are parsed in ``data_received`` and answered at once with
``transport.write``. Its numbers are what the asyncio event loop alone adds to the raw floor
(a wake-up through epoll per message), i.e. the least any asyncio stdio server can cost. The
report shows it next to the anchors to say how much of a server's cost is the loop's.

Pipe reads are 64 KiB, as in mcpkit: asyncio's default 256 KiB read buffer is an mmap, mremap
and munmap per message, which would bill the loop for an allocator artefact.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from httpserve import ServerArgs
from raw_stdio_server import TOOLS, answer
from toolset import raw_definition

PIPE_READ_BYTES = 64 * 1024


class LineProtocol(asyncio.Protocol):
    def __init__(self, out: asyncio.WriteTransport, done: asyncio.Future[None]) -> None:
        self._buffer = b""
        self._out = out
        self._done = done

    def data_received(self, data: bytes) -> None:
        *lines, self._buffer = (self._buffer + data).split(b"\n")
        for line in lines:
            if line.strip():
                response = answer(json.loads(line))
                if response is not None:
                    self._out.write(json.dumps(response, separators=(",", ":")).encode() + b"\n")

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
