"""What a TARGET can be, recognised in order; and the forms working end to end."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from mcpkit.cli._errors import CliError
from mcpkit.cli._targets import resolve, split_object

from ._run import ROOT, mcpkit


@pytest.fixture(autouse=True)
def _at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_split_object() -> None:
    assert split_object("a/b.py:server") == ("a/b.py", "server")
    assert split_object("pkg.mod:make.app") == ("pkg.mod", "make.app")
    assert split_object("a/b.py") == ("a/b.py", None)
    assert split_object("C:file.py") == ("C:file.py", None)  # a drive letter is not an object


def test_each_form_is_recognised() -> None:
    assert resolve("http://127.0.0.1:9/mcp").kind == "url"
    assert resolve("examples/shop_server.py").client_target == {
        "command": sys.executable, "args": ["-m", "mcpkit.cli", "run", "examples/shop_server.py"],
        "env": dict(os.environ),  # the person's own code gets their whole environment
    }  # fmt: skip
    assert resolve("examples/shop_server.py:server").kind == "file"
    command = resolve("python -m http.server 'a b'")
    assert command.kind == "command"
    assert command.client_target == {"command": "python", "args": ["-m", "http.server", "a b"]}
    assert resolve("sh").kind == "command"  # a program on PATH
    with_env = resolve("examples/shop_server.py", env={"A": "1"})
    assert with_env.client_target["env"] == {**os.environ, "A": "1"}
    assert "env" not in resolve("python -m http.server", env={}).client_target


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no_such_module_or_program_x", "unknown target 'no_such_module_or_program_x'"),
        ("missing.py", "no such file: missing.py"),
        ("./not/here", "no such executable file: ./not/here"),
        ("   ", "the target is empty"),
        ("missing.json:x", "no such config file: missing.json"),
        ("python 'unclosed", "cannot split the command line"),
    ],
)
def test_unknown_targets_are_usage_errors(text: str, message: str) -> None:
    with pytest.raises(CliError) as caught:
        resolve(text)
    assert caught.value.code == 2
    assert message in caught.value.message
    assert caught.value.hint


def test_modules_are_found_from_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "team_tools").mkdir()
    (tmp_path / "team_tools" / "__init__.py").write_text("")
    (tmp_path / "team_tools" / "mcp_server.py").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = resolve("team_tools.mcp_server")
    assert module.kind == "module"
    assert module.client_target["args"] == ["-m", "mcpkit.cli", "run", "team_tools.mcp_server"]
    assert resolve("team_tools.mcp_server:build").kind == "module"


def test_config_targets_name_one_server(tmp_path: Path) -> None:
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {
        "my-shop": {"command": "python", "args": ["shop.py"]},
        "remote": {"url": "http://127.0.0.1:9/mcp"},
    }}))  # fmt: skip
    assert resolve(f"{config}:my-shop").client_target == {"command": "python", "args": ["shop.py"]}
    assert resolve(f"{config}:remote").client_target == {"url": "http://127.0.0.1:9/mcp"}
    with pytest.raises(CliError) as caught:
        resolve(f"{config}:nope")
    assert "has no server named 'nope'" in caught.value.message
    assert caught.value.hint == "servers in it: my-shop, remote"
    with pytest.raises(CliError) as caught:
        resolve(str(config))
    assert "name one as" in caught.value.message
    config.write_text("{not json")
    with pytest.raises(CliError) as caught:
        resolve(f"{config}:my-shop")
    assert "is not valid JSON" in caught.value.message
    config.write_text('{"servers": []}')
    with pytest.raises(CliError) as caught:
        resolve(f"{config}:my-shop")
    assert 'has no "mcpServers"' in caught.value.message


def test_a_config_target_may_start_with_a_home_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quoted ``"~/.cursor/mcp.json:files"`` (the shell expands nothing) still finds the file."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".cursor").mkdir()
    (tmp_path / ".cursor" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"files": {"command": "python", "args": ["files.py"]}}})
    )
    resolved = resolve("~/.cursor/mcp.json:files")
    assert resolved.client_target == {"command": "python", "args": ["files.py"]}


def test_a_command_line_target_end_to_end() -> None:
    ran = mcpkit("call", f"{sys.executable} examples/shop_server.py", "get_product",
                 "product_id=nike-air-max", "--structured")  # fmt: skip
    assert ran.code == 0, ran
    assert json.loads(ran.out)["name"] == "Nike Air Max"


def test_a_module_target_end_to_end() -> None:
    ran = mcpkit("list", "examples.prompts_server:server", "prompts")
    assert ran.code == 0, ran
    assert "code-review" in ran.out


def test_a_config_target_end_to_end_with_its_env(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "only.md").write_text("# Only page\n", encoding="utf-8")
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(json.dumps({"mcpServers": {"docs": {
        "command": sys.executable, "args": [str(ROOT / "examples" / "docs_server.py")],
        "env": {"MCPKIT_DOCS_DIR": str(folder)},
    }}}))  # fmt: skip
    ran = mcpkit("read", f"{config}:docs", "file:///docs/only.md", cwd=tmp_path)
    assert ran.code == 0, ran
    assert ran.out == "# Only page\n"


def test_an_unknown_target_exits_2_from_the_command() -> None:
    ran = mcpkit("list", "definitely_not_a_target_anywhere")
    assert ran.code == 2
    assert ran.err.splitlines() == [
        "mcpkit: error: unknown target 'definitely_not_a_target_anywhere': not a URL, a file, an "
        "importable module or a program on PATH",
        "hint: give a URL (http://host/mcp), config.json:name, a command line in quotes, a "
        "file.py[:object], a module[:object], or a program on PATH",
    ]
