"""Per-request dispatch for both eras.

``handle_request`` decides the era of each request (``initialize`` and session traffic are legacy;
a request whose ``_meta`` names a protocol version is modern), validates what that era requires,
runs the middleware chain around the method handler, and shapes the result for the era
(``resultType``, cache hints and ``serverInfo`` in 2026-07-28).

It reads its server through :class:`DispatchSettings`: the middleware chain, the state sealer,
``server_info``, ``cache_policy`` and ``supported_versions``, nothing of the registries. The
:class:`~mcpkit.server.Server` satisfies it; those attributes stay public and settable, so they
are read per request, never copied.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol

from mcpkit.protocol._errors import (
    RESOURCE_NOT_FOUND,
    URL_ELICITATION_REQUIRED,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    MethodNotFound,
)
from mcpkit.protocol._meta import RequestMeta, is_modern_request, parse_request_meta
from mcpkit.protocol._versions import check_modern_version
from mcpkit.server._context import Context, ContextServices, InputRequired, Question
from mcpkit.server._request import LegacyConnection, Outbound, RequestInfo
from mcpkit.types import meta as keys
from mcpkit.types._base import (
    INPUT_REQUESTS_KEY,
    INPUT_RESPONSES_KEY,
    REQUEST_STATE_KEY,
    RESULT_TYPE_COMPLETE,
    RESULT_TYPE_INPUT_REQUIRED,
    RESULT_TYPE_KEY,
)
from mcpkit.types._jsonrpc import JSONObject, Request
from mcpkit.types._methods import methods_for
from mcpkit.types._versions import LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION, LEGACY_VERSIONS

if TYPE_CHECKING:
    from mcpkit.server._request_state import RequestStateSealer
    from mcpkit.server.middleware import Middleware

    class DispatchSettings(Protocol):  # a Protocol class costs every server's start: mypy only
        """What the dispatcher reads of its server, per request."""

        @property
        def middleware(self) -> Sequence[Middleware]: ...

        @property
        def state_sealer(self) -> RequestStateSealer: ...

        @property
        def server_info(self) -> JSONObject: ...

        @property
        def cache_policy(self) -> Mapping[str, tuple[int, str]]: ...

        @property
        def supported_versions(self) -> Sequence[str]: ...


META_SERVER_INFO: Final = keys.SERVER_INFO
LEGACY_ONLY_CODES: Final = frozenset({RESOURCE_NOT_FOUND, URL_ELICITATION_REQUIRED})
"""Error codes 2026-07-28 forbids; user code raising them gets the 2026 form instead."""

Handler = Callable[[RequestInfo, Context], Awaitable[JSONObject]]


def _served(version: str) -> frozenset[str]:
    """Requests a client may send in ``version`` (core only: extensions add their own)."""
    return frozenset(
        method
        for method, spec in methods_for(version).items()
        if spec.kind == "request"
        and spec.sender in ("client", "both")
        and not method.startswith("tasks/")
    )


MODERN_METHODS: Final = _served(LATEST_MODERN_VERSION)
LEGACY_METHODS: Final = _served(LATEST_LEGACY_VERSION)
MRTR_METHODS: Final = frozenset(
    method for method, spec in methods_for(LATEST_MODERN_VERSION).items() if spec.mrtr
)


def state_binding(info: RequestInfo) -> bytes:
    """What a ``requestState`` may be replayed onto: the method, its target and arguments, and
    the authenticated caller (a state sealed for one user is refused for another)."""
    from mcpkit.server._request_state import (  # only MRTR rounds get here
        principal_binding,
        request_binding,
    )

    params = info.params
    target = params.get("name", params.get("uri"))
    return request_binding(
        info.request.method,
        target if isinstance(target, str) else None,
        params.get("arguments"),
        principal_binding(info.auth),
    )


class Dispatcher:
    """Routes a request to its handler; one per :class:`Server`."""

    def __init__(
        self,
        settings: DispatchSettings,
        handlers: dict[str, Handler],
        *,
        services: ContextServices,
        modern_methods: frozenset[str] = MODERN_METHODS,
        legacy_methods: frozenset[str] = LEGACY_METHODS,
    ) -> None:
        self._settings = settings
        """Middleware, state sealer, server info, cache policy, versions (the ``Server``)."""
        self._handlers = handlers
        self._services = services
        """What each request's :class:`Context` reaches beyond the request (made once)."""
        self._modern_methods = modern_methods
        """``MODERN_METHODS`` plus what enabled extensions add (``tasks/*``)."""
        self._legacy_methods = legacy_methods
        """``LEGACY_METHODS`` plus the 2025-11-25 core ``tasks/*`` when tasks are enabled."""

    async def handle_request(
        self,
        request: Request,
        outbound: Outbound,
        *,
        connection: LegacyConnection | None = None,
        auth: Any = None,
        meta: RequestMeta | None = None,
    ) -> JSONObject:
        if meta is not None or is_modern_request(request.params):
            # Modern (even `initialize` with modern _meta: -32601 there); ``meta`` is its
            # ``_meta`` when the transport parsed it already.
            info = self._modern_info(request, outbound, auth, meta)
        else:
            info = self._legacy_info(request, outbound, connection, auth)
        outbound.protocol_version = info.protocol_version
        handler = self._handlers.get(request.method)
        if handler is None:
            raise MethodNotFound(f"Method not found: {request.method}")
        ctx = Context(info, self._services)
        try:
            if self._settings.middleware:
                result = await self._run_middleware(info, lambda: handler(info, ctx))
            else:  # the common case: no closure chain to build per request
                result = await handler(info, ctx)
        except InputRequired as needed:
            if info.era != "modern" or request.method not in MRTR_METHODS:
                raise
            return self._input_required(info, needed)
        except JSONRPCError as exc:
            if exc.code == URL_ELICITATION_REQUIRED and (
                info.era != "modern" or request.method in MRTR_METHODS
            ):  # (2026 outside MRTR methods: no round to ask in, said by _modern_form)
                _refuse_unaskable_url(info, exc)
            if info.era == "modern" and exc.code in LEGACY_ONLY_CODES:
                return self._modern_form(info, exc)
            raise
        if info.era == "modern":
            result = self._shape_modern(request.method, result)
        return result

    async def _run_middleware(
        self, info: RequestInfo, call: Callable[[], Awaitable[JSONObject]]
    ) -> JSONObject:
        for middleware in reversed(self._settings.middleware):
            call = _bind(middleware, info, call)
        return await call()

    # -- era checks ----------------------------------------------------------------------------

    def _legacy_info(
        self,
        request: Request,
        outbound: Outbound,
        connection: LegacyConnection | None,
        auth: Any,
    ) -> RequestInfo:
        if request.method not in self._legacy_methods:
            raise MethodNotFound(f"Method not found: {request.method}")
        if connection is None:
            raise InvalidRequest(
                f"{request.method} needs an initialized session: send initialize first, "
                "or send a 2026-07-28 request with _meta"
            )
        return RequestInfo(
            request=request,
            era="legacy",
            protocol_version=connection.protocol_version or LEGACY_VERSIONS[-1],
            client_capabilities=connection.client_capabilities,
            client_info=connection.client_info,
            log_level=connection.log_level,
            outbound=outbound,
            connection=connection,
            auth=auth,
        )

    def _modern_info(
        self, request: Request, outbound: Outbound, auth: Any, meta: RequestMeta | None = None
    ) -> RequestInfo:
        if meta is None:  # (a transport's ``meta`` was checked against these versions by it)
            meta = parse_request_meta(request.params)
            check_modern_version(meta.protocol_version, self._settings.supported_versions)
        if request.method not in self._modern_methods:
            raise MethodNotFound(f"Method not found: {request.method}")
        info = RequestInfo(
            request=request,
            era="modern",
            protocol_version=meta.protocol_version,
            client_capabilities=meta.client_capabilities,
            client_info=meta.client_info,
            log_level=meta.log_level,
            outbound=outbound,
            auth=auth,
        )
        params = request.params or {}  # (a dict: its _meta named the version)
        if request.method in MRTR_METHODS and (
            params.get(INPUT_RESPONSES_KEY) is not None or params.get(REQUEST_STATE_KEY) is not None
        ):  # (a first round, the usual request, has neither: nothing to load)
            self._load_mrtr(info)
        return info

    def _load_mrtr(self, info: RequestInfo) -> None:
        params = info.params
        responses = params.get(INPUT_RESPONSES_KEY)
        if responses is not None and not isinstance(responses, dict):
            raise InvalidParams("inputResponses must be an object")
        if responses:
            info.input_responses = responses
        token = params.get(REQUEST_STATE_KEY)
        if token is None:
            return  # the binding digest is computed only if this round ends up sealing state
        if not isinstance(token, str):
            raise InvalidParams("requestState must be a string")
        info.state_binding = state_binding(info)
        payload = self._settings.state_sealer.unseal(token, bind=info.state_binding)
        answers = payload.get("answers") if isinstance(payload, dict) else None
        info.answers = dict(answers) if isinstance(answers, dict) else {}
        memo = payload.get("memo") if isinstance(payload, dict) else None
        info.memo = dict(memo) if isinstance(memo, dict) else {}

    # -- result shaping ------------------------------------------------------------------------

    def _modern_form(self, info: RequestInfo, exc: JSONRPCError) -> JSONObject:
        """A legacy-only error raised by user code, in the form 2026-07-28 has for it.

        -32002 (resource not found) is -32602 with ``data.uri``; -32042 (URL elicitation
        required) becomes an input-required round asking for each URL elicitation (outside
        MRTR methods there is no such round: -32600 naming what was asked).
        """
        if exc.code == RESOURCE_NOT_FOUND:
            data = exc.data
            uri = info.params.get("uri")
            if info.request.method == "resources/read" and isinstance(uri, str):
                # 2026 says "no such resource" by data.uri: always there, even when the code
                # that raised it gave no data
                data = {**(data if isinstance(data, dict) else {}), "uri": uri}
            raise InvalidParams(exc.message, data) from exc
        elicitations = exc.data.get("elicitations") if isinstance(exc.data, dict) else None
        if info.request.method not in MRTR_METHODS or not isinstance(elicitations, list):
            raise InvalidRequest(
                f"{exc.message} (a URL elicitation is asked for with an input-required round "
                f"in 2026-07-28, which {info.request.method} does not have)"
            ) from exc
        requests: JSONObject = {}
        for index, params in enumerate(elicitations):
            if not isinstance(params, dict):
                continue
            key = str(params.get("elicitationId") or f"url-elicitation-{index}")
            wire = {k: params[k] for k in ("message", "url", "_meta") if k in params}
            requests[key] = {"method": "elicitation/create", "params": {"mode": "url", **wire}}
        return self._input_required(info, InputRequired(requests, dict(info.answers)))

    def _input_required(self, info: RequestInfo, needed: InputRequired) -> JSONObject:
        if not info.state_binding:
            info.state_binding = state_binding(info)
        payload: JSONObject = {"answers": needed.answers}
        if info.memo:
            payload["memo"] = info.memo  # ctx.memo values, for the next round
        state = self._settings.state_sealer.seal(payload, bind=info.state_binding)
        return {
            RESULT_TYPE_KEY: RESULT_TYPE_INPUT_REQUIRED,
            INPUT_REQUESTS_KEY: needed.requests,
            REQUEST_STATE_KEY: state,
            "_meta": {META_SERVER_INFO: self._settings.server_info},
        }

    def _shape_modern(self, method: str, result: JSONObject) -> JSONObject:
        result.setdefault(RESULT_TYPE_KEY, RESULT_TYPE_COMPLETE)
        policy = self._settings.cache_policy.get(method)
        if policy is not None:
            result.setdefault("ttlMs", policy[0])
            result.setdefault("cacheScope", policy[1])
        meta = result.get("_meta")
        meta = dict(meta) if isinstance(meta, dict) else {}
        meta.setdefault(META_SERVER_INFO, self._settings.server_info)
        result["_meta"] = meta
        return result


