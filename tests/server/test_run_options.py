"""``server.run()`` refuses options its transport has no use for, before serving anything."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Final

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server import Server

RUN_TIMEOUT: Final = 60.0


def test_run_with_a_port_but_no_transport_refuses_instead_of_serving_stdio(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(
        textwrap.dedent(
            """
            from mcpkit.server import Server

            server = Server("hello")
            server.run(port=8000)
            """
        ),
        encoding="utf-8",
    )
    # A stdio server would read this stdin and answer; the refusal comes before any serving.
    request = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'
    done = subprocess.run(
        [sys.executable, str(script)],
        input=request,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode != 0
    assert done.stdout == ""
    assert "server.run() serves stdio, which takes no options, but got port=8000" in done.stderr
    assert 'server.run("http", port=8000)' in done.stderr


def test_a_misspelt_http_option_lists_the_ones_run_takes() -> None:
    server = Server("hello")
    with pytest.raises(UsageError) as caught:
        server.run("http", prot=8000)
    message = str(caught.value)
    assert "unknown HTTP option(s) prot" in message
    for option in ("host", "port", "log_level", "uvicorn_options", "allowed_hosts", "path"):
        assert option in message.split("choose from ", 1)[1].split(", ")


def test_http_app_lists_only_the_app_options() -> None:
    with pytest.raises(UsageError) as caught:
        Server("hello").http_app(port=8000)
    choices = str(caught.value).split("choose from ", 1)[1].split(", ")
    assert "port" not in choices and "allowed_hosts" in choices


def test_an_unknown_transport_is_refused() -> None:
    with pytest.raises(UsageError, match="unknown transport 'sse'; use 'stdio' or 'http'"):
        Server("hello").run("sse")  # type: ignore[arg-type]
