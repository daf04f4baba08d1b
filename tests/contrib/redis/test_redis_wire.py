"""The lean connection of the per-request scripts (``_wire.Wire``) against a real Redis: the same
replies as redis-py, pipelined calls matched to their replies, the script cache lost, a dropped
connection reopened, a hung Redis answered within the timeouts, the database number of the URL,
and the cases where it does not stand in for redis-py (TLS)."""

from __future__ import annotations

import asyncio
import secrets
import socket
import time
from typing import Any

import pytest

from mcpkit.contrib.redis import RedisState, RedisUnavailable
from mcpkit.contrib.redis._conn import RedisOptions, connect, guarded
from mcpkit.contrib.redis._wire import Script, Scripted, Wire, wire_for

pytest.importorskip("hiredis")

_SHAPES = """
redis.call('SET', KEYS[1], ARGV[1])
return {redis.call('GET', KEYS[1]), tonumber(ARGV[2]), false, {ARGV[3], 'x'}, 'done'}
"""


def _wire(url: str, **options: Any) -> Wire:
    settings = RedisOptions(url, **options)
    wire = wire_for(connect(settings), settings)
    assert wire is not None
    return wire


async def test_replies_are_what_redis_py_gives(client: Any, prefix: str) -> None:
    wire = wire_for(client, RedisOptions())
    assert wire is not None
    script = Scripted(client, wire, _SHAPES)
    slow = Scripted(client, None, _SHAPES)
    try:
        args = [b"v\x00\xff", 42, 1.5]
        lean = await script(keys=[f"{prefix}k"], args=args)
        assert lean == await slow(keys=[f"{prefix}k"], args=args)
        assert lean == [b"v\x00\xff", 42, None, [b"1.5", b"x"], b"done"]
    finally:
        await wire.aclose()


async def test_concurrent_calls_each_get_their_own_reply(prefix: str) -> None:
    wire = _wire("redis://127.0.0.1:6379/0")
    echo = Script("return ARGV[1]")
    try:
        replies = await asyncio.gather(
            *(wire.run(echo, [f"{prefix}k"], [str(i)]) for i in range(200))
        )
        assert replies == [str(i).encode() for i in range(200)]
    finally:
        await wire.aclose()


async def test_a_script_redis_does_not_know_is_sent_whole(client: Any, prefix: str) -> None:
    """A Redis restarted (or flushed) has an empty script cache: ``NOSCRIPT``, then ``EVAL``."""
    source = f"-- {secrets.token_hex(8)}\nreturn 7"  # never loaded before
    script = Script(source)
    assert await client.script_exists(script.sha.decode()) == [False]
    wire = _wire("redis://127.0.0.1:6379/0")
    try:
        assert await wire.run(script, [f"{prefix}k"], []) == 7
        assert await client.script_exists(script.sha.decode()) == [True]
    finally:
        await wire.aclose()


async def test_a_script_error_is_a_response_error(prefix: str) -> None:
    from redis.exceptions import ResponseError

    wire = _wire("redis://127.0.0.1:6379/0")
    try:
        with pytest.raises(ResponseError, match="boom"):
            await wire.run(Script("return redis.error_reply('boom')"), [f"{prefix}k"], [])
        assert await wire.run(Script("return 1"), [f"{prefix}k"], []) == 1  # still usable
    finally:
        await wire.aclose()


async def test_a_connection_the_server_drops_is_reopened(client: Any, prefix: str) -> None:
    wire = _wire("redis://127.0.0.1:6379/0")
    echo = Script("return ARGV[1]")
    try:
        assert await wire.run(echo, [f"{prefix}k"], ["a"]) == b"a"
        connection: Any = wire._connection
        host, port = connection._transport.get_extra_info("sockname")[:2]
        assert await client.client_kill(f"{host}:{port}")
        assert await wire.run(echo, [f"{prefix}k"], ["b"]) == b"b"
        assert wire._connection is not connection
    finally:
        await wire.aclose()


async def test_the_database_of_the_url_is_selected(prefix: str) -> None:
    import redis.asyncio as aioredis

    wire = _wire("redis://127.0.0.1:6379/5")
    other = aioredis.Redis.from_url("redis://127.0.0.1:6379/5")
    try:
        await wire.run(Script("return redis.call('SET', KEYS[1], 'here')"), [f"{prefix}db"], [])
        assert await other.get(f"{prefix}db") == b"here"
    finally:
        await other.delete(f"{prefix}db")
        await other.aclose()
        await wire.aclose()


