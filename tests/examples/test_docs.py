"""The docs example: a folder as resources; editing a file notifies subscribed clients."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.types._notifications import ResourceListChangedNotification, ResourceUpdatedNotification

from ._servers import EXAMPLES, NOTIFY_TIMEOUT, example

CONNECT_RETRY_SECONDS = 0.05

GUIDE = "file:///docs/api-guide.md"


def _docs(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "api-guide.md").write_text("# API guide\n\nTokens expire after an hour.\n")
    (folder / "faq.md").write_text("# FAQ\n")
    return folder, example("docs_server.py", tmp_path / "data", MCPKIT_DOCS_DIR=str(folder))


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_editing_a_page_notifies_a_subscribed_client(tmp_path: Path, mode: Any) -> None:
    folder, entry = _docs(tmp_path)
    async with Client(entry, mode=mode) as client:
        uris = [r.uri for r in await client.list_resources()]
        assert uris == [GUIDE, "file:///docs/faq.md"]
        async with client.listen(resource_uris=[GUIDE]) as changes:
            notes = aiter(changes)
            ack = await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)
            assert ack.params.notifications.resource_subscriptions == [GUIDE]
            (folder / "faq.md").write_text("# FAQ\n\nnot subscribed to this one\n")
            (folder / "api-guide.md").write_text("# API guide\n\nTokens expire after a day.\n")
            note = await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)
        assert isinstance(note, ResourceUpdatedNotification)
        assert note.params.uri == GUIDE  # the faq edit was not sent to this subscriber
        read = await client.read_resource(GUIDE)
        assert read.contents[0].text.endswith("Tokens expire after a day.\n")
        hits = await client.call_tool("search_docs", {"query": "day"})
        assert [h["uri"] for h in hits.structured_content["result"]] == [GUIDE]


async def test_a_new_page_becomes_a_resource(tmp_path: Path) -> None:
    folder, entry = _docs(tmp_path)
    async with Client(entry) as client, client.listen(resources=True) as changes:
        notes = aiter(changes)
        await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)  # acknowledged
        (folder / "errors.md").write_text("# Errors\n")
        note = await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)
        assert isinstance(note, ResourceListChangedNotification)
        uris = [r.uri for r in await client.list_resources()]
        assert "file:///docs/errors.md" in uris


async def test_the_default_folder_is_created_with_sample_pages(tmp_path: Path) -> None:
    async with Client(example("docs_server.py", tmp_path)) as client:
        uris = {r.uri for r in await client.list_resources()}
        guide = await client.read_resource(GUIDE)
    assert uris == {GUIDE, "file:///docs/getting-started.md", "file:///docs/errors.md"}
    assert guide.contents[0].text.startswith("# API guide")
    assert (tmp_path / "docs" / "api-guide.md").is_file()


async def test_over_streamable_http_an_edit_reaches_the_listener(tmp_path: Path) -> None:
    """Server B of the demo: the docs server served by ``mcpkit run --http``."""
    folder, entry = _docs(tmp_path)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcpkit.cli", "run", str(EXAMPLES / "docs_server.py"),
        "--http", "--port", str(port),
        env={**os.environ, **entry["env"]}, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await _wait_for_port(port, server)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert client.era == "modern"
            async with client.listen(resource_uris=[GUIDE]) as changes:
                notes = aiter(changes)
                await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)
                (folder / "api-guide.md").write_text("# API guide\n\nRotated.\n")
                note = await asyncio.wait_for(anext(notes), NOTIFY_TIMEOUT)
            assert isinstance(note, ResourceUpdatedNotification)
            assert note.params.uri == GUIDE
    finally:
        server.terminate()
        await asyncio.wait_for(server.wait(), NOTIFY_TIMEOUT)


async def _wait_for_port(port: int, process: asyncio.subprocess.Process) -> None:
    """Bounded wait until the server accepts connections (fails at once if it exits)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + NOTIFY_TIMEOUT
    while loop.time() < deadline:
        assert process.returncode is None, f"the docs server exited with {process.returncode}"
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(CONNECT_RETRY_SECONDS)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise AssertionError(f"the docs server did not listen on {port} in {NOTIFY_TIMEOUT} s")
