"""A gateway backend that resolves resource paths the way many do (``posixpath.normpath``):
``kb://public/../private/x`` reads ``private/x``. The gateway must judge consent on what the
backend will resolve, not on the text it was sent.

Run with the project's interpreter: ``python kb_server.py``.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote

from mcpkit.server import Server

server = Server("kb", "1.0.0")
DOCUMENTS = {"public/guide": "How to use the shop.", "private/salaries": "SECRET salaries"}


@server.resource("kb://{+path}", mime_type="text/plain")
def document(path: str) -> str:
    resolved = posixpath.normpath(unquote(unquote(path)).replace("\\", "/"))
    if resolved not in DOCUMENTS:
        raise LookupError(path)
    return DOCUMENTS[resolved]


@server.tool
def listening() -> int:
    """How many ``subscriptions/listen`` streams are open on this backend."""
    return server.listen_hub.count


@server.tool
async def wait_listening(count: int) -> int:
    """Wait until exactly ``count`` listen streams are open here (the test bounds the wait)."""
    await server.listen_hub.wait_count(count)
    return server.listen_hub.count


@server.tool
async def touch(path: str) -> str:
    """Announce that ``kb://<path>`` changed."""
    await server.notify_resource_updated(f"kb://{path}")
    return f"touched {path}"


if __name__ == "__main__":
    server.run()
