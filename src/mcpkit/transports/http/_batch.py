"""JSON-RPC batches on a legacy Streamable HTTP session that negotiated 2025-03-26.

That revision's transport lets one POST carry an array of requests, notifications or responses,
and requires servers to accept it: an array of only notifications and responses gets 202, one
with requests gets a response whose body is one JSON array with their answers
(``application/json``; the spec also allows an SSE stream, which a batch does not need). Every
other revision refuses arrays (the router's -32600), and so does a 2025-03-26 session for an
empty array or one carrying ``initialize`` (:func:`mcpkit.protocol.batch.check_batch`).

Each request of the batch runs as the session's own requests do (tracked in the session's
in-flight table, so ``notifications/cancelled`` reaches it and a reused id is refused); its
messages to the client other than the answer go to the session's ``GET`` stream, as in JSON
response mode. A cancelled member has no answer in the array.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcpkit.protocol.batch import check_batch
from mcpkit.protocol.cancellation import cancelled_request_id
from mcpkit.protocol.codec import encode_message
from mcpkit.protocol.errors import (
    HeaderMismatch,
    InvalidRequest,
    JSONRPCError,
    MessageDecodeError,
)
from mcpkit.protocol.meta import is_modern_request
from mcpkit.protocol.shape import prepare_outbound
from mcpkit.transports.http._exchange import RequestOutbound, Spawn, answer
from mcpkit.transports.http._legacy_sessions import LegacySessionState
from mcpkit.transports.http._pipe import EventPipe
from mcpkit.transports.http._servable import HttpServable
from mcpkit.transports.http._sse_response import HttpResponse
from mcpkit.types.jsonrpc import ErrorResponse, Message, Notification, Request, Response

__all__ = ["serve_batch"]

Notify = Callable[[Notification, Any], Awaitable[None]]
Forward = Callable[[str, str, Any], Awaitable[None]]
"""``LegacySessions.forward``: hands an answer or a cancel to the worker that can use it."""


async def serve_batch(
    items: Sequence[Message | MessageDecodeError],
    state: LegacySessionState,
    *,
    server: HttpServable,
    notify: Notify,
    forward: Forward,
    spawn: Spawn,
    auth: Any,
    response: HttpResponse,
) -> None:
    """Answer one batch POST of a 2025-03-26 session (see the module docstring)."""
    version = state.protocol_version
    try:
        check_batch(items, version)
    except JSONRPCError as exc:
        refusal = prepare_outbound(ErrorResponse(None, exc.to_error_object()), version, None)
        await response.json_bytes(400, encode_message(refusal))
        return
    immediate: list[ErrorResponse] = []
    requests: list[Request] = []
    taken: set[tuple[type, object]] = set()
    for item in items:
        if isinstance(item, MessageDecodeError):
            if item.answerable:
                immediate.append(ErrorResponse(item.request_id, item.error.to_error_object()))
        elif isinstance(item, Response | ErrorResponse):
            if not state.resolve(item):
                await forward("answer", state.id, item)  # another worker may be waiting for it
        elif isinstance(item, Notification):
            if item.method == "notifications/cancelled":
                target = cancelled_request_id(item.params)
                if not state.cancel(target):
                    await forward("cancel", state.id, target)
            else:
                await notify(item, state.connection)
        elif is_modern_request(item.params):
            error: JSONRPCError = HeaderMismatch(
                "a 2026-07-28 request (its _meta names a protocol version) is never served "
                "inside a legacy session; send it on its own, without the session"
            )
            immediate.append(ErrorResponse(item.id, error.to_error_object()))
        else:
            key = (type(item.id), item.id)
            if item.id in state.inflight or key in taken:
                error = InvalidRequest(
                    f"Invalid Request: a request with id {item.id!r} is already in flight in "
                    "this session; use a new id"
                )
                immediate.append(ErrorResponse(item.id, error.to_error_object()))
            else:
                taken.add(key)
                requests.append(item)
    tasks = [_start(request, state, server, spawn, auth) for request in requests]
    answers = await asyncio.gather(*tasks, return_exceptions=True)
    parts = [encode_message(prepare_outbound(message, version, None)) for message in immediate]
    parts += [data for data in answers if isinstance(data, bytes)]
    if not parts:  # only notifications and responses, or every request was cancelled
        await response.empty(202)
        return
    await response.json_bytes(200, b"[" + b",".join(parts) + b"]")


def _start(
    request: Request,
    state: LegacySessionState,
    server: HttpServable,
    spawn: Spawn,
    auth: Any,
) -> asyncio.Task[bytes]:
    """Run one member as a session request: tracked in flight until it is answered."""
    version = state.protocol_version
    outbound = RequestOutbound(EventPipe(f"batch-{request.id}"), state, version, json_only=True)
    connection = state.connection

    def run() -> Awaitable[Any]:
        return server.handle_request(request, outbound, connection=connection, auth=auth)

    async def member() -> bytes:
        reply = await answer(run, request, version, "legacy")
        return reply.data

    task: asyncio.Task[bytes] = spawn(member())  # type: ignore[arg-type, assignment]
    tracked: asyncio.Task[Any] = task
    state.inflight[request.id] = tracked  # cancelled like any request of the session

    def forget(_: object) -> None:
        if state.inflight.get(request.id) is tracked:
            del state.inflight[request.id]

    task.add_done_callback(forget)
    return task
