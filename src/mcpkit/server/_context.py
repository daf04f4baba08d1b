"""The request context: the one way a tool, resource or prompt talks back to the client.

Declare a parameter typed :class:`Context` and mcpkit passes it in. The same tool body works in
both protocol eras:

* in a legacy session, :meth:`Context.elicit`, :meth:`Context.sample` and
  :meth:`Context.list_roots` send server→client requests and wait for the answers;
* in 2026-07-28, where servers never send requests, the first call to one of them ends the
  current round with an ``InputRequiredResult``; the client answers and retries the request, and
  the body runs again from the top, this time getting the answer from the retry. Work done
  before the first question therefore runs once per round: keep it idempotent, ask first, or
  wrap it in :meth:`Context.memo` so it runs once (see :mod:`mcpkit.server._memo`).
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import (
    TYPE_CHECKING,
    Any,
    Final,
    Generic,
    Literal,
    Protocol,
    TypeVar,
    Unpack,
    overload,
)

import msgspec

from mcpkit.protocol._capabilities import (
    has_capability,
    require_client_capability,
    require_elicitation_mode,
    require_sampling,
)
from mcpkit.protocol._errors import (
    InvalidParams,
    InvalidRequest,
    LocalProtocolError,
    MissingRequiredClientCapability,
    UsageError,
)
from mcpkit.protocol._meta import LOG_LEVELS, log_allowed
from mcpkit.protocol._progress import ProgressSender
from mcpkit.protocol._shape import request_unsupported
from mcpkit.server._request import InputRequired as InputRequired  # raised here, caught above
from mcpkit.server._request import RequestInfo
from mcpkit.types._jsonrpc import JSONObject, RequestId
from mcpkit.types._method_names import PROGRESS_NOTIFICATION
from mcpkit.types._versions import at_least

if TYPE_CHECKING:
    from mcpkit.server._sampling_options import SamplingOptions
    from mcpkit.server._server import Server
    from mcpkit.types._sampling import CreateMessageResult

__all__ = [
    "Context",
    "ContextServices",
    "ElicitAnswer",
    "LifespanState",
    "Question",
    "ResourceReader",
]

T = TypeVar("T")


class ElicitAnswer(msgspec.Struct, Generic[T], frozen=True):
    """The user's answer: ``accept`` (with ``content``), ``decline`` or ``cancel``.

    ``content`` is an instance of the schema type given to :meth:`Context.elicit` (a dataclass,
    ``msgspec.Struct``, pydantic model or TypedDict), or the plain dict for a JSON Schema dict.
    It is ``None`` unless the user accepted.
    """

    action: Literal["accept", "decline", "cancel"]
    content: T | None = None

    @property
    def accepted(self) -> bool:
        return self.action == "accept"


class ResourceReader(Protocol):
    """Reads the server's own resources (``ctx.read_resource``): the server's resource
    registry. Raises :class:`LookupError` when nothing matches ``uri``."""

    async def read_contents(self, uri: str, ctx: Context) -> list[JSONObject]: ...


class LifespanState(Protocol):
    """Where ``ctx.lifespan`` comes from: what the server's lifespan yielded, read when asked
    (the lifespan starts after the server is built)."""

    @property
    def state(self) -> Any: ...


class ContextServices:
    """What a :class:`Context` reaches beyond its own request, made once per server.

    Each member is a narrow interface, so a Context can be built (in a test, in another
    framework) from just the parts it needs; a missing one makes the feature that needs it
    raise :class:`~mcpkit.protocol._errors.UsageError` when used. The request itself, and the
    channel back to the client (``info.outbound``), come with the :class:`RequestInfo`.
    (A plain class, not a dataclass: every server imports this module at start.)
    """

    __slots__ = ("lifespan", "resources", "server", "tasks")

    def __init__(
        self,
        *,
        resources: ResourceReader | None = None,
        lifespan: LifespanState | None = None,
        tasks: Any = None,
        server: Any = None,
    ) -> None:
        self.resources = resources
        self.lifespan = lifespan
        self.tasks = tasks
        """The :class:`~mcpkit.server.tasks.TaskManager` when tasks are enabled (for
        :func:`~mcpkit.server.tasks.set_status_message`)."""
        self.server = server
        """The whole :class:`~mcpkit.server.Server`, for :attr:`Context.server` only."""


_NO_SERVICES: Final = ContextServices()


class Context:
    """Per-request access to progress, logging, cancellation, resources and client questions."""

    __slots__ = ("_info", "_progress", "_question_counter", "_services")

    def __init__(self, info: RequestInfo, services: ContextServices = _NO_SERVICES) -> None:
        self._info = info
        self._services = services
        self._question_counter = 0
        self._progress: ProgressSender | None = None
        """The progress rules for this request's token (created on the first report)."""

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
        source = self._services.lifespan
        return source.state if source is not None else None

    @property
    def server(self) -> Server:
        """The whole :class:`~mcpkit.server.Server` serving this request: an escape hatch for
        what the context does not offer (mcpkit's own code never needs it). Raises
        :class:`~mcpkit.protocol._errors.UsageError` for a context built without a server."""
        server = self._services.server
        if server is None:
            raise UsageError("this Context was built without a Server (see ContextServices)")
        return server  # type: ignore[no-any-return]

    # -- progress and logging ------------------------------------------------------------------

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send ``notifications/progress`` if the client asked for progress (else do nothing).

        Progress must increase; a value that does not is dropped rather than sent.
        """
        sender = self._progress
        if sender is None:
            token = self._info.progress_token
            if token is None:
                return
            sender = self._progress = ProgressSender(token)
        try:
            params = sender.params(progress, total, message)
        except LocalProtocolError:  # not above the last value: dropped, as documented
            return
        await self._info.outbound.send_notification(PROGRESS_NOTIFICATION, params)

    async def log(self, level: str, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client, honouring its requested level.

        Legacy: the level set by ``logging/setLevel`` (everything when unset). 2026-07-28: only
        when the request's ``_meta`` asked for a level, and only at or above it.
        """
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
        if not log_allowed(level, self._info.log_level, self._info.era):
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

    async def close_stream(self, retry_ms: int | None = None) -> bool:
        """Close this request's SSE stream now; the client reconnects and resumes (HTTP polling).

        Only meaningful on a resumable legacy Streamable HTTP stream; returns ``False`` where
        there is no such stream (stdio, JSON responses, 2026-07-28).
        """
        close = getattr(self._info.outbound, "close_stream", None)
        if close is None:
            return False
        return bool(await close(retry_ms))

    # -- resources -----------------------------------------------------------------------------

    async def read_resource(self, uri: str) -> list[JSONObject]:
        """Read one of this server's own resources (the ``contents`` list).

        An unknown URI is the error the client would get for it (-32002 in a legacy session,
        -32602 in 2026-07-28), so a resource that reads another passes it on unchanged."""
        reader = self._services.resources
        if reader is None:
            raise UsageError("this Context has no resource reader (see ContextServices)")
        try:
            return await reader.read_contents(uri, self)
        except LookupError:
            from mcpkit.server._dispatch import resource_not_found

            raise resource_not_found(self._info, uri) from None

    # -- partial results across 2026 rounds -----------------------------------------------------

    @overload
    async def memo(
        self, key: str, compute: Callable[[], Awaitable[T]], *, as_type: None = None
    ) -> T: ...

    @overload
    async def memo(self, key: str, compute: Callable[[], T], *, as_type: None = None) -> T: ...

    @overload
    async def memo(self, key: str, compute: Callable[[], Any], *, as_type: type[T]) -> T: ...

    async def memo(
        self, key: str, compute: Callable[[], Any], *, as_type: type[Any] | None = None
    ) -> Any:
        """``compute()`` (sync or async) the first time, its stored value in later rounds.

        In 2026-07-28 a question ends the round and the body runs again from the top; memoised
        work before the question runs once. The value is kept as JSON, sealed in
        ``requestState`` (bounded: :data:`~mcpkit.server._memo.MAX_MEMO_BYTES` per request,
        else :class:`~mcpkit.server._memo.MemoTooLarge`); ``as_type`` converts it back.
        """
        from mcpkit.server._memo import remember

        return await remember(self._info.memo, key, compute, as_type)

    # -- questions to the client ---------------------------------------------------------------

    def client_supports(self, *path: str) -> bool:
        """Whether the client declared a capability, e.g. ``ctx.client_supports("sampling")``."""
        return has_capability(self._info.client_capabilities, path)

    async def ask(self, *questions: Question, timeout: float | None = None) -> tuple[Any, ...]:
        """Ask several questions at once; the answers come back in the same order.

        In a legacy session they are concurrent server→client requests; in 2026-07-28 they form
        one ``InputRequiredResult`` with one ``inputRequests`` entry per question (the key is
        ``question.key`` or an automatic one).
        """
        info = self._info
        for question in questions:
            question.check_capability(info.client_capabilities, info.era, info.protocol_version)
        if info.era == "legacy":
            if info.connection is not None:
                for question in questions:
                    info.connection.lifecycle.check_request(question.method)
            answers = await asyncio.gather(
                *(
                    info.outbound.send_request(q.method, q.wire_params(info), timeout=timeout)
                    for q in questions
                )
            )
            return tuple(q.parse(answer) for q, answer in zip(questions, answers, strict=True))
        keyed: list[tuple[str, Question]] = []
        for question in questions:
            self._question_counter += 1
            keyed.append((question.key or f"{question.prefix}-{self._question_counter}", question))
        missing: JSONObject = {}
        for key, question in keyed:
            if key in info.input_responses and key not in info.answers:
                info.answers[key] = info.input_responses[key]
            if key not in info.answers:
                request: JSONObject = {"method": question.method}
                params = question.wire_params(info)
                if params is not None:
                    request["params"] = params
                missing[key] = request
        if missing:
            raise InputRequired(missing, dict(info.answers))
        return tuple(question.parse(info.answers[key], key) for key, question in keyed)

    @overload
    async def elicit(
        self,
        message: str,
        schema: type[T],
        *,
        key: str | None = None,
        timeout: float | None = None,
    ) -> ElicitAnswer[T]: ...

    @overload
    async def elicit(
        self,
        message: str,
        schema: JSONObject,
        *,
        key: str | None = None,
        timeout: float | None = None,
    ) -> ElicitAnswer[JSONObject]: ...

    async def elicit(
        self,
        message: str,
        schema: JSONObject | type[Any],
        *,
        key: str | None = None,
        timeout: float | None = None,
    ) -> ElicitAnswer[Any]:
        """Ask the user for structured input (form mode).

        ``schema`` is a flat object schema of primitive properties (the answer's ``content`` is
        then a dict), or a dataclass, ``msgspec.Struct``, pydantic model or TypedDict whose
        fields are primitives: its JSON Schema is sent, and accepted content comes back as an
        instance of that type (content that does not fit it is a -32602 error).
        """
        (answer,) = await self.ask(Question.elicit(message, schema, key=key), timeout=timeout)
        return answer  # type: ignore[no-any-return]

    async def elicit_url(
        self,
        message: str,
        url: str,
        *,
        elicitation_id: str | None = None,
        key: str | None = None,
        timeout: float | None = None,
    ) -> ElicitAnswer[None]:
        """Ask the user to visit ``url`` out of band (URL mode); ``content`` is always ``None``."""
        question = Question.elicit_url(message, url, elicitation_id=elicitation_id, key=key)
        (answer,) = await self.ask(question, timeout=timeout)
        return answer  # type: ignore[no-any-return]

    async def sample(
        self,
        messages: str | list[JSONObject],
        *,
        max_tokens: int,
        key: str | None = None,
        timeout: float | None = None,
        **options: Unpack[SamplingOptions],
    ) -> CreateMessageResult:
        """Ask the client's LLM for a completion.

        ``options``: ``system_prompt``, ``temperature``, ``model_preferences``,
        ``stop_sequences``, ``tools``, ``tool_choice``, ``include_context``, ``metadata``.
        """
        question = Question.sample(messages, max_tokens=max_tokens, key=key, **options)
        (answer,) = await self.ask(question, timeout=timeout)
        return answer  # type: ignore[no-any-return]

    async def list_roots(
        self, *, key: str | None = None, timeout: float | None = None
    ) -> list[JSONObject]:
        """The client's roots (``[{"uri": "file://…", "name": …}]``)."""
        (answer,) = await self.ask(Question.list_roots(key=key), timeout=timeout)
        return answer  # type: ignore[no-any-return]

    @property
    def is_cancelled(self) -> bool:
        """True once the client cancelled this request (the task is also being cancelled)."""
        cancel_reason = getattr(self._info.outbound, "cancel_reason", None)
        return cancel_reason is not None


