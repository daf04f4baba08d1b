"""Content-block helpers: build the wire dicts tools and prompts return.

Each function returns a plain ``dict`` in wire form (``{"type": "text", "text": ...}``), so the
result can be returned from a tool as is, inspected in tests, or encoded without conversion.
Binary data is base64-encoded here; MIME types are guessed from a file suffix when a path is
given. Every block takes optional ``annotations`` (see :func:`make_annotations`) and ``meta``
(sent as ``_meta``).

A ``str`` passed as ``data`` is a *file path*; pass ``bytes`` for in-memory data.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Literal

from mcpkit.protocol._errors import UsageError

if TYPE_CHECKING:  # imported where used: pathlib and datetime cost a stdio server's startup
    from datetime import datetime

__all__ = [
    "MAX_INLINE_FILE_BYTES",
    "Annotations",
    "audio",
    "embedded_blob",
    "embedded_text",
    "guess_mime_type",
    "image",
    "make_annotations",
    "resource_link",
    "text",
]

Annotations = Mapping[str, Any]
Data = bytes | bytearray | memoryview | str | os.PathLike[str]

MAX_INLINE_FILE_BYTES: Final = 64 * 1024 * 1024
"""A file larger than this is refused rather than base64-encoded into one message."""

_SUFFIX_TYPES: Final = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".bmp": "image/bmp",
    ".ico": "image/x-icon",
    ".avif": "image/avif",
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".oga": "audio/ogg",
    ".flac": "audio/flac",
    ".m4a": "audio/mp4",
    ".aac": "audio/aac",
    ".weba": "audio/webm",
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".html": "text/html",
    ".json": "application/json",
    ".pdf": "application/pdf",
}
_AUDIENCES: Final = frozenset({"user", "assistant"})
_OCTET_STREAM: Final = "application/octet-stream"


def guess_mime_type(path: str | os.PathLike[str], default: str = _OCTET_STREAM) -> str:
    """The MIME type for ``path``'s suffix (a fixed table first, then :mod:`mimetypes`)."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    known = _SUFFIX_TYPES.get(suffix)
    if known:
        return known
    import mimetypes  # lazily: it reads the system MIME tables on first use

    return mimetypes.guess_type(f"x{suffix}")[0] or default


def make_annotations(
    *,
    audience: Sequence[Literal["user", "assistant"]] | None = None,
    priority: float | None = None,
    last_modified: datetime | str | None = None,
) -> dict[str, Any]:
    """An ``annotations`` object, checked: audience ⊆ {user, assistant}, 0 ≤ priority ≤ 1.

    ``last_modified`` may be a datetime (naive means UTC) or an ISO 8601 string.
    """
    out: dict[str, Any] = {}
    if audience is not None:
        bad = [a for a in audience if a not in _AUDIENCES]
        if bad or isinstance(audience, str):
            raise UsageError(f"audience must be a list of 'user'/'assistant', got {audience!r}")
        out["audience"] = list(audience)
    if priority is not None:
        if isinstance(priority, bool) or not 0 <= priority <= 1:
            raise UsageError(f"priority must be a number from 0 to 1, got {priority!r}")
        out["priority"] = priority
    if last_modified is not None:
        from datetime import UTC, datetime

        if isinstance(last_modified, datetime):
            if last_modified.tzinfo is None:
                last_modified = last_modified.replace(tzinfo=UTC)
            last_modified = last_modified.isoformat()
        out["lastModified"] = last_modified
    return out


def _finish(
    block: dict[str, Any], annotations: Annotations | None, meta: Mapping[str, Any] | None
) -> dict[str, Any]:
    if annotations:
        block["annotations"] = dict(annotations)
    if meta:
        block["_meta"] = dict(meta)
    return block


def _b64(data: bytes | bytearray | memoryview) -> str:
    return base64.b64encode(data).decode("ascii")


def _load(
    data: Data, mime_type: str | None, what: str
) -> tuple[bytes | bytearray | memoryview, str]:
    """Bytes and MIME type from in-memory data or a file path."""
    if isinstance(data, bytes | bytearray | memoryview):
        if mime_type is None:
            raise UsageError(f"{what}: pass mime_type= with in-memory data")
        return data, mime_type
    from pathlib import Path

    path = Path(data)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise UsageError(f"{what}: cannot read {str(path)!r}: {exc.strerror}") from None
    if size > MAX_INLINE_FILE_BYTES:
        raise UsageError(
            f"{what}: {str(path)!r} is {size} bytes, over the {MAX_INLINE_FILE_BYTES}-byte limit "
            "for inline content; serve it as a resource instead"
        )
    return path.read_bytes(), mime_type or guess_mime_type(path)


def text(
    value: str, *, annotations: Annotations | None = None, meta: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """A text block: ``{"type": "text", "text": value}``."""
    return _finish({"type": "text", "text": value}, annotations, meta)


def image(
    data: Data,
    mime_type: str | None = None,
    *,
    annotations: Annotations | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An image block from bytes (``mime_type`` required) or a file path (type guessed)."""
    raw, mime = _load(data, mime_type, "image")
    return _finish({"type": "image", "data": _b64(raw), "mimeType": mime}, annotations, meta)


def audio(
    data: Data,
    mime_type: str | None = None,
    *,
    annotations: Annotations | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An audio block from bytes (``mime_type`` required) or a file path (type guessed)."""
    raw, mime = _load(data, mime_type, "audio")
    return _finish({"type": "audio", "data": _b64(raw), "mimeType": mime}, annotations, meta)


def resource_link(
    uri: str,
    name: str,
    *,
    title: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    size: int | None = None,
    icons: Sequence[Mapping[str, Any]] | None = None,
    annotations: Annotations | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``resource_link`` block pointing at ``uri`` (it need not be in ``resources/list``)."""
    block: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": name}
    for key, value in (
        ("title", title),
        ("description", description),
        ("mimeType", mime_type),
        ("size", size),
    ):
        if value is not None:
            block[key] = value
    if icons:
        block["icons"] = [dict(i) for i in icons]
    return _finish(block, annotations, meta)


def embedded_text(
    uri: str,
    value: str,
    mime_type: str | None = "text/plain",
    *,
    annotations: Annotations | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An embedded text resource: ``{"type": "resource", "resource": {uri, mimeType, text}}``."""
    resource: dict[str, Any] = {"uri": uri, "text": value}
    if mime_type is not None:
        resource["mimeType"] = mime_type
    return _finish({"type": "resource", "resource": resource}, annotations, meta)


def embedded_blob(
    uri: str,
    data: Data,
    mime_type: str | None = None,
    *,
    annotations: Annotations | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An embedded binary resource (``blob`` base64) from bytes or a file path."""
    raw, mime = _load(data, mime_type, "embedded_blob")
    resource = {"uri": uri, "mimeType": mime, "blob": _b64(raw)}
    return _finish({"type": "resource", "resource": resource}, annotations, meta)
