"""CPU per request/response round trip through two Sessions over the in-memory pair.

Not a test (timings do not belong in unit tests on shared machines): run it by hand,
``.venv/bin/python tests/runtime/bench_session.py``, before and after changing the session's
hot path. It reports process CPU time per sequential call (client and server sessions together,
both in this process), best of several rounds, for the shapes a stdio ``tools/call`` takes: no
deadline, a deadline (the client's default), a progress callback. ``bench_session.py PATH``
measures the Session of another copy of the module (an old version, side by side) instead.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any, Final

from mcpkit._runtime import session as session_module
from mcpkit.transports._memory import memory_pair

CALLS: Final = 5_000
ROUNDS: Final = 5
RESULT: Final[dict[str, Any]] = {"content": [{"type": "text", "text": "hello"}], "isError": False}
PARAMS: Final[dict[str, Any]] = {"name": "greet", "arguments": {"who": "world"}}


async def handler(ctx: Any) -> dict[str, Any]:
    return RESULT


Session: Any = session_module.Session


async def measure(serialize: bool, **kwargs: Any) -> float:
    client_end, server_end = memory_pair(serialize=serialize)
    async with (
        Session(server_end, request_handler=handler, name="server"),
        Session(client_end, name="client") as client,
    ):
        for _ in range(200):  # warm up
            await client.send_request("tools/call", PARAMS, **kwargs)
        best = float("inf")
        for _ in range(ROUNDS):
            start = time.process_time()
            for _ in range(CALLS):
                await client.send_request("tools/call", PARAMS, **kwargs)
            best = min(best, (time.process_time() - start) / CALLS)
    return best * 1e6


async def main() -> None:
    async def progress(p: float, t: float | None, m: str | None) -> None:
        return None

    shapes: list[tuple[str, dict[str, Any]]] = [
        ("no deadline", {}),
        ("timeout=30", {"timeout": 30.0}),
        (
            "timeout=30 max=60 + progress cb",
            {"timeout": 30.0, "max_timeout": 60.0, "progress_callback": progress},
        ),
    ]
    for serialize in (False, True):
        for label, kwargs in shapes:
            us = await measure(serialize, **kwargs)
            codec = "json codec" if serialize else "no codec"
            print(f"{label:<34} {codec:<10} {us:7.1f} µs CPU per call", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # another session module (e.g. a copy of the old one) to compare
        import importlib.util

        spec = importlib.util.spec_from_file_location("other_session", sys.argv[1])
        assert spec is not None and spec.loader is not None
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        Session = other.Session
    sys.exit(asyncio.run(main()))
