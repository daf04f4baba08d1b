"""The listening socket ``serve`` accepts on: its own (``listening_socket``) or one handed down by a
supervisor (``MCPKIT_LISTEN_FD``, ``mcpkit run --workers``).

Accepted connections must get TCP_NODELAY: asyncio sets it only when the socket's ``proto``
says TCP, and without it a response written in two pieces (h11 writes headers and body
separately; SSE writes each event) stalls on the client's delayed ACK for ~40 ms. The check
is on the accepted socket itself, through the same ``create_server(sock=...)`` uvicorn uses.
"""

from __future__ import annotations

import asyncio
import os
import socket

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.transports.http._server.serve import (
    LISTEN_FD_ENV,
    _inherited_listener,
    listening_socket,
)


async def _nodelay_of_accepted(listener: socket.socket) -> int:
    """TCP_NODELAY of the server side of one connection accepted on ``listener``."""
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            accepted.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
    try:
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            async with asyncio.timeout(30):
                return await accepted
        finally:
            writer.close()
    finally:
        server.close()


async def test_connections_on_the_bound_socket_get_tcp_nodelay() -> None:
    listener = listening_socket("127.0.0.1", 0)
    assert await _nodelay_of_accepted(listener) != 0


async def test_an_inherited_socket_is_served_and_its_connections_get_tcp_nodelay(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    handed = socket.socket()  # as a supervisor might make it: proto 0
    handed.bind(("127.0.0.1", 0))
    handed.listen()
    monkeypatch.setenv(LISTEN_FD_ENV, str(os.dup(handed.fileno())))
    handed.close()
    listener = _inherited_listener()
    assert listener is not None
    assert LISTEN_FD_ENV not in os.environ  # read once: a child process must not reuse it
    assert await _nodelay_of_accepted(listener) != 0


def test_a_bad_inherited_descriptor_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LISTEN_FD_ENV, "three")
    with pytest.raises(UsageError, match="not a file descriptor number"):
        _inherited_listener()
    not_listening = socket.socket()
    try:
        monkeypatch.setenv(LISTEN_FD_ENV, str(not_listening.fileno()))
        with pytest.raises(UsageError, match="not a listening TCP socket"):
            _inherited_listener()
    finally:
        not_listening.close()
    assert _inherited_listener() is None  # unset: bind as usual
