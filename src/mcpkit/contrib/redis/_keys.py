"""The ``requestState`` key ring, shared by every worker through Redis, with safe rotation.

A 2026-07-28 multi-round-trip request may come back to any worker, so every worker must verify
what any other sealed. The keys live in one sorted set, ``{prefix}statekeys``: member = the key
(base64), score = the time it starts *signing*. Each worker reloads the set every
``refresh`` seconds and seals with the newest key whose time has come; every key in the set
verifies.

Rotation (:meth:`SharedKeyRing.rotate`) adds a key that starts signing ``2 * refresh`` seconds
later: by then every worker has loaded it, so no worker ever sees a token sealed with a key it
does not know yet. The old key stays in the set, still verifying, for ``grace`` seconds after the
new one took over (by default the lifetime of a sealed token, so every round in flight
completes), then :meth:`SharedKeyRing.rotate` drops it.
"""

from __future__ import annotations

import base64
import secrets
import time
from typing import TYPE_CHECKING, Any, Final

from mcpkit.contrib.redis._conn import guarded, text
from mcpkit.server import DEFAULT_STATE_TTL, KeyRing

if TYPE_CHECKING:
    import redis.asyncio

__all__ = ["KEY_BYTES", "KEY_REFRESH_SECONDS", "SharedKeyRing"]

KEY_BYTES: Final = 32
KEY_REFRESH_SECONDS: Final = 5.0
"""How often each worker reloads the key set."""


class SharedKeyRing:
    """Loads (and creates, the first time) the deployment's keys. See the module docstring."""

    def __init__(
        self,
        client: redis.asyncio.Redis,
        *,
        prefix: str = "mcpkit:",
        refresh: float = KEY_REFRESH_SECONDS,
        grace: float = DEFAULT_STATE_TTL,
    ) -> None:
        self._redis: Any = client  # redis-py's reply types are unions of every RESP shape
        self._key = f"{prefix}statekeys"
        self.refresh = refresh
        self.grace = grace

    async def load(self, now: float | None = None) -> KeyRing:
        """The current ring (first key signs); makes the first key if the set is empty."""
        now = time.time() if now is None else now
        async with guarded():
            entries = await self._redis.zrange(self._key, 0, -1, withscores=True)
            if not entries:
                await self._redis.zadd(self._key, {_new_key(): 0}, nx=True)
                entries = await self._redis.zrange(self._key, 0, -1, withscores=True)
        keys = [(score, text(member)) for member, score in entries]
        live = sorted((k for k in keys if k[0] <= now), reverse=True)
        waiting = [k for k in keys if k[0] > now]
        ordered = [member for _, member in live] + [member for _, member in waiting]
        return KeyRing([base64.b64decode(member) for member in ordered])

    async def rotate(self, now: float | None = None) -> None:
        """Add a new key (signing in ``2 * refresh`` seconds) and drop keys retired for longer
        than ``grace``."""
        now = time.time() if now is None else now
        async with guarded():
            entries = await self._redis.zrange(self._key, 0, -1, withscores=True)
            starts = sorted(score for _, score in entries)
            retire: list[bytes] = []
            for member, score in entries:
                later = [s for s in starts if s > score and s <= now]
                if later and min(later) + self.grace <= now:
                    retire.append(member)
            pipe = self._redis.pipeline(transaction=True)
            pipe.zadd(self._key, {_new_key(): now + 2 * self.refresh})
            if retire:
                pipe.zrem(self._key, *retire)
            await pipe.execute()

    async def count(self) -> int:
        async with guarded():
            return int(await self._redis.zcard(self._key))


def _new_key() -> str:
    return base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()
