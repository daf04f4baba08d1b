"""The request context: the one way a tool, resource or prompt talks back to the client.

Declare a parameter typed :class:`Context` and mcpkit passes it in. The same tool body works in
both protocol eras:

* in a legacy session, :meth:`Context.elicit`, :meth:`Context.sample` and
  :meth:`Context.list_roots` send server→client requests and wait for the answers;
* in 2026-07-28, where servers never send requests, the first call to one of them ends the
  current round with an ``InputRequiredResult``; the client answers and retries the request, and
  the body runs again from the top, this time getting the answer from the retry. Work done
  before the first question therefore runs once per round: keep it idempotent, or ask first.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from mcpkit.protocol.errors import (
    InvalidParams,
    InvalidRequest,
    MissingRequiredClientCapability,
)
from mcpkit.protocol.meta import LOG_LEVELS
from mcpkit.server._request import RequestInfo
from mcpkit.types.jsonrpc import JSONObject, RequestId

if TYPE_CHECKING:
    from mcpkit.server._server import Server

__all__ = ["Context", "ElicitResult", "InputRequired"]


class InputRequired(Exception):
    """Ends a 2026-07-28 round: the client must answer ``requests`` and retry.

    Raised by :class:`Context` inside a modern request; the dispatcher turns it into an
    ``InputRequiredResult`` with a sealed ``requestState``. User code never catches it (it is not
    an ``MCPError`` so that generic ``except MCPError`` blocks in tools do not swallow it).
    """

    def __init__(self, requests: JSONObject, answers: JSONObject) -> None:
        super().__init__("input required")
        self.requests = requests
        self.answers = answers


@dataclass(frozen=True, slots=True)
class ElicitResult:
    """The user's answer to an elicitation: ``accept`` (with ``content``), ``decline`` or ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: JSONObject | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


def _has_capability(declared: JSONObject, *path: str) -> bool:
    node: Any = declared
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False
        node = node[key]
    return isinstance(node, dict)


def _nested(path: Sequence[str]) -> JSONObject:
    out: JSONObject = {}
    for key in reversed(path):
        out = {key: out}
    return out


