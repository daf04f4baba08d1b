"""JSON-RPC batches on a legacy Streamable HTTP session that negotiated 2025-03-26.

That revision's transport lets one POST carry an array of requests, notifications or responses,
and requires servers to accept it: an array of only notifications and responses gets 202, one
with requests gets a response whose body is one JSON array with their answers
(``application/json``; the spec also allows an SSE stream, which a batch does not need). Every
other revision refuses arrays (the router's -32600), and so does a 2025-03-26 session for an
empty array or one carrying ``initialize`` (:func:`mcpkit.protocol._batch.check_batch`).

Each member goes through the session's engine as a POST of its own would (``_legacy_sessions``):
a request is admitted by it (a reused id, also within the batch, is refused with -32600) and
tracked until answered, so ``notifications/cancelled`` reaches it; answers to our requests and
notifications are fed to it; every answer leaves through its send point. A request's messages to
the client other than its answer go to the session's ``GET`` stream, as in JSON response mode.
A cancelled member has no answer in the array.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcpkit.protocol._codec import encode_message
from mcpkit.protocol._errors import HeaderMismatch, JSONRPCError, MessageDecodeError
from mcpkit.protocol._meta import is_modern_request
from mcpkit.transports.http._server.exchange import RequestOutbound, Spawn, answer
from mcpkit.transports.http._server.legacy_sessions import LegacySessions, LegacySessionState
from mcpkit.transports.http._server.servable import HttpServable
from mcpkit.transports.http._server.sse_response import HttpResponse
from mcpkit.types._jsonrpc import ErrorResponse, Message, Notification, Request, Response

__all__ = ["serve_batch"]

Notify = Callable[[Notification, Any], Awaitable[None]]


async def serve_batch(
    items: Sequence[Message | MessageDecodeError],
    state: LegacySessionState,
    *,
    server: HttpServable,
    sessions: LegacySessions,
    notify: Notify,
    spawn: Spawn,
    auth: Any,
    response: HttpResponse,
) -> None:
    """Answer one batch POST of a 2025-03-26 session (see the module docstring)."""
    try:
        state.engine.receive_batch(items)
    except JSONRPCError as exc:
        refusal = state.send(ErrorResponse(None, exc.to_error_object()), None, None)
        await response.json_bytes(400, encode_message(refusal))
        return
    immediate: list[ErrorResponse] = []
    requests: list[Request] = []
    for item in items:
        if isinstance(item, MessageDecodeError):
            if item.answerable:
                immediate.append(ErrorResponse(item.request_id, item.error.to_error_object()))
        elif isinstance(item, Response | ErrorResponse):
            await sessions.receive_answer(state, item)
        elif isinstance(item, Notification):
            if await sessions.receive_notification(state, item):
                await notify(item, state.connection)
                await sessions.sync(state)
        elif is_modern_request(item.params):
            error: JSONRPCError = HeaderMismatch(
                "a 2026-07-28 request (its _meta names a protocol version) is never served "
                "inside a legacy session; send it on its own, without the session"
            )
            immediate.append(ErrorResponse(item.id, error.to_error_object()))
        else:
            try:
                state.admit(item)  # a reused id (in flight, or earlier in this batch): -32600
            except JSONRPCError as exc:
                immediate.append(ErrorResponse(item.id, exc.to_error_object()))
            else:
                requests.append(item)
    tasks = [_start(request, state, server, spawn, auth) for request in requests]
    answers = await asyncio.gather(*tasks, return_exceptions=True)
    parts = [encode_message(state.send(message, None, None)) for message in immediate]
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
    """Run one admitted member as a session request: tracked in flight until it is answered."""
    version = state.protocol_version
    outbound = RequestOutbound(None, state, version, json_only=True)
    connection = state.connection

    def run() -> Awaitable[Any]:
        return server.handle_request(request, outbound, connection=connection, auth=auth)

    async def member() -> bytes:
        reply = await answer(run, request, version, "legacy", send=state.send)
        return reply.data

    task: asyncio.Task[bytes] = spawn(member())  # type: ignore[arg-type, assignment]
    state.started(request.id, task, None)  # cancelled like any request of the session
    return task
