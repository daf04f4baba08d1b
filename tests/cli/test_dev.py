"""``mcpkit dev``: the MCP Inspector through npx, or a clear message when Node.js is missing."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from ._run import ROOT, mcpkit


def _fake_program(folder: Path, name: str, output: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {output}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_print_shows_the_inspector_command_for_a_file() -> None:
    ran = mcpkit("dev", "examples/shop_server.py", "-e", "A=1", "--official", "--print")
    assert ran.code == 0, ran
    shop = ROOT / "examples" / "shop_server.py"
    assert ran.out.strip() == (
        "npx -y @modelcontextprotocol/inspector -e A=1 -- "
        f"{sys.executable} -m mcpkit.cli run {shop}"
    )


def test_print_shows_the_inspector_command_for_a_url() -> None:
    ran = mcpkit("dev", "http://127.0.0.1:8001/mcp", "--official", "--print")
    assert ran.code == 0, ran
    assert ran.out.strip() == (
        "npx -y @modelcontextprotocol/inspector --transport http "
        "--server-url http://127.0.0.1:8001/mcp"
    )


def test_without_node_it_says_what_to_do(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    ran = mcpkit("dev", "examples/shop_server.py", "--official", env={"PATH": str(empty)})
    assert ran.code == 2, ran
    assert "node/npx are not on PATH" in ran.err
    assert "mcpkit inspect TARGET" in ran.err


def test_an_old_node_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    _fake_program(folder, "node", "v20.11.0")
    _fake_program(folder, "npx", "should-not-run")
    ran = mcpkit("dev", "examples/shop_server.py", "--official",
                 env={"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"})  # fmt: skip
    assert ran.code == 2, ran
    assert "needs Node.js 22 or newer; this node is v20" in ran.err
    assert "should-not-run" not in ran.out


def test_print_carries_headers_bearer_and_era_to_the_official_inspector() -> None:
    """Issue #32: ``--official`` used to drop ``--bearer``, ``--header`` and ``--mode``."""
    ran = mcpkit("dev", "http://127.0.0.1:8001/mcp", "--official", "--print",
                 "--header", "X-Team: blue", "--bearer", "tok", "--mode", "2026-07-28")  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == (
        "npx -y @modelcontextprotocol/inspector --protocol-era modern --transport http "
        "--server-url http://127.0.0.1:8001/mcp --header 'X-Team: blue' "
        "--header 'Authorization: Bearer tok'"
    )
    ran = mcpkit("dev", "examples/shop_server.py", "--official", "--print", "--mode", "legacy")
    assert ran.code == 0, ran
    assert ran.out.startswith("npx -y @modelcontextprotocol/inspector --protocol-era legacy -- ")


def test_help_names_the_node_version() -> None:
    """Issue #32: ``--help`` printed the literal ``:data:`MIN_NODE_MAJOR```."""
    ran = mcpkit("dev", "--help")
    assert ran.code == 0, ran
    assert "MIN_NODE_MAJOR" not in ran.out
    assert "Node.js 22 or newer" in " ".join(ran.out.split())
