"""Files served by ``add_directory`` cannot escape their root through a symlink swapped in after
the path check (a time-of-check/time-of-use race), for the file itself or a directory on its way.

The race is made deterministic: the check (``uri_template.safe_join``) is wrapped so that, right
after it approves the path, the attacker's swap happens — exactly the window a real attacker
races for. Reads go through a connected client (``mcpkit.testing.connect``), both eras.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from mcpkit.protocol._errors import InvalidParams
from mcpkit.server import Server
from mcpkit.server import _uri_template as uri_template
from mcpkit.server._safe_files import read_under
from mcpkit.testing import ERAS, connect

SECRET = "top secret outside the root"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("inside a")
    (root / "sub" / "b.txt").write_text("inside b")
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "secret.txt").write_text(SECRET)
    (outside / "sub" / "b.txt").write_text(SECRET)
    return tmp_path


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    real = uri_template.safe_join

    def check_then_swap(root: Path | str, relative: str) -> Path:
        approved = real(root, relative)
        swap()  # the attacker wins the race: after the check, before the open
        return approved

    monkeypatch.setattr(uri_template, "safe_join", check_then_swap)


def _server(root: Path) -> Server:
    server = Server("files")
    server.add_directory("file:///docs/", str(root))
    return server


@pytest.mark.parametrize("mode", ERAS)
async def test_a_file_swapped_for_a_link_after_the_check_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    root = tree / "root"

    def swap() -> None:
        (root / "a.txt").unlink()
        (root / "a.txt").symlink_to(tree / "outside" / "secret.txt")

    _swap_after_check(monkeypatch, swap)
    async with connect(_server(root), mode=mode) as client:
        with pytest.raises(InvalidParams, match="symbolic link"):
            await client.read_resource("file:///docs/a.txt")


@pytest.mark.parametrize("mode", ERAS)
async def test_a_directory_swapped_for_a_link_after_the_check_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    root = tree / "root"

    def swap() -> None:
        os.rename(root / "sub", tree / "moved")
        (root / "sub").symlink_to(tree / "outside" / "sub")

    _swap_after_check(monkeypatch, swap)
    async with connect(_server(root), mode=mode) as client:
        with pytest.raises(InvalidParams, match="link"):
            await client.read_resource("file:///docs/sub/b.txt")


async def test_links_inside_the_root_that_exist_at_check_time_still_work(tree: Path) -> None:
    root = tree / "root"
    (root / "alias.txt").symlink_to(root / "sub" / "b.txt")
    (root / "escape.txt").symlink_to(tree / "outside" / "secret.txt")
    async with connect(_server(root)) as client:
        read = await client.read_resource("file:///docs/alias.txt")
        assert read.contents[0].text == "inside b"  # type: ignore[union-attr]
        with pytest.raises(InvalidParams, match="outside"):
            await client.read_resource("file:///docs/escape.txt")


def test_read_under_refuses_what_is_not_a_small_regular_file(tree: Path) -> None:
    root = tree / "root"
    os.mkfifo(root / "pipe")
    with pytest.raises(InvalidParams, match="not a regular file"):
        read_under(root, "pipe")  # and does not block on the FIFO
    with pytest.raises(InvalidParams, match="larger than 4 bytes"):
        read_under(root, "a.txt", max_bytes=4)
    with pytest.raises(FileNotFoundError):
        read_under(root, "missing.txt")
    assert read_under(root, "sub/b.txt") == b"inside b"
