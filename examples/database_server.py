"""A read-only SQL tool over an embedded SQLite database (the design documents' database server).

Run it::

    mcpkit run examples/database_server.py
    mcpkit call examples/database_server.py query_database \\
        sql="SELECT name, city FROM customers ORDER BY name"

``query_database`` runs SELECT statements only. That is enforced by SQLite itself, not by
pattern-matching the SQL text: the database is opened read-only (``mode=ro`` plus
``PRAGMA query_only``), and an authorizer callback (``set_authorizer``) lets the compiler use
only reads, SELECT and functions — anything else (DROP, INSERT, PRAGMA, ATTACH …) is refused
while the statement is being prepared, before it runs, and comes back as a tool error the model
can read. Queries are also bounded in time (:data:`QUERY_TIME_LIMIT_SECONDS`), in rows
(:data:`MAX_ROWS`) and in bytes: SQLite's own limits cap any one string or blob
(:data:`MAX_VALUE_BYTES`, so ``group_concat``, ``printf``, ``replace`` … cannot build a huge
value), the SQL text, columns, expression depth and compound SELECTs; the connection's heap is
capped (:data:`HEAP_LIMIT_BYTES`); the encoded result is cut at :data:`MAX_RESULT_BYTES`; and
the authorizer allows only the SQL functions in :data:`ALLOWED_FUNCTIONS` (no ``randomblob`` or
``zeroblob``, which allocate whatever size they are asked for, no ``fts3_tokenizer``, which
hands out a pointer into the process, no ``load_extension``). ``printf``/``format`` are
replaced by a bounded twin: a width or precision past :data:`MAX_VALUE_BYTES` is refused before
anything is built (SQLite's own would spend seconds of CPU inside one call, where neither the
time limit nor the length limit can stop it: ``printf('%.*c', 2000000000, 'x')``).

Queries run on a pool of their own (:data:`QUERY_WORKERS` threads), not on the server's shared
worker threads: a few slow queries wait for each other, never starve the server's other calls.

The database is created on first run in ``$MCPKIT_EXAMPLES_DATA`` (default: a folder in the
system temp directory).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from mcpkit.server import Server, ToolError

DATA_ENV: Final = "MCPKIT_EXAMPLES_DATA"
DB_NAME: Final = "company-v1.sqlite"
MAX_ROWS: Final = 200
"""Rows returned by one query; the result says when it was cut."""
QUERY_TIME_LIMIT_SECONDS: Final = float(os.environ.get("MCPKIT_EXAMPLES_QUERY_SECONDS") or 5.0)
"""A query still running after this long is interrupted (the environment variable: tests)."""
QUERY_WORKERS: Final = 2
"""Queries that run at once; more wait for a free one (the pool of their own)."""
PROGRESS_CHECK_OPS: Final = 10_000
"""SQLite virtual-machine steps between two checks of the time limit."""
MAX_VALUE_BYTES: Final = 1024 * 1024
"""Largest string or blob SQLite may build in a query (``SQLITE_LIMIT_LENGTH``)."""
MAX_RESULT_BYTES: Final = 1024 * 1024
"""Rows are returned until their JSON encoding would pass this; the result says it was cut."""
HEAP_LIMIT_BYTES: Final = 64 * 1024 * 1024
"""SQLite's heap in this process (``PRAGMA hard_heap_limit``): sorts and CTEs cannot exceed it."""
SQLITE_LIMITS: Final = {
    "SQLITE_LIMIT_LENGTH": MAX_VALUE_BYTES,
    "SQLITE_LIMIT_SQL_LENGTH": 100_000,
    "SQLITE_LIMIT_COLUMN": 100,
    "SQLITE_LIMIT_EXPR_DEPTH": 100,
    "SQLITE_LIMIT_COMPOUND_SELECT": 20,
    "SQLITE_LIMIT_FUNCTION_ARG": 16,
    "SQLITE_LIMIT_LIKE_PATTERN_LENGTH": 1000,
    "SQLITE_LIMIT_ATTACHED": 0,
}
# fmt: off
ALLOWED_FUNCTIONS: Final = frozenset({
    # aggregates and window functions
    "avg", "count", "group_concat", "string_agg", "max", "min", "sum", "total",
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value",
    # scalars that build values no larger than the length limit allows
    "abs", "coalesce", "ifnull", "iif", "nullif", "instr", "length", "like", "glob", "lower",
    "upper", "ltrim", "rtrim", "trim", "replace", "substr", "substring", "round", "sign",
    "printf", "format", "typeof", "unicode", "char", "hex", "quote",
    "date", "time", "datetime", "julianday", "strftime", "unixepoch",
    "json", "json_extract", "json_array", "json_object", "json_group_array",
    "json_group_object", "json_type", "json_valid",
})
# fmt: on

