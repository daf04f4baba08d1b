"""The docs example: a folder as resources; editing a file notifies subscribed clients."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import Client
from mcpkit.types.notifications import ResourceListChangedNotification, ResourceUpdatedNotification

from ._servers import NOTIFY_TIMEOUT, example

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
