"""OpenTelemetry SDK in-memory exporters for the tracing tests, and the hooks removed after."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mcpkit.contrib.otel import uninstrument

from ._recorder import Recorder


@pytest.fixture
def otel() -> Iterator[Recorder]:
    recorder = Recorder()
    try:
        yield recorder
    finally:
        uninstrument()  # class-level hooks a test set must not leak into the next test
