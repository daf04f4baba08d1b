"""Per-call cost of mcpkit's OpenTelemetry hooks: tracing off, on with no SDK, on with the SDK.

Same server, same tool (``add``), interleaved repeats, medians; ratios to ``off`` measured in
the same run:

* ``off``   — no hook (what every mcpkit user without ``instrument()`` runs: one attribute
  check per request on each side)
* ``api``   — ``instrument()`` with OpenTelemetry's API only (no SDK configured: no-op tracer
  and meter, the propagator still writes nothing): the hooks' own work
* ``spans`` — the SDK recording every span (a span processor that keeps nothing, so memory
  stays flat), no metrics: client span + server span + the context in ``_meta``
* ``sdk``   — the same plus every metric (an in-memory reader): a duration histogram record on
  each side per call (the in-flight counts are plain counters read at collection)

Two transports: **in memory** (client and server in this process: the time and CPU are both
sides' hooks, and nothing hides them) and **stdio** (a real child per mode; the child's server
is instrumented the same way, the CPU column is this process's, the client side).

    .venv/bin/python benchmarks/otel_overhead.py            # ~1 minute
    .venv/bin/python benchmarks/otel_overhead.py --quick
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from opentelemetry import metrics, trace  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider  # noqa: E402
from toolset import ADD_DESCRIPTION, add  # noqa: E402

from mcpkit.client import Client  # noqa: E402
from mcpkit.contrib.otel import Telemetry  # noqa: E402
from mcpkit.server import Server  # noqa: E402

ARGS = {"a": 2, "b": 3}
MODES = ("off", "api", "spans", "sdk")
X = "\N{MULTIPLICATION SIGN}"
MU = "\N{MICRO SIGN}"


class Discard(SpanProcessor):
    """Receives every ended span (the SDK did all its work) and keeps none."""

    def on_end(self, span: ReadableSpan) -> None:
        return None


def telemetry_for(mode: str) -> Telemetry | None:
    if mode == "off":
        return None
    if mode == "api":
        return Telemetry(
            tracer_provider=trace.NoOpTracerProvider(), meter_provider=metrics.NoOpMeterProvider()
        )
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(Discard())
    meter_provider: metrics.MeterProvider = (
        metrics.NoOpMeterProvider()
        if mode == "spans"
        else MeterProvider(metric_readers=[InMemoryMetricReader()])
    )
    return Telemetry(tracer_provider=tracer_provider, meter_provider=meter_provider)


def build() -> Server:
    server = Server("bench-otel", version="0.1.0")
    server.tool(add, description=ADD_DESCRIPTION)
    return server


def serve_child(mode: str) -> None:
    """``--serve MODE``: the stdio server of one mode."""
    server = build()
    telemetry = telemetry_for(mode)
    if telemetry is not None:
        server.request_hook = telemetry.serve
    server.run()


async def timed(
    calls: dict[str, Callable[[], Awaitable[Any]]], repeats: int, batch: int
) -> dict[str, tuple[float, float]]:
    names = list(calls)
    for call in calls.values():
        for _ in range(100):
            await call()
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            call = calls[name]
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(batch):
                await call()
            wall[name].append((time.perf_counter() - t0) / batch * 1e6)
            cpu[name].append((time.process_time() - c0) / batch * 1e6)
    return {n: (statistics.median(wall[n]), statistics.median(cpu[n])) for n in names}


async def in_memory(era: str, repeats: int, batch: int) -> dict[str, tuple[float, float]]:
    """One server and one connection; each batch sets the hooks of its mode on both sides."""
    server = build()
    hooks = {mode: telemetry_for(mode) for mode in MODES}
    async with server.running(), Client(server, mode=era) as client:

        def call_in(mode: str) -> Callable[[], Awaitable[Any]]:
            telemetry = hooks[mode]

            async def call() -> None:
                server.request_hook = telemetry.serve if telemetry else None
                client.request_hook = telemetry.send if telemetry else None
                result = await client.call_tool("add", ARGS)
                assert result.structured_content == {"result": 5}

            return call

        return await timed({mode: call_in(mode) for mode in MODES}, repeats, batch)


async def stdio(era: str, repeats: int, batch: int) -> dict[str, tuple[float, float]]:
    """A child per mode, its server instrumented like this process's client."""
    clients: dict[str, Client] = {}
    try:
        for mode in MODES:
            client = Client([sys.executable, __file__, "--serve", mode], mode=era)
            await client.connect()
            clients[mode] = client
            telemetry = telemetry_for(mode)
            if telemetry is not None:
                client.request_hook = telemetry.send
        return await timed({m: _call(c) for m, c in clients.items()}, repeats, batch)
    finally:
        for client in clients.values():
            await client.aclose()


def _call(client: Client) -> Callable[[], Awaitable[Any]]:
    async def call() -> None:
        result = await client.call_tool("add", ARGS)
        assert result.structured_content == {"result": 5}

    return call


def table(title: str, rows: dict[str, tuple[float, float]], cpu_label: str) -> str:
    base_wall, base_cpu = rows["off"]
    lines = [
        f"### {title}",
        "",
        f"| mode | wall {MU}s/call | {X} off | {cpu_label} {MU}s/call | {X} off |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, (w, c) in rows.items():
        lines.append(
            f"| `{name}` | {w:.0f} | {w / base_wall:.2f}{X} | {c:.0f} | {c / base_cpu:.2f}{X} |"
        )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    options = parser.parse_args()
    repeats, batch = (5, 100) if options.quick else (15, 200)
    print(f"# OpenTelemetry overhead ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n")
    for era in ("2026-07-28", "legacy"):
        rows = await in_memory(era, repeats, batch)
        print(table(f"in memory, {era}", rows, "CPU (both sides)"), "\n")
        rows = await stdio(era, repeats, batch)
        print(table(f"stdio, {era}", rows, "client CPU"), "\n")


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve_child(sys.argv[sys.argv.index("--serve") + 1])
    else:
        asyncio.run(main())
