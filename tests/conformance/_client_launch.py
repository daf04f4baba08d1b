"""The conformance suite's launch contract for a client, parsed and checked in one place.

The suite runs ``<command> <URL>`` (the URL is always the last argument) with
``MCP_CONFORMANCE_SCENARIO``, ``MCP_CONFORMANCE_PROTOCOL_VERSION`` and, for scenarios that
provide one, ``MCP_CONFORMANCE_CONTEXT`` (a JSON object). Anything malformed here is the
harness's or the operator's mistake, so it becomes a :class:`LaunchError` whose message says
which input is wrong and what was expected; ``client.py`` turns it into exit code 2, distinct
from a scenario that ran and failed (exit 1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from mcpkit.types._versions import ALL_VERSIONS, LATEST_LEGACY_VERSION, era_of

__all__ = [
    "CONTEXT_ENV",
    "SCENARIO_ENV",
    "VERSION_ENV",
    "Launch",
    "LaunchError",
    "parse_launch",
]

SCENARIO_ENV: Final = "MCP_CONFORMANCE_SCENARIO"
VERSION_ENV: Final = "MCP_CONFORMANCE_PROTOCOL_VERSION"
CONTEXT_ENV: Final = "MCP_CONFORMANCE_CONTEXT"
DEFAULT_VERSION: Final = LATEST_LEGACY_VERSION
"""The suite's own default when a scenario is run without ``--spec-version`` (it always sets
the variable; the default only matters when the client is started by hand)."""


class LaunchError(Exception):
    """The command line or environment does not follow the suite's launch contract."""


@dataclass(frozen=True, slots=True)
class Launch:
    """One run of the client: which server, which scenario, at which revision."""

    url: str
    scenario: str
    protocol_version: str
    context: Mapping[str, Any] = field(default_factory=dict)

    @property
    def modern(self) -> bool:
        """True for the stateless 2026-07-28 wire, False for the ``initialize`` handshake.
        The suite says which era to speak, so the client never probes for it."""
        return era_of(self.protocol_version) == "modern"


def parse_launch(argv: Sequence[str], env: Mapping[str, str]) -> Launch:
    """Read the launch contract from ``argv`` (without the program name) and ``env``."""
    if not argv:
        raise LaunchError("usage: client.py <server URL> (the conformance suite appends it)")
    url = argv[-1]
    if not url.startswith(("http://", "https://")):
        raise LaunchError(f"the last argument must be the server's http(s) URL, got {url!r}")
    scenario = env.get(SCENARIO_ENV, "").strip()
    if not scenario:
        raise LaunchError(f"{SCENARIO_ENV} is not set: the suite names the scenario to run there")
    version = env.get(VERSION_ENV, "").strip() or DEFAULT_VERSION
    if version not in ALL_VERSIONS:
        raise LaunchError(
            f"{VERSION_ENV}={version!r} is not a protocol revision this client speaks "
            f"({', '.join(ALL_VERSIONS)})"
        )
    return Launch(url, scenario, version, _context(env.get(CONTEXT_ENV)))


def _context(raw: str | None) -> Mapping[str, Any]:
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise LaunchError(f"{CONTEXT_ENV} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise LaunchError(f"{CONTEXT_ENV} must be a JSON object, got {type(value).__name__}")
    return value