_SAMPLING_OPTIONS: Final = {
    "system_prompt": "systemPrompt",
    "temperature": "temperature",
    "model_preferences": "modelPreferences",
    "stop_sequences": "stopSequences",
    "tools": "tools",
    "tool_choice": "toolChoice",
    "include_context": "includeContext",
    "metadata": "metadata",
}


class Question(msgspec.Struct, frozen=True):
    """One thing to ask the client: build with :meth:`elicit`, :meth:`elicit_url`,
    :meth:`sample` or :meth:`list_roots`, then ``await ctx.ask(q1, q2, ...)``."""

    method: str
    params: JSONObject | None
    prefix: str
    key: str | None = None
    mode: str | None = None
    content_type: Any = None
    """For a form elicitation built from a type: the type accepted content is converted to."""

    @staticmethod
    def elicit(message: str, schema: JSONObject | type[Any], *, key: str | None = None) -> Question:
        from mcpkit.protocol._elicitation_schema import check_form_schema

        if isinstance(schema, dict):
            requested, content_type = schema, None
        else:
            requested, content_type = _schema_from_type(schema), schema
        check_form_schema(requested)  # a schema clients cannot draw is the tool author's bug
        params: JSONObject = {"mode": "form", "message": message, "requestedSchema": requested}
        return Question("elicitation/create", params, "elicitation", key, "form", content_type)

    @staticmethod
    def elicit_url(
        message: str, url: str, *, elicitation_id: str | None = None, key: str | None = None
    ) -> Question:
        params: JSONObject = {"mode": "url", "message": message, "url": url}
        if elicitation_id is not None:
            params["elicitationId"] = elicitation_id
        return Question("elicitation/create", params, "elicitation", key, "url")

    @staticmethod
    def sample(
        messages: str | list[JSONObject],
        *,
        max_tokens: int,
        key: str | None = None,
        **options: Unpack[SamplingOptions],
    ) -> Question:
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        from mcpkit.protocol._sampling_rules import sampling_messages_problem  # (not at start)

        problem = sampling_messages_problem(messages)
        if problem is not None:  # the tool author's bug: said here, never sent to the client
            raise UsageError(problem)
        params: JSONObject = {"messages": messages, "maxTokens": max_tokens}
        for name, value in options.items():
            if name not in _SAMPLING_OPTIONS:
                raise TypeError(f"unknown sampling option {name!r}")
            if value is not None:
                params[_SAMPLING_OPTIONS[name]] = value
        return Question("sampling/createMessage", params, "sampling", key)

    @staticmethod
    def list_roots(*, key: str | None = None) -> Question:
        return Question("roots/list", None, "roots", key)

    def check_capability(self, declared: JSONObject, era: str, revision: str | None = None) -> None:
        """-32021 in 2026-07-28; in a legacy session -32600 (no dedicated code exists there).

        ``revision`` (the negotiated one) is checked first: a request the revision cannot carry
        (elicitation before 2025-06-18, URL mode or sampling tools before 2025-11-25) is refused
        even when the client claims the capability, rather than sent in a form its schema lacks.
        """
        unsupported = request_unsupported(revision, self.method, self.params or {})
        if unsupported is not None:
            raise InvalidRequest(f"The client cannot be asked this: {unsupported}")
        try:
            if self.mode is not None:
                require_elicitation_mode(declared, self.mode)
            elif self.method == "sampling/createMessage":
                require_sampling(declared, self.params or {})
            else:
                require_client_capability(declared, ("roots",), why="roots/list")
        except MissingRequiredClientCapability as exc:
            if era == "modern":
                raise
            raise InvalidRequest(f"The client did not declare it: {exc.message}") from None

    def wire_params(self, info: RequestInfo) -> JSONObject | None:
        """Params as this era and version expect them."""
        if self.method != "elicitation/create" or self.params is None:
            return self.params
        params = dict(self.params)
        if info.era == "modern":
            params.pop("elicitationId", None)  # 2025 only
        else:
            if self.mode == "url" and "elicitationId" not in params:
                params["elicitationId"] = f"elicit-{time.monotonic_ns()}"
            if not at_least(info.protocol_version, "2025-11-25"):
                params.pop("mode")  # modes arrived in 2025-11-25
        return params

    def parse(self, answer: Any, key: str | None = None) -> Any:
        where = f"inputResponses[{key!r}]" if key else f"the answer to {self.method}"
        if not isinstance(answer, dict):
            raise InvalidParams(f"{where} must be an object")
        if self.method == "elicitation/create":
            action = answer.get("action")
            if action not in ("accept", "decline", "cancel"):
                raise InvalidParams(f"{where} has an invalid action: {action!r}")
            content = answer.get("content") if action == "accept" else None
            if not isinstance(content, dict):
                return ElicitAnswer(action, None)
            if self.content_type is None:
                _check_raw_content(self.params, content, where)
                return ElicitAnswer(action, content)
            return ElicitAnswer(action, _convert_content(self.content_type, content, where))
        if self.method == "roots/list":
            roots = answer.get("roots")
            if not isinstance(roots, list):
                raise InvalidParams(f"{where} must have a roots list")
            return [r for r in roots if isinstance(r, dict)]
        if self.method == "sampling/createMessage":
            return _sampling_result(answer, where)
        return answer


