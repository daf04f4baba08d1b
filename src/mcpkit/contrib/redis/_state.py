"""``RedisState``: one object that moves a server's state from process memory to Redis.

::

    from mcpkit.contrib.redis import RedisState
    server.run("http", state=RedisState("redis://127.0.0.1:6379/0"))

Every worker started like this (any number, on any machine) serves any request of any client:

* legacy sessions and their SSE event logs live in Redis (:mod:`.sessions`, :mod:`.events`);
* 2026 ``requestState`` is sealed with a key ring shared through Redis (:mod:`.keys`);
* task records live in Redis (:mod:`.tasks`); a worker's heartbeat (:class:`Workers`) tells the
  others whether the tasks and streams it runs are still alive;
* a pub/sub channel (:class:`Bus`) carries what one worker must tell the others: a client's
  answer to a server request that another worker is waiting for, ``notifications/cancelled``
  for a request running elsewhere, a session ended by DELETE, and every ``subscriptions/listen``
  publication (list changes, resource updates, task status);
* legacy resource updates and list changes are written once into each target session's shared
  ``GET`` stream (whichever worker holds the client's connection delivers them).

When Redis does not answer, requests that need it get HTTP 503 with the reason after the bounded
timeouts of :class:`~mcpkit.contrib.redis.RedisOptions`; the bus and heartbeat reconnect by
themselves when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Final

import msgspec

from mcpkit.concurrency import TaskSet
from mcpkit.contrib.redis._conn import RedisOptions, RedisUnavailable, connect, guarded, text
from mcpkit.contrib.redis._events import RedisEventStore
from mcpkit.contrib.redis._keys import KEY_REFRESH_SECONDS, SharedKeyRing
from mcpkit.contrib.redis._sessions import RedisSessionStore
from mcpkit.contrib.redis._tasks import RedisTaskStore
from mcpkit.contrib.redis._wire import wire_for
from mcpkit.protocol import UsageError, decode_json, encode_message, message_from_obj
from mcpkit.server import DEFAULT_STATE_TTL, KeyRing, RequestStateSealer
from mcpkit.transports.http import (
    MAX_EVENTS_PER_STREAM,
    MAX_SESSIONS,
    SESSION_IDLE_TIMEOUT_SECONDS,
    STREAM_TTL_SECONDS,
)
from mcpkit.types import ErrorResponse, JSONObject, Notification, Response

if TYPE_CHECKING:
    import redis.asyncio

__all__ = [
    "HEARTBEAT_SECONDS",
    "RECONNECT_MAX_SECONDS",
    "WORKER_LEASE_SECONDS",
    "Bus",
    "RedisState",
    "Workers",
]

logger = logging.getLogger("mcpkit.redis")

WORKER_LEASE_SECONDS: Final = 10.0
"""A worker that has not refreshed its heartbeat for this long is considered dead: its running
tasks are marked failed and resumed streams it was writing end."""
HEARTBEAT_SECONDS: Final = 3.0
"""How often a worker refreshes its heartbeat (more often when the lease is shorter than three
beats: a live worker must never look dead between two of them)."""
RECONNECT_MAX_SECONDS: Final = 2.0
"""The longest pause between two attempts to re-subscribe the bus while Redis is down."""
GET_STREAM: Final = "get"
BUS_READY_SECONDS: Final = 5.0
"""At startup, how long a worker waits for its bus subscription before serving anyway."""
KEY_RETRY_SECONDS: Final = 0.5
"""While the shared ``requestState`` keys could not be loaded yet, how often to try again."""


class _KeysNotLoaded(RequestStateSealer):
    """The sealer of a worker that started while Redis was down, until the shared keys load.

    Sealing with a key of its own would make rounds no other worker can verify (refused
    ``-32602 unknown key`` wherever the retry lands), so a round that needs the key ring gets
    what every request that needs Redis gets meanwhile: 503 with the reason."""

    def __init__(self) -> None:
        super().__init__(KeyRing([secrets.token_bytes(32)]))  # never used

    @staticmethod
    def _unavailable() -> RedisUnavailable:
        return RedisUnavailable(
            "Redis is unavailable (the shared requestState keys are not loaded yet); "
            "try again shortly"
        )

    def seal(self, payload: Any, **options: Any) -> str:
        raise self._unavailable()

    def unseal(self, token: str, **options: Any) -> Any:
        raise self._unavailable()


class Workers:
    """This worker's heartbeat, and whether another worker is alive (``{prefix}w:{id}``)."""

    def __init__(
        self, client: redis.asyncio.Redis, prefix: str, worker_id: str, lease: float
    ) -> None:
        self._redis: Any = client
        self._prefix = prefix
        self.worker_id = worker_id
        self.lease = lease
        self.interval = min(HEARTBEAT_SECONDS, lease / 3)
        """Seconds between two beats: at least three beats per lease."""

    async def beat(self) -> None:
        async with guarded():
            await self._redis.set(
                f"{self._prefix}w:{self.worker_id}", str(time.time()), px=int(self.lease * 1000)
            )

    async def alive(self, worker_id: str) -> bool:
        if worker_id == self.worker_id:
            return True
        async with guarded():
            return bool(await self._redis.exists(f"{self._prefix}w:{worker_id}"))

    async def stop(self) -> None:
        """A clean shutdown: the others need not wait for the lease to run out."""
        with contextlib.suppress(RedisUnavailable):
            async with guarded():
                await self._redis.delete(f"{self._prefix}w:{self.worker_id}")


