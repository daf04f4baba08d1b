"""Documentation as resources, with change notifications (the design documents' docs server).

Run it::

    mcpkit run examples/docs_server.py                      # stdio
    mcpkit run examples/docs_server.py --http --port 8001   # Streamable HTTP
    mcpkit read examples/docs_server.py file:///docs/api-guide.md

Every file of the docs folder is a resource named ``file:///docs/<path>`` (``$MCPKIT_DOCS_DIR``;
default: a folder created and filled with sample pages on first run, under
``$MCPKIT_EXAMPLES_DATA``). A watcher started by the server's lifespan polls the folder every
:data:`POLL_INTERVAL_SECONDS`, comparing modification times and sizes, and when a file changes it
calls ``server.notify_resource_updated(uri)`` — which reaches legacy clients that sent
``resources/subscribe`` and 2026 clients listening with that URI in their filter. New and deleted
files add and remove resources (``list_changed``).

``search_docs`` searches the pages through a SQLite FTS5 index kept next to the other examples'
databases and refreshed by the same watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

from mcpkit.server import Server, ToolError
from mcpkit.server._resources import RegisteredResource
from mcpkit.server._safe_files import read_under
from mcpkit.server._uri_template import UnsafePathError

DATA_ENV: Final = "MCPKIT_EXAMPLES_DATA"
DOCS_ENV: Final = "MCPKIT_DOCS_DIR"
URI_PREFIX: Final = "file:///docs/"
POLL_INTERVAL_SECONDS: Final = 0.25
"""How often the watcher looks at the folder (one ``stat`` per file)."""
MAX_DOCS: Final = 1000
"""Files served from the folder; the rest are ignored (and logged once)."""
MAX_HITS: Final = 20
DOC_SUFFIXES: Final = (".md", ".txt", ".rst")

SAMPLE_DOCS: Final = {
    "api-guide.md": """# API guide

Every request carries a bearer token in the `Authorization` header.

- `GET /v1/products?query=...` searches the catalogue (Chinese and English keywords).
- `POST /v1/orders` places an order; it answers `201` with the order id.

Rate limit: 100 requests per minute per token; over it you get `429` with `Retry-After`.
""",
    "getting-started.md": """# Getting started

1. Create a token in the dashboard.
2. Call `GET /v1/products?query=running%20shoes`.
3. Read the API guide for the other endpoints.
""",
    "errors.md": """# Errors

