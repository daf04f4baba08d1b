"""A progress bar on stderr for calls that report progress.

On a terminal it redraws one line (``[#######.......]  45%  message``) and clears it when the
call ends; into a pipe or file it writes one plain line per update (``progress 3/10 message``),
which is what logs and tests want. Nothing is drawn for a call that never reports progress.

Progress never goes backwards on screen: an update at or below the furthest point already shown
is skipped. In 2026-07-28 a tool that asks a question runs again from the top for the next round
and reports its early steps again; they are not shown twice.
"""

from __future__ import annotations

import sys
from typing import Final, TextIO

__all__ = ["BAR_WIDTH", "ProgressBar"]

BAR_WIDTH: Final = 30
"""Cells of the bar on a terminal."""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class ProgressBar:
    """Render ``notifications/progress`` for one call; pass :meth:`update` as the callback."""

    def __init__(self, stream: TextIO | None = None, *, label: str = "") -> None:
        self._stream = stream or sys.stderr
        self._tty = self._stream.isatty()
        self._label = label
        self._drawn = False
        self._furthest: float | None = None

    def update(self, progress: float, total: float | None, message: str | None) -> None:
        if self._furthest is not None and progress <= self._furthest:
            return  # already shown (a 2026 retry replays its earlier steps)
        self._furthest = progress
        text = message or ""
        if self._tty:
            if total:
                fraction = max(0.0, min(1.0, progress / total))
                filled = int(fraction * BAR_WIDTH)
                bar = "#" * filled + "." * (BAR_WIDTH - filled)
                line = f"{self._label}[{bar}] {fraction * 100:3.0f}%  {text}"
            else:
                line = f"{self._label}{_number(progress)}  {text}"
            self._stream.write("\r\x1b[2K" + line)
            self._drawn = True
        else:
            amount = f"{_number(progress)}/{_number(total)}" if total else _number(progress)
            self._stream.write(f"progress {amount}{' ' + text if text else ''}\n")
        self._stream.flush()

    def close(self) -> None:
        """Clear the bar (terminal) so the result prints on a clean line."""
        if self._drawn:
            self._stream.write("\r\x1b[2K")
            self._stream.flush()
            self._drawn = False
