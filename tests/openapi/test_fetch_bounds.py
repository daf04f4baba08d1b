"""``fetch_document`` is bounded (issue 28): one deadline for the whole fetch however slowly the
body trickles, a size limit, a limit on redirects, and the address policy on a redirect to
another origin (a document URL must not be able to send the fetch into the local network).
A real uvicorn on loopback serves the documents.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from mcpkit.contrib.openapi import OpenAPIError, fetch_document, load_document

from .conftest import serve

DOCUMENT = json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}}).encode()


class _Documents:
    """Routes: /doc, /moved (same origin), /to-metadata, /to-private, /loop, /big, /trickle."""

    def __init__(self) -> None:
        self.stop = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"]
        redirects = {
            "/moved": "/doc",
            "/to-metadata": "http://169.254.169.254/latest/meta-data/",
            "/to-private": "https://10.0.0.1/openapi.json",
            "/loop": "/loop",
        }
        if path in redirects:
            await send(
                {
                    "type": "http.response.start",
                    "status": 302,
                    "headers": [(b"location", redirects[path].encode())],
                }
            )
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        if path == "/big":
            chunk = b" " * 65536
            for _ in range(20):  # 1.25 MiB of whitespace before the document
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": DOCUMENT})
        elif path == "/trickle":
            while not self.stop.is_set():  # a byte at a time: each read alone is quick
                await send({"type": "http.response.body", "body": b" ", "more_body": True})
                try:
                    await asyncio.wait_for(self.stop.wait(), 0.05)
                except TimeoutError:
                    pass
            await send({"type": "http.response.body", "body": DOCUMENT})
        else:
            await send({"type": "http.response.body", "body": DOCUMENT})


async def test_fetch_document_is_bounded() -> None:
    app = _Documents()
    async with serve(app) as url:
        try:
            assert (await fetch_document(f"{url}/moved")).title == "t"  # same origin: followed
            with pytest.raises(OpenAPIError, match=r"within 0\.5 s"):
                await asyncio.wait_for(fetch_document(f"{url}/trickle", timeout=0.5), 10)
            with pytest.raises(OpenAPIError, match="larger than"):
                await fetch_document(f"{url}/big", max_bytes=1024 * 1024)
            assert (await fetch_document(f"{url}/big")).title == "t"  # under the default limit
            for path in ("/to-metadata", "/to-private"):
                with pytest.raises(OpenAPIError, match="address policy refuses"):
                    await fetch_document(f"{url}{path}")
            with pytest.raises(OpenAPIError, match="redirects"):
                await fetch_document(f"{url}/loop")
            # the synchronous loader (a script's) has the same bounds
            with pytest.raises(OpenAPIError, match="address policy refuses"):
                await asyncio.to_thread(load_document, f"{url}/to-metadata")
            with pytest.raises(OpenAPIError, match=r"within 0\.5 s"):
                await asyncio.to_thread(load_document, f"{url}/trickle", timeout=0.5)
        finally:
            app.stop.set()
