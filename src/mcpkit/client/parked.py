"""Parked calls: a client call running in the background that stops to ask a person something.

A server may ask a question in the middle of a call (elicitation, sampling, a 2026 input
request). When the person who must answer is not on the other end of a function call — a 2026
client that answers in its *next* request (a gateway in front of a backend), a LangGraph graph
that answers after an ``interrupt()`` and a ``Command(resume=...)`` — the call has to keep
running, hold its question, and wait (bounded) for the answer to come back through some other
door. That is a *parked call*:

    lot: ParkingLot[str] = ParkingLot(ttl=300.0)

    call = lot.start(lambda call: client.call_tool("book", {...}))   # runs in the background
    asked = await call.step()            # the call's next question, or None when it ended
    if asked is not None:
        lot.park(key, call)              # stop here; the call waits (at most ttl seconds)
        ...                              # the question travels to the person
    call = lot.take(key)                 # later: the answer came back
    asked.answer(value)                  # the call resumes with it

Inside the call, whatever receives the server's question (the client's ``elicitation_handler``)
hands it over with ``await call.ask(question)`` and gets the answer back.

It lives in :mod:`mcpkit.client` because what is parked is always a client's call to a server
whose question someone else answers; both the gateway (its backend calls for 2026 front
clients) and :mod:`mcpkit.contrib.langchain` (graph interrupts) use this one implementation.

Ownership: every call runs as a task of its :class:`ParkingLot`'s
:class:`~mcpkit._runtime.tasks.TaskSet`, so nothing outlives the lot (:meth:`ParkingLot.aclose`
expires what is parked, gives the calls a moment to finish, then cancels and awaits the rest).
A parked call nobody comes back for is *expired* after ``ttl`` seconds by the lot's timer:
by default it is cancelled; an ``on_expire`` of your own may instead answer its question
(``asked.answer({"action": "cancel"})``) and let it finish. Waiting for the next question races
the question queue against the end of the call through :func:`~mcpkit._runtime.concurrency.race`.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Hashable
from typing import Any, Final, Generic, TypeVar

from mcpkit._runtime.concurrency import race
from mcpkit._runtime.tasks import CLOSE_WAIT_SECONDS, TaskSet

__all__ = ["DEFAULT_PARK_TTL", "Asked", "ParkedCall", "ParkingLot"]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)

logger = logging.getLogger("mcpkit.client.parked")

DEFAULT_PARK_TTL: Final = 300.0
"""Seconds a parked call waits for its answer before it is expired."""


class Asked:
    """One question a parked call asked, waiting for its answer."""

    __slots__ = ("_future", "number", "question")

    def __init__(self, question: Any, number: int, future: asyncio.Future[Any]) -> None:
        self.question = question
        """What :meth:`ParkedCall.ask` was given."""
        self.number = number
        """1 for the call's first question, 2 for the next, … (a stable key for it)."""
        self._future = future

    @property
    def answered(self) -> bool:
        return self._future.done()

    def answer(self, value: Any) -> None:
        """Resume the call with ``value`` as the answer (ignored once answered)."""
        if not self._future.done():
            self._future.set_result(value)

    def refuse(self, error: BaseException) -> None:
        """Resume the call with ``error`` raised where it asked (ignored once answered)."""
        if not self._future.done():
            self._future.set_exception(error)


