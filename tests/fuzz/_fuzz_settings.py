"""Hypothesis settings for the fuzz tests: bounded for CI, larger on demand.

``FUZZ`` runs ``MCPKIT_FUZZ_EXAMPLES`` examples per test (default 200) with a per-example
deadline, derandomized in CI (``CI`` set) so a red run reproduces exactly; locally each run
explores new inputs. ``FUZZ_SLOW`` is for the ASGI app (each example is a real request).
Raise the counts for a longer local session, e.g. ``MCPKIT_FUZZ_EXAMPLES=20000 pytest tests/fuzz``.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Final

from hypothesis import HealthCheck, settings

__all__ = ["EXAMPLES", "FUZZ", "FUZZ_SLOW", "SLOW_EXAMPLES"]

EXAMPLES: Final = int(os.environ.get("MCPKIT_FUZZ_EXAMPLES", "200"))
SLOW_EXAMPLES: Final = int(os.environ.get("MCPKIT_FUZZ_SLOW_EXAMPLES", "200"))
_CI: Final = bool(os.environ.get("CI"))

FUZZ: Final = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=2),
    derandomize=_CI,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
FUZZ_SLOW: Final = settings(
    FUZZ,
    max_examples=SLOW_EXAMPLES,
    deadline=timedelta(seconds=10),
)
