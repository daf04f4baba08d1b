# ruff: noqa: RUF001 - the report under test is typeset (multiplication signs, en dashes)
"""The rest of the benchmark plumbing against real processes: no timing is asserted, only that
every measurement runs end to end, reads sensible quantities and fails loudly when it should.

Run with: .venv/bin/pytest benchmarks/tests -q
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCHMARKS))

import client_ab  # noqa: E402
import http_ab  # noqa: E402
import http_instructions  # noqa: E402
from driver import PeerError, StdioPeer, measure_large, measure_list  # noqa: E402
from http_driver import measure_http, measure_sessions  # noqa: E402
from procstats import CpuClock, peak_rss_bytes, reset_peak, rss_bytes  # noqa: E402
from report import BUDGETS, Results, render, times_better, times_raw  # noqa: E402

RAW_STDIO = [sys.executable, str(BENCHMARKS / "raw_stdio_server.py")]
RAW_ASYNCIO = [sys.executable, str(BENCHMARKS / "raw_asyncio_server.py")]
RAW_HTTP = [sys.executable, str(BENCHMARKS / "raw_asgi_server.py")]
MCPKIT = [sys.executable, str(BENCHMARKS / "mcpkit_server.py")]


def test_cpu_clock_counts_a_busy_process_in_nanoseconds() -> None:
    script = (
        "import sys\n"
        "for line in sys.stdin:\n"
        "    sum(range(300000)); print(line, end='', flush=True)"
    )
    busy = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert busy.stdin is not None and busy.stdout is not None
    try:
        clock = CpuClock(busy.pid)
        before = clock.read()
        for _ in range(10):
            busy.stdin.write("go\n")
            busy.stdin.flush()
            assert busy.stdout.readline() == "go\n"
        spent = CpuClock.delta(before, clock.read())
    finally:
        busy.stdin.close()
        busy.wait(30)
    # Ten sums of 300,000 integers: milliseconds of CPU, far below one 10 ms tick each,
    # and visible only because schedstat counts nanoseconds.
    assert 0.001 < spent < 10.0


def test_cpu_delta_prefers_schedstat_unless_ticks_show_lost_threads() -> None:
    assert CpuClock.delta((1.0, 1.0), (1.000123, 1.0)) == pytest.approx(0.000123)
    # A worker thread that exited took its schedstat time with it; the ticks kept it.
    assert CpuClock.delta((1.0, 1.0), (1.001, 1.5)) == pytest.approx(0.5)


def test_memory_readings_of_our_own_process() -> None:
    pid = os.getpid()
    assert rss_bytes(pid) > 1_000_000
    assert peak_rss_bytes(pid) >= rss_bytes(pid) or not reset_peak(pid)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_tools_list_with_generated_tools(era: str) -> None:
    result = measure_list([*RAW_STDIO, "--tools", "50"], era, calls=3, expected_tools=50)
    assert result.tools == 54  # echo, add, blob, sync_echo + 50 generated
    assert result.response_bytes > 50 * 200
    assert result.p50_ms > 0


def test_tools_list_refuses_a_server_without_the_tools() -> None:
    with pytest.raises(PeerError, match="expected 1000"):
        measure_list(RAW_STDIO, "legacy", calls=1, expected_tools=1000)


def test_large_results_report_size_and_copies() -> None:
    (one,) = measure_large(RAW_STDIO, "legacy", [200_000], repeats=1)
    assert one.size == 200_000
    assert one.latency_ms > 0
    assert one.payload_copies == -1.0 or one.payload_copies >= 0


def test_the_asyncio_reference_answers_like_the_floor() -> None:
    peer = StdioPeer(RAW_ASYNCIO)
    try:
        (answer,) = peer.exchange(
            b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
            b'"params":{"name":"add","arguments":{"a":2,"b":3}}}\n',
            1,
        )
    finally:
        peer.close()
    assert answer["result"]["content"][0]["text"] == "5"


@pytest.mark.parametrize("mode", ["legacy-sse", "legacy-json", "modern"])
def test_http_modes_against_the_raw_asgi_floor(mode: str) -> None:
    result = measure_http(RAW_HTTP, mode, calls=20, warmup=2)
    assert result.sequential_calls_per_s > 0
    assert 0 < result.sequential_p50_us <= result.sequential_p99_us
    assert result.concurrent_calls_per_s > 0


@pytest.mark.parametrize("mode", ["legacy-sse", "modern"])
def test_http_modes_against_mcpkit(mode: str) -> None:
    result = measure_http(MCPKIT, mode, calls=10, warmup=1)
    assert result.concurrent_calls_per_s > 0


def test_interleaved_http_runs_report_every_server_against_the_first() -> None:
    servers = [
        http_ab.Server.parse(f"raw={BENCHMARKS / 'raw_asgi_server.py'}"),
        http_ab.Server.parse(f"mcpkit={BENCHMARKS.parent / 'src'}:{MCPKIT[1]}"),
    ]
    assert servers[1].pythonpath == str(BENCHMARKS.parent / "src")
    results = http_ab.run(servers, ["legacy-json"], repeats=2, per_client=2)
    assert [len(values) for values in results["legacy-json"].values()] == [2, 2]
    assert all(value > 0 for values in results["legacy-json"].values() for value in values)
    text = http_ab.render(results)
    assert "x raw" in text and text.count("\n") == 1


def test_paired_http_blocks_give_every_server_a_value_per_block() -> None:
    import asyncio

    servers = [
        http_ab.Server.parse(f"raw={BENCHMARKS / 'raw_asgi_server.py'}"),
        http_ab.Server.parse(f"mcpkit={BENCHMARKS.parent / 'src'}:{MCPKIT[1]}"),
    ]
    results = asyncio.run(http_ab.run_paired(servers, "modern", blocks=4, per_client=2))
    assert [len(values) for values in results.values()] == [4, 4]
    assert all(value > 0 for values in results.values() for value in values)
    text = http_ab.render_paired("modern", results)
    assert "x raw over all" in text and "quartiles" in text and text.count("\n") == 1


@pytest.mark.parametrize("mode", ["modern", "legacy-json"])
def test_request_trace_names_the_functions_a_request_runs(mode: str) -> None:
    trace = subprocess.run(
        [sys.executable, str(BENCHMARKS / "http_request_trace.py"), "--mode", mode, "--top", "200"],
        capture_output=True, text=True, timeout=120, check=True,
        env={**os.environ, "PYTHONPATH": str(BENCHMARKS.parent / "src")},
    )  # fmt: skip
    lines = trace.stdout.splitlines()
    total = int(lines[0].split(": ")[1].split()[0])
    rows = [line.split(maxsplit=2) for line in lines[2:]]
    assert sum(int(row[0]) for row in rows) == total > 500
    functions = {row[2] for row in rows}
    assert any(name.endswith("Endpoint.post") for name in functions), functions
    assert any(name.endswith(" echo") for name in functions), functions


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_server_instructions_per_call_are_counted_between_zero_and_dump() -> None:
    small = http_instructions.count(RAW_HTTP, "legacy-json", clients=2, calls=2, warmup=1)
    more = http_instructions.count(RAW_HTTP, "legacy-json", clients=2, calls=8, warmup=1)
    # the start and the warm-up are not counted, only the timed calls and a few million
    # instructions of the loop's own ticks while callgrind takes its commands
    per_call = (more - small) / (2 * 6)
    assert 200_000 < per_call < 3_000_000 < small


def test_idle_sessions_are_counted_and_kept() -> None:
    result = measure_sessions(RAW_HTTP, 20)
    assert result.sessions == 20
    assert result.rss_all_sessions_bytes > 0


def test_an_http_server_that_never_listens_fails_with_its_output() -> None:
    command = [sys.executable, "-c", "import sys; print('cannot bind'); sys.exit(4)"]
    with pytest.raises(PeerError, match="cannot bind"):
        measure_http(command, "modern", calls=1, warmup=0)


@pytest.mark.parametrize(("client", "era"), [("raw", "legacy"), ("mcpkit", "modern")])
def test_client_cpu_script(client: str, era: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCHMARKS / "client_cpu.py"),
            "--client",
            client,
            "--era",
            era,
            "--calls",
            "20",
            "--warmup",
            "2",
            "--",
            *RAW_STDIO,
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["client_cpu_us_per_call"] > 0
    assert result["calls_per_s"] > 0


def test_interleaved_client_runs_report_every_client_against_the_first() -> None:
    specs = [client_ab.ClientSpec.parse("raw=raw"), client_ab.ClientSpec.parse("kit=src:mcpkit")]
    assert specs[0] == client_ab.ClientSpec("raw", "raw", None)
    assert specs[1] == client_ab.ClientSpec("kit", "mcpkit", "src")
    results = client_ab.run(specs, ["legacy", "modern"], repeats=2, calls=20, warmup=2)
    for era in ("legacy", "modern"):
        assert [len(values) for values in results[era].values()] == [2, 2]
        assert all(value > 0 for values in results[era].values() for value in values)
    text = client_ab.render(results)
    assert "xraw median" in text and text.count("kit") == 2


def test_ratios_read_the_same_way_for_costs_and_rates() -> None:
    assert times_raw(30.0, 10.0, higher=False) == 3.0  # three times the floor's cost
    assert times_raw(1000.0, 4000.0, higher=True) == 4.0  # a quarter of the floor's rate
    assert times_better(10.0, 250.0, higher=False) == 25.0
    assert times_better(800.0, 100.0, higher=True) == 8.0
    assert times_raw(None, 1.0, higher=False) is None


def test_report_renders_budget_verdicts_and_missing_data() -> None:
    results = Results()
    for impl, cpu in (("raw", 40.0), ("mcpkit", 70.0), ("mcp 2.3.0", 900.0)):
        results.add("stdio", impl, "legacy", {"sequential_server_cpu_us_per_call": cpu, "x": 1.0})
    results.add("sessions", "mcpkit", "legacy-json", {"bytes_per_session": 9000.0})
    results.fail("http", "mcpkit", "modern", "server exited")
    text = render(results, ["- a test run"])
    line = "| stdio server CPU/call, legacy (µs) | 70.0 | 40.0 | 900 | – | ≤ 2× raw | 1.8× raw"
    assert line in text
    assert "**met**" in text
    assert "idle legacy HTTP session (KiB) | 8.79" in text and "**NOT MET**" in text
    assert "http · mcpkit · modern: server exited" in text
    peer_budget = (
        "stdio server CPU/call vs mcp, legacy (µs) | 70.0 | 40.0 | 900 | – "
        "| ≥ 15× better than mcp | 12.9× better | **NOT MET**"
    )
    assert peer_budget in text
    assert len([b for b in BUDGETS if b.section == "stdio"]) == 8