class Bus:
    """One pub/sub channel, ``{prefix}bus``, shared by every worker; messages are JSON objects
    ``{"w": sender, "k": kind, ...}`` and each worker ignores its own."""

    def __init__(self, client: redis.asyncio.Redis, prefix: str, worker_id: str) -> None:
        self._redis: Any = client
        self.channel = f"{prefix}bus"
        self.worker_id = worker_id
        self.subscribed = asyncio.Event()
        """Set while the subscription is live (tests wait on it instead of sleeping)."""

    async def publish(self, kind: str, body: dict[str, Any]) -> None:
        data = msgspec.json.encode({"w": self.worker_id, "k": kind, **body})
        async with guarded():
            await self._redis.publish(self.channel, data)

    async def run(self, handle: Any) -> None:
        """Receive until cancelled; re-subscribes (with backoff) whenever Redis goes away."""
        pause = 0.05
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
                self.subscribed.set()
                pause = 0.05
                while True:
                    message = await pubsub.get_message(timeout=HEARTBEAT_SECONDS)
                    if message is None or message.get("type") != "message":
                        continue
                    try:
                        body = msgspec.json.decode(message["data"])
                    except msgspec.DecodeError:
                        continue
                    if isinstance(body, dict) and body.get("w") != self.worker_id:
                        try:
                            await handle(body)
                        except Exception:
                            logger.exception("handling a bus message failed")
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.subscribed.clear()
                logger.warning("Redis bus lost (%s); reconnecting in %.2f s", exc, pause)
                await asyncio.sleep(pause)  # backoff between reconnection attempts
                pause = min(pause * 2, RECONNECT_MAX_SECONDS)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()


