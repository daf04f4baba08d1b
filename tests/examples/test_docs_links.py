"""The docs example never serves a file outside its folder, even when a page is replaced by a
symlink after the server listed it (the example reads pages with ``read_under``, no-follow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpkit.client import Client
from mcpkit.protocol._errors import JSONRPCError

from ._servers import example

GUIDE = "file:///docs/api-guide.md"
SECRET = "the private key outside the docs folder"


async def test_a_page_swapped_for_a_link_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "api-guide.md").write_text("# API guide\n")
    secret = tmp_path / "secret.md"
    secret.write_text(SECRET)
    entry = example("docs_server.py", tmp_path / "data", MCPKIT_DOCS_DIR=str(folder))
    async with Client(entry) as client:
        assert (await client.read_resource(GUIDE)).contents[0].text == "# API guide\n"  # type: ignore[union-attr]
        (folder / "api-guide.md").unlink()
        (folder / "api-guide.md").symlink_to(secret)  # swapped after the listing
        with pytest.raises(JSONRPCError) as refused:  # refused (or already unlisted): never read
            await client.read_resource(GUIDE)
        assert SECRET not in str(refused.value)
        hits = await client.call_tool("search_docs", {"query": "private"})
        assert SECRET not in str(hits)
