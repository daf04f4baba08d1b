"""Find the fenced code blocks of a Markdown document, and what the document says about each.

Kept apart from the runner so the parsing rules can be tested on small strings. The rules (also
in docs/contributing.md):

* a fence is a line starting with three or more backticks or tildes (it may be indented, inside
  a list item: the indentation is removed from the block's lines); the first word after it is
  the block's language;
* ``<!-- no-run: REASON -->`` on the line directly above a fence marks that block as not run;
* a block whose paragraph just above (the marker aside) says "Save this as `NAME`" (or "save it
  as") is saved as NAME in the workspace of every later block of the same document.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "JSON_LANGUAGES",
    "NO_RUN_MARKER",
    "PYTHON_LANGUAGES",
    "SHELL_LANGUAGES",
    "Block",
    "parse_blocks",
    "shell_commands",
]

PYTHON_LANGUAGES: Final = frozenset({"python", "py"})
SHELL_LANGUAGES: Final = frozenset({"bash", "sh", "shell", "console"})
JSON_LANGUAGES: Final = frozenset({"json"})

_FENCE: Final = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
NO_RUN_MARKER: Final = re.compile(r"^\s*<!--\s*no-run:\s*(?P<reason>.*?)\s*-->\s*$")
_SAVE_AS: Final = re.compile(r"[Ss]ave (?:this|it) as `(?P<name>[^`]+)`")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text, and the document's notes on it."""

    path: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    text: str
    no_run: str | None
    """The reason given by a ``no-run`` marker directly above, else ``None``."""
    save_as: str | None
    """The file name a "Save this as `NAME`" sentence just above gives the block, else ``None``."""


def parse_blocks(path: Path, text: str) -> list[Block]:
    """Every fenced block of ``text`` (the contents of ``path``), in document order.

    An unclosed fence is an error: it would silently swallow the rest of the document.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening.group("indent"), opening.group("fence")
        info = opening.group("info").strip()
        language = info.split()[0].lower() if info else ""
        end = index + 1
        while end < len(lines) and not _closes(lines[end], fence):
            end += 1
        if end == len(lines):
            raise ValueError(f"{path}:{index + 1}: the code block opened here is never closed")
        body = [_dedent(line, indent) for line in lines[index + 1 : end]]
        blocks.append(
            Block(
                path=path,
                line=index + 1,
                language=language,
                text="\n".join(body) + "\n",
                no_run=_marker_above(lines, index),
                save_as=_save_as_above(lines, index),
            )
        )
        index = end + 1
    return blocks


def shell_commands(block: Block) -> list[str]:
    """The command lines of a shell block, in order.

    Comment-only and blank lines are dropped; a line ending in a backslash continues on the next.
    In a ``console`` block that shows prompts (lines starting with ``$ ``) only the prompted lines
    are commands: the rest is their output.
    """
    raw = block.text.splitlines()
    if block.language == "console" and any(line.startswith("$ ") for line in raw):
        raw = [line[2:] for line in raw if line.startswith("$ ")]
    commands: list[str] = []
    pending = ""
    for line in raw:
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = (pending + line).strip()
        pending = ""
        if command and not command.startswith("#"):
            commands.append(command)
    if pending.strip():
        commands.append(pending.strip())
    return commands


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0])


def _dedent(line: str, indent: str) -> str:
    return line[len(indent) :] if indent and line.startswith(indent) else line


def _marker_above(lines: list[str], fence_index: int) -> str | None:
    if fence_index == 0:
        return None
    found = NO_RUN_MARKER.match(lines[fence_index - 1])
    return found.group("reason") if found else None


def _save_as_above(lines: list[str], fence_index: int) -> str | None:
    """The last "Save this as `NAME`" in the paragraph ending just above the fence (or marker)."""
    index = fence_index - 1
    if index >= 0 and NO_RUN_MARKER.match(lines[index]):
        index -= 1
    while index >= 0 and not lines[index].strip():
        index -= 1
    paragraph: list[str] = []
    while index >= 0 and lines[index].strip() and not _FENCE.match(lines[index]):
        paragraph.insert(0, lines[index].strip())
        index -= 1
    found = list(_SAVE_AS.finditer(" ".join(paragraph)))
    return found[-1].group("name") if found else None
