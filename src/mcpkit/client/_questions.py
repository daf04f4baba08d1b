"""Answering the server's questions: elicitation, sampling, roots (and legacy ``ping``).

The same handlers serve both eras. In a legacy session the server asks with a JSON-RPC request
and gets a response (errors included); in 2026-07-28 the question arrives inside an
``InputRequiredResult`` and the answer travels in the retry's ``inputResponses`` (see
:mod:`mcpkit.client._mrtr`) — there is no error reply in MRTR, so a handler that raises aborts the
call instead.

What the client declares follows from what it was given: ``elicitation`` (``form`` and, if
enabled, ``url``) only with an elicitation handler, ``sampling`` (``tools`` and ``context`` on
request) only with a sampling handler, ``roots`` only with roots. A question for a capability we
never declared is the server's mistake, judged by one rule
(:func:`~mcpkit.protocol._capabilities.refuse_undeclared_question`): in a legacy session the
client's :class:`~mcpkit.protocol._connection.ClientConnection` answers it (-32601, or -32602 for
an undeclared elicitation mode or sampling feature) before it reaches here; in 2026 it is
:class:`ServerMisbehaved`. Either way the handler is never called.

Form elicitation gets the schema's defaults filled in: the handler sees them in
``context.defaults``, and an ``accept`` answer that leaves a field out gets its default
(the behaviour SEP-1034 asks of clients that support defaults). The accepted content is then
checked against the requested schema before it leaves: a handler that answers a string for an
integer field raises :class:`~mcpkit.protocol._errors.UsageError` here (the server is told of an
internal error in a legacy session; in 2026 the call fails) instead of sending it.

A URL-mode request needs ``url`` and, in a legacy session, ``elicitationId`` (-32602
otherwise). The ids of URL
elicitations the client accepted (and of those a ``-32042`` error carried) are remembered,
bounded, until their ``notifications/elicitation/complete``: a completion for any other id is
ignored, as the spec requires (:meth:`Questions.completes`).

Roots must be ``file://`` URIs (the spec's MUST): a list that names anything else is refused
with :class:`~mcpkit.protocol._errors.UsageError` when it is given, a function's list when it
is read.
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import msgspec

from mcpkit.client._errors import ServerMisbehaved
from mcpkit.protocol._capabilities import refuse_undeclared_question
from mcpkit.protocol._elicitation_schema import elicitation_params_problem
from mcpkit.protocol._errors import InvalidParams, JSONRPCError, MethodNotFound, UsageError
from mcpkit.protocol._sampling_rules import sampling_messages_problem
from mcpkit.protocol._schema_dialects import SchemaProblem, compile_schema
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._versions import Era

__all__ = [
    "MAX_OPEN_URL_ELICITATIONS",
    "ElicitationHandler",
    "QuestionContext",
    "Questions",
    "RootsSource",
    "SamplingHandler",
    "form_defaults",
]

logger = logging.getLogger("mcpkit.client")

MAX_OPEN_URL_ELICITATIONS: Final = 256
"""URL elicitation ids remembered until their completion (the oldest are forgotten beyond)."""


@dataclass(frozen=True, slots=True)
class QuestionContext:
    """What a handler knows about the question it answers."""

    era: Era
    protocol_version: str
    server_name: str
    method: str
    """The question: ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``."""
    asked_during: str | None = None
    """2026: the request that returned the question (``tools/call`` …); legacy: ``None``."""
    defaults: JSONObject = field(default_factory=dict)
    """Form elicitation: the schema's ``default`` values by field name."""


ElicitationHandler = Callable[[Any, QuestionContext], Awaitable[Any]]
"""``async (params, context) -> ElicitResult | dict``; params is the typed elicitation request
(``mode`` tells form from URL)."""
SamplingHandler = Callable[[Any, QuestionContext], Awaitable[Any]]
"""``async (params, context) -> CreateMessageResult | dict``."""
RootsSource = Sequence[Any] | Callable[[], Any]
"""A list of roots (``Root`` objects or ``{"uri", "name"?}`` dicts), or a function returning one
(may be async)."""


def _builtins(value: Any) -> Any:
    return value if isinstance(value, dict) else msgspec.to_builtins(value)


