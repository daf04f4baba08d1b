"""The MCP conformance suite's client under test, built on ``mcpkit.client.Client``.

The suite runs ``python tests/conformance/client.py <URL>`` with ``MCP_CONFORMANCE_SCENARIO``,
``MCP_CONFORMANCE_PROTOCOL_VERSION`` and (for some scenarios) ``MCP_CONFORMANCE_CONTEXT`` set,
against a mock server that records and judges what the client sends (see
``docs/notes/conformance.md`` §7 to §9). This script connects in the era the revision names, runs
the scenario's steps (``_client_scenarios``) and exits:

* 0 — the scenario's steps all succeeded;
* 1 — the scenario failed: a request was refused, an answer was not what the scenario serves,
  the OAuth flow refused to continue (which several ``auth/*`` scenarios expect), or the run
  exceeded its time budget; the reason is the last line on stderr;
* 2 — the launch itself was wrong (no URL, no or unknown scenario, bad context JSON).

Run by hand:
``MCP_CONFORMANCE_SCENARIO=tools_call MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28
.venv/bin/python tests/conformance/client.py http://localhost:3000/mcp``
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _client_launch import Launch, LaunchError, parse_launch
from _client_scenarios import Scenario, find_scenario

from mcpkit.client import Client

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
SCENARIO_BUDGET_S: Final = 25.0
"""The whole run; the suite kills the client at 30 s, and a failure we report ourselves says
more than a kill."""
REQUEST_TIMEOUT_S: Final = 20.0
CLIENT_INFO: Final = {"name": "mcpkit-conformance-client", "version": "0.1.0"}

logger = logging.getLogger("mcpkit.conformance.client")


def _target(launch: Launch) -> Any:
    if not launch.scenario.startswith("auth/"):
        return launch.url
    from _client_auth import authorized_target

    return authorized_target(launch.url, launch.scenario, launch.context)


def build_client(launch: Launch, scenario: Scenario) -> Client:
    """The client for one scenario: the era the revision names, elicitation only if asked."""
    from _client_scenarios import accept_elicitation

    return Client(
        _target(launch),
        mode="legacy" if not launch.modern else "2026-07-28",
        client_info=CLIENT_INFO,
        elicitation_handler=accept_elicitation if scenario.answers_elicitation else None,
        timeout=REQUEST_TIMEOUT_S,
    )


async def run(launch: Launch, scenario: Scenario) -> None:
    async with asyncio.timeout(SCENARIO_BUDGET_S):
        async with build_client(launch, scenario) as client:
            await scenario.steps(client, launch)


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Parse the launch, run the scenario, and return the exit code (see the module docstring)."""
    logging.basicConfig(
        level=logging.INFO,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        launch = parse_launch(
            sys.argv[1:] if argv is None else argv, os.environ if env is None else env
        )
    except LaunchError as exc:
        print(f"client.py: {exc}", file=sys.stderr)
        return EXIT_USAGE
    scenario = find_scenario(launch.scenario)
    if scenario is None:
        print(f"client.py: unknown scenario {launch.scenario!r}", file=sys.stderr)
        return EXIT_USAGE
    if launch.scenario.startswith("auth/"):
        from _client_auth import unsupported_reason

        reason = unsupported_reason(launch.scenario)
        if reason is not None:
            print(f"client.py: {reason}", file=sys.stderr)
            return EXIT_FAILED
    logger.info(
        "scenario %s at %s against %s", launch.scenario, launch.protocol_version, launch.url
    )
    try:
        asyncio.run(run(launch, scenario))
    except TimeoutError:
        print(
            f"client.py: {launch.scenario}: not done within {SCENARIO_BUDGET_S:g} s",
            file=sys.stderr,
        )
        return EXIT_FAILED
    except Exception as exc:  # any failure is the scenario's outcome, reported on one line
        logger.info("scenario failed", exc_info=True)
        print(f"client.py: {launch.scenario}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_FAILED
    logger.info("scenario %s done", launch.scenario)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
