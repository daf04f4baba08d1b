"""``mcpkit install``: each host's own format and file; entries that really start the server."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ._run import ROOT, mcpkit

SHOP = str(ROOT / "examples" / "shop_server.py")


def _installed(path: Path) -> dict[str, object]:
    document: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return document


@pytest.mark.parametrize(
    ("host", "relative", "key", "typed"),
    [
        ("claude-code", ".mcp.json", "mcpServers", True),
        ("vscode", ".vscode/mcp.json", "servers", True),
        ("mcp-json", "mcp.json", "mcpServers", False),
        ("cursor", "home/.cursor/mcp.json", "mcpServers", False),
        ("claude-desktop", "xdg/Claude/claude_desktop_config.json", "mcpServers", False),
    ],
)
def test_each_host_gets_its_own_file_and_shape(
    tmp_path: Path, host: str, relative: str, key: str, typed: bool
) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    ran = mcpkit("install", host, SHOP, "-e", "LOG=debug", cwd=tmp_path, env=env)
    assert ran.code == 0, ran
    path = tmp_path / relative
    assert ran.out.strip() == f"added 'shop' to {path}"  # the server's own name
    entry = _installed(path)[key]["shop"]  # type: ignore[index]
    expected = {"command": sys.executable, "args": ["-m", "mcpkit.cli", "run", SHOP],
                "env": {"LOG": "debug"}}  # fmt: skip
    if typed:
        expected = {"type": "stdio", **expected}
    assert entry == expected


def test_an_installed_entry_starts_the_server_from_anywhere(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    ran = mcpkit("install", "mcp-json", "examples/shop_server.py", "--name", "shop",
                 "--config", str(config))  # fmt: skip
    assert ran.code == 0, ran
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = mcpkit("call", f"{config}:shop", "get_product", "product_id=nike-air-max",
                 "--structured", cwd=elsewhere)  # fmt: skip
    assert ran.code == 0, ran
    assert json.loads(ran.out)["price"] == 899.0


def test_urls_per_host_and_the_claude_desktop_bridge() -> None:
    url = "http://127.0.0.1:8001/mcp"
    printed = {}
    for host in ("claude-desktop", "claude-code", "cursor", "vscode"):
        ran = mcpkit("install", host, url, "--name", "docs", "--print")
        assert ran.code == 0, ran
        printed[host] = ran.out
    assert json.loads(printed["claude-desktop"]) == {
        "mcpServers": {"docs": {"command": "npx", "args": ["-y", "mcp-remote", url]}}
    }
    assert json.loads(printed["cursor"]) == {"mcpServers": {"docs": {"url": url}}}
    assert json.loads(printed["vscode"]) == {"servers": {"docs": {"type": "http", "url": url}}}
    document, _, command = printed["claude-code"].partition("\n\n# or: ")
    assert json.loads(document) == {"mcpServers": {"docs": {"type": "http", "url": url}}}
    assert command.strip() == f"claude mcp add --transport http docs {url}"


def test_other_entries_are_kept_and_a_name_clash_needs_force(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"theme": "dark", "mcpServers": {
        "shop": {"command": "old"}, "other": {"command": "x"}}}))  # fmt: skip
    ran = mcpkit("install", "claude-desktop", SHOP, "--config", str(config))
    assert ran.code == 2, ran
    assert "already has a server named 'shop'" in ran.err
    assert "hint: replace it with --force" in ran.err
    assert _installed(config)["mcpServers"]["shop"] == {"command": "old"}  # type: ignore[index]
    ran = mcpkit("install", "claude-desktop", SHOP, "--config", str(config), "--force")
    assert ran.code == 0, ran
    document = _installed(config)
    assert document["theme"] == "dark"
    assert set(document["mcpServers"]) == {"shop", "other"}  # type: ignore[arg-type]


def test_a_file_that_is_not_json_is_not_touched(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text("{ // a comment makes this invalid JSON\n}")
    ran = mcpkit("install", "cursor", SHOP, "--config", str(config))
    assert ran.code == 2, ran
    assert "is not valid JSON" in ran.err
    assert config.read_text() == "{ // a comment makes this invalid JSON\n}"


def test_modules_get_their_folder_on_pythonpath() -> None:
    ran = mcpkit("install", "cursor", "examples.shop_server", "--print")
    assert ran.code == 0, ran
    entry = json.loads(ran.out)["mcpServers"]["shop"]
    assert entry["args"] == ["-m", "mcpkit.cli", "run", "examples.shop_server"]
    assert entry["env"] == {"PYTHONPATH": str(ROOT)}


def test_an_unknown_host_is_a_usage_error() -> None:
    ran = mcpkit("install", "emacs", SHOP)
    assert ran.code == 2
    assert "invalid choice: 'emacs'" in ran.err


def test_a_command_target_is_named_after_what_the_server_calls_itself() -> None:
    ran = mcpkit("install", "mcp-json", f"{sys.executable} {SHOP}", "--print")
    assert ran.code == 0, ran
    (name,) = json.loads(ran.out)["mcpServers"]
    assert name == "shop"


def test_a_server_that_cannot_say_its_name_is_named_after_the_file(tmp_path: Path) -> None:
    broken = tmp_path / "weather_tool.py"
    broken.write_text("raise RuntimeError('no API key')\n")
    ran = mcpkit("install", "mcp-json", str(broken), "--print")
    assert ran.code == 0, ran
    (name,) = json.loads(ran.out)["mcpServers"]
    assert name == "weather_tool"
