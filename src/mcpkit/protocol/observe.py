"""A hook that sees every message mcpkit is about to send.

The test suite uses it to validate each outbound message against the negotiated revision's
official JSON Schema; users can use it for wire logging. With no observer registered the cost is
one truthiness check per message.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpkit.types.jsonrpc import Message

__all__ = [
    "OutboundObserver",
    "add_outbound_observer",
    "notify_outbound",
    "remove_outbound_observer",
]

OutboundObserver = Callable[[Message, "str | None", "str | None"], None]
"""Called as ``observer(message, protocol_version, method)``.

``protocol_version`` is the negotiated (legacy) or per-request (modern) revision, or ``None``
before one is known; ``method`` is the message's method, or for a response the method of the
request it answers (``None`` when unknown).
"""

_observers: list[OutboundObserver] = []


def add_outbound_observer(observer: OutboundObserver) -> None:
    _observers.append(observer)


def remove_outbound_observer(observer: OutboundObserver) -> None:
    if observer in _observers:
        _observers.remove(observer)


def notify_outbound(message: Message, protocol_version: str | None, method: str | None) -> None:
    """Tell every observer about ``message``. Call this right before the message is sent."""
    if _observers:
        for observer in tuple(_observers):
            observer(message, protocol_version, method)


WIRE_LOG_ENV = "MCPKIT_WIRE_LOG"
"""Set to a path prefix to append every outbound message of this process to ``<prefix>.<pid>``.

A debugging aid with no cost when unset: one JSON object per line,
``{"version": ..., "method": ..., "message": {...}}``. The test suite sets it so that messages
sent by server and client *subprocesses* are schema-checked too. Only the file write touches the
operating system; nothing else in the protocol core does.
"""


class _WireLog:
    __slots__ = ("_fd",)

    def __init__(self, prefix: str) -> None:
        import os

        self._fd = os.open(f"{prefix}.{os.getpid()}", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def __call__(self, message: Message, protocol_version: str | None, method: str | None) -> None:
        import os

        import msgspec

        from mcpkit.types.jsonrpc import message_to_dict

        line = msgspec.json.encode(
            {"version": protocol_version, "method": method, "message": message_to_dict(message)}
        )
        os.write(self._fd, line + b"\n")  # one write per line: O_APPEND keeps lines whole


def _install_wire_log_from_env() -> None:
    import os

    prefix = os.environ.get(WIRE_LOG_ENV)
    if prefix:
        add_outbound_observer(_WireLog(prefix))


_install_wire_log_from_env()