ALLOWED_ACTIONS: Final = frozenset(
    {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE}
)
# fmt: off
AUTHORIZER_ACTIONS: Final = (
    "CREATE_INDEX", "CREATE_TABLE", "CREATE_TEMP_INDEX", "CREATE_TEMP_TABLE",
    "CREATE_TEMP_TRIGGER", "CREATE_TEMP_VIEW", "CREATE_TRIGGER", "CREATE_VIEW", "DELETE",
    "DROP_INDEX", "DROP_TABLE", "DROP_TEMP_INDEX", "DROP_TEMP_TABLE", "DROP_TEMP_TRIGGER",
    "DROP_TEMP_VIEW", "DROP_TRIGGER", "DROP_VIEW", "INSERT", "PRAGMA", "TRANSACTION", "UPDATE",
    "ATTACH", "DETACH", "ALTER_TABLE", "REINDEX", "ANALYZE", "CREATE_VTABLE", "DROP_VTABLE",
    "SAVEPOINT",
)
# fmt: on
ACTION_NAMES: Final = {
    getattr(sqlite3, f"SQLITE_{name}"): name.replace("_", " ")
    for name in AUTHORIZER_ACTIONS
    if hasattr(sqlite3, f"SQLITE_{name}")
}
"""Readable names of the actions the authorizer refuses, for the error message."""
SCHEMA_TABLES: Final = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master"})

SCHEMA: Final = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL,
                        joined TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                     product TEXT NOT NULL, amount REAL NOT NULL, ordered_at TEXT NOT NULL);
