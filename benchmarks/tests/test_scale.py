# ruff: noqa: RUF001 - the report under test is typeset (multiplication signs)
"""``scale.py``'s plumbing against real workers and a real HAProxy: no timing is asserted, only
that both fleet shapes serve, every CPU reading is taken from the right processes, and the
report puts each row against its section's one-worker, direct baseline.

Run with: .venv/bin/pytest benchmarks/tests/test_scale.py
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCHMARKS))

from scale import Setup, measure, report  # noqa: E402


def _haproxy() -> None:
    if shutil.which("haproxy") is None and not Path("/usr/sbin/haproxy").exists():
        pytest.skip("HAProxy is missing: run scripts/install-system")


def test_two_workers_on_one_port_and_one_behind_the_proxy_are_measured() -> None:
    _haproxy()
    baseline = Setup("2026 stateless", "modern", 1, proxied=False)
    shared = Setup("2026 stateless", "modern", 2, proxied=False)
    proxied = Setup("2026 stateless", "modern", 1, proxied=True)
    results = {
        s: measure(s, seconds=0.5, warmup=2, redis_url=None) for s in (baseline, shared, proxied)
    }
    for result in results.values():
        assert result.calls_per_s > 0 and result.worker_cpu_us_per_call > 0
        assert 0 < result.p50_ms <= result.p99_ms
    assert results[shared].proxy_cpu_us_per_call == 0  # no proxy in front
    assert results[proxied].proxy_cpu_us_per_call > 0  # HAProxy's own process was read

    text = report(results, repeats=1, seconds=0.5, load=(0.0, 0.0))
    lines = [line for line in text.splitlines() if line.startswith("| 2026")]
    assert len(lines) == 3
    assert lines[0].startswith("| 2026 stateless: 1 worker, direct |") and "| 1.00× |" in lines[0]
