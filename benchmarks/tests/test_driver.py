"""The benchmark driver against real processes: the raw floor, and servers that misbehave.

Run with: .venv/bin/pytest benchmarks/tests -q
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCHMARKS))

from driver import ERAS, PeerError, StdioPeer, measure, percentile  # noqa: E402

RAW_FLOOR = [sys.executable, str(BENCHMARKS / "raw_stdio_server.py")]


@pytest.mark.parametrize("era", ERAS)
def test_measures_the_raw_floor_in_both_eras(era: str) -> None:
    result = measure(RAW_FLOOR, era, calls=50, pipelined=200, warmup=5)
    assert result.start_to_first_answer_ms > 0
    assert result.sequential_calls_per_s > 0
    assert 0 < result.sequential_p50_us <= result.sequential_p99_us
    assert result.pipelined_calls_per_s > 0
    assert result.sequential_server_cpu_us_per_call >= 0


def test_pipelined_exchange_does_not_deadlock_on_large_batches() -> None:
    # 20,000 requests are far more than a pipe buffer holds in either direction.
    peer = StdioPeer(RAW_FLOOR)
    try:
        batch = b"".join(
            b'{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
            b'"params":{"name":"add","arguments":{"a":%d,"b":1}}}\n' % (i, i)
            for i in range(20_000)
        )
        answers = peer.exchange(batch, 20_000)
    finally:
        peer.close()
    assert [a["id"] for a in answers] == list(range(20_000))
    assert answers[-1]["result"]["content"][0]["text"] == "20000"


def test_a_server_that_exits_is_reported_with_its_stderr() -> None:
    command = [sys.executable, "-c", "import sys; sys.stderr.write('boom at startup'); sys.exit(3)"]
    with pytest.raises(PeerError, match="boom at startup"):
        measure(command, "legacy", calls=1, pipelined=1, warmup=0)


def test_an_error_answer_fails_the_run() -> None:
    # The raw floor answers -32601 to methods it does not know; a tool error is not enough,
    # so point the driver at a server that rejects initialize.
    script = (
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    print(json.dumps({'jsonrpc': '2.0', 'id': m['id'],"
        " 'error': {'code': -32600, 'message': 'no thanks'}}), flush=True)\n"
    )
    with pytest.raises(PeerError, match="no thanks"):
        measure([sys.executable, "-c", script], "legacy", calls=1, pipelined=1, warmup=0)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.50) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([7.0], 0.99) == 7.0
