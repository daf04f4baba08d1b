"""The soak run, short: ``benchmarks/soak.py`` for ~15 s of traffic as CI's resource-leak check.

It runs as its own process, exactly as a developer runs the long version
(``.venv/bin/python benchmarks/soak.py --seconds 180``): real stdio and HTTP server processes,
both eras, malformed traffic, abandoned sessions, questions hung up on, cut 2026 streams, a
gateway with a noisy backend, SIGKILLed servers. The assertions are the
script's own verdict plus the headline numbers, so a failure shows the whole report.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOAK = ROOT / "benchmarks" / "soak.py"
SECONDS = 15


@pytest.mark.timeout(600)
@pytest.mark.no_schema_check  # the traffic is in other processes; nothing to observe here
def test_short_soak_returns_every_resource_to_its_baseline() -> None:
    done = subprocess.run(
        [sys.executable, str(SOAK), "--seconds", str(SECONDS), "--json"],
        capture_output=True,
        text=True,
        timeout=540,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    base, end, counters = report["baseline"], report["end"], report["counters"]
    summary = json.dumps(report, indent=1)[:4000]
    assert report["failures"] == [], summary
    assert done.returncode == 0, summary
    assert counters["rounds"] >= 1 and counters["calls_sent"] > 0, summary
    assert counters["lost"] == 0 and counters["wrong_answers"] == 0, summary
    assert counters["calls_answered"] == counters["calls_sent"], summary
    assert counters["server_kills"] >= 4 and counters["kill_calls_hung"] == 0, summary
    assert counters["questions_abandoned"] >= 24 and counters["streams_cut"] >= 5, summary
    assert counters["gateway_calls"] >= 20, summary  # through a gateway with a noisy backend
    for key in ("server_fds", "server_tasks", "server_sessions", "driver_fds", "driver_children"):
        assert end[key] <= base[key], (key, summary)
