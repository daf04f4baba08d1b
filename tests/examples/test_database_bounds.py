"""The database example bounds bytes as well as time and rows: SQLite's length limit, a cap on
the encoded result, and an allow-list of SQL functions (real example process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpkit.client import Client

from ._servers import example

MIB = 1024 * 1024

REFUSED_FUNCTIONS = [
    ("SELECT fts3_tokenizer('simple')", "fts3_tokenizer"),  # would leak a library address
    ("SELECT length(randomblob(300000000))", "randomblob"),  # would allocate 300 MB
    ("SELECT length(zeroblob(300000000))", "zeroblob"),
    ("SELECT load_extension('x')", "load_extension"),
]


@pytest.mark.parametrize(("sql", "name"), REFUSED_FUNCTIONS, ids=[n for _, n in REFUSED_FUNCTIONS])
async def test_functions_outside_the_allow_list_are_refused(
    tmp_path: Path, sql: str, name: str
) -> None:
    async with Client(example("database_server.py", tmp_path)) as client:
        result = await client.call_tool("query_database", {"sql": sql})
        assert result.is_error, result
        text = result.content[0].text  # type: ignore[union-attr]
        assert f"the SQL function {name}() (not in the allowed list)" in text


async def test_no_value_may_grow_past_the_length_limit(tmp_path: Path) -> None:
    """group_concat over a recursive CTE built a 20 MB value (hundreds of MiB with more rows)."""
    sql = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 200000) "
        "SELECT length(group_concat(printf('%0100d', x))) FROM c"
    )
    async with Client(example("database_server.py", tmp_path)) as client:
        result = await client.call_tool("query_database", {"sql": sql})
        assert result.is_error, result
        assert "one value may be at most 1048576 bytes" in result.content[0].text  # type: ignore[union-attr]
        ok = await client.call_tool("query_database", {"sql": "SELECT count(*) FROM customers"})
        assert ok.structured_content["rows"] == [[5]]


async def test_the_encoded_result_is_cut_at_its_byte_cap(tmp_path: Path) -> None:
    sql = "SELECT name, printf('%.*c', 900000, 'x') AS pad FROM customers ORDER BY id"
    async with Client(example("database_server.py", tmp_path)) as client:
        result = await client.call_tool("query_database", {"sql": sql})
        assert not result.is_error, result
        data = result.structured_content
        assert data["truncated"] is True
        assert data["row_count"] == len(data["rows"]) == 1  # two rows would pass 1 MiB
        assert data["rows"][0][0] == "Alice Chen" and len(data["rows"][0][1]) == 900000
