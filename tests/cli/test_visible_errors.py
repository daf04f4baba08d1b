"""A tool's unexpected exception is visible wherever the server runs under the command.

The traceback is printed on the server's stderr by default (``mcpkit run`` logs warnings and
errors), the client commands show the server's stderr, ``-v`` reaches the server, and the model
still gets an ``isError`` result. Every case runs the real command and a real server process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ._run import FIXTURES, mcpkit

FAILING = str(FIXTURES / "failing_server.py")


def _assert_traceback_shown(err: str) -> None:
    assert "Traceback (most recent call last):" in err, err
    assert "in _lookup" in err, err  # the user's own frame
    assert "KeyError: 'missing'" in err, err


def test_call_shows_the_tools_traceback_and_the_error_result() -> None:
    ran = mcpkit("call", FAILING, "explode")
    assert ran.code == 1, ran
    _assert_traceback_shown(ran.err)
    assert "Error executing tool explode: 'missing'" in ran.err  # the isError result's text
    assert "an info detail" not in ran.err  # info is for -v
    assert ran.out == ""


def test_the_model_still_gets_an_is_error_result() -> None:
    ran = mcpkit("call", FAILING, "explode", "--output-json")
    assert ran.code == 1, ran
    result = json.loads(ran.out)
    assert result["isError"] is True
    assert result["content"][0]["text"] == "Error executing tool explode: 'missing'"
    _assert_traceback_shown(ran.err)


def test_verbose_reaches_the_server() -> None:
    ran = mcpkit("-v", "call", FAILING, "explode")
    assert ran.code == 1, ran
    assert "looking up missing (an info detail)" in ran.err
    _assert_traceback_shown(ran.err)
    assert ran.err.count("KeyError: 'missing'") == 1  # each line once, not again through -v


def test_list_shows_what_the_server_writes_to_stderr(tmp_path: Path) -> None:
    noisy = tmp_path / "noisy.py"
    noisy.write_text(
        "import sys\n"
        "from mcpkit.server import Server\n"
        "server = Server('noisy')\n"
        "sys.stderr.write('noisy: loaded 3 plugins\\n')\n"
    )
    ran = mcpkit("list", str(noisy))
    assert ran.code == 0, ran
    assert "noisy: loaded 3 plugins" in ran.err


def test_an_install_entry_shows_the_traceback(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    installed = mcpkit("install", "mcp-json", FAILING, "--config", str(config))
    assert installed.code == 0, installed
    (name,) = json.loads(config.read_text())["mcpServers"]
    ran = mcpkit("call", f"{config}:{name}", "explode")
    assert ran.code == 1, ran
    _assert_traceback_shown(ran.err)


def test_a_host_config_shows_the_traceback_under_the_servers_name(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "flaky": {
                        "command": sys.executable,
                        "args": ["-m", "mcpkit.cli", "run", FAILING],
                    }
                }
            }
        )
    )
    ran = mcpkit("host", str(config), "explode")
    assert ran.code == 1, ran
    assert "flaky: Traceback (most recent call last):" in ran.err, ran
    assert "flaky: KeyError: 'missing'" in ran.err
    assert "Error executing tool explode: 'missing'" in ran.err


def test_a_plain_server_run_shows_the_traceback_too(tmp_path: Path) -> None:
    """``python server.py`` (``server.run()``, no logging set up) prints it as Python would."""
    script = tmp_path / "plain.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(FIXTURES)!r})\n"
        "from failing_server import server\n"
        "server.run()\n"
    )
    ran = mcpkit("call", f"{sys.executable} {script}", "explode")
    assert ran.code == 1, ran
    _assert_traceback_shown(ran.err)
    verbose = mcpkit("-v", "call", f"{sys.executable} {script}", "explode")
    assert "looking up missing (an info detail)" in verbose.err, verbose


def test_an_answer_that_cannot_be_encoded_is_an_internal_error_not_a_timeout() -> None:
    ran = mcpkit("call", FAILING, "unencodable_error", "--timeout", "60")
    assert ran.code == 4, ran
    assert "the server answered with error -32603" in ran.err
    assert "could not be encoded" in ran.err
    assert "did not answer in time" not in ran.err


def test_a_file_target_sees_the_callers_environment() -> None:
    """The examples' docs say ``MCPKIT_DOCS_DIR=… mcpkit call docs_server.py …`` configures the
    server: a file or module target is the person's own code and gets their environment."""
    ran = mcpkit("call", FAILING, "setting", "name=MY_SERVER_SETTING",
                 env={"MY_SERVER_SETTING": "from-the-shell"})  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "from-the-shell"


def test_a_module_target_sees_it_too() -> None:
    ran = mcpkit("call", "failing_server", "setting", "name=MY_SERVER_SETTING",
                 env={"MY_SERVER_SETTING": "module-too"}, cwd=FIXTURES)  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "module-too"


def test_a_command_target_gets_only_what_env_passes_and_is_told_so() -> None:
    script = (
        "import os, sys; sys.stderr.write('need MY_TOKEN\\n' if 'MY_TOKEN' not in os.environ "
        "else ''); sys.exit(3)"
    )
    ran = mcpkit("list", f'{sys.executable} -c "{script}"', env={"MY_TOKEN": "secret"})
    assert ran.code == 3, ran
    assert "need MY_TOKEN" in ran.err  # the token did not leak into a third-party command
    assert "-e KEY=VALUE" in ran.err  # and the hint says how to pass it
