"""``mcpkit rest``: the body is what the document declares (a JSON object; ``null`` or a body
that is not JSON is 400, no body means no arguments), and a tool that requires to run as a task
is started as one and followed to its result. Over uvicorn on loopback, both eras, the MCP
server a real stdio child."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

import httpx
import pytest

from mcpkit.contrib.openapi import rest_app

from .conftest import serve

SERVER: Final = Path(__file__).with_name("_task_server.py")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_bodies_are_objects_and_task_only_tools_answer(mode: str) -> None:
    facade = rest_app(f"{sys.executable} {SERVER}", client_options={"mode": mode}, timeout=30)
    async with facade, serve(facade) as url, httpx.AsyncClient(base_url=url) as http:
        null = await http.post(
            "/tools/ping", content=b"null", headers={"content-type": "application/json"}
        )
        blank = await http.post(
            "/tools/ping", content=b"\n", headers={"content-type": "application/json"}
        )
        empty = await http.post("/tools/ping")
        prompt_null = await http.post(
            "/prompts/hello", content=b"null", headers={"content-type": "application/json"}
        )
        slow = await http.post("/tools/research", json={"topic": "kites"})
        document = (await http.get("/openapi.json")).json()
    assert null.status_code == 400 and "object" in null.json()["detail"]
    assert blank.status_code == 400 and "not valid JSON" in blank.json()["detail"]
    assert empty.status_code == 200
    assert empty.json() == {"content": [{"type": "text", "text": "pong"}]}
    assert prompt_null.status_code == 400
    assert slow.status_code == 200, slow.text
    assert slow.json() == {"content": [{"type": "text", "text": "notes on kites"}]}
    assert "/tools/research" in document["paths"]