async def test_a_hung_redis_is_unavailable_within_the_timeouts() -> None:
    """A Redis that accepts and never answers: RedisUnavailable after (retries + 1) socket
    timeouts and the backoff, as with redis-py."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        wire = _wire(f"redis://127.0.0.1:{port}/0", socket_timeout=0.2, retries=1)
        started = time.monotonic()
        try:
            with pytest.raises(RedisUnavailable, match="Timeout"):
                async with guarded():
                    await wire.run(Script("return 1"), ["k"], [])
        finally:
            await wire.aclose()
        assert time.monotonic() - started < 2.0


async def test_a_refused_connection_is_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    wire = _wire(f"redis://127.0.0.1:{port}/0", retries=1)
    try:
        with pytest.raises(RedisUnavailable):
            async with guarded():
                await wire.run(Script("return 1"), ["k"], [])
    finally:
        await wire.aclose()


def test_tls_urls_keep_redis_py() -> None:
    settings = RedisOptions("rediss://127.0.0.1:6380/0")
    assert wire_for(connect(settings), settings) is None


async def test_redis_state_serves_requests_through_the_wire(prefix: str) -> None:
    state = RedisState(prefix=prefix)
    assert state.wire is not None
    try:
        made = await state.session_store.create(protocol_version="2025-11-25", now=1000.0)
        assert state.wire._connection is not None  # the script went over the wire
        seen = await state.session_store.touch(made.id, 1000.5)
        assert seen is not None and seen.last_seen == 1000.0  # read only: not renewed yet
        seen = await state.session_store.touch(made.id, 1002.0)
        assert seen is not None and seen.last_seen == 1002.0
    finally:
        await state.wire.aclose()
        await state.client.aclose()


_PUSH = "redis.call('RPUSH', KEYS[1], ARGV[1])"


async def test_an_unanswered_write_goes_out_with_the_next_command_in_order(
    prefix: str,
) -> None:
    """``send`` writes at once and waits for nothing (Redis sends no reply); a command sent
    after it sees it done, and the replies stay in step with the commands that wait."""
    wire = _wire("redis://127.0.0.1:6379/0")
    try:
        assert await wire.run(Script("return 1"), [f"{prefix}k"], []) == 1  # connection open
        connection: Any = wire._connection
        assert connection.skips_replies
        assert wire.send(Script(_PUSH), [f"{prefix}list"], ["a"])
        assert wire.send(Script(_PUSH), [f"{prefix}list"], ["b"])
        read = Script("return redis.call('LRANGE', KEYS[1], 0, -1)")
        assert await wire.run(read, [f"{prefix}list"], []) == [b"a", b"b"]
        assert not connection._waiting  # no reply arrived for the unanswered writes
    finally:
        await wire.aclose()


async def test_an_unanswered_write_with_no_command_after_it_reaches_redis(
    client: Any, prefix: str
) -> None:
    """An unanswered write with no command after it reaches Redis by itself, and a script
    Redis never saw runs too (``EVAL``, not ``EVALSHA``: a lost script cache cannot drop it)."""
    wire = _wire("redis://127.0.0.1:6379/0")
    try:
        assert await wire.run(Script("return 1"), [f"{prefix}k"], []) == 1
        fresh = Script(f"-- {secrets.token_hex(8)}\n{_PUSH}")
        assert await client.script_exists(fresh.sha.decode()) == [False]
        assert wire.send(fresh, [f"{prefix}list"], ["x"])
        assert await client.blpop([f"{prefix}list"], timeout=5) == (f"{prefix}list".encode(), b"x")
    finally:
        await wire.aclose()


async def test_no_unanswered_write_without_an_open_connection() -> None:
    """Before the first command there is no connection (nor an answer to ``CLIENT REPLY``):
    ``send`` declines and the caller awaits its script instead."""
    wire = _wire("redis://127.0.0.1:6379/0")
    try:
        assert not wire.send(Script(_PUSH), ["k"], ["x"])
    finally:
        await wire.aclose()