def _is_pydantic_model(tp: Any) -> bool:
    return (
        isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")
    )


_MAX_COMPILED_FORMS: Final = 128
"""Validators of raw form schemas kept (by the schema's JSON), least recently used dropped."""
_compiled_forms: OrderedDict[bytes, Any] = OrderedDict()


def _check_raw_content(params: JSONObject | None, content: JSONObject, where: str) -> None:
    """Accepted content of a form asked with a raw JSON Schema must fit it (-32602 naming the
    field otherwise), as content of a typed form must fit its type: the tool body never sees
    an answer the user was not asked for."""
    import msgspec

    from mcpkit.protocol._schema_dialects import compile_schema

    schema = (params or {}).get("requestedSchema")
    if not isinstance(schema, dict):
        return
    key = msgspec.json.encode(schema)
    compiled = _compiled_forms.get(key)
    if compiled is None:
        compiled = compile_schema(schema)  # checked as a form when asked: it compiles
        _compiled_forms[key] = compiled
        if len(_compiled_forms) > _MAX_COMPILED_FORMS:
            _compiled_forms.popitem(last=False)
    else:
        _compiled_forms.move_to_end(key)
    problem = compiled.first_error(content)
    if problem is not None:
        path, detail = problem
        raise InvalidParams(
            f"{where}: the content does not fit the requested schema at {path}: {detail}"
        )


