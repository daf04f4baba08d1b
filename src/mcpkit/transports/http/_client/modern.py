"""The 2026-07-28 leg of the HTTP client: one POST per request, stateless.

Each request carries the request-metadata headers computed from its body by the sans-IO rules
(:func:`~mcpkit.protocol._http_headers.request_headers`): ``MCP-Protocol-Version``,
``Mcp-Method``, ``Mcp-Name`` and the ``Mcp-Param-*`` headers of the called tool's ``x-mcp-header``
annotations (compiled once per tool schema). The answer is JSON or an SSE stream whose
notifications (progress, log messages, a listen's changes) go to the caller as they arrive.

Failure handling, in the spec's terms:

* **Closing the stream cancels** the request: cancelling the awaiting task leaves the httpx
  stream, which closes the connection.
* **A broken stream** loses the request (no resumption in 2026). Requests that cannot change
  anything (listings, reads, ``server/discover``, and tools annotated ``readOnlyHint`` or
  ``idempotentHint``) are sent again once with a **new id**; anything else surfaces a
  :class:`~mcpkit.protocol._errors.ConnectionBroken` (network) or
  :class:`~mcpkit.protocol._errors.RemoteProtocolError` (the server ended the stream early) that
  says it was not re-sent.
* **HTTP errors**: a JSON-RPC error body (400 + -32020/-32021/-32022, 404 + -32601, ...) is the
  answer; any other error status raises ``RemoteProtocolError`` quoting the body.
* **HeaderMismatch on tools/call**: the tool's schema may have changed, so ``tools/list`` is read
  again and the call retried once with the fresh annotations (the spec's SHOULD).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

import httpx

from mcpkit.protocol._codec import encode_json
from mcpkit.protocol._errors import (
    HEADER_MISMATCH,
    ConnectionBroken,
    MCPError,
    RemoteProtocolError,
    TransportError,
    UsageError,
)
from mcpkit.protocol._http_headers import (
    ParamHeaders,
    compile_header_params,
    request_headers,
    tool_header_problem,
)
from mcpkit.protocol._meta import PROGRESS_TOKEN_KEY, PROTOCOL_VERSION_KEY, declared_version
from mcpkit.protocol._shape import prepare_outbound
from mcpkit.protocol._sse import SSEDecoder
from mcpkit.transports.http._client.options import (
    MAX_REISSUES,
    MAX_TOOL_LIST_PAGES,
    HttpClientOptions,
)
from mcpkit.transports.http._client.scope import WorkScope
from mcpkit.transports.http._client.wire import (
    JSON_MEDIA,
    POST_ACCEPT,
    SSE_MEDIA,
    decode_body,
    error_body,
    error_response_body,
    iter_events,
    media_type,
    read_limited,
    snippet,
    status_error,
    translate,
)
from mcpkit.types._jsonrpc import (
    ErrorResponse,
    Message,
    Notification,
    Request,
    RequestId,
    Response,
    message_to_dict,
)

__all__ = ["MAX_COMPILED_TOOLS", "REISSUABLE_METHODS", "ModernExchanger"]

logger = logging.getLogger("mcpkit.http.client")

NotificationSink = Callable[[Notification], Awaitable[None]]

REISSUABLE_METHODS: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "prompts/get",
        "completion/complete",
    }
)
"""Methods that change nothing on the server, so a lost one may be sent again."""
MAX_COMPILED_TOOLS: Final = 1024
"""Compiled ``x-mcp-header`` annotations kept (per tool name); the cache is reset beyond."""


class _Broken(Exception):
    """The request may have reached the server but its answer was lost (internal signal)."""

    def __init__(self, error: TransportError | RemoteProtocolError) -> None:
        super().__init__(str(error))
        self.error = error


def _with_id(request: Request, request_id: RequestId) -> Request:
    return Request(request_id, request.method, request.params)


def _restore_id(
    answer: Response | ErrorResponse, request_id: RequestId
) -> Response | ErrorResponse:
    if answer.id == request_id:
        return answer
    if isinstance(answer, Response):
        return Response(request_id, answer.result)
    return ErrorResponse(request_id, answer.error)


def _version_of(request: Request) -> str:
    version = declared_version(request.params)
    if version is None:
        raise UsageError(
            f"{request.method}: a 2026 request needs _meta[{PROTOCOL_VERSION_KEY!r}] or a "
            "protocol_version"
        )
    return version


def _read_only(tool: Mapping[str, Any] | None) -> bool:
    annotations = tool.get("annotations") if tool is not None else None
    if not isinstance(annotations, Mapping):
        return False
    return annotations.get("readOnlyHint") is True or annotations.get("idempotentHint") is True


async def _ignore(note: Notification) -> None:
    logger.debug("ignored %s on an internal tools/list", note.method)


class ModernExchanger:
    """``ExchangeTransport.exchange`` for one endpoint (see the module docstring)."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        url: str,
        scope: WorkScope,
        options: HttpClientOptions,
    ) -> None:
        self._http = http
        self._url = url
        self._scope = scope
        self._options = options
        self._compiled: dict[str, tuple[Any, ParamHeaders]] = {}

    async def exchange(
        self,
        request: Request,
        *,
        protocol_version: str,
        on_notification: NotificationSink,
        tool: Mapping[str, Any] | None = None,
    ) -> Response | ErrorResponse:
        version = protocol_version or _version_of(request)
        return await self._scope.run(self._exchange(request, version, on_notification, tool))

    async def _exchange(
        self,
        request: Request,
        version: str,
        sink: NotificationSink,
        tool: Mapping[str, Any] | None,
    ) -> Response | ErrorResponse:
        current = request
        attempts = 0
        reissues = 0
        refreshed = False
        while True:
            try:
                answer = await self._post(current, version, sink, tool)
            except _Broken as broken:
                if reissues < MAX_REISSUES and self._may_reissue(request, tool):
                    reissues += 1
                    attempts += 1
                    current = _with_id(request, f"{request.id}-{attempts}")
                    logger.info(
                        "%s: %s; sending it again as id %r", request.method, broken, current.id
                    )
                    continue
                raise self._not_reissued(request, broken, reissues) from None
            if (
                request.method == "tools/call"
                and not refreshed
                and isinstance(answer, ErrorResponse)
                and answer.error.code == HEADER_MISMATCH
            ):
                refreshed = True
                fresh = await self._refresh_tool(request, version)
                if fresh is not None:
                    logger.info(
                        "tools/call %r: HeaderMismatch (%s); retrying with the re-listed tool",
                        (request.params or {}).get("name"),
                        answer.error.message,
                    )
                    tool = fresh
                    attempts += 1
                    current = _with_id(request, f"{request.id}-{attempts}")
                    continue
            return _restore_id(answer, request.id)

    def _may_reissue(self, request: Request, tool: Mapping[str, Any] | None) -> bool:
        if not self._options.reissue_safe_requests:
            return False
        return request.method in REISSUABLE_METHODS or (
            request.method == "tools/call" and _read_only(tool)
        )

    def _not_reissued(self, request: Request, broken: _Broken, reissues: int) -> MCPError:
        if reissues:
            why = "it was already sent again once"
        elif not self._options.reissue_safe_requests:
            why = "re-sending is turned off (reissue_safe_requests=False)"
        else:
            why = (
                "it was not sent again because it may have had effects on the server (only "
                "read-only requests and tools annotated readOnlyHint/idempotentHint are re-sent)"
            )
        text = f"{broken.error}; the {request.method} request was lost: {why}"
        if isinstance(broken.error, ConnectionBroken):
            return ConnectionBroken(text)
        return RemoteProtocolError(text)

    # -- one POST -----------------------------------------------------------------------------

    def _param_headers(self, tool: Mapping[str, Any] | None) -> ParamHeaders | None:
        if tool is None:
            return None
        name = tool.get("name")
        schema = tool.get("inputSchema")
        if not isinstance(name, str):
            return None
        cached = self._compiled.get(name)
        if cached is not None and cached[0] is schema:
            return cached[1]
        try:
            compiled = compile_header_params(schema)
        except UsageError as exc:
            raise UsageError(
                f"tool {name!r} cannot be called over HTTP: {exc} (clients must drop such tools "
                "from tools/list)"
            ) from None
        if len(self._compiled) >= MAX_COMPILED_TOOLS:
            self._compiled.clear()
        self._compiled[name] = (schema, compiled)
        return compiled

    async def _post(
        self,
        request: Request,
        version: str,
        sink: NotificationSink,
        tool: Mapping[str, Any] | None,
    ) -> Response | ErrorResponse:
        body = message_to_dict(prepare_outbound(request, version, request.method))
        headers = request_headers(
            body, protocol_version=version, tool_input_schema=self._param_headers(tool)
        )
        headers["Content-Type"] = JSON_MEDIA
        headers["Accept"] = POST_ACCEPT
        doing = f"POST {self._url} ({request.method})"
        try:
            async with self._http.stream(
                "POST", self._url, content=encode_json(body), headers=headers
            ) as response:
                return await self._answer(response, request, sink, doing)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise translate(exc, doing) from exc  # never reached the server: nothing was lost
        except httpx.HTTPError as exc:
            raise _Broken(translate(exc, doing)) from exc

    async def _answer(
        self,
        response: httpx.Response,
        request: Request,
        sink: NotificationSink,
        doing: str,
    ) -> Response | ErrorResponse:
        status = response.status_code
        if status >= 300:
            body = await error_response_body(response, doing)
            error = error_body(body)
            if error is not None:
                return error if error.id is not None else ErrorResponse(request.id, error.error)
            raise status_error(response, body, doing)
        if status in (202, 204):
            raise RemoteProtocolError(
                f"{doing}: HTTP {status} with no body, but a request needs a response"
            )
        media = media_type(response)
        if media == JSON_MEDIA:
            try:
                data = await read_limited(response, self._options.max_event_bytes, doing)
            except ConnectionBroken as exc:
                raise _Broken(exc) from exc
            return _final(decode_body(data, doing), doing)
        if media == SSE_MEDIA:
            return await self._follow(response, request, sink, doing)
        data = await error_response_body(response, doing)
        raise RemoteProtocolError(
            f"{doing}: unexpected Content-Type {media or 'none'!r} (a request is answered with "
            f"{JSON_MEDIA} or {SSE_MEDIA}): {snippet(data)}"
        )

    async def _follow(
        self,
        response: httpx.Response,
        request: Request,
        sink: NotificationSink,
        doing: str,
    ) -> Response | ErrorResponse:
        decoder = SSEDecoder(self._options.max_event_bytes)
        try:
            async for event in iter_events(response, decoder, doing):
                if event.event != "message" or not event.data.strip():
                    continue  # priming events, keep-alives and foreign event types
                message = decode_body(event.data, doing)
                if isinstance(message, Notification):
                    await _deliver(sink, message)
                elif isinstance(message, Response | ErrorResponse):
                    if message.id == request.id or message.id is None:
                        return message
                    logger.debug("%s: ignored a response for id %r", doing, message.id)
                else:
                    logger.warning(
                        "%s: the server sent a %s request on a 2026 response stream, which "
                        "servers must not do; ignored",
                        doing,
                        message.method,
                    )
        except ConnectionBroken as exc:
            raise _Broken(exc) from exc
        raise _Broken(
            RemoteProtocolError(f"{doing}: the server ended the response stream before answering")
        )

    # -- HeaderMismatch: re-list the tool ------------------------------------------------------

    async def _refresh_tool(self, request: Request, version: str) -> Mapping[str, Any] | None:
        params = request.params or {}
        name = params.get("name")
        meta = dict(params.get("_meta") or {})
        meta.pop(PROGRESS_TOKEN_KEY, None)
        cursor: str | None = None
        for page in range(MAX_TOOL_LIST_PAGES):
            list_params: dict[str, Any] = {"_meta": meta}
            if cursor is not None:
                list_params["cursor"] = cursor
            listing = Request(f"{request.id}-tools-{page}", "tools/list", list_params)
            try:
                answer = await self._post(listing, version, _ignore, None)
            except (_Broken, MCPError) as exc:
                logger.info("could not re-list tools after HeaderMismatch: %s", exc)
                return None
            if not isinstance(answer, Response):
                return None
            tools = answer.result.get("tools")
            for tool in tools if isinstance(tools, list) else ():
                if isinstance(tool, dict) and tool.get("name") == name:
                    problem = tool_header_problem(tool.get("inputSchema"))
                    if problem:
                        logger.warning("dropping tool %r: invalid x-mcp-header: %s", name, problem)
                        return None
                    return tool
            next_cursor = answer.result.get("nextCursor")
            if not isinstance(next_cursor, str) or not next_cursor:
                return None
            cursor = next_cursor
        return None


def _final(message: Message, doing: str) -> Response | ErrorResponse:
    if isinstance(message, Response | ErrorResponse):
        return message
    kind = "request" if isinstance(message, Request) else "notification"
    raise RemoteProtocolError(f"{doing}: the body is a {kind} ({message.method}), not a response")


async def _deliver(sink: NotificationSink, note: Notification) -> None:
    try:
        await sink(note)
    except Exception:  # a failing callback must not lose the response
        logger.exception("the handler of %s failed", note.method)
