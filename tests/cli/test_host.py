"""``mcpkit host``: every server of a config file, one catalogue, calls routed through it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ._run import ROOT, mcpkit

EXAMPLE_CONFIG = "examples/host/mcp.json"


def _entry(script: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(ROOT / "examples" / script)]}


def test_the_example_host_lists_every_server_and_routes_a_call(tmp_path: Path) -> None:
    ran = mcpkit(
        "host", EXAMPLE_CONFIG, "search_products", "query=跑步鞋", "limit=1",
        "--input", f"data-dir={tmp_path}", "--server", "shop", "--server", "database",
        env={"MCPKIT_PYTHON": sys.executable},
    )  # fmt: skip
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    status = {line.split()[0]: line.split()[1:4] for line in lines[2:4]}
    assert status == {"shop": ["ready", "modern", "2026-07-28"],
                      "database": ["ready", "modern", "2026-07-28"]}  # fmt: skip
    table = ran.out.split("\ntools (5)\n", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    tools = {row.split()[0]: row.split()[1] for row in table}
    assert tools == {"search_products": "shop", "get_product": "shop", "place_order": "shop",
                     "query_database": "database", "count_rows": "database"}  # fmt: skip
    result = ran.out.split("search_products (shop):\n", 1)[1]
    assert [(p["name"], p["price"]) for p in json.loads(result)] == [("Nike Air Max", 899.0)]


def test_a_failing_server_is_reported_and_does_not_stop_the_others(tmp_path: Path) -> None:
    ran = mcpkit("host", EXAMPLE_CONFIG, "--input", f"data-dir={tmp_path}", "--output-json",
                 env={"MCPKIT_PYTHON": sys.executable})  # fmt: skip
    assert ran.code == 0, ran
    report = json.loads(ran.out)
    assert report["servers"]["broken"]["state"] == "failed"
    assert "this server fails at start-up, on purpose" in report["servers"]["broken"]["error"]
    assert {t["server"] for t in report["tools"]} == {"shop", "database"}


def test_an_mcp_servers_file_with_prompts_and_resources(tmp_path: Path) -> None:
    config = tmp_path / "claude.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "prompts": _entry("prompts_server.py"),
                    "db": _entry("database_server.py"),
                }
            }
        )
    )
    ran = mcpkit("host", str(config))
    assert ran.code == 0, ran
    assert "prompts (2)" in ran.out
    assert any(line.split()[:2] == ["code-review", "prompts"] for line in ran.out.splitlines())
    assert any(line.split()[:2] == ["db://schema", "db"] for line in ran.out.splitlines())


def test_when_no_server_can_be_reached_it_exits_3(tmp_path: Path) -> None:
    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"mcpServers": {"gone": {"command": "no-such-program-here"}}}))
    ran = mcpkit("host", str(config))
    assert ran.code == 3, ran
    assert "no server of the config could be reached" in ran.err
    assert "gone" in ran.out and "failed" in ran.out


def test_config_problems_are_usage_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran = mcpkit("host", EXAMPLE_CONFIG, env={"MCPKIT_PYTHON": sys.executable})
    assert ran.code == 2, ran
    assert "the config asks for input 'data-dir'" in ran.err
    assert "hint: give it with --input data-dir=VALUE" in ran.err
    monkeypatch.delenv("MCPKIT_PYTHON", raising=False)
    ran = mcpkit("host", EXAMPLE_CONFIG, "--input", f"data-dir={tmp_path}")
    assert ran.code == 2, ran
    assert "server 'shop': environment variable MCPKIT_PYTHON is not set" in ran.err
    config = tmp_path / "empty.json"
    config.write_text("{}")
    ran = mcpkit("host", str(config))
    assert ran.code == 2, ran
    assert 'hint: expected {"mcpServers": {NAME: {"command": ...} | {"url": ...}}}' in ran.err


def test_calling_a_tool_no_server_offers(tmp_path: Path) -> None:
    config = tmp_path / "one.json"
    config.write_text(json.dumps({"mcpServers": {"shop": _entry("shop_server.py")}}))
    ran = mcpkit("host", str(config), "search")
    assert ran.code == 2, ran
    assert "no server offers a tool named 'search'" in ran.err
    assert "hint: tools: search_products, get_product, place_order" in ran.err
