"""``LineStream.send_nowait`` against ``send``: the same bytes on the wire, the same errors.

``send_nowait`` writes the usual message at once, with no coroutine, and hands back what to
await for everything else (closed, large, the peer not keeping up or gone). Real OS pipes: the
stream writes into a pipe whose other end the test reads.
"""

from __future__ import annotations

import asyncio
import os

import pytest

from mcpkit.protocol._codec import encode_message
from mcpkit.protocol._errors import ConnectionBroken, ConnectionClosed
from mcpkit.transports._lines import SINGLE_WRITE_MAX_BYTES, LineStream
from mcpkit.transports._pipes import FileSink, PipeSink, ReadPipe, open_read_fd, open_write_fd
from mcpkit.types._jsonrpc import Message, Request

WAIT = 10.0
"""Bound on every wait."""


class _Stream(LineStream):
    """A line stream closed the way its subclasses close it (stdio's ends)."""

    async def aclose(self) -> None:
        self._closed = True

    def __str__(self) -> str:
        return "test stream"


async def _stream_into(write_to: int | PipeSink | FileSink) -> _Stream:
    """A stream writing into a pipe (its own input: a pipe nobody writes)."""
    sink = await open_write_fd(write_to) if isinstance(write_to, int) else write_to
    idle_fd, idle_write_fd = os.pipe()
    os.close(idle_write_fd)
    idle = await open_read_fd(idle_fd)
    return _Stream(idle.source, sink, max_message_bytes=1 << 20)


async def _piped() -> tuple[_Stream, ReadPipe]:
    """A stream writing into a pipe, and the pipe's read end."""
    read_fd, write_fd = os.pipe()
    return await _stream_into(write_fd), await open_read_fd(read_fd)


async def _read(pipe: ReadPipe, size: int) -> bytes:
    data = b""
    async with asyncio.timeout(WAIT):
        while len(data) < size:
            chunk = await pipe.source.read(1 << 16)
            assert chunk, "the pipe ended early"
            data += chunk
    return data


def _call(n: int, text: str = "hi") -> Message:
    return Request(n, "tools/call", {"name": "echo", "arguments": {"text": text}})


async def test_the_usual_message_is_written_at_once_as_send_writes_it() -> None:
    stream, pipe = await _piped()
    assert stream.send_nowait(_call(1)) is None  # written: nothing to await
    await stream.send(_call(2))
    assert stream.send_nowait(_call(3)) is None
    expected = b"".join(encode_message(_call(n)) + b"\n" for n in (1, 2, 3))
    assert await _read(pipe, len(expected)) == expected
    pipe.close()


async def test_a_large_message_is_handed_back_and_sent_whole_when_awaited() -> None:
    stream, pipe = await _piped()
    large = _call(1, "x" * (SINGLE_WRITE_MAX_BYTES + 10))
    rest = stream.send_nowait(large)
    assert rest is not None  # more than one write: the sliced path, awaited
    expected = encode_message(large) + b"\n" + encode_message(_call(2)) + b"\n"
    reader = asyncio.ensure_future(_read(pipe, len(expected)))
    await rest
    assert stream.send_nowait(_call(2)) is None
    assert await reader == expected
    pipe.close()


async def test_while_the_peer_is_not_keeping_up_nothing_is_written_until_awaited() -> None:
    read_fd, write_fd = os.pipe()
    sink = await open_write_fd(write_fd)
    stream = await _stream_into(sink)
    backlog = b"#" * (1 << 18)  # more than the pipe and the transport's buffer take: paused
    sink.write(backlog)
    assert isinstance(sink, PipeSink) and sink.drain_needed()
    assert sink.write_now(b"x") is None  # nothing written while paused
    rest = stream.send_nowait(_call(1))
    assert rest is not None
    line = encode_message(_call(1)) + b"\n"
    pipe = await open_read_fd(read_fd)
    reader = asyncio.ensure_future(_read(pipe, len(backlog) + len(line)))
    await rest  # written once the reader made room
    assert await reader == backlog + line
    pipe.close()


async def test_a_closed_stream_refuses_both_ways_with_the_same_error() -> None:
    stream, pipe = await _piped()
    await stream.aclose()
    errors = []
    for send in (stream.send, stream.send_nowait):
        rest = send(_call(1))
        assert rest is not None
        with pytest.raises(ConnectionClosed) as caught:
            await rest
        errors.append(str(caught.value))
    assert errors[0] == errors[1] == "test stream is closed"
    pipe.close()


@pytest.mark.parametrize("first", ["send", "send_nowait"])
async def test_a_reader_gone_breaks_both_ways_with_the_same_error(first: str) -> None:
    read_fd, write_fd = os.pipe()
    stream = await _stream_into(write_fd)
    os.close(read_fd)  # nobody reads the pipe any more
    errors = []
    for name in (first, "send" if first == "send_nowait" else "send_nowait"):
        with pytest.raises(ConnectionBroken) as caught:
            rest = getattr(stream, name)(_call(1))
            if rest is not None:
                await rest
        errors.append(str(caught.value))
    assert errors == ["test stream: the peer went away"] * 2
