"""Test helpers: run mcpkit's client against a server in the same process.

>>> async with connect(server) as client:            # era detected (2026-07-28 here)
...     result = await client.call_tool("add", {"a": 1, "b": 2})
>>> async with connect(server, mode="legacy") as client:   # force the handshake era
...     ...

The connection runs over the in-memory stream pair, through the same JSON codec and session
engine as stdio, so what passes here passes on the wire. ``ERAS`` parametrizes a test over both
eras: ``@pytest.mark.parametrize("mode", ERAS)``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final, Unpack

if TYPE_CHECKING:
    from mcpkit.client import Client, ClientOptions
    from mcpkit.server import Server
    from mcpkit.types import ClientMode

__all__ = ["ERAS", "connect"]

ERAS: Final[tuple[ClientMode, ...]] = ("legacy", "2026-07-28")
"""Client modes covering both protocol eras."""


@contextlib.asynccontextmanager
async def connect(
    server: Server, **client_options: Unpack[ClientOptions]
) -> AsyncIterator[Client]:
    """A connected :class:`~mcpkit.client.Client` for ``server``, with its lifespan running.

    ``client_options`` go to ``Client`` (handlers for elicitation, sampling and roots,
    timeouts, ``output_validation`` …).
    """
    from mcpkit.client import Client

    async with server.running(), Client(server, **client_options) as client:
        yield client
