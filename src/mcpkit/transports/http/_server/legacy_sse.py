"""The deprecated 2024-11-05 HTTP+SSE transport: an optional server endpoint.

How it works (spec 2024-11-05, basic/transports): the client opens ``GET /sse``; the first event,
named ``endpoint``, carries the URI to POST messages to (here ``/messages?session_id=<id>``);
every message from the server — responses included — arrives as an SSE ``message`` event on that
one stream, and every POST is answered ``202 Accepted``. The session lives as long as the GET.

It is deprecated since 2025-03-26; serve it (``legacy_sse=True``) only for old clients. It shares
the sessions, the bounds and the Host/Origin checks of the Streamable HTTP endpoint.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qs

import msgspec

from mcpkit.protocol._codec import decode_json, encode_message, message_from_obj
from mcpkit.protocol._errors import (
    InternalError,
    InvalidRequest,
    JSONRPCError,
    MessageDecodeError,
    ParseError,
)
from mcpkit.protocol._http_headers import normalize_headers
from mcpkit.protocol._http_routing import check_media
from mcpkit.protocol._sse import encode_event
from mcpkit.transports.http._server.body import BodyError, read_body
from mcpkit.transports.http._server.endpoint import AUTH_SCOPE_KEY, SESSION_NOT_FOUND
from mcpkit.transports.http._server.exchange import (
    GetStreamOutbound,
    RequestOutbound,
    Spawn,
    answer,
    serve_stream,
)
from mcpkit.transports.http._server.legacy_sessions import LegacySessionState
from mcpkit.transports.http._server.peers import peer_key
from mcpkit.transports.http._server.pipe import EventPipe, PipeState
from mcpkit.transports.http._server.session_store import SessionLimitReached
from mcpkit.transports.http._server.sse_response import HttpResponse, Receive, Scope
from mcpkit.types._jsonrpc import ErrorResponse, Notification, Request, Response

if TYPE_CHECKING:
    from mcpkit.transports.http._server.endpoint import Endpoint

__all__ = ["LEGACY_SSE_VERSION", "LegacySseEndpoint"]

logger = logging.getLogger("mcpkit.http")

LEGACY_SSE_VERSION: Final = "2024-11-05"
"""The protocol version of the HTTP+SSE transport (a session may still negotiate another)."""


class LegacySseEndpoint:
    """``GET sse_path`` and ``POST messages_path`` of the 2024-11-05 transport."""

    def __init__(self, endpoint: Endpoint, messages_path: str, spawn: Spawn) -> None:
        self._endpoint = endpoint
        self._messages_path = messages_path
        self._spawn = spawn

    async def __call__(
        self, is_stream: bool, scope: Scope, receive: Receive, response: HttpResponse
    ) -> None:
        sessions = self._endpoint.sessions
        if sessions is None:
            await response.text(404, "Not Found: HTTP+SSE needs sessions (the app is stateless)")
        elif is_stream and scope["method"] == "GET":
            await self._stream(scope, receive, response)
        elif not is_stream and scope["method"] == "POST":
            await self._post(scope, receive, response)
        else:
            allow = b"GET" if is_stream else b"POST"
            await response.text(405, "Method Not Allowed", ((b"allow", allow),))

    async def _stream(self, scope: Scope, receive: Receive, response: HttpResponse) -> None:
        sessions = self._endpoint.sessions
        assert sessions is not None
        try:
            state = await sessions.create(LEGACY_SSE_VERSION, peer_key(scope.get("client")))
        except SessionLimitReached as exc:
            await response.error(503, _error(InternalError(f"Service Unavailable: {exc}")))
            return
        state.connection.notify = GetStreamOutbound(state)
        pipe = state.get_pipe = EventPipe("sse", state=PipeState.DETACHED)  # not resumable
        root = scope.get("root_path", "")
        target = f"{root}{self._messages_path}?session_id={state.id}"
        try:
            await serve_stream(
                response,
                receive,
                pipe,
                spawn=self._spawn,
                options=self._endpoint.stream_options,
                prime=False,
                preamble=encode_event(target, event="endpoint"),
            )
        finally:
            await sessions.end(state.id)  # the session lives as long as its stream

    async def _post(self, scope: Scope, receive: Receive, response: HttpResponse) -> None:
        sessions = self._endpoint.sessions
        assert sessions is not None
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        session_id = (query.get("session_id") or [None])[0]
        state = await sessions.find(session_id) if session_id else None
        if state is None or state.get_pipe is None:
            error = JSONRPCError(
                "Session not found: open the SSE stream first", code=SESSION_NOT_FOUND
            )
            await response.error(404, ErrorResponse(None, error.to_error_object()))
            return
        headers = normalize_headers(scope["headers"])
        rejection = check_media("POST", {"content-type": headers.get("content-type", "")})
        if rejection is not None:
            await response.error(rejection.status, rejection.response())
            return
        try:
            body = await read_body(receive, headers.get("content-length"))
            message = message_from_obj(decode_json(body))
        except BodyError as exc:
            if exc.status is not None:
                await response.error(exc.status, _error(InvalidRequest(exc.message)))
            return
        except (msgspec.DecodeError, RecursionError, ValueError) as exc:
            await response.error(400, _error(ParseError(f"Parse error: {exc}")))
            return
        except MessageDecodeError as exc:
            await response.error(400, ErrorResponse(exc.request_id, exc.error.to_error_object()))
            return
        if isinstance(message, Response | ErrorResponse):
            await sessions.receive_answer(state, message)
        elif isinstance(message, Notification):
            if await sessions.receive_notification(state, message):
                await self._endpoint.notify(message, state.connection)
        else:
            try:  # the session's engine: the lifecycle, a reused in-flight id
                state.admit(message)
            except JSONRPCError as exc:
                refusal = state.send(ErrorResponse(message.id, exc.to_error_object()), None, None)
                stream = state.get_pipe
                if stream is not None:  # answers go on the one stream
                    await stream.emit(encode_message(refusal))
            else:
                task = self._spawn(self._serve(state, message, scope.get(AUTH_SCOPE_KEY)))
                state.started(message.id, task, None)
        await response.empty(202)

    async def _serve(self, state: LegacySessionState, request: Request, auth: Any) -> None:
        pipe = state.get_pipe
        assert pipe is not None
        outbound = RequestOutbound(pipe, state, state.protocol_version)
        server = self._endpoint.server

        def run() -> Awaitable[Any]:
            return server.handle_request(request, outbound, connection=state.connection, auth=auth)

        version = state.protocol_version or LEGACY_SSE_VERSION
        reply = await answer(run, request, version, "legacy", send=state.send)
        await pipe.emit(reply.data)  # the answer travels on the one stream, like the rest


def _error(error: JSONRPCError) -> ErrorResponse:
    return ErrorResponse(None, error.to_error_object())
