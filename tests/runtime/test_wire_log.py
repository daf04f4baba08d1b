"""MCPKIT_WIRE_LOG: a process given the variable appends every message it sends to a file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgspec

CHILD = """
import asyncio
from mcpkit.server import Server
from mcpkit.testing import connect

server = Server("logged")

@server.tool
def add(a: int, b: int) -> int:
    return a + b

async def main() -> None:
    async with connect(server, mode="legacy") as client:
        await client.call_tool("add", {"a": 1, "b": 2})

asyncio.run(main())
"""


def test_a_process_logs_what_it_sends(tmp_path: Path) -> None:
    env = {**os.environ, "MCPKIT_WIRE_LOG": str(tmp_path / "wire")}
    subprocess.run([sys.executable, "-c", CHILD], env=env, check=True, timeout=60)
    (log,) = tmp_path.glob("wire.*")
    entries = [msgspec.json.decode(line) for line in log.read_bytes().splitlines()]
    methods = [(e["method"], "id" in e["message"] and "method" in e["message"]) for e in entries]
    assert ("initialize", True) in methods  # the client's request
    assert ("tools/call", True) in methods
    answer = next(e for e in entries if e["method"] == "tools/call" and "result" in e["message"])
    assert answer["version"] == "2025-11-25"
    assert answer["message"]["result"]["structuredContent"] == {"result": 3}


def test_without_the_variable_nothing_is_written(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "MCPKIT_WIRE_LOG"}
    subprocess.run([sys.executable, "-c", CHILD], env=env, check=True, timeout=60, cwd=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_the_sans_io_core_does_not_read_the_environment() -> None:
    code = (
        "import os, sys; os.environ['MCPKIT_WIRE_LOG'] = sys.argv[1]\n"
        "import mcpkit.protocol, mcpkit.protocol._observe as o\n"
        "print(len(o._observers))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "/nonexistent/wire"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert out.strip() == "0"