def _refuse_unaskable_url(info: RequestInfo, exc: JSONRPCError) -> None:
    """A tool that raised "URL elicitation required" asks the client exactly as
    ``ctx.elicit_url()`` does, so the same rule (:meth:`Question.check_capability`) decides:
    a client that did not declare ``elicitation.url`` (or whose revision has no URL mode)
    never gets the -32042 error nor an ``inputRequests`` round for it, but the refusal
    ``ctx.elicit_url()`` gets (2026: -32021 naming the capability; legacy: -32600)."""
    question = Question.elicit_url(exc.message, "")
    try:
        question.check_capability(info.client_capabilities, info.era, info.protocol_version)
    except JSONRPCError as refusal:
        raise type(refusal)(
            f"{exc.message} (URL elicitation required): {refusal.message}", refusal.data
        ) from exc


def _bind(
    middleware: Middleware, info: RequestInfo, call: Callable[[], Awaitable[JSONObject]]
) -> Callable[[], Awaitable[JSONObject]]:
    async def run() -> JSONObject:
        return await middleware(info, call)

    return run


def resource_not_found(info: RequestInfo, uri: str) -> JSONRPCError:
    """-32002 in legacy sessions, -32602 with ``data.uri`` in 2026-07-28."""
    from mcpkit.protocol._errors import ResourceNotFound

    message = f"Resource not found: {uri}"
    if info.era == "modern":
        return InvalidParams(message, {"uri": uri})
    return ResourceNotFound(message, {"uri": uri})
