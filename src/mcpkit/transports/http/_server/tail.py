"""Serving an SSE stream from a shared event log (many workers write it, this one follows it).

With a shared event store (Redis Streams) the messages of a session's ``GET`` stream, and of a
request whose handler runs on another worker, are not emitted in this process: they appear in the
log. :func:`serve_tail` writes what the store's ``tail`` yields as SSE events, with comment
keep-alives while it is quiet, until the stream ends or the client leaves. When the store says the
stream's writer died (:class:`~mcpkit.transports.http._server.event_store.WriterGone`),
``on_writer_gone``
supplies the last events (the error that answers the orphaned request) before the stream ends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from mcpkit._runtime.concurrency import cancel_and_wait
from mcpkit.transports.http._server.event_store import WriterGone
from mcpkit.transports.http._server.exchange import Spawn, StreamOptions
from mcpkit.transports.http._server.sse_response import HttpResponse, Receive, watch_disconnect

__all__ = ["serve_tail"]

Batches = AsyncIterator[list[tuple[str, bytes]]]


async def serve_tail(
    response: HttpResponse,
    receive: Receive,
    batches: Batches,
    *,
    spawn: Spawn,
    options: StreamOptions,
    prime: str | None = None,
    first: Sequence[tuple[str, bytes]] = (),
    on_keepalive: Callable[[], Awaitable[Any]] | None = None,
    on_writer_gone: Callable[[], Awaitable[Sequence[tuple[str, bytes]]]] | None = None,
) -> None:
    """Write ``first``, then every batch of ``batches``, as SSE; end with the log or the client
    (or, when the writer died, with what ``on_writer_gone`` returns)."""
    disconnected = asyncio.Event()
    watcher = spawn(watch_disconnect(receive, disconnected.set))
    loop = asyncio.get_running_loop()
    try:
        if not await response.start_sse():
            return
        if prime is not None and not await response.event(
            b"", event_id=prime, retry=options.retry_ms
        ):
            return
        for event_id, data in first:
            if not await response.event(data, event_id=event_id):
                return
        quiet_since = loop.time()
        try:
            async for batch in batches:
                if disconnected.is_set() or response.broken:
                    return
                for event_id, data in batch:
                    if not await response.event(data, event_id=event_id):
                        return
                now = loop.time()
                if batch:
                    quiet_since = now
                elif now - quiet_since >= options.keepalive:
                    quiet_since = now
                    if not await response.comment():
                        return
                    if on_keepalive is not None:
                        await on_keepalive()
        except WriterGone:
            for event_id, data in await on_writer_gone() if on_writer_gone is not None else ():
                if not await response.event(data, event_id=event_id):
                    return
        await response.end()
    finally:
        await cancel_and_wait(watcher)
        with contextlib.suppress(Exception):
            await batches.aclose()  # type: ignore[attr-defined]
