"""Showing what a stdio server writes to its stderr, as the ``mcpkit`` command runs it.

A tool that raises logs its traceback on the server's stderr; a person running
``mcpkit call server.py tool`` must see it without knowing about ``-v``. The stdio transport
logs every stderr line of its child as a record marked with
:data:`~mcpkit.transports._stdio_client.STDERR_RECORD_ATTR`; :class:`ServerStderr` prints exactly
those records on our own stderr, as the server wrote them (with ``NAME: `` in front when the
command runs several servers, as ``mcpkit host`` does).

Until the connection is up the lines are held back: if the server fails to start, the error
message already quotes its last stderr lines (so they are not printed twice); any other
failure, or a successful start, prints what was held. Once live, a later "the server went away"
error drops its quoted tail for the same reason (:func:`without_quoted_tail`).
"""

from __future__ import annotations

import logging
import sys
from typing import Final

__all__ = [
    "MAX_HELD_LINES",
    "ServerStderr",
    "current",
    "install",
    "is_server_line",
    "quotes_tail",
    "without_quoted_tail",
]

MAX_HELD_LINES: Final = 200
"""Lines held back while connecting; older ones are dropped (the error quotes the last ones)."""
_TAIL_MARKER: Final = "; last stderr lines:\n"


class ServerStderr(logging.Handler):
    """Prints the stderr lines of stdio servers (only those records) on ``sys.stderr``."""

    def __init__(self, *, prefix: bool = False) -> None:
        super().__init__(logging.DEBUG)
        self.prefix = prefix
        self.live = False
        self.shown = 0
        self._held: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        from mcpkit.transports import STDERR_RECORD_ATTR

        server = getattr(record, STDERR_RECORD_ATTR, None)
        if server is None:
            return
        line = record.getMessage()
        if self.prefix:
            line = f"{server}: {line}"
        if self.live:
            self._write(line)
        else:
            self._held.append(line)
            del self._held[:-MAX_HELD_LINES]

    def go_live(self) -> None:
        """The connection is up: print what was held back, then every line as it comes."""
        held, self._held = self._held, []
        for line in held:
            self._write(line)
        self.live = True

    def drop_held(self) -> None:
        self._held.clear()

    def _write(self, line: str) -> None:
        try:
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):  # our stderr is gone; the server's words have nowhere to go
            pass
        self.shown += 1


_handler: ServerStderr | None = None


def install(*, prefix: bool = False, live: bool = False) -> ServerStderr:
    """Attach a :class:`ServerStderr` to the stdio transport's loggers (replacing an older one).

    Other handlers should skip these records (:func:`is_server_line`), or ``-v`` prints each
    line twice.
    """
    global _handler
    from mcpkit.transports import set_default_stderr

    # The library shows a server's stderr on ours as it comes; the command logs it instead so
    # this handler can hold it back while connecting and prefix it by server.
    set_default_stderr("log")
    stdio_logger = logging.getLogger("mcpkit.stdio")
    if _handler is not None:
        stdio_logger.removeHandler(_handler)
    _handler = ServerStderr(prefix=prefix)
    if live:
        _handler.live = True
    stdio_logger.addHandler(_handler)
    stdio_logger.setLevel(
        logging.DEBUG if logging.getLogger().level <= logging.DEBUG else logging.INFO
    )
    return _handler


def current() -> ServerStderr | None:
    """The handler :func:`install` attached (``None`` outside the command)."""
    return _handler


def is_server_line(record: logging.LogRecord) -> bool:
    from mcpkit.transports import STDERR_RECORD_ATTR

    return hasattr(record, STDERR_RECORD_ATTR)


def quotes_tail(message: str) -> bool:
    return _TAIL_MARKER in message


def without_quoted_tail(message: str) -> str:
    """``message`` without the "last stderr lines" it quotes (they were printed already)."""
    head, marker, _ = message.partition(_TAIL_MARKER)
    return head if marker else message
