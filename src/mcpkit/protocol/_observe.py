"""A hook that sees every message mcpkit is about to send.

The test suite uses it to validate each outbound message against the negotiated revision's
official JSON Schema; ``MCPKIT_WIRE_LOG`` (:mod:`mcpkit._runtime.wire_log`) uses it to log the
wire. With no observer registered the cost is one truthiness check per message.
"""

from __future__ import annotations

from collections.abc import Callable

from mcpkit.types._jsonrpc import Message

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