class RedisState:
    """Shared state on Redis for every worker of a deployment (see the module docstring).

    ``prefix`` namespaces every key and channel (one Redis can hold several deployments, and
    tests use a fresh prefix each). The bounds default to the embedded stores' defaults.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        *,
        prefix: str = "mcpkit:",
        max_sessions: int = MAX_SESSIONS,
        max_sessions_per_peer: int | None = None,
        session_idle_timeout: float = SESSION_IDLE_TIMEOUT_SECONDS,
        max_events_per_stream: int = MAX_EVENTS_PER_STREAM,
        event_max_age: float = STREAM_TTL_SECONDS,
        event_ttl: float = STREAM_TTL_SECONDS,
        worker_lease: float = WORKER_LEASE_SECONDS,
        key_refresh: float = KEY_REFRESH_SECONDS,
        key_grace: float = DEFAULT_STATE_TTL,
        connect_timeout: float | None = None,
        socket_timeout: float | None = None,
        retries: int | None = None,
    ) -> None:
        if worker_lease <= 0 or key_refresh <= 0 or key_grace < 0:
            raise UsageError("worker_lease and key_refresh must be positive, key_grace at least 0")
        defaults = RedisOptions()
        self.options = RedisOptions(
            url=url,
            connect_timeout=connect_timeout or defaults.connect_timeout,
            socket_timeout=socket_timeout or defaults.socket_timeout,
            retries=defaults.retries if retries is None else retries,
        )
        self.prefix = prefix
        self.worker_id = secrets.token_hex(8)
        self.client: Any = connect(self.options)
        self.wire = wire_for(self.client, self.options)
        """The lean connection the per-request scripts use (``None``: they go through redis-py)."""
        self.workers = Workers(self.client, prefix, self.worker_id, worker_lease)
        self.event_store: RedisEventStore = RedisEventStore(
            self.client,
            prefix=prefix,
            max_events_per_stream=max_events_per_stream,
            max_age=event_max_age,
            ttl=event_ttl,
            worker_id=self.worker_id,
            worker_alive=self.workers.alive,
            wire=self.wire,
        )
        self.session_store: RedisSessionStore = RedisSessionStore(
            self.client,
            prefix=prefix,
            max_sessions=max_sessions,
            max_sessions_per_peer=max_sessions_per_peer,
            idle_timeout=session_idle_timeout,
            wire=self.wire,
        )
        self.task_store: RedisTaskStore = RedisTaskStore(
            self.client, prefix=prefix, worker_id=self.worker_id, worker_alive=self.workers.alive
        )
        self.keys = SharedKeyRing(self.client, prefix=prefix, refresh=key_refresh, grace=key_grace)
        self.bus = Bus(self.client, prefix, self.worker_id)
        self._app: Any = None
        self.keys_loaded = asyncio.Event()

    # -- SharedState ---------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def running(self, app: Any) -> AsyncIterator[RedisState]:
        """Connect ``app`` to the deployment for its lifespan (the HTTP app calls this)."""
        self._app = app
        server = app.server
        tasks = getattr(server, "tasks", None)
        if tasks is not None and not tasks.store.shared:
            tasks.use_store(self.task_store)
        hub = getattr(server, "listen_hub", None)
        if hub is not None:
            hub.relay = self._relay_listen
        if hasattr(server, "legacy_fanout"):
            server.legacy_fanout = self._legacy_fanout
        sessions = app.endpoint.sessions
        if sessions is not None:
            sessions.relay = self._relay_session
        if hasattr(server, "state_sealer"):
            server.state_sealer = _KeysNotLoaded()  # never a key only this worker has
        with contextlib.suppress(RedisUnavailable):
            await self._load_keys()  # else the refresh loop keeps trying (every 0.5 s)
        # Owned by this lifespan: cancelled and awaited (bounded) when it ends.
        background = TaskSet(asyncio.get_running_loop(), "redis-state", logger)
        background.spawn(self._beat_forever(), name="redis-heartbeat")
        background.spawn(self._refresh_keys_forever(), name="redis-key-refresh")
        background.spawn(self.bus.run(self._on_bus), name="redis-bus")
        # Serve only once the bus listens (a relayed answer must not be lost in the gap); if
        # Redis is down, start anyway: the bus keeps reconnecting and requests get 503 meanwhile.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(BUS_READY_SECONDS):
                await self.bus.subscribed.wait()
        try:
            yield self
        finally:
            await background.aclose()
            await self.workers.stop()
            if hub is not None:
                hub.relay = None
            await self.session_store.aclose()
            if self.wire is not None:
                await self.wire.aclose()
            await self.client.aclose()

    # -- wiring --------------------------------------------------------------------------------

    async def _load_keys(self) -> None:
        ring = await self.keys.load()
        server = self._app.server if self._app is not None else None
        if server is not None and hasattr(server, "state_sealer"):
            server.state_sealer = RequestStateSealer(ring)
        self.keys_loaded.set()

    async def rotate_keys(self) -> None:
        """Start using a new ``requestState`` key everywhere (the old one keeps verifying)."""
        await self.keys.rotate()
        await self._load_keys()

    async def _beat_forever(self) -> None:
        while True:
            try:
                await self.workers.beat()
            except RedisUnavailable as exc:
                logger.warning("worker heartbeat failed: %s", exc)
            await asyncio.sleep(self.workers.interval)

    async def _refresh_keys_forever(self) -> None:
        while True:
            loaded = self.keys_loaded.is_set()
            await asyncio.sleep(self.keys.refresh if loaded else KEY_RETRY_SECONDS)
            try:
                await self._load_keys()
            except RedisUnavailable as exc:
                logger.warning("could not reload the requestState keys: %s", exc)

    async def _relay_listen(self, kind: str, args: list[Any]) -> None:
        with contextlib.suppress(RedisUnavailable):  # this worker's listeners were told already
            await self.bus.publish("listen", {"kind": kind, "args": args})

    async def _relay_session(self, kind: str, session_id: str, payload: Any) -> None:
        if isinstance(payload, Response | ErrorResponse):
            payload = decode_json(encode_message(payload))
        await self.bus.publish("session", {"kind": kind, "sid": session_id, "p": payload})

    async def _legacy_fanout(self, method: str, params: JSONObject | None, uri: str | None) -> None:
        """Write a notification once into each target session's shared GET stream.

        Each copy leaves through the send point of the session's engine, rebuilt from its
        snapshot: shaped for the revision that session negotiated, seen by the outbound
        observers, and not written to a session whose lifecycle forbids it yet. Sessions that
        get the same bytes are written in one batch."""
        store = self.session_store
        sessions = self._app.endpoint.sessions if self._app is not None else None
        if sessions is None:
            return
        targets = await (store.subscribers(uri) if uri is not None else store.all_ids())
        note = Notification(method, params)
        batches: dict[bytes, list[str]] = {}
        for session_id, snapshot in await store.snapshots(targets):
            message = sessions.send_from_snapshot(snapshot, note)
            if message is not None:
                batches.setdefault(encode_message(message), []).append(session_id)
        for data, ids in batches.items():
            await self.event_store.append_many(ids, GET_STREAM, data)

    async def _on_bus(self, body: dict[str, Any]) -> None:
        app = self._app
        if app is None:
            return
        if body.get("k") == "listen":
            hub = getattr(app.server, "listen_hub", None)
            if hub is not None:
                await hub.deliver(str(body.get("kind")), list(body.get("args") or ()))
            return
        sessions = app.endpoint.sessions
        if body.get("k") != "session" or sessions is None:
            return
        kind = str(body.get("kind"))
        payload = body.get("p")
        if kind == "answer":
            payload = message_from_obj(payload)
        await sessions.on_relayed(kind, text(body.get("sid", "")), payload)
