"""Questions as LangGraph interrupts; progress and server logs as custom stream events.

A server may ask the user something in the middle of a tool call (elicitation). Inside a graph
that becomes ``interrupt(payload)``: the graph pauses, the caller shows ``payload`` (the message
and the requested schema) and resumes with ``Command(resume=answer)``; the answer reaches the
server and the call completes. How that works in each era:

* **One process.** The call runs as a parked call (:mod:`mcpkit.client.parked`) of the
  :class:`GraphBridge`'s parking lot. When the node is interrupted the call is *parked*, not
  cancelled: a legacy session keeps its request open, a
  2026 call keeps its round (``requestState`` and the answers so far) in memory. On resume the
  node runs again, finds its parked call by key (thread, checkpoint namespace, tool and
  arguments), and hands the answer to the waiting question. A parked call that is never resumed
  is answered ``cancel`` after ``park_seconds``.
* **After a restart** nothing is parked. The node runs again and the call is made again; each
  question the server asks is matched with the stored answers *by what it asks*
  (:mod:`.binding`): an answer is replayed only to the same question (same message and schema).
  When the server now asks something else — the price changed from 10 to 12 — the stale answer
  is dropped and the new question interrupts, so consent is never applied to a question the user
  did not see. A 2026 server re-executes its tool on every retry anyway; a legacy server's work
  *before* the question runs a second time, which the user is told (a warning, and
  ``"call_made_again": true`` in the interrupt payload).
  :func:`mcpkit.contrib.langchain.tool_node` with ``then=`` instead keeps a 2026 round's
  ``requestState`` in the graph's state, so nothing is re-run (see ``nodes``).
* **A refused state.** A 2026 server refuses a ``requestState`` that expired (the user took
  longer than its lifetime, 15 minutes by default) or that a restarted server cannot verify;
  the client then calls the tool again from the start and its questions are asked again
  (:func:`mcpkit.client.is_stale_state`), so no resume is ever stuck.

Routing a question to the call it belongs to: in 2026 it is asked inside the call's own task (a
context variable says which call). A legacy server asks over its session, which carries no link
to the request: the question goes to the oldest open graph call on the server with that name.

Progress notifications and ``notifications/message`` logs of a call are written with
``get_stream_writer()`` as ``{"type": "mcp_progress" | "mcp_log", ...}`` events, seen with
``graph.astream(..., stream_mode="custom")``. Each names the ``server``, the ``tool`` and the
``tool_call_id`` (the model's id for the call; ``None`` from a :func:`tool_node`) it belongs to.
A log is attributed by the server it came from (:func:`mcpkit.client.notifying_server`)
and, in 2026, by the call it was sent in; a legacy server's log while several of its calls are
open cannot be told apart, so it streams with ``tool`` and ``tool_call_id`` ``None`` — never
under another server's call. Outside a graph, questions go to ``fallback_elicitation`` (or are
answered ``cancel``) and logs to the ``mcpkit.client.server`` logger.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from langgraph.config import get_config, get_stream_writer
from langgraph.errors import GraphInterrupt
from langgraph.types import interrupt

from mcpkit.client import QuestionContext, form_defaults, notifying_server
from mcpkit.client.parked import Asked, ParkedCall, ParkingLot
from mcpkit.contrib.langchain._binding import QUESTION_IDS, asked_before, question_id
from mcpkit.types import JSONObject

__all__ = [
    "DEFAULT_PARK_SECONDS",
    "GraphBridge",
    "StreamWriter",
    "answer_from_resume",
    "current_tool_call_id",
    "current_writer",
    "in_graph",
    "question_payload",
]

T = TypeVar("T")
logger = logging.getLogger("mcpkit.contrib.langchain")
server_logger = logging.getLogger("mcpkit.client.server")

DEFAULT_PARK_SECONDS: Final = 900.0
"""How long a paused call stays open waiting for ``Command(resume=...)`` (a 2026 server's
``requestState`` also expires after 15 minutes by default)."""

StreamWriter = Callable[[Any], None]
ElicitationFallback = Callable[[Any, QuestionContext], Awaitable[Any]]


def _builtins(value: Any) -> Any:
    if isinstance(value, dict):
        return value
    import msgspec

    return msgspec.to_builtins(value)


def question_payload(server: str, tool: str, params: Mapping[str, Any]) -> JSONObject:
    """The ``interrupt()`` value for an elicitation: what a UI needs to ask the user."""
    mode = params.get("mode", "form")
    schema = params.get("requestedSchema")
    payload: JSONObject = {
        "type": "mcp_elicitation",
        "server": server,
        "tool": tool,
        "mode": mode,
        "message": params.get("message", ""),
    }
    if mode == "form":
        payload["requested_schema"] = schema
        payload["defaults"] = form_defaults(schema)
    else:
        payload["url"] = params.get("url")
        payload["elicitation_id"] = params.get("elicitationId")
    return payload


def answer_from_resume(value: Any) -> JSONObject:
    """The ``ElicitResult`` for a ``Command(resume=value)``.

    A dict with ``action`` is used as is; any other dict is accepted content; ``"decline"``
    or ``False`` decline (so does ``None``, though LangGraph cannot resume with ``None``);
    ``"cancel"`` cancels; ``True`` or ``"accept"`` accept with no content (URL mode, or a form
    whose defaults are enough).
    """
    if isinstance(value, Mapping):
        if "action" in value:
            return dict(value)
        return {"action": "accept", "content": dict(value)}
    if value is None or value is False or value == "decline":
        return {"action": "decline"}
    if value == "cancel":
        return {"action": "cancel"}
    if value is True or value == "accept":
        return {"action": "accept"}
    raise TypeError(
        f"resume an MCP question with a dict of answers, True/'accept', None/'decline' or "
        f"'cancel', not {value!r}"
    )


@dataclass(eq=False)
class _Call:
    """One tool call made from a graph node, with the questions it asked."""

    server: str
    """The label shown to users (the host's server name)."""
    server_name: str
    """The name the server gave itself (what a legacy question's context says)."""
    tool: str
    writer: StreamWriter | None
    tool_call_id: str | None = None
    record: list[str] | None = None
    """The id of the question each interrupt of this call carried, by interrupt index
    (:mod:`.binding`); ``None`` until read back from the checkpoint after a restart."""
    index: int = 0
    """The next interrupt index of the node's current run."""
    again: bool = False
    """A legacy call made again after a restart (its work before the question ran twice)."""
    parked: ParkedCall[Any] | None = None
    """The call itself, running in the bridge's parking lot; its questions wait there."""

    def emit(self, event: JSONObject) -> None:
        if self.writer is not None:
            self.writer(
                {
                    "server": self.server,
                    "tool": self.tool,
                    "tool_call_id": self.tool_call_id,
                    **event,
                }
            )


_CURRENT: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "mcpkit_langchain_call", default=None
)
_TOOL_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "mcpkit_langchain_tool_call_id", default=None
)


