"""``scripts/demo`` does what the README says: both servers' tools, then 跑步鞋 through the host,
and the HTTP server it started is gone afterwards."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import pytest

from ._servers import ROOT

DEMO_TIMEOUT = 240.0
"""Seconds for the whole demo (it runs scripts/bootstrap first, which is quick when current)."""


def test_demo_shows_both_servers_and_the_search() -> None:
    done = subprocess.run(
        [str(ROOT / "scripts" / "demo")],
        cwd=ROOT, capture_output=True, text=True, timeout=DEMO_TIMEOUT, check=False,
        env={k: v for k, v in os.environ.items() if not k.startswith("MCPKIT_")},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    port = re.search(r"--http --port (\d+)", out)
    assert port, out
    status = {line.split()[0]: line.split()[1:4] for line in out.splitlines()
              if line.startswith(("shop ", "docs "))}  # fmt: skip
    assert status == {"shop": ["ready", "modern", "2026-07-28"],
                      "docs": ["ready", "modern", "2026-07-28"]}  # fmt: skip
    table = out.split("\ntools (", 1)[1].split("\n\n", 1)[0].splitlines()[3:]
    servers = {row.split()[0]: row.split()[1] for row in table}
    assert servers == {"search_products": "shop", "get_product": "shop", "place_order": "shop",
                       "search_docs": "docs"}  # fmt: skip
    assert "file:///docs/api-guide.md" in out
    result = out.split("search_products (shop):\n", 1)[1]
    assert '"name": "Nike Air Max"' in result and '"price": 899.0' in result
    with socket.socket() as sock:  # binding succeeds only if the demo's server is gone
        sock.bind(("127.0.0.1", int(port.group(1))))


@pytest.mark.install  # a fresh venv with the [cli] extra: left out of the inner loop
@pytest.mark.timeout(2 * DEMO_TIMEOUT)
def test_the_first_demo_installs_only_what_it_needs(tmp_path: Path) -> None:
    """Without a development venv the demo makes its own with mcpkit[cli] alone: no test tools,
    no LangChain, not the 600 MB of the whole ``dev`` set."""
    venv = tmp_path / "demo-venv"
    done = subprocess.run(
        [str(ROOT / "scripts" / "demo")],
        cwd=ROOT, capture_output=True, text=True, timeout=2 * DEMO_TIMEOUT, check=False,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("MCPKIT_")},
             "DEMO_VENV": str(venv)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installed mcpkit[cli] into" in done.stdout + done.stderr
    assert '"name": "Nike Air Max"' in done.stdout
    listed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "list", "--format=freeze"],
        capture_output=True, text=True, timeout=DEMO_TIMEOUT, check=True,
    ).stdout.lower()  # fmt: skip
    names = {line.split("==")[0] for line in listed.splitlines()}
    assert {"mcpkit", "httpx", "uvicorn"} <= names
    assert not names & {"pytest", "langgraph", "langchain-core", "mypy", "playwright", "redis"}
