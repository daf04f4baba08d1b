"""The stdio server's push path: ``PipeSource`` hands chunks from the event loop's read callback
straight to ``LineStream.start_push``, which frames, decodes and delivers them with no reader
task. Real OS pipes; what the session would receive is recorded."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import pytest

from mcpkit.protocol._errors import ConnectionBroken, MessageDecodeError
from mcpkit.transports._lines import LineStream
from mcpkit.transports._pipes import FileSink, ReadPipe, open_read_fd
from mcpkit.types._jsonrpc import Message, Request

WAIT = 10.0
"""Bound on every wait."""


class Recorder:
    def __init__(self, *, fail_on: str | None = None) -> None:
        self.items: list[Message | MessageDecodeError] = []
        self.ends: list[ConnectionBroken | None] = []
        self.ended = asyncio.Event()
        self._fail_on = fail_on

    def deliver(self, item: Message | MessageDecodeError) -> None:
        if isinstance(item, Request) and item.method == self._fail_on:
            raise RuntimeError("handler bug")
        self.items.append(item)

    def end(self, exc: ConnectionBroken | None) -> None:
        self.ends.append(exc)
        self.ended.set()


async def _pipe_stream(max_message_bytes: int = 1024) -> tuple[LineStream, ReadPipe, int]:
    read_fd, write_fd = os.pipe()
    read_pipe = await open_read_fd(read_fd)
    stream = LineStream(read_pipe.source, FileSink(os.open(os.devnull, os.O_WRONLY)),
                        max_message_bytes=max_message_bytes)  # fmt: skip
    return stream, read_pipe, write_fd


def _request(n: int, method: str = "ping") -> bytes:
    return b'{"jsonrpc":"2.0","id":%d,"method":"%s"}' % (n, method.encode())


async def test_messages_are_pushed_in_order_and_eof_delivers_the_last_line() -> None:
    stream, read_pipe, write_fd = await _pipe_stream()
    recorder = Recorder()
    assert stream.start_push(recorder.deliver, recorder.end)
    # one line split over two writes, two in one write, a last line with no newline
    os.write(write_fd, _request(1)[:10])
    os.write(write_fd, _request(1)[10:] + b"\n" + _request(2) + b"\n" + _request(3) + b"\n")
    os.write(write_fd, b"x" * 2000 + b"\n")  # over the limit: an error item, not a message
    os.write(write_fd, _request(4))
    os.close(write_fd)
    async with asyncio.timeout(WAIT):
        await recorder.ended.wait()
    ids = [item.id for item in recorder.items if isinstance(item, Request)]
    assert ids == [1, 2, 3, 4]
    errors = [item for item in recorder.items if isinstance(item, MessageDecodeError)]
    assert len(errors) == 1 and "exceeds 1024 bytes" in errors[0].error.message
    assert recorder.ends == [None]
    with pytest.raises(RuntimeError):
        await stream.receive()  # a pushing stream is never pulled
    read_pipe.close()


async def test_a_failing_consumer_ends_the_input_as_broken() -> None:
    stream, read_pipe, write_fd = await _pipe_stream()
    recorder = Recorder(fail_on="boom")
    assert stream.start_push(recorder.deliver, recorder.end)
    os.write(write_fd, _request(1) + b"\n" + _request(2, "boom") + b"\n" + _request(3) + b"\n")
    async with asyncio.timeout(WAIT):
        await recorder.ended.wait()
    assert [item.id for item in recorder.items if isinstance(item, Request)] == [1]
    assert len(recorder.ends) == 1 and isinstance(recorder.ends[0], ConnectionBroken)
    os.close(write_fd)
    read_pipe.close()


async def test_pulled_pipe_source_reads_chunks_then_eof() -> None:
    stream, read_pipe, write_fd = await _pipe_stream()
    os.write(write_fd, _request(7) + b"\n")
    os.close(write_fd)
    async with asyncio.timeout(WAIT):
        first: Any = await stream.receive()
        assert isinstance(first, Request) and first.id == 7
        assert await stream.receive() is None
    read_pipe.close()


async def test_sources_that_cannot_push_keep_the_pull_path() -> None:
    reader = asyncio.StreamReader()
    stream = LineStream(reader, FileSink(os.open(os.devnull, os.O_WRONLY)), max_message_bytes=64)
    recorder = Recorder()
    assert not stream.start_push(recorder.deliver, recorder.end)
    reader.feed_data(_request(5) + b"\n")
    reader.feed_eof()
    async with asyncio.timeout(WAIT):
        item: Any = await stream.receive()
    assert isinstance(item, Request) and item.id == 5