def current_tool_call_id() -> str | None:
    """The model's id of the tool call being run (set by :class:`~.tools.MCPTool`)."""
    return _TOOL_CALL_ID.get()


_RESUMING: Final = "__pregel_resuming"
"""Set in a node's ``configurable`` when the run resumes an interrupted one."""
_IN_GRAPH: Final = ("__pregel_runtime", "__pregel_scratchpad")
"""Keys LangGraph puts in a node's ``configurable`` (``interrupt()`` and the stream writer need
them); a plain ``tool.ainvoke`` outside a graph has a config without them."""


def _graph_config() -> Mapping[str, Any] | None:
    """The running node's config, or ``None`` outside a LangGraph node."""
    try:
        config = get_config()
    except RuntimeError:
        return None
    configurable = config.get("configurable") or {}
    return config if all(key in configurable for key in _IN_GRAPH) else None


def in_graph() -> bool:
    """True inside a LangGraph node (where interrupts and stream events exist)."""
    return _graph_config() is not None


def current_writer() -> StreamWriter | None:
    """LangGraph's custom stream writer when running inside a graph node, else ``None``."""
    if _graph_config() is None:
        return None
    try:
        writer = get_stream_writer()
    except (RuntimeError, KeyError):
        return None
    # Progress and logs arrive in the connection's own task, where LangGraph's context (which
    # the writer reads) is not set: write from a copy of the node's context.
    context = contextvars.copy_context()

    def write(event: Any) -> None:
        context.run(writer, event)

    return write


