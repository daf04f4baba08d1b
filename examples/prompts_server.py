"""Shared prompt templates (the design documents' prompts server).

Run it::

    mcpkit run examples/prompts_server.py
    mcpkit prompt examples/prompts_server.py code-review language=python code='print(1)'

A team keeps its review prompts in one place: the template texts live in a SQLite table
(created and filled on first run in ``$MCPKIT_EXAMPLES_DATA``), so they can be edited without
touching the code; the prompts' arguments are declared by the functions below. ``code-review``
takes ``language`` and ``code`` (with completion for ``language``); ``sql-review`` takes ``sql``
and an optional ``dialect``.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Final

from mcpkit.server import Message, Server

DATA_ENV: Final = "MCPKIT_EXAMPLES_DATA"
DB_NAME: Final = "prompts-v1.sqlite"
# fmt: off
LANGUAGES: Final = (
    "c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "python", "ruby", "rust",
    "sql", "swift", "typescript",
)
# fmt: on
DIALECTS: Final = ("sqlite", "postgresql", "mysql", "sqlserver", "oracle")

TEMPLATES: Final = {
    "code-review": (
        "You are a senior {language} engineer reviewing a colleague's change.\n"
        "Look for bugs first, then unclear names, missing error handling and missing tests.\n"
        "Answer with a short list of findings, most important first, each with a suggested fix."
        "\n\n```{language}\n{code}\n```"
    ),
    "sql-review": (
        "Review this {dialect} query for correctness, injection risks, missing indexes and "
        "needless full scans. Suggest a rewrite if one is clearly better.\n\n```sql\n{sql}\n```"
    ),
}


def data_dir() -> Path:
    path = Path(os.environ.get(DATA_ENV) or Path(tempfile.gettempdir()) / "mcpkit-examples")
    path.mkdir(parents=True, exist_ok=True)
    return path


def database() -> Path:
    """The template store, created on first run (in a temp file, then renamed into place)."""
    path = data_dir() / DB_NAME
    if path.exists():
        return path
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    db = sqlite3.connect(tmp)
    with db:
        db.execute("CREATE TABLE templates (name TEXT PRIMARY KEY, body TEXT NOT NULL)")
        db.executemany("INSERT INTO templates VALUES (?, ?)", TEMPLATES.items())
    db.close()
    os.replace(tmp, path)
    return path


def template(name: str) -> str:
    with contextlib.closing(sqlite3.connect(database())) as db:
        row = db.execute("SELECT body FROM templates WHERE name = ?", (name,)).fetchone()
    return str(row[0]) if row else TEMPLATES[name]


server = Server("prompts", "1.0.0", title="Example shared prompts")


@server.prompt(name="code-review", title="Code review")
def code_review(language: str, code: str) -> list[Message]:
    """Ask for a review of a piece of code.

    Args:
        language: the programming language, e.g. python
        code: the code to review
    """
    return [Message(template("code-review").format(language=language, code=code))]


@server.prompt(name="sql-review", title="SQL review")
def sql_review(sql: str, dialect: str = "sqlite") -> list[Message]:
    """Ask for a review of a SQL query.

    Args:
        sql: the query to review
        dialect: the SQL dialect (default sqlite)
    """
    return [Message(template("sql-review").format(sql=sql, dialect=dialect))]


@server.completion(prompt="code-review", argument="language")
def complete_language(value: str, arguments: dict[str, str]) -> list[str]:
    return [name for name in LANGUAGES if name.startswith(value.lower())]


@server.completion(prompt="sql-review", argument="dialect")
def complete_dialect(value: str, arguments: dict[str, str]) -> list[str]:
    return [name for name in DIALECTS if name.startswith(value.lower())]


if __name__ == "__main__":
    server.run()
