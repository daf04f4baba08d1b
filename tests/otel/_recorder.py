"""Providers with in-memory exporters, and lookups over what they recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind


class Recorder:
    """``tracer_provider`` / ``meter_provider`` for ``instrument``; ``spans`` / ``points`` after."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    @property
    def providers(self) -> dict[str, Any]:
        return {"tracer_provider": self.tracer_provider, "meter_provider": self.meter_provider}

    def spans(self, name: str | None = None, kind: SpanKind | None = None) -> list[ReadableSpan]:
        return [
            span
            for span in self.exporter.get_finished_spans()
            if (name is None or span.name == name) and (kind is None or span.kind == kind)
        ]

    def one(self, name: str, kind: SpanKind) -> ReadableSpan:
        found = self.spans(name, kind)
        assert len(found) == 1, f"{len(found)} {kind.name} spans named {name!r}: {self.names()}"
        return found[0]

    def names(self) -> list[tuple[str, str]]:
        return [(s.name, s.kind.name) for s in self.exporter.get_finished_spans()]

    def points(self, metric: str) -> list[tuple[dict[str, Any], Any]]:
        """``(attributes, point)`` of every data point of ``metric`` collected now."""
        data = self.reader.get_metrics_data()
        found: list[tuple[dict[str, Any], Any]] = []
        if data is None:
            return found
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for item in scope.metrics:
                    if item.name == metric:
                        found += [(dict(p.attributes or {}), p) for p in item.data.data_points]
        return found


def read_spans(path: Path) -> list[dict[str, Any]]:
    """The spans a peer process wrote (``peers/traced_server.py``), one JSON object a line."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