class GraphBridge:
    """Turns what MCP servers send during a call into LangGraph interrupts and stream events.

    Pass :meth:`client_options` to the ``Host`` (``client_options=``) or ``Client`` so questions
    and logs come here, and the bridge to :func:`load_tools` / :func:`tool_node`.
    """

    def __init__(
        self,
        *,
        fallback_elicitation: ElicitationFallback | None = None,
        park_seconds: float = DEFAULT_PARK_SECONDS,
    ) -> None:
        self._fallback = fallback_elicitation
        self._park_seconds = park_seconds
        self._lot: ParkingLot[tuple[Any, ...]] = ParkingLot(
            park_seconds, on_expire=self._expired, name="mcpkit.contrib.langchain: paused calls"
        )
        self._open: dict[int, _Call] = {}

    def client_options(self) -> dict[str, Any]:
        """``elicitation_handler`` and ``logging_handler`` for ``Client``/``Host``."""
        return {"elicitation_handler": self.on_elicitation, "logging_handler": self.on_log}

    @property
    def parked(self) -> int:
        """Calls paused by an interrupt and waiting to be resumed in this process."""
        return len(self._lot)

    # -- what the client's handlers receive ----------------------------------------------------

    def _call_for(self, server_name: str) -> _Call | None:
        call = _CURRENT.get()
        if call is not None:
            return call
        for candidate in self._open.values():  # oldest first
            if candidate.server_name == server_name:
                return candidate
        return None

    async def on_elicitation(self, params: Any, ctx: QuestionContext) -> Any:
        """The client's elicitation handler: hand the question to the graph call waiting on it."""
        call = self._call_for(ctx.server_name)
        if call is None:
            if self._fallback is not None:
                return await self._fallback(params, ctx)
            logger.warning(
                "%s asked %r outside a graph call and no fallback_elicitation was given: "
                "answering cancel",
                ctx.server_name,
                getattr(params, "message", ""),
            )
            return {"action": "cancel"}
        assert call.parked is not None  # (set before the call could ask anything)
        answer: JSONObject = await call.parked.ask(_builtins(params))
        return answer

    def on_log(self, params: Any) -> None:
        """The client's logging handler: a stream event for the call it belongs to (or for its
        server, when several of that server's calls are open), else the logger."""
        data = _builtins(params)
        server = notifying_server()
        mine = [c for c in self._open.values() if server is None or c.server == server]
        call = _CURRENT.get()
        if call is None or call not in mine:
            call = mine[0] if len(mine) == 1 else None
        if call is not None and call.writer is not None:
            call.emit({"type": "mcp_log", **data})
            return
        writer = next((c.writer for c in mine if c.writer is not None), None)
        if writer is not None and (server is not None or len({c.server for c in mine}) == 1):
            label = server if server is not None else mine[0].server
            writer({"type": "mcp_log", "server": label, "tool": None, "tool_call_id": None, **data})
            return
        server_logger.info("%s%s", f"{server}: " if server else "", data)

    # -- running one call ----------------------------------------------------------------------

    async def run(
        self,
        start: Callable[[], Awaitable[T]],
        *,
        server: str,
        server_name: str,
        tool: str,
        key: tuple[Any, ...],
        writer: StreamWriter | None = None,
        era: str | None = None,
    ) -> T:
        """Run ``start()`` (one tool call) so that its questions become interrupts.

        Outside a graph this is just ``await start()``. ``era`` is the client's
        (``"legacy"`` makes a call made again after a restart say so).
        """
        config = _graph_config()
        if config is None:
            return await start()
        configurable = config.get("configurable") or {}
        full_key = (configurable.get("thread_id"), configurable.get("checkpoint_ns"), *key)
        parked = self._lot.take(full_key)
        call: _Call | None = parked.context if parked is not None else None
        if call is not None and parked is not None:
            call.writer = writer or call.writer
            call.index = 0
            answered = len(call.record or ()) - (1 if parked.waiting is not None else 0)
            for _ in range(answered):
                interrupt(None)  # replays the stored answers, so the next index is ours
                call.index += 1
        else:
            call = _Call(server, server_name, tool, writer, _TOOL_CALL_ID.get())
            if not configurable.get(_RESUMING):
                call.record = []  # a first run: nothing was asked before, nothing to read
            if era == "legacy" and configurable.get(_RESUMING):
                call.again = True
                logger.warning(
                    "%s/%s: resumed after a restart; the handshake-era call is made again, so "
                    "the tool's work before its question runs a second time",
                    server,
                    tool,
                )
            opened = call

            async def body(_parked: ParkedCall[T]) -> T:
                try:
                    return await start()
                finally:
                    self._open.pop(id(opened), None)

            self._open[id(call)] = call
            token = _CURRENT.set(call)  # the call's task (and its questions) know their call
            try:
                call.parked = self._lot.start(body)
            finally:
                _CURRENT.reset(token)
            call.parked.context = call  # what a resume finds again, by the parked call
        try:
            return await self._drive(call, full_key)  # type: ignore[no-any-return]
        except GraphInterrupt:
            raise
        except BaseException:
            if call.parked is not None:
                call.parked.cancel()
            self._open.pop(id(call), None)
            raise

    async def _drive(self, call: _Call, key: tuple[Any, ...]) -> Any:
        parked = call.parked
        assert parked is not None
        while (asked := await parked.step()) is not None:
            if call.record is None:
                call.record = await asked_before()
            value = self._ask(call, key, asked)
            try:
                asked.answer(answer_from_resume(value))
            except TypeError as exc:
                asked.refuse(exc)
        return parked.result()

    def _ask(self, call: _Call, key: tuple[Any, ...], asked: Asked) -> Any:
        """``interrupt()`` for one question, its answer bound to it (:mod:`.binding`): a stored
        answer given to another question at this index is dropped and the question asked at
        the next index."""
        record = call.record if call.record is not None else []
        params: JSONObject = asked.question
        this = question_id("elicitation/create", params)
        payload = question_payload(call.server, call.tool, params)
        if call.again:
            payload["call_made_again"] = True
        while True:
            at = call.index
            stale = at < len(record) and record[at] != this
            ids = [*record[:at], this]
            try:
                value = interrupt({**payload, QUESTION_IDS: ids})
            except GraphInterrupt:
                call.record = ids
                self._park(key, call)
                raise
            call.index += 1
            if not stale:
                call.record = record if at < len(record) else ids
                return value
            logger.warning(
                "%s/%s: the stored answer was given to another question than %r; asking again",
                call.server,
                call.tool,
                params.get("message", ""),
            )

    def _park(self, key: tuple[Any, ...], call: _Call) -> None:
        assert call.parked is not None
        self._lot.park(key, call.parked)  # a call parked under the same key before: expired

    def _expired(self, parked: ParkedCall[Any]) -> None:
        """No resume in time: the question is answered ``cancel`` and the call finishes."""
        call = parked.context
        if isinstance(call, _Call):
            logger.warning(
                "%s/%s: no resume within %g s; the question is answered cancel",
                call.server,
                call.tool,
                self._park_seconds,
            )
        waiting = parked.waiting
        if waiting is not None:
            waiting.answer({"action": "cancel"})

    async def aclose(self) -> None:
        """Answer ``cancel`` to every parked call and wait for them to finish."""
        await self._lot.aclose()
