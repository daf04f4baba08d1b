"""The database example: SELECT runs; everything else is refused by SQLite itself."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mcpkit.client import Client

from ._servers import example


async def test_select_returns_columns_and_rows(tmp_path: Path) -> None:
    async with Client(example("database_server.py", tmp_path)) as client:
        sql = (
            "SELECT c.name, sum(o.amount) AS total FROM customers c "
            "JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY total DESC"
        )
        result = await client.call_tool("query_database", {"sql": sql})
        assert not result.is_error
        data = result.structured_content
        assert data["columns"] == ["name", "total"]
        assert data["rows"][0] == ["Bob Martin", 2980.0]
        assert (data["row_count"], data["truncated"]) == (5, False)
        schema = await client.read_resource("db://schema")
        assert "CREATE TABLE orders" in schema.contents[0].text


REFUSED = [
    ("DROP TABLE customers", "this statement asks for a schema change"),
    ("DELETE FROM orders", "this statement asks for DELETE orders"),
    ("UPDATE customers SET city = 'x'", "this statement asks for UPDATE customers"),
    ("INSERT INTO customers VALUES (9, 'x', 'y', 'z')", "asks for INSERT customers"),
    ("CREATE TABLE t (x)", "a schema change"),
    ("PRAGMA writable_schema = ON", "asks for PRAGMA"),
    ("ATTACH DATABASE ':memory:' AS other", "asks for ATTACH"),
    ("SELECT 1; DROP TABLE customers", "only one SELECT statement at a time"),
    ("SELECT * FROM nowhere", "SQL error: no such table: nowhere"),
]


@pytest.mark.parametrize(("sql", "message"), REFUSED)
async def test_anything_but_select_is_a_tool_error(tmp_path: Path, sql: str, message: str) -> None:
    async with Client(example("database_server.py", tmp_path)) as client:
        await client.call_tool("query_database", {"sql": "SELECT 1"})  # creates the database
        before = hashlib.sha256((tmp_path / "company-v1.sqlite").read_bytes()).digest()
        result = await client.call_tool("query_database", {"sql": sql})
        assert result.is_error
        assert message in result.content[0].text
        count = await client.call_tool("query_database", {"sql": "SELECT count(*) FROM customers"})
        assert count.structured_content["rows"] == [[5]]
    after = hashlib.sha256((tmp_path / "company-v1.sqlite").read_bytes()).digest()
    assert before == after


async def test_a_runaway_query_is_stopped(tmp_path: Path) -> None:
    endless = (
        "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT count(*) FROM n"
    )
    async with Client(example("database_server.py", tmp_path)) as client:
        result = await client.call_tool("query_database", {"sql": endless})
    assert result.is_error
    assert "ran longer than 5 s and was stopped" in result.content[0].text
