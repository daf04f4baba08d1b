"""The database example bounds bytes as well as time and rows: SQLite's length limit, a cap on
the encoded result, and an allow-list of SQL functions (real example process)."""

from __future__ import annotations

import asyncio
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


async def test_printf_cannot_spend_seconds_inside_one_call(tmp_path: Path) -> None:
    """Issue 28: ``printf('%.*c', 2000000000, 'x')`` spent ~13 s of CPU inside one SQLite
    call, where neither the time limit (checked between VM steps) nor the length limit applies.
    The width is refused before anything is built."""
    async with Client(example("database_server.py", tmp_path)) as client:
        for sql in (
            "SELECT length(printf('%.*c', 2000000000, 'x'))",
            "SELECT printf('%2000000000d', 1)",
            "SELECT format('%*s', 2000000000, 'x')",
        ):
            result = await client.call_tool("query_database", {"sql": sql})
            assert result.is_error, result
            assert "over 1048576 bytes" in result.content[0].text  # type: ignore[union-attr]
        fine = await client.call_tool("query_database", {"sql": "SELECT printf('%05d|%s', 7, 'a')"})
        assert fine.structured_content["rows"] == [["00007|a"]]


async def test_slow_queries_do_not_starve_the_servers_other_calls(tmp_path: Path) -> None:
    """Issue 28: six queries running to the time limit took every worker thread of the server
    (its sync tools share them): another tool's call waited for a query to end. Queries now run
    on a pool of their own."""
    endless = (
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    )
    entry = example("database_server.py", tmp_path, MCPKIT_EXAMPLES_QUERY_SECONDS="0.5")
    async with Client(entry) as client:
        queries = [
            asyncio.ensure_future(client.call_tool("query_database", {"sql": endless}))
            for _ in range(6)
        ]
        try:
            counts = await asyncio.wait_for(client.call_tool("count_rows", {}), 30)
            assert counts.structured_content == {"customers": 5, "orders": 7}
            assert not any(q.done() for q in queries)  # answered while every query still ran
            for result in await asyncio.wait_for(asyncio.gather(*queries), 30):
                assert result.is_error and "was stopped" in result.content[0].text  # type: ignore[union-attr]
        finally:
            for query in queries:
                query.cancel()