def _convert_content(tp: Any, content: JSONObject, where: str) -> Any:
    """Accepted elicitation content as an instance of ``tp`` (validated on the way)."""
    name = getattr(tp, "__name__", repr(tp))
    if _is_pydantic_model(tp):
        try:
            return tp.model_validate(content)
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise InvalidParams(f"{where}: the content does not fit {name}: {exc}") from None
    import msgspec

    try:
        return msgspec.convert(content, tp)
    except msgspec.ValidationError as exc:
        raise InvalidParams(f"{where}: the content does not fit {name}: {exc}") from None


def _sampling_result(answer: JSONObject, where: str) -> CreateMessageResult:
    import msgspec

    from mcpkit.types._sampling import CreateMessageResult

    try:
        return msgspec.convert(answer, CreateMessageResult)
    except msgspec.ValidationError as exc:
        raise InvalidParams(f"{where} is not a CreateMessageResult: {exc}") from None


def _schema_from_type(tp: type[Any]) -> JSONObject:
    if _is_pydantic_model(tp):
        schema: JSONObject = dict(tp.model_json_schema())
        schema.pop("title", None)
        return schema
    import msgspec

    (schema,), components = msgspec.json.schema_components([tp], ref_template="{name}")
    if "$ref" in schema:
        schema = components[schema["$ref"]]
    schema = dict(schema)
    schema.pop("title", None)
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["properties"] = {name: _typed_enum(field) for name, field in properties.items()}
    return schema


def _typed_enum(field: Any) -> Any:
    """msgspec writes a ``Literal`` of strings as a bare ``enum``; a form field names its type
    (``"type": "string"``), so a ``Literal`` field is a single-select enum like any other."""
    if (
        isinstance(field, dict)
        and "type" not in field
        and isinstance(field.get("enum"), list)
        and field["enum"]
        and all(isinstance(value, str) for value in field["enum"])
    ):
        return {"type": "string", **field}
    return field
