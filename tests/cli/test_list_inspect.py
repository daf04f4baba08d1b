"""``mcpkit list`` and ``mcpkit inspect`` against the example servers, in both eras."""

from __future__ import annotations

import json

import pytest

from ._run import mcpkit

SHOP = "examples/shop_server.py"


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_list_shows_the_shop_tools_as_a_table(era: str) -> None:
    ran = mcpkit("list", SHOP, "--era", era)
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    assert lines[0] == "tools (3)"
    assert lines[1].split() == ["NAME", "INPUTS", "DESCRIPTION"]
    row = next(line for line in lines if line.startswith("search_products"))
    assert "query, max_price?, limit?" in row
    assert "resources (0)" in lines


def test_list_one_kind_as_json_uses_the_wire_names() -> None:
    ran = mcpkit("list", "examples/docs_server.py", "resources", "--json")
    assert ran.code == 0, ran
    listed = json.loads(ran.out)
    assert list(listed) == ["resources", "templates"]  # a template offers resources too
    uris = {r["uri"]: r for r in listed["resources"]}
    assert uris["file:///docs/api-guide.md"]["mimeType"] == "text/markdown"


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_list_resources_shows_the_templates_too(era: str) -> None:
    ran = mcpkit("list", "examples/feature_tour.py", "resources", "--era", era)
    assert ran.code == 0, ran
    lines = ran.out.splitlines()
    assert any(line.startswith("resources (") for line in lines), ran
    at = next(i for i, line in enumerate(lines) if line.startswith("templates ("))
    assert lines[at] != "templates (0)"
    assert lines[at + 1].split()[:2] == ["URI", "TEMPLATE"]
    assert lines[at + 3].startswith("orders://{order_id}/items")


def test_list_prompts_marks_optional_arguments() -> None:
    ran = mcpkit("list", "examples/prompts_server.py", "prompts")
    assert ran.code == 0, ran
    assert any(
        line.startswith("sql-review") and "sql, dialect?" in line for line in ran.out.splitlines()
    ), ran


def test_inspect_shows_era_version_capabilities_and_schemas() -> None:
    ran = mcpkit("inspect", SHOP)
    assert ran.code == 0, ran
    assert "era            modern" in ran.out
    assert "protocol       2026-07-28" in ran.out
    assert "server capabilities" in ran.out
    assert "tool search_products" in ran.out
    assert '"outputSchema"' not in ran.out  # printed as a labelled block, not raw keys
    assert "  outputSchema:" in ran.out


def test_inspect_json_in_the_legacy_era_carries_the_initialize_result() -> None:
    ran = mcpkit("inspect", SHOP, "--json", "--era", "legacy")
    assert ran.code == 0, ran
    report = json.loads(ran.out)
    assert report["era"] == "legacy"
    assert report["protocolVersion"] == "2025-11-25"
    assert report["initializeResult"]["serverInfo"]["name"] == "shop"
    assert "discoverResult" not in report
    tool = next(t for t in report["tools"] if t["name"] == "search_products")
    assert tool["inputSchema"]["required"] == ["query"]
    assert report["clientCapabilities"]["elicitation"] == {"form": {}}


def test_inspect_wire_prints_every_message_in_order() -> None:
    ran = mcpkit("inspect", SHOP, "--wire")
    assert ran.code == 0, ran
    entries = [(line[0], json.loads(line[2:])) for line in ran.out.splitlines()]
    first_direction, first = entries[0]
    assert first_direction == "→"
    assert first["method"] == "server/discover"
    answer = entries[1][1]
    assert answer["id"] == first["id"]
    assert "2026-07-28" in answer["result"]["supportedVersions"]
    sent = [m.get("method") for d, m in entries if d == "→"]
    assert sent[1:] == ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
               for d, m in entries[2:] if d == "→")  # fmt: skip
