"""The asyncio runtime: drives the sans-IO protocol core over a message stream.

The only layer that owns tasks, clocks and timeouts. Transports implement
:class:`MessageStream`; the server and client run a :class:`Session` over one.
"""

import os

from mcpkit._runtime.context import (
    NotificationHandler,
    ProgressCallback,
    RequestContext,
    RequestHandler,
)
from mcpkit._runtime.session import Session
from mcpkit._runtime.stream import MessageStream

if os.environ.get("MCPKIT_WIRE_LOG"):  # (wire_log.WIRE_LOG_ENV: every server and client
    # process loads this package; the wire log module is imported only when asked for)
    from mcpkit._runtime.wire_log import install_from_env

    install_from_env()

__all__ = [
    "MessageStream",
    "NotificationHandler",
    "ProgressCallback",
    "RequestContext",
    "RequestHandler",
    "Session",
]
