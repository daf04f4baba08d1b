"""Fixtures for the Redis tests: a reachable Redis (else skip; under CI fail) and a key prefix
of the test's own, deleted afterwards."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _redis_env import REDIS_URL, prefixed, require_redis


@pytest.fixture
async def prefix() -> AsyncIterator[str]:
    require_redis()
    async with prefixed() as value:
        yield value


@pytest.fixture
async def client() -> AsyncIterator[Any]:
    require_redis()
    from mcpkit.contrib.redis._conn import RedisOptions, connect

    redis = connect(RedisOptions(REDIS_URL))
    try:
        yield redis
    finally:
        await redis.aclose()


# The HTTP wire helpers (LegacyPeer, SSE collection, 2026 request bodies) live with the HTTP
# transport tests; the multi-worker tests speak the same wire.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "transports" / "http"))
