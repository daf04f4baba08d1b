"""Carrying a backend's questions (elicitation, sampling, roots) to the client that caused them.

A backend asks while one of the gateway's calls to it is open; the question must reach the front
request that made that call, in the front client's era:

* **a legacy front client** is asked directly: ``ctx.ask`` sends the server→client request on
  its session and waits for the answer;
* **a 2026 front client** cannot be asked inside a request. The backend call keeps running in a
  parked call (:mod:`mcpkit.client.parked`: the gateway holds it open, whatever the backend's
  era); the front round
  ends with an ``InputRequiredResult`` carrying the question, and the client's retry — which
  finds the pending call again through an id sealed in ``requestState`` (``ctx.memo``) — delivers
  the answer and waits for the next question or the result. A pending call nobody comes back for
  is cancelled after :data:`PENDING_TTL` seconds; a retry that finds none (the gateway
  restarted) starts the backend call again, and the answers already given (sealed in
  ``requestState``) answer its questions again.

Which front call a question belongs to: a 2026 backend asks inside our call (its
``input_required`` rounds run in the calling task), so a context variable names the call. A
legacy backend asks on its session, unrelated to any request in the protocol: the question goes
to the one call open on that backend, and is refused (-32603, ``backend question is ambiguous``)
when several calls are open there at once — even of the same client name (two people may share
a token): sending one caller's question to another would break consent.

A 2025-11-25 backend's *task* asks with the ``related-task`` ``_meta`` naming its task, often
before any call is open (the task runs after ``tools/call`` returned): the question waits
(at most :data:`TASK_QUESTION_WAIT` seconds) for the front call that carries that very task
— the client's ``tasks/result``, which it sends once it sees the task ``input_required`` — and
goes to that call's client only.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import msgspec

from mcpkit.concurrency import race
from mcpkit.protocol import InternalError
from mcpkit.server import Context, ElicitAnswer, Question
from mcpkit.types import JSONObject
from mcpkit.types.meta import RELATED_TASK

__all__ = [
    "PENDING_TTL",
    "TASK_QUESTION_WAIT",
    "Asker",
    "FrontCall",
    "LogRelay",
    "Questions",
    "ask_front",
    "relay_log",
]

logger = logging.getLogger("mcpkit.gateway")

PENDING_TTL: Final = 300.0
"""Seconds a 2026 client has to come back with its answers before the backend call is dropped."""
TASK_QUESTION_WAIT: Final = 60.0
"""Seconds a backend task's question waits for its client's ``tasks/result`` to carry it."""

Asker = Callable[[str, JSONObject], Awaitable[JSONObject]]
"""Asks the front client ``(method, params)``; returns its answer."""
LogRelay = Callable[[Any], Awaitable[None]]
"""Passes a backend's ``notifications/message`` params (typed) on to the front client."""

_PREFIX: Final = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


async def relay_log(ctx: Context, params: Any) -> None:
    """A backend's log message, to the front request (at the level the front client asked)."""
    level = getattr(params, "level", None)
    if isinstance(level, str):
        await ctx.log(level, getattr(params, "data", None), logger=getattr(params, "logger", None))


async def ask_front(ctx: Context, method: str, params: JSONObject, key: str | None) -> JSONObject:
    """Ask the front client ``method`` (in its era); the answer as wire JSON."""
    mode = params.get("mode", "form") if method == "elicitation/create" else None
    question = Question(method, params or None, _PREFIX.get(method, "input"), key, mode)
    (answer,) = await ctx.ask(question)
    if isinstance(answer, ElicitAnswer):
        out: JSONObject = {"action": answer.action}
        if answer.content is not None:
            out["content"] = answer.content
        return out
    if method == "roots/list":
        return {"roots": answer}
    built: JSONObject = msgspec.to_builtins(answer)
    return built


