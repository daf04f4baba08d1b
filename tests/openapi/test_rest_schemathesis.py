"""Schemathesis, with its default checks, against ``mcpkit rest`` in front of a third-party MCP
server — the official ``@modelcontextprotocol/server-everything`` over stdio (installed by
``scripts/install-peers``) — finds nothing attributable to mcpkit.

The facade is served by uvicorn on loopback; ``st run`` reads its ``/openapi.json`` and runs
the examples and coverage phases with one example per operation (bounded: well under a minute
on an idle machine). What the *server* does wrong passes through as it should and is not
mcpkit's: a JSON-RPC error it answers to input it cannot handle (a 502 whose detail quotes it)
and a tool reporting ``isError`` (422 "Tool Error", e.g. ``gzip-file-as-resource`` cannot fetch
without a network). Any other failure fails this test. ``trigger-long-running-operation`` is
left out: it runs for its ``duration`` seconds by design.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Final

import pytest

from _loopback import serving
from _peers import PEERS_ROOT
from mcpkit.contrib.openapi import rest_app

EVERYTHING: Final = (
    PEERS_ROOT
    / "server-everything"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)
ST: Final = Path(sys.executable).with_name("st")
RUN_TIMEOUT: Final = 170.0
SECTION: Final = re.compile(r"^_{3,} (?P<operation>.+?) _{3,}$")
CHECK: Final = re.compile(r"^- (?P<code>ST\d+) ")
STATUS: Final = re.compile(r"^\[(?P<status>\d{3})\]")

pytestmark = pytest.mark.timeout(200)


def failures(report: str) -> list[tuple[str, str, int, str]]:
    """(operation, check code, status, the answer's first line) per failure in ``st``'s report."""
    found: list[tuple[str, str, int, str]] = []
    operation, code, status = "", "", 0
    lines = report.splitlines()
    for index, line in enumerate(lines):
        if match := SECTION.match(line):
            operation = match["operation"]
        elif match := CHECK.match(line):
            code = match["code"]
        elif (match := STATUS.match(line)) and code:
            status = int(match["status"])
            body = next((n.strip() for n in lines[index + 1 : index + 4] if n.strip()), "")
            found.append((operation, code, status, body))
            code = ""
    return found


def the_servers(status: int, body: str) -> bool:
    """What the third-party server did, passed through faithfully by the facade."""
    if status == 502 and '"detail": "the MCP server answered:' in body:
        return True  # the server's own JSON-RPC error for input it could not handle
    return status == 422 and '"title": "Tool Error"' in body  # the tool reported isError


async def test_schemathesis_finds_nothing_attributable_to_mcpkit(tmp_path: Path) -> None:
    if not EVERYTHING.is_file():  # a missing peer is a failure, never a skip
        pytest.fail(f"{EVERYTHING} is missing: run scripts/install-peers")
    # the server's own error texts shown (masked by default), so a 502 can be attributed to it
    app = rest_app(f"node {EVERYTHING} stdio", timeout=10, mask_errors=False)
    async with app, serving(app, lifespan="off") as url:
        process = await asyncio.create_subprocess_exec(
            str(ST),
            "run",
            f"{url}/openapi.json",
            "--phases",
            "examples,coverage",
            "--max-examples",
            "1",
            "--seed",
            "1",
            "--workers",
            "2",
            "--no-color",
            "--exclude-path",
            "/tools/trigger-long-running-operation",
            cwd=tmp_path,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        try:
            async with asyncio.timeout(RUN_TIMEOUT):
                out, _ = await process.communicate()
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    report = out.decode()
    assert "API Operations:" in report, report[-3000:]  # it ran to its summary
    assert re.search(r"Tested: (\d+)", report) and "Tested: 0" not in report, report[-3000:]
    found = failures(report)
    mcpkit = [f for f in found if not the_servers(f[2], f[3])]
    assert not mcpkit, "\n".join(map(str, mcpkit)) + "\n" + report[-6000:]
    assert "Errors:" not in report.split("SUMMARY")[-1], report[-4000:]  # no run errors either