class Context:
    """Per-request access to progress, logging, cancellation, resources and client questions."""

    __slots__ = ("_info", "_last_progress", "_question_counter", "_server")

    def __init__(self, server: Server, info: RequestInfo) -> None:
        self._server = server
        self._info = info
        self._question_counter = 0
        self._last_progress: float | None = None

    # -- facts about the request ---------------------------------------------------------------

    @property
    def request_id(self) -> RequestId:
        return self._info.request_id

    @property
    def era(self) -> Literal["legacy", "modern"]:
        return self._info.era

    @property
    def protocol_version(self) -> str:
        return self._info.protocol_version

    @property
    def client_info(self) -> JSONObject | None:
        return self._info.client_info

    @property
    def client_capabilities(self) -> JSONObject:
        return self._info.client_capabilities

    @property
    def session_id(self) -> str | None:
        return self._info.connection.session_id if self._info.connection else None

    @property
    def auth(self) -> Any:
        """The verified access token (when the HTTP transport authenticated the request)."""
        return self._info.auth

    @property
    def lifespan(self) -> Any:
        """What the server's lifespan yielded (``None`` without a lifespan)."""
        return self._server.lifespan_state

    @property
    def server(self) -> Server:
        return self._server

    # -- progress and logging ------------------------------------------------------------------

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` if the client asked for progress (else do nothing).

        Progress must increase; a value that does not is dropped rather than sent.
        """
        token = self._info.progress_token
        if token is None:
            return
        if self._last_progress is not None and progress <= self._last_progress:
            return
        self._last_progress = progress
        params: JSONObject = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._info.outbound.send_notification("notifications/progress", params)

    async def log(self, level: str, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client, honouring its requested level.

        Legacy: the level set by ``logging/setLevel`` (everything when unset). 2026-07-28: only
        when the request's ``_meta`` asked for a level, and only at or above it.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        threshold = self._info.log_level
        if self._info.era == "modern" and threshold is None:
            return
        if threshold is not None and LOG_LEVELS.index(level) < LOG_LEVELS.index(threshold):
            return
        params: JSONObject = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._info.outbound.send_notification("notifications/message", params)

    async def debug(self, data: Any) -> None:
        await self.log("debug", data)

    async def info(self, data: Any) -> None:
        await self.log("info", data)

    async def warning(self, data: Any) -> None:
        await self.log("warning", data)

    async def error(self, data: Any) -> None:
        await self.log("error", data)

    # -- resources -----------------------------------------------------------------------------

    async def read_resource(self, uri: str) -> list[JSONObject]:
        """Read one of this server's own resources (the ``contents`` list)."""
        return await self._server._read_resource_contents(uri, self)

    # -- questions to the client ---------------------------------------------------------------

    async def elicit(
        self, message: str, schema: JSONObject | type[Any], *, timeout: float | None = None
    ) -> ElicitResult:
        """Ask the user for structured input (form mode).

        ``schema`` is a flat object schema of primitive properties, or a dataclass / TypedDict
        whose fields are primitives (converted once).
        """
        requested = schema if isinstance(schema, dict) else _schema_from_type(schema)
        params: JSONObject = {"mode": "form", "message": message, "requestedSchema": requested}
        if self._info.era == "legacy" and self._info.protocol_version < "2025-11-25":
            params.pop("mode")
        result = await self._ask(
            "elicitation/create", params, ("elicitation",), timeout=timeout, mode="form"
        )
        return _elicit_result(result)

    async def elicit_url(
        self,
        message: str,
        url: str,
        *,
        elicitation_id: str | None = None,
        timeout: float | None = None,
    ) -> ElicitResult:
        """Ask the user to visit ``url`` out of band (URL mode)."""
        params: JSONObject = {"mode": "url", "message": message, "url": url}
        if self._info.era == "legacy":
            params["elicitationId"] = elicitation_id or f"elicit-{time.monotonic_ns()}"
        result = await self._ask(
            "elicitation/create", params, ("elicitation", "url"), timeout=timeout, mode="url"
        )
        return _elicit_result(result)

    async def sample(
        self,
        messages: str | list[JSONObject],
        *,
        max_tokens: int,
        system_prompt: str | None = None,
        temperature: float | None = None,
        model_preferences: JSONObject | None = None,
        stop_sequences: list[str] | None = None,
        tools: list[JSONObject] | None = None,
        tool_choice: JSONObject | None = None,
        timeout: float | None = None,
    ) -> JSONObject:
        """Ask the client's LLM for a completion (``CreateMessageResult`` as a dict)."""
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        params: JSONObject = {"messages": messages, "maxTokens": max_tokens}
        for key, value in (
            ("systemPrompt", system_prompt),
            ("temperature", temperature),
            ("modelPreferences", model_preferences),
            ("stopSequences", stop_sequences),
            ("tools", tools),
            ("toolChoice", tool_choice),
        ):
            if value is not None:
                params[key] = value
        path = ("sampling", "tools") if tools or tool_choice else ("sampling",)
        return await self._ask("sampling/createMessage", params, path, timeout=timeout)

    async def list_roots(self, *, timeout: float | None = None) -> list[JSONObject]:
        """The client's roots (``[{"uri": "file://…", "name": …}]``)."""
        result = await self._ask("roots/list", None, ("roots",), timeout=timeout)
        roots = result.get("roots")
        return [r for r in roots if isinstance(r, dict)] if isinstance(roots, list) else []

    async def _ask(
        self,
        method: str,
        params: JSONObject | None,
        capability: tuple[str, ...],
        *,
        timeout: float | None,
        mode: str | None = None,
    ) -> JSONObject:
        info = self._info
        declared = info.client_capabilities
        supported = _has_capability(declared, *capability)
        if mode == "form" and capability == ("elicitation",):
            elicitation = declared.get("elicitation")
            # ``{}`` means form only; an explicit mode list must include form.
            supported = isinstance(elicitation, dict) and (
                not elicitation or "form" in elicitation or "url" not in elicitation
            )
        if not supported:
            if info.era == "modern":
                raise MissingRequiredClientCapability(
                    f"This request needs the client capability {'.'.join(capability)}",
                    {"requiredCapabilities": _nested(capability)},
                )
            raise InvalidRequest(
                f"The client did not declare the {'.'.join(capability)} capability "
                f"needed for {method}"
            )
        if info.era == "legacy":
            return await info.outbound.send_request(method, params, timeout=timeout)
        self._question_counter += 1
        key = f"{method.split('/')[0]}-{self._question_counter}"
        if key in info.answers:
            answer = info.answers[key]
        elif key in info.input_responses:
            answer = info.input_responses[key]
            info.answers[key] = answer
        else:
            request: JSONObject = {"method": method}
            if params is not None:
                request["params"] = params
            raise InputRequired({key: request}, dict(info.answers))
        if not isinstance(answer, dict):
            raise InvalidParams(f"inputResponses[{key!r}] must be an object")
        return answer

    @property
    def is_cancelled(self) -> bool:
        """True once the client cancelled this request (the task is also being cancelled)."""
        cancel_reason = getattr(self._info.outbound, "cancel_reason", None)
        return cancel_reason is not None


def _elicit_result(result: JSONObject) -> ElicitResult:
    action = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise InvalidParams(f"elicitation answer has an invalid action: {action!r}")
    content = result.get("content")
    return ElicitResult(action, content if isinstance(content, dict) else None)


def _schema_from_type(tp: type[Any]) -> JSONObject:
    import msgspec

    (schema,), components = msgspec.json.schema_components([tp], ref_template="{name}")
    if "$ref" in schema:
        schema = components[schema["$ref"]]
    schema = dict(schema)
    schema.pop("title", None)
    return schema
