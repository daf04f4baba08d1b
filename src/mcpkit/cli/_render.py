"""Plain-text output: aligned tables, tool results, resource contents, prompt messages, JSON.

No dependencies and no colours: output goes to pipes and files as often as to a terminal.
Cells are cut to :data:`MAX_CELL_WIDTH` characters (descriptions are summaries here; ``--json``
shows everything), and widths count East Asian wide characters as two columns so tables of
Chinese names stay aligned.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, TextIO

__all__ = [
    "MAX_CELL_WIDTH",
    "dump_json",
    "render_content",
    "render_table",
    "to_jsonable",
    "write",
]

MAX_CELL_WIDTH: Final = 60
"""Characters (columns) shown per table cell before it is cut with an ellipsis."""
MAX_BLOB_PREVIEW: Final = 64
"""Bytes of a binary content block described rather than printed."""


def to_jsonable(value: Any) -> Any:
    """Typed protocol objects (msgspec structs) to plain JSON values with the wire's names."""
    import msgspec

    return msgspec.to_builtins(value)


def dump_json(value: Any, stream: TextIO | None = None) -> None:
    """Pretty JSON, UTF-8 as is (no ``\\uXXXX`` for Chinese text)."""
    out = stream or sys.stdout
    out.write(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2) + "\n")


def write(text: str, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    out.write(text if text.endswith("\n") else text + "\n")


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split())  # one line per row
    if _width(text) <= limit:
        return text
    out, used = [], 0
    for ch in text:
        w = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
        if used + w > limit - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + "…"


def render_table(
    headers: Sequence[str], rows: Iterable[Sequence[Any]], *, stream: TextIO | None = None
) -> None:
    """An aligned table with a header row; ``None`` cells print as empty."""
    cells = [[_cut("" if v is None else str(v), MAX_CELL_WIDTH) for v in row] for row in rows]
    widths = [_width(h) for h in headers]
    for row in cells:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], _width(cell))

    def line(values: Sequence[str]) -> str:
        padded = [v + " " * (widths[i] - _width(v)) for i, v in enumerate(values)]
        return "  ".join(padded).rstrip()

    out = stream or sys.stdout
    out.write(line(headers) + "\n")
    out.write(line(["-" * w for w in widths]) + "\n")
    for row in cells:
        out.write(line(row) + "\n")


def render_content(blocks: Sequence[Any], *, stream: TextIO | None = None) -> None:
    """Content blocks (tool results, prompt messages): text as is, other kinds described."""
    out = stream or sys.stdout
    for block in blocks:
        data = to_jsonable(block)
        write(describe_block(data), out)


def describe_block(data: Mapping[str, Any]) -> str:
    kind = data.get("type")
    if kind == "text":
        return _pretty_if_json(str(data.get("text", "")))
    if kind in ("image", "audio"):
        size = len(str(data.get("data", ""))) * 3 // 4
        return f"[{kind} {data.get('mimeType', '?')}, about {size} bytes]"
    if kind == "resource_link":
        return f"[resource link {data.get('uri')}{_opt(data.get('name'))}]"
    if kind == "resource":
        resource = data.get("resource")
        if isinstance(resource, Mapping):
            if "text" in resource:
                return f"[resource {resource.get('uri')}]\n{resource.get('text')}"
            return f"[resource {resource.get('uri')}: binary {resource.get('mimeType', '')}]"
    return json.dumps(data, ensure_ascii=False)


def _pretty_if_json(text: str) -> str:
    """A text block holding a JSON object or array (a structured result) is indented."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return text
    try:
        value = json.loads(stripped)
    except ValueError:
        return text
    return json.dumps(value, ensure_ascii=False, indent=2)


def _opt(value: Any) -> str:
    return f" ({value})" if value else ""