def _check_roots(roots: Any) -> None:
    """Raise :class:`UsageError` unless every root is a ``file://`` URI (the spec's MUST)."""
    for root in roots:
        uri = root.get("uri") if isinstance(root, Mapping) else getattr(root, "uri", None)
        if not isinstance(uri, str) or not uri.startswith("file://"):
            raise UsageError(f"a root must be a file:// URI, not {uri!r}")


def form_defaults(requested_schema: Any) -> JSONObject:
    """The ``default`` of every property of a form schema that declares one."""
    if not isinstance(requested_schema, Mapping):
        return {}
    properties = requested_schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: prop["default"]
        for name, prop in properties.items()
        if isinstance(prop, Mapping) and "default" in prop
    }


class Questions:
    """The client's handlers, its declared capabilities, and the dispatch between them."""

    def __init__(
        self,
        *,
        elicitation: ElicitationHandler | None = None,
        url_elicitation: bool = False,
        sampling: SamplingHandler | None = None,
        sampling_tools: bool = False,
        sampling_context: bool = False,
        roots: RootsSource | None = None,
        experimental: Mapping[str, Any] | None = None,
        extensions: Mapping[str, Any] | None = None,
        decode_params: Callable[[str, JSONObject], Any] | None = None,
    ) -> None:
        self.elicitation = elicitation
        self.url_elicitation = url_elicitation
        self.sampling = sampling
        self.sampling_tools = sampling_tools
        self.sampling_context = sampling_context
        if roots is not None and not callable(roots):
            _check_roots(roots)
        self.roots = roots
        self.experimental = dict(experimental or {})
        self.extensions = dict(extensions or {})
        self._decode = decode_params or (lambda method, params: params)
        self._open_urls: OrderedDict[str, None] = OrderedDict()
        """Ids of URL elicitations accepted (or announced by -32042) and not completed yet."""

    def set_roots(self, roots: RootsSource) -> None:
        """Replace the roots (a list is checked now, a function's list when it is read)."""
        if not callable(roots):
            _check_roots(roots)
        self.roots = roots

    def expect_completion(self, elicitation_id: str) -> None:
        """Remember a URL elicitation the server may announce the completion of."""
        self._open_urls[elicitation_id] = None
        self._open_urls.move_to_end(elicitation_id)
        while len(self._open_urls) > MAX_OPEN_URL_ELICITATIONS:
            self._open_urls.popitem(last=False)

    def completes(self, elicitation_id: str) -> bool:
        """Whether a ``notifications/elicitation/complete`` for this id is one to pass on: it
        names a URL elicitation this client knows and that has not completed yet (then it is
        forgotten, so a second completion is ignored too)."""
        if elicitation_id not in self._open_urls:
            return False
        del self._open_urls[elicitation_id]
        return True

    def capabilities(self, era: Era) -> JSONObject:
        """The ``ClientCapabilities`` object for ``era`` (``roots.listChanged`` is legacy-only)."""
        caps: JSONObject = {}
        if self.elicitation is not None:
            modes: JSONObject = {"form": {}}
            if self.url_elicitation:
                modes["url"] = {}
            caps["elicitation"] = modes
        if self.sampling is not None:
            sampling: JSONObject = {}
            if self.sampling_tools:
                sampling["tools"] = {}
            if self.sampling_context:
                sampling["context"] = {}
            caps["sampling"] = sampling
        if self.roots is not None:
            caps["roots"] = {"listChanged": True} if era == "legacy" else {}
        if self.experimental:
            caps["experimental"] = dict(self.experimental)
        if self.extensions:
            caps["extensions"] = dict(self.extensions)
        return caps

    async def list_roots(self) -> list[JSONObject]:
        source = self.roots
        if source is None:
            return []
        value = source() if callable(source) else source
        if inspect.isawaitable(value):
            value = await value
        roots = [_builtins(root) for root in value]
        _check_roots(roots)
        return roots

    async def answer(
        self,
        method: str,
        params: JSONObject,
        *,
        era: Era,
        protocol_version: str,
        server_name: str,
        asked_during: str | None = None,
    ) -> JSONObject:
        """The result for one question; raises a :class:`JSONRPCError` to refuse it.

        In 2026 the caller turns such a refusal into :class:`ServerMisbehaved` (MRTR has no
        error reply); in a legacy session the session sends it as the error response.
        """
        if method == "ping" and era == "legacy":
            return {}
        # what we did not declare (the connection already refused it in a legacy session)
        refuse_undeclared_question(self.capabilities(era), method, params)

        def context(defaults: JSONObject | None = None) -> QuestionContext:
            return QuestionContext(
                era=era,
                protocol_version=protocol_version,
                server_name=server_name,
                method=method,
                asked_during=asked_during,
                defaults=defaults or {},
            )

        if method == "elicitation/create" and self.elicitation is not None:
            problem = elicitation_params_problem(params, legacy=era == "legacy")
            if problem is not None:
                raise InvalidParams(problem)
            mode = params.get("mode", "form")
            defaults = form_defaults(params.get("requestedSchema")) if mode == "form" else {}
            result = _builtins(
                await self.elicitation(self._decode(method, params), context(defaults))
            )
            answer = _finish_elicitation(result, defaults, mode)
            if answer["action"] == "accept":
                if mode == "form":
                    _check_content(params.get("requestedSchema"), answer.get("content"))
                elif mode == "url" and isinstance(params.get("elicitationId"), str):
                    self.expect_completion(params["elicitationId"])
            return answer
        if method == "sampling/createMessage" and self.sampling is not None:
            problem = sampling_messages_problem(params.get("messages"))
            if problem is not None:
                raise InvalidParams(problem)
            sampled = _builtins(await self.sampling(self._decode(method, params), context()))
            if not isinstance(sampled, dict):
                raise TypeError("a sampling handler must return a CreateMessageResult or dict")
            return sampled
        if method == "roots/list" and self.roots is not None:
            return {"roots": await self.list_roots()}
        raise MethodNotFound(f"Method not found: {method}")

    async def answer_input_request(
        self,
        key: str,
        request: Any,
        *,
        protocol_version: str,
        server_name: str,
        asked_during: str,
    ) -> JSONObject:
        """Answer one 2026 MRTR input request; a refusal is the server's fault here."""
        if not isinstance(request, Mapping) or not isinstance(request.get("method"), str):
            raise ServerMisbehaved(
                f"{asked_during}: input request {key!r} is not a {{method, params}} object"
            )
        params = request.get("params") or {}
        if not isinstance(params, dict):
            raise ServerMisbehaved(f"{asked_during}: input request {key!r} has non-object params")
        try:
            return await self.answer(
                request["method"],
                params,
                era="modern",
                protocol_version=protocol_version,
                server_name=server_name,
                asked_during=asked_during,
            )
        except JSONRPCError as exc:
            raise ServerMisbehaved(
                f"{asked_during}: the server asked {request['method']} ({key!r}) which this "
                f"client cannot answer: {exc.message}"
            ) from exc


