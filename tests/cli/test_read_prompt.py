"""``mcpkit read`` and ``mcpkit prompt`` against the docs and prompts examples."""

from __future__ import annotations

import json
from pathlib import Path

from ._run import mcpkit

DOCS = "examples/docs_server.py"
PROMPTS = "examples/prompts_server.py"


def test_read_prints_a_documentation_page() -> None:
    ran = mcpkit("read", DOCS, "file:///docs/api-guide.md")
    assert ran.code == 0, ran
    assert ran.out.startswith("# API guide\n")


def test_read_from_a_folder_given_through_env(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "intro.md").write_text("# Hello from a custom folder\n", encoding="utf-8")
    ran = mcpkit("read", DOCS, "file:///docs/intro.md", "--json", "-e", f"MCPKIT_DOCS_DIR={folder}")
    assert ran.code == 0, ran
    contents = json.loads(ran.out)["contents"]
    assert contents == [
        {"uri": "file:///docs/intro.md", "mimeType": "text/markdown",
         "text": "# Hello from a custom folder\n"}
    ]  # fmt: skip


def test_read_writes_the_contents_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "schema.sql"
    ran = mcpkit("read", "examples/database_server.py", "db://schema", "-o", str(target))
    assert ran.code == 0, ran
    assert target.read_text(encoding="utf-8").startswith("CREATE TABLE customers")


def test_reading_a_missing_resource_is_a_usage_error_in_both_eras() -> None:
    for era in ("auto", "legacy"):
        ran = mcpkit("read", DOCS, "file:///docs/missing.md", "--era", era)
        assert ran.code == 2, ran
        assert "the server has no resource 'file:///docs/missing.md'" in ran.err


def test_prompt_renders_the_code_review_template() -> None:
    ran = mcpkit("prompt", PROMPTS, "code-review", "language=python", "code=print(1 + 1)")
    assert ran.code == 0, ran
    assert ran.out.startswith("# Ask for a review of a piece of code.\n\n[user]\n")
    assert "You are a senior python engineer" in ran.out
    assert "```python\nprint(1 + 1)\n```" in ran.out


def test_prompt_json_and_an_optional_argument() -> None:
    ran = mcpkit("prompt", PROMPTS, "sql-review", "sql=SELECT 1", "dialect=postgresql", "--json")
    assert ran.code == 0, ran
    message = json.loads(ran.out)["messages"][0]
    assert message["role"] == "user"
    assert message["content"]["text"].startswith("Review this postgresql query")


def test_prompt_arguments_are_checked_by_name() -> None:
    ran = mcpkit("prompt", PROMPTS, "code-review", "language=python", "lang=x")
    assert ran.code == 2, ran
    assert "prompt 'code-review': missing code; unknown lang" in ran.err
    assert "hint: mcpkit prompt TARGET code-review language=... code=..." in ran.err


def test_an_unknown_prompt_names_the_prompts_there_are() -> None:
    ran = mcpkit("prompt", PROMPTS, "review")
    assert ran.code == 2, ran
    assert "hint: its prompts: code-review, sql-review" in ran.err
