"""The audit log: one record per call a client makes through the gateway.

Each record says who (the client), what (method, backend, the tool / prompt / resource), a
digest of the arguments — the SHA-256 of their canonical JSON (sorted keys, no spaces, UTF-8), so
two identical calls can be matched without the log holding what was passed — how it ended and how
long it took. Records go to a sink: :class:`JsonLinesAudit` appends them to a file, one JSON
object per line; any callable taking an :class:`AuditRecord` (sync or async) works, e.g. to ship
them elsewhere. A failing sink is logged and never fails the call it records.

A record is bounded whatever the client sends: each text field is cut to
:data:`MAX_FIELD_CHARS` (a 2 MiB tool name used to add 4 MB to the log), with how much was cut
said at its end. :class:`JsonLinesAudit` also escapes the characters some line readers take for
line ends (U+0085, U+2028, U+2029; JSON escapes the ASCII ones already), so one record is always
one line, and a client cannot forge a second one.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any, Final, Literal

__all__ = [
    "MAX_FIELD_CHARS",
    "AuditOutcome",
    "AuditRecord",
    "AuditSink",
    "JsonLinesAudit",
    "arguments_digest",
    "emit",
]

logger = logging.getLogger("mcpkit.gateway")

MAX_FIELD_CHARS: Final = 1024
"""Characters kept of each text field of a record (client, method, backend, target, era, error)."""
_LINE_BREAKS: Final = str.maketrans({"\u0085": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_TEXT_FIELDS: Final = ("client", "method", "backend", "target", "era", "error")


def _bounded(text: str) -> str:
    if len(text) <= MAX_FIELD_CHARS:
        return text
    cut = len(text) - MAX_FIELD_CHARS
    return f"{text[:MAX_FIELD_CHARS]}…(+{cut} chars)"


AuditOutcome = Literal[
    "ok",
    "tool_error",
    "error",
    "denied",
    "rate_limited",
    "unavailable",
    "timeout",
    "cancelled",
    "input_required",
]


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One call through the gateway."""

    time: float
    """When the call arrived (seconds since the epoch)."""
    client: str
    method: str
    backend: str | None
    """``None`` when the call never reached a backend (unknown or refused target)."""
    target: str | None
    """The tool or prompt name as the client used it, or the resource URI."""
    arguments_digest: str | None
    """``sha256:<hex>`` of the canonical JSON of the arguments (``None`` without arguments)."""
    outcome: AuditOutcome
    duration_ms: float
    era: str
    error: str | None = None
    """For outcomes other than ``ok``: the error code and message sent to the client."""

    def __post_init__(self) -> None:
        for name in _TEXT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
                object.__setattr__(self, name, _bounded(value))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


AuditSink = Callable[[AuditRecord], Awaitable[None] | None]
"""Receives each record; may be async."""


def arguments_digest(arguments: Any) -> str | None:
    """``sha256:<hex>`` of the canonical JSON of ``arguments`` (``None`` when there are none)."""
    if arguments is None:
        return None
    canonical = json.dumps(
        arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JsonLinesAudit:
    """Appends records to ``path`` as JSON lines (one ``write`` per record, flushed)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._lock = threading.Lock()
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115  (closed by close())

    def __call__(self, record: AuditRecord) -> None:
        line = json.dumps(record.to_dict(), ensure_ascii=False, separators=(",", ":"))
        line = line.translate(_LINE_BREAKS) + "\n"
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()


async def emit(sink: AuditSink | None, record: AuditRecord) -> None:
    """Give ``record`` to ``sink``; its failures are logged, never raised."""
    if sink is None:
        return
    try:
        result = sink(record)
        if inspect.isawaitable(result):
            await result
    except Exception:
        logger.exception("the audit sink failed to record a %s call", record.method)