class ParkedCall(Generic[T]):
    """One call running in its lot's background; see the module docstring.

    Made by :meth:`ParkingLot.start`. ``context`` is free for the driver: whatever the call
    should reach during the current round (the gateway keeps the front request's ``Context``
    there, where the call's logs go).
    """

    def __init__(self) -> None:
        self.id = secrets.token_urlsafe(12)
        """A random id, unguessable: fit to be handed to a client and looked up later."""
        self.context: Any = None
        self._questions: asyncio.Queue[Asked] = asyncio.Queue()
        self._waiting: Asked | None = None
        self._asked = 0
        self._ended = asyncio.Event()
        self._result: Any = None
        self._error: BaseException | None = None
        self._expiry: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None

    # -- inside the call -----------------------------------------------------------------------

    async def ask(self, question: Any) -> Any:
        """Hand ``question`` to whoever drives the call; wait for the answer (or its refusal)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._asked += 1
        self._questions.put_nowait(Asked(question, self._asked, future))
        return await future

    async def _run(self, body: Callable[[ParkedCall[T]], Awaitable[T]]) -> None:
        try:
            self._result = await body(self)
        except asyncio.CancelledError as exc:
            self._error = exc
            raise
        except Exception as exc:  # the call's own failure: for the driver to raise
            self._error = exc
        finally:
            self._ended.set()

    # -- the driver ----------------------------------------------------------------------------

    @property
    def waiting(self) -> Asked | None:
        """The question :meth:`step` returned and nobody has answered yet."""
        asked = self._waiting
        return asked if asked is not None and not asked.answered else None

    @property
    def done(self) -> bool:
        return self._ended.is_set()

    async def step(self) -> Asked | None:
        """Wait until the call asks something (returned; returned again by the next ``step``
        until answered) or ends (``None``: read :meth:`result`)."""
        waiting = self.waiting
        if waiting is not None:
            return waiting
        if self._questions.empty() and not self._ended.is_set():
            await race(self._questions_ready(), self._ended.wait())
        if not self._questions.empty():
            self._waiting = self._questions.get_nowait()
            return self._waiting
        return None

    async def _questions_ready(self) -> None:
        """Until a question is queued (taken and put back at once: only :meth:`step` takes
        one, so none is lost when the race cancels this)."""
        item = await self._questions.get()
        self._questions.put_nowait(item)  # (the queue was empty: it is first again)

    def result(self) -> T:
        """The call's result once :meth:`step` returned ``None``; raises what the call raised
        (``CancelledError`` for a cancelled or expired call)."""
        if not self._ended.is_set():
            raise RuntimeError("the parked call has not ended")
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[no-any-return]

    def cancel(self) -> None:
        """Stop the call (its questions are dropped; :meth:`result` raises ``CancelledError``)."""
        self._unpark()
        if self.task is not None:
            self.task.cancel()

    def _unpark(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None


class ParkingLot(Generic[K]):
    """Owns parked calls: starts them, keeps the parked ones by key, expires them after ``ttl``.

    ``on_expire(call)`` decides what expiry means (default: :meth:`ParkedCall.cancel`). The lot
    needs no running event loop to be made; its tasks are created on first use.
    """

    def __init__(
        self,
        ttl: float = DEFAULT_PARK_TTL,
        *,
        on_expire: Callable[[ParkedCall[Any]], None] | None = None,
        name: str = "parked calls",
    ) -> None:
        self.ttl = ttl
        self._on_expire = on_expire if on_expire is not None else ParkedCall.cancel
        self._name = name
        self._owner: TaskSet | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._parked: dict[K, ParkedCall[Any]] = {}

    def _tasks(self) -> TaskSet:
        loop = asyncio.get_running_loop()
        if self._owner is None or self._loop is not loop:  # (a lot may outlive a loop)
            self._owner = TaskSet(loop, self._name, logger)
            self._loop = loop
        return self._owner

    def start(self, body: Callable[[ParkedCall[T]], Awaitable[T]]) -> ParkedCall[T]:
        """Run ``body(call)`` in the background as a new call (the current context variables
        are the call's, as for any task started here)."""
        call: ParkedCall[T] = ParkedCall()
        call.task = self._tasks().spawn(call._run(body), name=f"parked call {call.id}")
        return call

    def park(self, key: K, call: ParkedCall[Any]) -> None:
        """Keep ``call`` under ``key`` until :meth:`take` (at most ``ttl`` seconds); a call
        parked under the same key before is expired."""
        old = self._parked.pop(key, None)
        if old is not None and old is not call:
            self._expire_call(old)
        call._unpark()
        self._parked[key] = call
        call._expiry = self._tasks().timer(self.ttl, self._expire, key, call)

    def take(self, key: K) -> ParkedCall[Any] | None:
        """The call parked under ``key`` (no longer parked), or ``None``."""
        call = self._parked.pop(key, None)
        if call is not None:
            call._unpark()
        return call

    def __len__(self) -> int:
        """Calls parked now."""
        return len(self._parked)

    def _expire(self, key: K, call: ParkedCall[Any]) -> None:
        if self._parked.get(key) is call:
            del self._parked[key]
            logger.info("%s: nobody came back within %g s; expired", self._name, self.ttl)
            self._expire_call(call)

    def _expire_call(self, call: ParkedCall[Any]) -> None:
        call._unpark()
        self._on_expire(call)

    async def aclose(self) -> None:
        """Expire every parked call, let them end (bounded), then cancel and await the rest."""
        calls = list(self._parked.values())
        self._parked.clear()
        for call in calls:
            self._expire_call(call)
        tasks = [call.task for call in calls if call.task is not None and not call.task.done()]
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT_SECONDS)
        if self._owner is not None and self._loop is asyncio.get_running_loop():
            await self._owner.aclose()
        self._owner = self._loop = None
