"""Worker heartbeats (a live worker never looks dead between two beats; a stopped one is gone at
once) and the settings RedisState refuses."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.contrib.redis import HEARTBEAT_SECONDS, RedisState, Workers
from mcpkit.protocol._errors import UsageError


def test_a_short_lease_beats_at_least_three_times_per_lease() -> None:
    assert Workers(None, "p:", "w", lease=1.0).interval <= 1.0 / 3
    assert Workers(None, "p:", "w", lease=60.0).interval == HEARTBEAT_SECONDS


async def test_alive_after_a_beat_and_gone_after_a_clean_stop(client: Any, prefix: str) -> None:
    mine = Workers(client, prefix, "A", lease=30)
    other = Workers(client, prefix, "B", lease=30)
    assert await other.alive("A") is False
    await mine.beat()
    assert await other.alive("A") is True
    assert await mine.alive("A") is True  # a worker is alive to itself without asking Redis
    await mine.stop()
    assert await other.alive("A") is False


@pytest.mark.parametrize("bad", [{"worker_lease": 0}, {"key_refresh": -1}, {"key_grace": -5}])
def test_bad_settings_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(UsageError):
        RedisState("redis://127.0.0.1:6379/0", **bad)  # type: ignore[arg-type]


def test_the_2024_http_sse_transport_refuses_shared_state() -> None:
    from mcpkit.transports.http import HttpOptions

    with pytest.raises(UsageError, match="sticky sessions"):
        HttpOptions(legacy_sse=True, state=RedisState("redis://127.0.0.1:6379/0"))