def _check_content(schema: Any, content: Any) -> None:
    """The accepted form content fits the requested schema, or :class:`UsageError` naming
    where it does not (the answer is not sent)."""
    if not isinstance(schema, dict):
        return
    try:
        compiled = compile_schema(schema)
    except SchemaProblem as exc:
        logger.warning("elicitation: the requested schema cannot be checked: %s", exc)
        return
    problem = compiled.first_error(content if content is not None else {})
    if problem is not None:
        path, detail = problem
        raise UsageError(
            f"the elicitation handler's answer does not match the requested schema at {path}: "
            f"{detail}; it was not sent"
        )


def _finish_elicitation(result: Any, defaults: JSONObject, mode: str) -> JSONObject:
    if not isinstance(result, dict):
        raise TypeError(
            f"an elicitation handler must return an ElicitResult or dict, not {result!r}"
        )
    action: Literal["accept", "decline", "cancel"] | Any = result.get("action")
    if action not in ("accept", "decline", "cancel"):
        raise TypeError(f"elicitation action must be accept, decline or cancel, not {action!r}")
    if action != "accept" or mode != "form":
        return {k: v for k, v in result.items() if k != "content"}
    content = result.get("content")
    merged = dict(defaults)
    if isinstance(content, dict):
        merged.update(content)
    out = dict(result)
    out["content"] = merged
    return out