class FrontCall:
    """One open call from a front request to a backend, and how to ask its client."""

    __slots__ = ("asker", "backend", "client", "log", "task_id")

    def __init__(
        self, backend: str, client: str, asker: Asker, log: LogRelay, task_id: str | None = None
    ) -> None:
        self.backend = backend
        self.client = client
        self.asker = asker
        self.log = log
        self.task_id = task_id
        """The backend task this call carries (a 2025-11-25 ``tasks/result``), if any."""


CURRENT: contextvars.ContextVar[FrontCall | None] = contextvars.ContextVar(
    "mcpkit_gateway_call", default=None
)


class Questions:
    """Open front calls per backend, and the handlers the backend clients are built with."""

    def __init__(self) -> None:
        self._open: dict[str, list[FrontCall]] = {}
        self._opened: asyncio.Event | None = None
        """Set (then replaced) whenever a call opens: wakes questions waiting for theirs."""

    @contextlib.contextmanager
    def opened(self, call: FrontCall) -> Any:
        calls = self._open.setdefault(call.backend, [])
        calls.append(call)
        if self._opened is not None:
            self._opened.set()
            self._opened = None
        token = CURRENT.set(call)
        try:
            yield call
        finally:
            CURRENT.reset(token)
            calls.remove(call)

    def _front(self, backend: str, method: str) -> FrontCall:
        found = self.front(backend)
        if found is not None:
            return found
        if not self._open.get(backend):
            raise InternalError(f"{method}: no client call is open on this gateway backend")
        raise InternalError(
            f"{method}: backend question is ambiguous (several calls are open on this backend)"
        )

    async def _task_front(self, backend: str, method: str, task_id: str) -> FrontCall:
        """The open call carrying ``task_id`` on ``backend``, waited for (bounded)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TASK_QUESTION_WAIT
        while True:
            for call in self._open.get(backend, []):
                if call.task_id == task_id:
                    return call
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise InternalError(
                    f"{method}: no client came for task {task_id!r} of this gateway backend"
                )
            if self._opened is None:
                self._opened = asyncio.Event()
            await race(self._opened.wait(), timeout=remaining)

    def front(self, backend: str) -> FrontCall | None:
        """The front call a backend's message belongs to, if it can be told."""
        current = CURRENT.get()
        if current is not None and current.backend == backend:
            return current
        calls = self._open.get(backend, [])
        return calls[0] if len(calls) == 1 else None

    def handlers(self, backend: str) -> dict[str, Any]:
        """``Client`` options answering ``backend``'s questions through the front call."""

        async def relay(method: str, params: Any) -> JSONObject:
            wire = params if isinstance(params, dict) else msgspec.to_builtins(params)
            current = CURRENT.get()
            task_id = _related_task(wire)
            if task_id is not None and (current is None or current.backend != backend):
                call = await self._task_front(backend, method, task_id)
            else:
                call = self._front(backend, method)
            return await call.asker(method, wire)

        async def elicit(params: Any, _context: Any) -> JSONObject:
            return await relay("elicitation/create", params)

        async def sample(params: Any, _context: Any) -> JSONObject:
            return await relay("sampling/createMessage", params)

        async def roots() -> list[JSONObject]:
            answer = await relay("roots/list", {})
            listed = answer.get("roots")
            return listed if isinstance(listed, list) else []

        async def log(params: Any) -> None:
            call = self.front(backend)
            if call is not None:  # a log line nobody's call can own is dropped, not broadcast
                await call.log(params)

        return {
            "logging_handler": log,
            "elicitation_handler": elicit,
            "url_elicitation": True,
            "sampling_handler": sample,
            "sampling_tools": True,
            "sampling_context": True,
            "roots": roots,
        }


def _related_task(params: JSONObject) -> str | None:
    """The task a 2025-11-25 backend's question belongs to (its ``related-task`` ``_meta``)."""
    meta = params.get("_meta")
    related = meta.get(RELATED_TASK) if isinstance(meta, dict) else None
    task_id = related.get("taskId") if isinstance(related, dict) else None
    return task_id if isinstance(task_id, str) else None
