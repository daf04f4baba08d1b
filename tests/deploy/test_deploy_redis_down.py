"""Redis dying under the three-worker deployment, seen through the proxy.

The workers share a ``redis-server`` of this test's own (``private_redis`` from the Redis
tests' helpers), which is killed and started again: requests that need Redis get 503 with the
reason, stateless 2026 calls and the health route keep answering, and the deployment serves
legacy sessions again once Redis is back — without restarting a worker.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any, Final

import httpx

from ._deployment import Deployment, deployment

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "contrib" / "redis"))
from _redis_env import private_redis

RECOVERY_TIMEOUT: Final = 60.0
"""Seconds the deployment may take to serve legacy sessions again after Redis is back."""
REQUEST_TIMEOUT: Final = 30.0
"""Per request: a worker gives up on an absent Redis after its bounded timeouts (seconds)."""
_HEADERS: Final = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}
_INITIALIZE: Final = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "deploy-tests", "version": "0"}},
}  # fmt: skip
_MODERN_WHOAMI: Final = {
    "jsonrpc": "2.0", "id": 2, "method": "tools/call",
    "params": {"name": "whoami", "arguments": {}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "deploy-tests", "version": "0"}}},
}  # fmt: skip
_MODERN_HEADERS: Final = {
    **_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
    "mcp-name": "whoami",
}  # fmt: skip


def _post(running: Deployment, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    return httpx.post(running.url, content=json.dumps(body), headers=headers,
                      timeout=REQUEST_TIMEOUT)  # fmt: skip


def test_redis_down_is_a_clear_503_and_the_deployment_recovers_by_itself(tmp_path: Path) -> None:
    with (
        private_redis(tmp_path) as redis,
        deployment(tmp_path, args=["--redis", redis.url, "--prefix", "deploy-down:"]) as running,
    ):
        assert _post(running, _INITIALIZE, _HEADERS).status_code == 200
        redis.kill()

        refused = _post(running, _INITIALIZE, _HEADERS)
        assert refused.status_code == 503, refused.text
        assert "redis" in refused.json()["error"]["message"].lower()
        health = httpx.get(running.url.replace("/mcp", "/healthz"), timeout=REQUEST_TIMEOUT)
        assert health.status_code == 200  # the workers are fine; taking them out would not help
        served = {int(_post(running, _MODERN_WHOAMI, _MODERN_HEADERS).json()["result"]
                       ["content"][0]["text"]) for _ in range(3)}  # fmt: skip
        assert served == running.pids  # stateless 2026 calls need no Redis: every worker serves

        redis.start()  # same port, empty (no persistence)
        deadline = time.monotonic() + RECOVERY_TIMEOUT
        while (answer := _post(running, _INITIALIZE, _HEADERS)).status_code != 200:
            assert answer.status_code == 503, answer.text
            assert time.monotonic() < deadline, "the deployment did not recover"
            time.sleep(0.2)  # bounded: a worker reconnects with its own backoff (≤ 2 s)
        assert "mcp-session-id" in answer.headers
