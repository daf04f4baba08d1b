"""Parameter descriptions from Google, NumPy and Sphinx docstrings.

A tool's docstring is the natural place to describe its arguments, and the model reads those
descriptions, so :func:`parse_docstring` extracts them into the ``inputSchema``. The parser is
deliberately forgiving: a docstring it does not understand yields the whole text as the summary
and no parameter descriptions, never an error.
"""

from __future__ import annotations

import inspect
import re
from typing import Final

import msgspec

__all__ = ["ParsedDocstring", "parse_docstring"]

_GOOGLE_PARAM_HEADERS: Final = frozenset(
    {
        "args",
        "arguments",
        "parameters",
        "params",
        "keyword args",
        "keyword arguments",
        "other parameters",
    }
)
_GOOGLE_HEADER = re.compile(r"^([A-Za-z][A-Za-z ]*):\s*$")
_GOOGLE_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ENTRY = re.compile(r"^\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\s*(?::\s*(.*))?$")
_SPHINX_FIELD = re.compile(r"^:([A-Za-z]+)(?:\s+([^:]*?))?:\s*(.*)$")
_SPHINX_PARAM_KINDS: Final = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})


class ParsedDocstring(msgspec.Struct, frozen=True):
    """What a docstring says: its prose ``summary`` and per-parameter descriptions."""

    summary: str | None
    params: dict[str, str] = msgspec.field(default_factory=dict)


def parse_docstring(doc: str | None) -> ParsedDocstring:
    """Split ``doc`` into the summary (everything before the first section) and param descriptions.

    Recognises Google (``Args:``), NumPy (``Parameters`` + dashes) and Sphinx (``:param x:``)
    styles. Continuation lines are joined with single spaces.
    """
    if not doc:
        return ParsedDocstring(None)
    lines = inspect.cleandoc(doc).splitlines()
    params: dict[str, str] = {}
    summary_end = len(lines)
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        header = _GOOGLE_HEADER.match(stripped)
        if header and _indent(lines[i]) == 0:
            summary_end = min(summary_end, i)
            if header.group(1).lower() in _GOOGLE_PARAM_HEADERS:
                i = _parse_google_section(lines, i + 1, params)
                continue
        elif (
            stripped
            and i + 1 < len(lines)
            and _NUMPY_UNDERLINE.match(lines[i + 1])
            and _indent(lines[i]) == 0
        ):
            summary_end = min(summary_end, i)
            if stripped.lower() in _GOOGLE_PARAM_HEADERS:
                i = _parse_numpy_section(lines, i + 2, params)
                continue
            i += 2
            continue
        elif stripped.startswith(":") and _SPHINX_FIELD.match(stripped):
            summary_end = min(summary_end, i)
            i = _parse_sphinx_field(lines, i, params)
            continue
        i += 1
    summary = "\n".join(lines[:summary_end]).strip() or None
    return ParsedDocstring(summary, params)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join(parts: list[str]) -> str:
    return " ".join(p.strip() for p in parts if p.strip())


def _parse_google_section(lines: list[str], i: int, params: dict[str, str]) -> int:
    """Read ``name (type): text`` entries until a line at column 0; return the next index."""
    entry_indent: int | None = None
    name: str | None = None
    parts: list[str] = []
    while i < len(lines):
        line = lines[i]
        if line.strip() and _indent(line) == 0:
            break
        if line.strip():
            indent = _indent(line)
            if entry_indent is None:
                entry_indent = indent
            match = _GOOGLE_ENTRY.match(line.strip()) if indent <= entry_indent else None
            if match:
                if name is not None:
                    params[name] = _join(parts)
                name, parts = match.group(1), [match.group(2)]
            elif name is not None:
                parts.append(line)
        i += 1
    if name is not None:
        params[name] = _join(parts)
    return i


def _parse_numpy_section(lines: list[str], i: int, params: dict[str, str]) -> int:
    """Read ``name : type`` lines, each followed by indented text, until the next header."""
    name: str | None = None
    parts: list[str] = []
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and line.strip() and _NUMPY_UNDERLINE.match(lines[i + 1]):
            break  # the next section
        if line.strip() and _indent(line) == 0:
            match = _NUMPY_ENTRY.match(line.strip())
            if name is not None:
                params[name] = _join(parts)
            name, parts = (match.group(1), []) if match else (None, [])
        elif line.strip() and name is not None:
            parts.append(line)
        i += 1
    if name is not None:
        params[name] = _join(parts)
    return i


def _parse_sphinx_field(lines: list[str], i: int, params: dict[str, str]) -> int:
    """Read one ``:kind [type] name: text`` field and its indented continuation lines."""
    match = _SPHINX_FIELD.match(lines[i].strip())
    assert match is not None
    kind, target, text = match.group(1).lower(), (match.group(2) or "").split(), match.group(3)
    parts = [text]
    i += 1
    while i < len(lines) and lines[i].strip() and _indent(lines[i]) > 0:
        parts.append(lines[i])
        i += 1
    if kind in _SPHINX_PARAM_KINDS and target:
        params[target[-1]] = _join(parts)
    return i