| status | meaning | what to do |
|---|---|---|
| 400 | the request is malformed | fix the request body |
| 401 | the token is missing or expired | create a new token |
| 429 | too many requests | wait `Retry-After` seconds |
""",
}


def data_dir() -> Path:
    path = Path(os.environ.get(DATA_ENV) or Path(tempfile.gettempdir()) / "mcpkit-examples")
    path.mkdir(parents=True, exist_ok=True)
    return path


def docs_dir() -> Path:
    """The folder served; the default one is created with sample pages on first run."""
    configured = os.environ.get(DOCS_ENV)
    if configured:
        return Path(configured).resolve()
    path = data_dir() / "docs"
    if not path.exists():
        staging = Path(tempfile.mkdtemp(dir=path.parent, prefix="docs-"))
        for name, text in SAMPLE_DOCS.items():
            (staging / name).write_text(text, encoding="utf-8")
        with contextlib.suppress(OSError):  # another process may have won the race
            staging.rename(path)
    return path.resolve()


DOCS = docs_dir()
INDEX = data_dir() / f"docs-index-{hashlib.sha256(str(DOCS).encode()).hexdigest()[:12]}.sqlite"


def scan() -> dict[str, tuple[int, int]]:
    """``{relative path: (mtime_ns, size)}`` of the documentation files, at most MAX_DOCS."""
    found: dict[str, tuple[int, int]] = {}
    for path in sorted(DOCS.rglob("*")):
        if path.suffix in DOC_SUFFIXES and path.is_file() and not path.is_symlink():
            stat = path.stat()
            found[path.relative_to(DOCS).as_posix()] = (stat.st_mtime_ns, stat.st_size)
            if len(found) >= MAX_DOCS:
                break
    return found


def uri_for(relative: str) -> str:
    return URI_PREFIX + quote(relative)


@contextlib.contextmanager
def index() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(INDEX, timeout=10)
    try:
        with db:
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS pages USING fts5(uri UNINDEXED, title, body)"
            )
            yield db
    finally:
        db.close()


def reindex(relatives: list[str], removed: list[str]) -> None:
    with index() as db:
        for relative in [*relatives, *removed]:
            db.execute("DELETE FROM pages WHERE uri = ?", (uri_for(relative),))
        for relative in relatives:
            try:
                text = read_page(relative)
            except (OSError, UnsafePathError):  # gone, or swapped for a link since the scan
                continue
            title = next((line.lstrip("# ") for line in text.splitlines() if line.strip()), "")
            db.execute("INSERT INTO pages VALUES (?, ?, ?)", (uri_for(relative), title, text))


def read_page(relative: str) -> str:
    """A page's text, opened without following links: a page replaced by a symlink after the
    scan (say, to a file outside the folder) is refused, never read (see read_under)."""
    return read_under(DOCS, relative).decode("utf-8", "replace")


def reader(relative: str) -> RegisteredResource:
    def read() -> str:
        try:
            return read_page(relative)
        except FileNotFoundError:
            raise LookupError(relative) from None

    read.__name__ = relative
    mime = "text/markdown" if relative.endswith(".md") else "text/plain"
    return RegisteredResource(uri_for(relative), read, name=relative, mime_type=mime)


async def apply(server: Server, current: dict[str, tuple[int, int]]) -> None:
    """Bring the resources and the index up to ``current``; announce what changed."""
    changed = [rel for rel, sig in current.items() if rel in served and served[rel] != sig]
    added = [rel for rel in current if rel not in served]
    removed = [rel for rel in served if rel not in current]
    if not (changed or added or removed):
        return
    await asyncio.to_thread(reindex, changed + added, removed)
    for rel in added:
        server.add_resource(reader(rel))
    for rel in removed:
        server.remove_resource(uri_for(rel))
    served.clear()
    served.update(current)
    for rel in changed:
        await server.notify_resource_updated(uri_for(rel))


async def watch(server: Server) -> None:
    """Poll the folder for as long as the server runs."""
    while True:
        await asyncio.sleep(POLL_INTERVAL_SECONDS)
        await apply(server, await asyncio.to_thread(scan))


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[None]:
    """Index the folder and start its watcher, for as long as the server runs."""
    await asyncio.to_thread(reindex, list(served), [])
    await apply(server, await asyncio.to_thread(scan))
    task = asyncio.create_task(watch(server), name="docs-watcher")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


server = Server(
    "docs",
    "1.0.0",
    title="Example documentation",
    instructions="Documentation pages are resources (file:///docs/...); search_docs finds them.",
    lifespan=lifespan,
)

served: dict[str, tuple[int, int]] = scan()
"""What is registered now (listed before the first request; the watcher keeps it current)."""
for _relative in served:
    server.add_resource(reader(_relative))


@dataclass
class Hit:
    uri: str
    title: str
    snippet: str


@server.tool(read_only=True)
def search_docs(query: str) -> list[Hit]:
    """Full-text search over the documentation pages; returns resource URIs to read.

    Args:
        query: words to look for
    """
    words = [w.replace('"', '""') for w in query.split()]
    if not words:
        raise ToolError("give at least one word to search for")
    match = " ".join(f'"{w}"' for w in words)
    with index() as db:
        rows = db.execute(
            "SELECT uri, title, snippet(pages, 2, '**', '**', '…', 12) FROM pages"
            " WHERE pages MATCH ? ORDER BY rank LIMIT ?",
            (match, MAX_HITS),
        ).fetchall()
    return [Hit(uri, title, snippet) for uri, title, snippet in rows]


if __name__ == "__main__":
    server.run()