"""
CUSTOMERS: Final = [
    (1, "Alice Chen", "Shanghai", "2023-02-14"),
    (2, "Bob Martin", "London", "2023-05-02"),
    (3, "张伟", "Beijing", "2024-01-20"),
    (4, "Dana Ortiz", "Madrid", "2024-03-11"),
    (5, "Eiji Tanaka", "Osaka", "2024-07-30"),
]
ORDERS: Final = [
    (1, 1, "Nike Air Max", 899.0, "2024-08-01"),
    (2, 1, "Hydro Flask 32 oz Bottle", 349.0, "2024-08-03"),
    (3, 2, "Garmin Forerunner 265", 2980.0, "2024-09-12"),
    (4, 3, "Nike Air Max", 899.0, "2024-10-05"),
    (5, 3, "Li-Ning Dry-Fit Running Shirt", 159.0, "2024-10-05"),
    (6, 4, "Adidas Ultraboost Light", 1299.0, "2024-11-18"),
    (7, 5, "Yonex Astrox 88D Badminton Racket", 1380.0, "2025-01-09"),
]


def data_dir() -> Path:
    """Where the examples keep their databases (created on first use)."""
    path = Path(os.environ.get(DATA_ENV) or Path(tempfile.gettempdir()) / "mcpkit-examples")
    path.mkdir(parents=True, exist_ok=True)
    return path


def database() -> Path:
    """The sample database, created on first run (in a temp file, then renamed into place)."""
    path = data_dir() / DB_NAME
    if path.exists():
        return path
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    os.close(fd)
    db = sqlite3.connect(tmp)
    with db:
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO customers VALUES (?, ?, ?, ?)", CUSTOMERS)
        db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", ORDERS)
    db.close()
    os.replace(tmp, path)
    return path


class Refused(Exception):
    """The statement asked SQLite for something other than reading."""


_FORMAT_SPEC: Final = re.compile(r"%([-+ 0#,!]*)(\*|\d*)(?:\.(\*|\d*))?(?:ll|l)?(.)", re.S)


def _number(value: Any) -> int:
    try:
        return abs(int(float(value)))
    except (TypeError, ValueError, OverflowError):
        return 0


def bounded_printf(aux: sqlite3.Connection, fmt: Any, *args: Any) -> Any:
    """SQLite's ``printf``, refusing a width or precision past :data:`MAX_VALUE_BYTES` first
    (``aux``: a private in-memory connection whose built-in ``printf`` does the formatting)."""
    if isinstance(fmt, str):
        index = 0
        for match in _FORMAT_SPEC.finditer(fmt):
            _, width, precision, conversion = match.groups()
            if conversion == "%":
                continue
            for part in (width, precision):
                if part == "*":
                    size = _number(args[index]) if index < len(args) else 0
                    index += 1
                else:
                    size = int(part) if part else 0
                if size > MAX_VALUE_BYTES:
                    raise ValueError(
                        f"printf width or precision {size} is over the {MAX_VALUE_BYTES}-byte "
                        "limit of one value"
                    )
            index += 1
    marks = ", ".join("?" * (1 + len(args)))
    return aux.execute(f"SELECT printf({marks})", (fmt, *args)).fetchone()[0]


@contextlib.contextmanager
def read_only_connection() -> Iterator[tuple[sqlite3.Connection, list[str]]]:
    """A connection that can only read, and the list the authorizer records refusals in."""
    db = sqlite3.connect(f"{database().as_uri()}?mode=ro", uri=True)
    refused: list[str] = []
    stack = contextlib.ExitStack()
    try:
        db.execute("PRAGMA query_only = ON")
        db.execute(f"PRAGMA hard_heap_limit = {HEAP_LIMIT_BYTES}")
        for name, value in SQLITE_LIMITS.items():
            db.setlimit(getattr(sqlite3, name), value)

        def authorize(action: int, arg1: str | None, arg2: str | None, *_: Any) -> int:
            if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() not in ALLOWED_FUNCTIONS:
                refused.append(f"the SQL function {arg2}() (not in the allowed list)")
                return sqlite3.SQLITE_DENY
            if action in ALLOWED_ACTIONS:
                return sqlite3.SQLITE_OK
            what = ACTION_NAMES.get(action, f"action {action}")
            if arg1 in SCHEMA_TABLES:
                refused.append("a schema change")  # DROP/CREATE/ALTER write the schema table
            elif arg1 and action != sqlite3.SQLITE_PRAGMA:
                refused.append(f"{what} {arg1}")
            else:
                refused.append(what)
            return sqlite3.SQLITE_DENY

        aux = sqlite3.connect(":memory:")
        aux.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        stack.callback(aux.close)
        for name in ("printf", "format"):
            db.create_function(name, -1, lambda *a: bounded_printf(aux, *a), deterministic=True)
        db.set_authorizer(authorize)
        deadline = time.monotonic() + QUERY_TIME_LIMIT_SECONDS
        db.set_progress_handler(lambda: int(time.monotonic() > deadline), PROGRESS_CHECK_OPS)
        yield db, refused
    finally:
        db.close()
        stack.close()


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool


server = Server(
    "database",
    "1.0.0",
    title="Example company database",
    instructions="Read the db://schema resource, then answer with query_database (SELECT only).",
)


_QUERIES = ThreadPoolExecutor(max_workers=QUERY_WORKERS, thread_name_prefix="query")


@server.tool(read_only=True)
async def query_database(sql: str) -> QueryResult:
    """Run one read-only SQL SELECT against the company database (customers, orders).

    Args:
        sql: a single SELECT statement (SQLite dialect)
    """
    return await asyncio.get_running_loop().run_in_executor(_QUERIES, run_query, sql)


def run_query(sql: str) -> QueryResult:
    """:func:`query_database`'s work, on the queries' own threads."""
    with read_only_connection() as (db, refused):
        try:
            cursor = db.execute(sql)
            rows, cut = _bounded_rows(cursor)
        except sqlite3.ProgrammingError as exc:  # several statements in one string
            raise ToolError(f"only one SELECT statement at a time ({exc})") from None
        except sqlite3.DatabaseError as exc:
            message = str(exc)
            if refused or "authoriz" in message:
                wanted = ", ".join(dict.fromkeys(refused)) or message
                raise ToolError(
                    f"refused: only SELECT queries are allowed; this statement asks for {wanted}"
                ) from None
            if "interrupted" in message:
                raise ToolError(
                    f"the query ran longer than {QUERY_TIME_LIMIT_SECONDS:g} s and was stopped"
                ) from None
            if "user-defined function raised exception" in message:
                raise ToolError(
                    f"the query asks printf() for a value over {MAX_VALUE_BYTES} bytes; one "
                    "value may be at most that long"
                ) from None
            if "too big" in message or "out of memory" in message or "too long" in message:
                raise ToolError(
                    f"the query needs more memory than allowed ({message}): one value may be at "
                    f"most {MAX_VALUE_BYTES} bytes; aggregate less or add a LIMIT"
                ) from None
            raise ToolError(f"SQL error: {message}") from None
        columns = [d[0] for d in cursor.description or ()]
    if not columns:
        raise ToolError("only SELECT queries are allowed; this statement returns no rows")
    return QueryResult(columns, rows, len(rows), cut)


def _bounded_rows(cursor: sqlite3.Cursor) -> tuple[list[list[Any]], bool]:
    """At most MAX_ROWS rows whose JSON stays under MAX_RESULT_BYTES; whether rows were cut."""
    rows: list[list[Any]] = []
    size = 0
    for row in cursor:
        if len(rows) == MAX_ROWS:
            return rows, True
        values = list(row)
        size += len(msgspec.json.encode(values, enc_hook=repr)) + 1
        if size > MAX_RESULT_BYTES:
            return rows, True
        rows.append(values)
    return rows, False


@server.tool(read_only=True)
def count_rows() -> dict[str, int]:
    """How many rows each table holds (a quick look before writing a query)."""
    with read_only_connection() as (db, _):
        tables = [
            row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        ]
        return {t: db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


@server.resource("db://schema", mime_type="text/plain", title="Database schema")
def schema() -> str:
    """The CREATE statements of every table, to write queries against."""
    with read_only_connection() as (db, _):
        rows = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name")
        return ";\n".join(row[0] for row in rows.fetchall()) + ";\n"


if __name__ == "__main__":
    server.run()
