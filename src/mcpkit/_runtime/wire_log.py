"""``MCPKIT_WIRE_LOG``: append every message this process sends to a file, for debugging.

Set it to a path prefix and every outbound message — from servers and clients, any transport,
either era — is appended to ``<prefix>.<pid>``, one JSON object per line:
``{"version": ..., "method": ..., "message": {...}}``. Children started by the stdio client
inherit the variable, so a whole conversation tree logs. Unset, it costs nothing: no observer
is registered. (The test suite sets it to schema-check what its subprocesses send.)

It lives here, not in the sans-IO core: it reads the environment and writes a file; the core
only offers the observer hook (:mod:`mcpkit.protocol._observe`) it plugs into.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from mcpkit.protocol._observe import add_outbound_observer
from mcpkit.types._jsonrpc import Message

__all__ = ["WIRE_LOG_ENV", "WireLog", "install_from_env"]

WIRE_LOG_ENV: Final = "MCPKIT_WIRE_LOG"

_installed: list[WireLog] = []


class WireLog:
    """An outbound observer appending each message to ``<prefix>.<pid>``."""

    __slots__ = ("_fd",)

    def __init__(self, prefix: str) -> None:
        self._fd = os.open(f"{prefix}.{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def __call__(self, message: Message, protocol_version: str | None, method: str | None) -> None:
        import msgspec

        from mcpkit.types._jsonrpc import message_to_dict

        line = msgspec.json.encode(
            {"version": protocol_version, "method": method, "message": message_to_dict(message)}
        )
        os.write(self._fd, line + b"\n")  # one write per line: O_APPEND keeps lines whole


def install_from_env(environ: Mapping[str, str] = os.environ) -> WireLog | None:
    """Register a :class:`WireLog` if ``MCPKIT_WIRE_LOG`` is set (once per process)."""
    prefix = environ.get(WIRE_LOG_ENV)
    if not prefix or _installed:
        return None
    log = WireLog(prefix)
    _installed.append(log)
    add_outbound_observer(log)
    return log
