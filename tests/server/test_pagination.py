"""Opaque cursors over an ordered list."""

import base64

import pytest

from mcpkit.protocol._errors import INVALID_PARAMS, InvalidParams, UsageError
from mcpkit.server._pagination import (
    MAX_CURSOR_LENGTH,
    InvalidCursor,
    Page,
    encode_cursor,
    paginate,
)

ITEMS = [f"tool{i}" for i in range(25)]


def test_walks_every_item_exactly_once() -> None:
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page, cursor = paginate(ITEMS, cursor, 10)
        seen.extend(page)
        pages += 1
        if cursor is None:
            break
        assert cursor != ""  # we never issue the empty string
    assert seen == ITEMS
    assert pages == 3


def test_exact_multiple_has_no_trailing_empty_page() -> None:
    page, cursor = paginate(ITEMS[:20], None, 10)
    page, cursor = paginate(ITEMS[:20], cursor, 10)
    assert len(page) == 10 and cursor is None


def test_empty_list_and_returns_a_page() -> None:
    result: Page[str] = paginate([], None, 10)
    assert result == ([], None)


def test_empty_string_cursor_means_the_start() -> None:
    assert paginate(ITEMS, "", 10) == paginate(ITEMS, None, 10)


@pytest.mark.parametrize(
    "cursor",
    ["garbage", "!!!", "e30", "A" * (MAX_CURSOR_LENGTH + 1), base64.b64encode(b"[1,5,0]").decode()],
)
def test_garbage_cursors_are_invalid_params(cursor: str) -> None:
    with pytest.raises(InvalidCursor) as info:
        paginate(ITEMS, cursor, 10)
    assert info.value.code == INVALID_PARAMS
    assert isinstance(info.value, InvalidParams)
    assert info.value.message.startswith("Invalid cursor")


def test_edited_cursor_is_rejected() -> None:
    _, cursor = paginate(ITEMS, None, 10)
    assert cursor is not None
    edited = cursor[:-2] + ("AA" if cursor[-2:] != "AA" else "BB")
    with pytest.raises(InvalidCursor):
        paginate(ITEMS, edited, 10)


def test_cursor_from_a_changed_list_is_rejected() -> None:
    _, cursor = paginate(ITEMS, None, 10, version=1)
    assert cursor is not None
    assert paginate(ITEMS, cursor, 10, version=1)[0] == ITEMS[10:20]
    with pytest.raises(InvalidCursor, match="list changed"):
        paginate(ITEMS, cursor, 10, version=2)


def test_offset_past_the_end_gives_an_empty_last_page() -> None:
    page, cursor = paginate(ITEMS[:3], encode_cursor(10), 10)
    assert page == [] and cursor is None


def test_page_size_must_be_positive() -> None:
    with pytest.raises(UsageError):
        paginate(ITEMS, None, 0)
