"""The prompts example: shared templates stored in SQLite, with argument completion."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from mcpkit.client import Client

from ._servers import example


async def test_code_review_and_sql_review_render(tmp_path: Path) -> None:
    async with Client(example("prompts_server.py", tmp_path)) as client:
        prompts = {p.name: p for p in await client.list_prompts()}
        assert [a.name for a in prompts["code-review"].arguments or []] == ["language", "code"]
        review = await client.get_prompt(
            "code-review", {"language": "rust", "code": "fn main() {}"}
        )
        text = review.messages[0].content.text
        assert "senior rust engineer" in text
        assert "```rust\nfn main() {}\n```" in text
        sql = await client.get_prompt("sql-review", {"sql": "SELECT * FROM t"})
        assert sql.messages[0].content.text.startswith("Review this sqlite query")
        completion = await client.complete(
            {"type": "ref/prompt", "name": "code-review"}, "language", "py"
        )
        assert completion.completion.values == ["python"]


async def test_templates_come_from_the_database(tmp_path: Path) -> None:
    async with Client(example("prompts_server.py", tmp_path)) as client:
        first = await client.get_prompt("sql-review", {"sql": "SELECT 1"})
        assert first.messages[0].content.text.startswith("Review this sqlite query")
        with contextlib.closing(sqlite3.connect(tmp_path / "prompts-v1.sqlite")) as db, db:
            db.execute("UPDATE templates SET body = 'Be brief about {sql} ({dialect})' "
                       "WHERE name = 'sql-review'")  # fmt: skip
        edited = await client.get_prompt("sql-review", {"sql": "SELECT 1"})
    assert edited.messages[0].content.text == "Be brief about SELECT 1 (sqlite)"
