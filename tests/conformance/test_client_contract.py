"""The conformance client honours the suite's launch contract (fast; no suite, no network).

The suite appends the server URL as the last argument and names the scenario, the revision
and (sometimes) a JSON context in the environment. These tests pin how ``client.py`` reads
them, which exit code each launch mistake gets, that every required client scenario of both
revisions has steps, and the headless answers it gives to elicitation.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _client_launch import (
    CONTEXT_ENV,
    SCENARIO_ENV,
    VERSION_ENV,
    LaunchError,
    parse_launch,
)
from _client_scenarios import (
    AUTH_SCENARIO,
    SCENARIOS,
    accept_elicitation,
    find_scenario,
    sample_arguments,
)

from mcpkit.client import QuestionContext, form_defaults
from mcpkit.types._tools import Tool

HERE: Final = Path(__file__).resolve().parent
URL: Final = "http://localhost:3000/mcp"
SUBPROCESS_TIMEOUT_S: Final = 30.0


def _load_script() -> Any:
    """``client.py`` by path: the name ``client`` is taken by the ``tests/client`` package."""
    spec = importlib.util.spec_from_file_location("conformance_client_script", HERE / "client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conformance_client = _load_script()

# `conformance list --requirements REV` of @modelcontextprotocol/conformance 0.2.0-alpha.12.
REQUIRED_2025: Final = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
)
REQUIRED_2026_ONLY: Final = (
    "request-metadata",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/authorization-server-migration",
    "auth/iss-supported",
    "auth/iss-not-advertised",
    "auth/iss-supported-missing",
    "auth/iss-wrong-issuer",
    "auth/iss-unexpected",
    "auth/iss-normalized",
    "auth/metadata-issuer-mismatch",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
)


def env(**values: str) -> dict[str, str]:
    names = {"scenario": SCENARIO_ENV, "version": VERSION_ENV, "context": CONTEXT_ENV}
    return {names[key]: value for key, value in values.items()}


# -- parsing -----------------------------------------------------------------------------------


def test_url_is_the_last_argument() -> None:
    launch = parse_launch(["--verbose", URL], env(scenario="tools_call", version="2026-07-28"))
    assert launch.url == URL
    assert launch.scenario == "tools_call"
    assert launch.protocol_version == "2026-07-28"
    assert launch.modern
    assert launch.context == {}


def test_legacy_revision_means_the_handshake() -> None:
    launch = parse_launch([URL], env(scenario="initialize", version="2025-11-25"))
    assert not launch.modern


def test_revision_defaults_to_2025_11_25_like_the_suite() -> None:
    assert parse_launch([URL], env(scenario="initialize")).protocol_version == "2025-11-25"


def test_context_is_parsed() -> None:
    launch = parse_launch(
        [URL],
        env(scenario="auth/pre-registration", context='{"client_id": "c", "client_secret": "s"}'),
    )
    assert launch.context == {"client_id": "c", "client_secret": "s"}


@pytest.mark.parametrize(
    ("argv", "environment", "fragment"),
    [
        ([], env(scenario="tools_call"), "usage"),
        (["localhost:3000"], env(scenario="tools_call"), "http(s) URL"),
        ([URL], {}, SCENARIO_ENV),
        ([URL], env(scenario="  "), SCENARIO_ENV),
        ([URL], env(scenario="tools_call", version="2099-01-01"), "2099-01-01"),
        ([URL], env(scenario="tools_call", context="{not json"), "not valid JSON"),
        ([URL], env(scenario="tools_call", context="[1, 2]"), "JSON object"),
    ],
)
def test_launch_mistakes_name_the_input(
    argv: list[str], environment: dict[str, str], fragment: str
) -> None:
    with pytest.raises(LaunchError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        parse_launch(argv, environment)


# -- scenarios ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(set(REQUIRED_2025 + REQUIRED_2026_ONLY)))
def test_every_required_scenario_has_steps(name: str) -> None:
    scenario = find_scenario(name)
    assert scenario is not None
    assert (scenario is AUTH_SCENARIO) == name.startswith("auth/")


def test_only_elicitation_scenarios_declare_elicitation() -> None:
    answering = {name for name, scenario in SCENARIOS.items() if scenario.answers_elicitation}
    assert answering == {"elicitation-sep1034-client-defaults", "sep-2322-client-request-state"}


def test_unknown_scenario_is_not_guessed() -> None:
    assert find_scenario("no-such-scenario") is None


def test_auth_scenarios_get_the_scenario_name_in_their_oauth_context() -> None:
    # The suite adds "name" only where it sends a context; the grant depends on the name.
    from _client_auth import authorized_target

    target = authorized_target(
        URL, "auth/client-credentials-basic", {"client_id": "c", "client_secret": "s"}
    )
    assert getattr(target.auth, "grant", None) == "client_credentials"
    default = authorized_target(URL, "auth/metadata-default", {})
    assert getattr(default.auth, "grant", None) == "authorization_code"


# -- headless answers --------------------------------------------------------------------------


class _Params:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.requested_schema = schema


def _ctx(schema: dict[str, Any]) -> QuestionContext:
    return QuestionContext(
        era="modern",
        protocol_version="2026-07-28",
        server_name="mock",
        method="elicitation/create",
        defaults=form_defaults(schema),
    )


async def test_elicitation_leaves_defaults_to_the_library_and_agrees_to_the_rest() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "confirmed": {"type": "boolean"},
            "status": {"type": "string", "enum": ["active", "inactive"]},
            "count": {"type": "integer"},
        },
    }
    answer = await accept_elicitation(_Params(schema), _ctx(schema))
    assert answer == {
        "action": "accept",
        "content": {"confirmed": True, "status": "active", "count": 1},
    }


def test_sample_arguments_fill_required_parameters_by_type() -> None:
    tool = Tool(
        name="t",
        input_schema={
            "type": "object",
            "properties": {"region": {"type": "string"}, "n": {"type": "integer"}, "x": {}},
            "required": ["region", "n"],
        },
    )
    assert sample_arguments(tool) == {"region": "us-west1", "n": 1}


# -- exit codes (real process: the suite runs the script, not the function) -------------------


def _run(argv: list[str], environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("MCP_CONFORMANCE_")}
    return subprocess.run(
        [sys.executable, str(HERE / "client.py"), *argv],
        env={**base, **environment},
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_S,
        check=False,
    )


def test_script_without_url_exits_2_with_usage() -> None:
    done = _run([], env(scenario="tools_call"))
    assert done.returncode == conformance_client.EXIT_USAGE
    assert "usage" in done.stderr


def test_script_with_unknown_scenario_exits_2() -> None:
    done = _run([URL], env(scenario="no-such-scenario", version="2026-07-28"))
    assert done.returncode == conformance_client.EXIT_USAGE
    assert "unknown scenario 'no-such-scenario'" in done.stderr


def test_unsupported_auth_extension_fails_with_the_reason() -> None:
    code = conformance_client.main([URL], env(scenario="auth/dpop", version="2026-07-28"))
    assert code == conformance_client.EXIT_FAILED


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_unreachable_server_is_a_scenario_failure_not_a_hang(version: str) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/mcp"
    done = _run([url], env(scenario="tools_call", version=version))
    assert done.returncode == conformance_client.EXIT_FAILED, done.stderr
    assert "client.py: tools_call: ConnectionBroken" in done.stderr.splitlines()[-1]
