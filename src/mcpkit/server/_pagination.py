"""Opaque pagination cursors over a deterministic, ordered list.

A cursor encodes the offset of the next page and the *version* of the list it was issued for
(e.g. a registry generation counter), followed by a short checksum; the whole is url-safe
base64. The checksum is unkeyed on purpose: it exists to reject garbage and accidental edits
with -32602 "Invalid cursor", not to stop a client from forging an offset (skipping ahead in a
list it may read anyway is harmless), and it lets every worker of a deployment accept every
other worker's cursors without sharing a secret.

A cursor issued for one version of the list is rejected once the list has changed (a new
version), so a client never silently gets a page shifted by an insertion; the spec then tells it
to discard its cached pages and start again.

About the empty string: 2026-07-28 says an empty-string cursor is a valid cursor value and
must not be read as "the end". mcpkit never *issues* ``""``; when a client *sends* ``""``, it is
treated as the start of the list (as some clients send it to mean "first page").
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Final, TypeAlias, TypeVar

import msgspec

from mcpkit.protocol._errors import InvalidParams, UsageError

__all__ = [
    "DEFAULT_PAGE_SIZE",
    "MAX_CURSOR_LENGTH",
    "InvalidCursor",
    "Page",
    "decode_cursor",
    "encode_cursor",
    "paginate",
]

T = TypeVar("T")

DEFAULT_PAGE_SIZE: Final = 100
MAX_CURSOR_LENGTH: Final = 256
"""Longer cursors are rejected before decoding (ours are a few dozen characters)."""
_CURSOR_FORMAT: Final = 1
_CHECKSUM_BYTES: Final = 6
_CHECKSUM_PERSON: Final = b"mcpkit-cursor"


class InvalidCursor(InvalidParams):
    """The cursor is not one this server issued for the current list (-32602)."""


Page: TypeAlias = tuple[list[T], str | None]
"""One page: its items and the cursor of the next page (``None`` at the end). A plain tuple:
a generic ``NamedTuple`` cost ~0.85 M instructions to build at import, on every server's start."""


def _checksum(body: bytes) -> bytes:
    import hashlib  # only paginated lists get here: kept off a stdio server's startup

    return hashlib.blake2b(body, digest_size=_CHECKSUM_BYTES, person=_CHECKSUM_PERSON).digest()


def encode_cursor(offset: int, version: int | str = 0) -> str:
    """The opaque cursor for ``offset`` in version ``version`` of a list."""
    body = msgspec.json.encode([_CURSOR_FORMAT, offset, version])
    return base64.urlsafe_b64encode(body + _checksum(body)).rstrip(b"=").decode("ascii")


def decode_cursor(cursor: str, version: int | str = 0) -> int:
    """The offset in ``cursor``; raises :class:`InvalidCursor` unless it is ours and current."""
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise InvalidCursor("Invalid cursor: too long")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise InvalidCursor("Invalid cursor: not a cursor this server issued") from None
    body, check = raw[:-_CHECKSUM_BYTES], raw[-_CHECKSUM_BYTES:]
    if len(raw) <= _CHECKSUM_BYTES or _checksum(body) != check:
        raise InvalidCursor("Invalid cursor: not a cursor this server issued")
    try:
        fmt, offset, issued_for = msgspec.json.decode(body, type=tuple[int, int, int | str])
    except msgspec.DecodeError:
        raise InvalidCursor("Invalid cursor: not a cursor this server issued") from None
    if fmt != _CURSOR_FORMAT or offset < 0:
        raise InvalidCursor("Invalid cursor: not a cursor this server issued")
    if issued_for != version:
        raise InvalidCursor(
            "Invalid cursor: the list changed since this cursor was issued; "
            "list again from the start"
        )
    return offset


def paginate(
    items: Sequence[T],
    cursor: str | None,
    page_size: int = DEFAULT_PAGE_SIZE,
    *,
    version: int | str = 0,
) -> Page[T]:
    """The page of ``items`` that ``cursor`` points at (``None`` or ``""``: the first page).

    ``version`` identifies the list's current contents; bump it whenever the list changes so
    old cursors are refused instead of skipping or repeating entries. Raises
    :class:`InvalidCursor` (-32602) for a cursor this server did not issue for this version.
    """
    if page_size < 1:
        raise UsageError(f"page_size must be at least 1, got {page_size}")
    offset = decode_cursor(cursor, version) if cursor else 0
    end = offset + page_size
    page = list(items[offset:end])
    return page, (encode_cursor(end, version) if end < len(items) else None)
