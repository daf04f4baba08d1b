"""A guard around uvicorn's HTTP protocol: a deadline for request headers, a cap per peer.

uvicorn (0.54, both h11 and httptools) times a connection out only *between* requests
(``timeout_keep_alive`` starts after a response). A fresh connection that sends nothing, or
trickles a header one byte at a time, is kept forever, and every such socket counts against
``limit_concurrency``: a thousand of them and every legitimate request gets 503 (or the process
runs out of file descriptors). The guard is a subclass of the chosen protocol class, so it runs on
the default serve path (``server.run("http")``, ``mcpkit run --http``) at no cost per request:

* **header deadline** — from the connection's first moment (and from the first byte of each later
  request on a kept-alive connection) the request line and headers must be complete within
  ``header_timeout`` seconds in total, however slowly they trickle; otherwise the connection is
  answered 408 (if it sent anything) and closed. Bodies have their own bound in the app
  (``body_timeout``); responses and SSE streams are not affected.
* **connections per peer** — one peer (IPv4 address or IPv6 ``/64``) may hold at most
  ``max_per_peer`` open connections; beyond that a new connection is answered 503 and closed at
  once, so one client cannot take every slot of ``limit_concurrency`` from the others.
  Connections from a trusted proxy (``trusted``, the ``forwarded_allow_ips`` addresses) are not
  capped: they carry many clients, whose open requests are capped one by one instead
  (:mod:`mcpkit.transports.http._server.client_limit`).
* **health checks pass** — a peer at its cap may still open :data:`HEALTH_ALLOWANCE` more
  connections, on which only ``GET``/``HEAD`` of ``health_path`` is served (anything else is
  answered 503 and closed as soon as its request line arrives): a load balancer whose address
  is at the cap must still see that the worker serves, or it takes a healthy worker out.

* **serving slots count requests, not sockets** — uvicorn's ``limit_concurrency`` counts every
  open connection, so sockets still trickling their headers (from many addresses, each under its
  per-peer cap) take the slots of complete requests and every good request gets 503. The guard
  takes the limit over: only requests being served (ASGI tasks, less those whose client went
  away while their handler waits: see ``_parked``) count against ``limit_concurrency``; a
  request whose headers are complete is answered 503 only when that many are being served.
* **connections in all** — at most ``max_connections`` sockets are open at once (a bound on file
  descriptors). When a new one would exceed it, the connection that has waited longest *without
  a request being served* (trickling headers, or idle between requests) is cut (408 if it sent
  part of a request) to make room; only when every connection is serving is the new one refused
  (503). So sockets that never finish their headers cannot keep complete requests out.

The protocol's ``cycle`` attribute (the request being served; a new object once a request's
headers are parsed) is how the guard sees that headers are complete: it is what both of uvicorn's
HTTP implementations set.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from mcpkit._runtime.tasks import TaskSet
from mcpkit._runtime.timers import Timer
from mcpkit.transports.http._server.parked import serving
from mcpkit.transports.http._server.peers import peer_key
from mcpkit.transports.http._server.proxies import TrustedProxies

__all__ = [
    "HEADER_TIMEOUT_SECONDS",
    "HEALTH_ALLOWANCE",
    "MAX_CONNECTIONS",
    "MAX_CONNECTIONS_PER_PEER",
    "guarded_protocol",
]

logger = logging.getLogger("mcpkit.http")

HEADER_TIMEOUT_SECONDS: Final = 10.0
"""A request's line and headers must have arrived this long after the connection (or the
request's first byte) at the latest."""
MAX_CONNECTIONS_PER_PEER: Final = 100
"""Open connections one peer may hold (a tenth of the default ``limit_concurrency``)."""
MAX_CONNECTIONS: Final = 4000
"""Open connections in all (lowered to what the process's descriptor limit allows)."""
HEALTH_ALLOWANCE: Final = 4
"""Connections beyond its cap a peer may open for health checks only."""
_REQUEST_LINE_LIMIT: Final = 8192


def _plain_response(status: str, text: str, *extra: str) -> bytes:
    body = text.encode()
    head = [
        f"HTTP/1.1 {status}",
        "content-type: text/plain; charset=utf-8",
        *extra,
        "connection: close",
        f"content-length: {len(body)}",
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


_TIMEOUT_RESPONSE: Final = _plain_response(
    "408 Request Timeout", "Request Timeout: the request headers did not arrive in time\n"
)
_BUSY_RESPONSE: Final = _plain_response(
    "503 Service Unavailable",
    "Service Unavailable: too many open connections from this client\n",
    "retry-after: 1",
)


def guarded_protocol(
    base: type[asyncio.Protocol],
    *,
    header_timeout: float | None = HEADER_TIMEOUT_SECONDS,
    max_per_peer: int | None = MAX_CONNECTIONS_PER_PEER,
    limit_concurrency: int | None = None,
    max_connections: int | None = None,
    trusted: TrustedProxies | None = None,
    health_path: str | None = None,
) -> type[asyncio.Protocol]:
    """A subclass of uvicorn's protocol class ``base`` with the guard (see the module docstring).

    Each call makes a new class with its own per-peer counts: one per server. With
    ``limit_concurrency`` set, uvicorn's own ``limit_concurrency`` must be ``None`` (the guard
    counts requests being served instead of connections).
    """
    from uvicorn.protocols.http.flow_control import service_unavailable

    counts: dict[str, int] = {}
    warned: set[str] = set()  # one warning per peer while it stays at its cap, not one per socket
    # connections serving no request, longest waiting first: those that sent part of one
    # (trickling headers), and those that sent nothing yet (fresh, or idle between requests)
    partial: dict[Any, None] = {}
    waiting: dict[Any, None] = {}
    overloaded = [False]  # one warning per overload, not one per refused request
    health_only: dict[str, int] = {}  # connections beyond the cap, for health checks
    health_target = health_path.encode() if health_path is not None else None
    # The header deadlines' owner (the runtime's TaskSet: it cancels a pending timer when
    # closed). Made on the serving loop, once per loop; each connection also cancels its own
    # timer when its headers are complete or it is lost.
    owner: dict[asyncio.AbstractEventLoop, TaskSet] = {}

    def timers() -> TaskSet:
        loop = asyncio.get_running_loop()
        found = owner.get(loop)
        if found is None:
            owner.clear()  # a class outlives a loop only in tests: keep the current one alone
            found = owner[loop] = TaskSet(loop, f"mcpkit http guard ({base.__name__})", logger)
        return found

    cls: Any = base

    class Guarded(cls):  # type: ignore[misc]
        _guard_timer: Timer | None = None
        _guard_cycle: object = None
        _guard_peer: str | None = None
        _guard_bytes = False
        _guard_refused = False
        _guard_app: Any = None
        _guard_health: str | None = None  # the peer, on a connection beyond its cap
        _guard_head = b""

        @property
        def app(self) -> Any:
            """What uvicorn runs for a request whose headers just completed: the app, or 503
            when ``limit_concurrency`` requests are being served already."""
            if (
                limit_concurrency is not None
                and len(self.tasks) >= limit_concurrency
                and serving(self.tasks) >= limit_concurrency
            ):
                if not overloaded[0]:
                    overloaded[0] = True
                    logger.warning(
                        "answering 503: %d requests are being served (limit_concurrency)",
                        serving(self.tasks),
                    )
                return service_unavailable
            overloaded[0] = False
            return self._guard_app

        @app.setter
        def app(self, value: Any) -> None:
            self._guard_app = value

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            address = transport.get_extra_info("peername")
            if trusted and isinstance(address, tuple) and address and address[0] in trusted:
                self._guard_arm()  # a proxy: its clients are counted by request, not here
                return
            peer = peer_key(address)
            held = counts.get(peer, 0)
            if max_per_peer is not None and held >= max_per_peer:
                if peer not in warned:
                    warned.add(peer)
                    logger.warning(
                        "refusing connections from %s but health checks: it holds %d "
                        "(max_connections_per_peer; behind a proxy, list the proxy in "
                        "forwarded_allow_ips)",
                        peer,
                        held,
                    )
                extra = health_only.get(peer, 0)
                if health_target is not None and extra < HEALTH_ALLOWANCE:
                    health_only[peer] = extra + 1
                    self._guard_health = peer
                    self._guard_arm()
                    return
                self._guard_refuse(transport)
                return
            if (
                max_connections is not None
                and len(self.connections) > max_connections
                and not self._guard_make_room()
            ):
                self._guard_refuse(transport)
                return
            counts[peer] = held + 1
            self._guard_peer = peer
            waiting[self] = None
            self._guard_arm()

        def _guard_refuse(self, transport: Any) -> None:
            self._guard_refused = True
            if transport is None or transport.is_closing():
                return
            transport.write(_BUSY_RESPONSE)  # uvloop's transports are not asyncio.WriteTransport
            transport.close()

        def _guard_health_gate(self, data: bytes) -> bytes | None:
            """On a connection beyond the cap: the bytes once the request line shows a health
            check, ``None`` while it is incomplete (or when it is anything else: refused)."""
            head = self._guard_head + data
            line, newline, _ = head.partition(b"\n")
            if not newline:
                if len(head) > _REQUEST_LINE_LIMIT:
                    self._guard_refuse(getattr(self, "transport", None))
                else:
                    self._guard_head = head
                return None
            self._guard_head = b""
            parts = line.split()
            if (
                len(parts) == 3
                and parts[0] in (b"GET", b"HEAD")
                and parts[1].split(b"?", 1)[0] == health_target
            ):
                return head
            self._guard_refuse(getattr(self, "transport", None))
            return None

        def _guard_make_room(self) -> bool:
            """Cut the connection that has trickled its headers longest; else the one that has
            sent nothing for longest (a complete request leaves both at once, so it is cut only
            when nothing else can be)."""
            for group in (partial, waiting):
                for victim in group:
                    if victim is not self:
                        victim._guard_cut()
                        return True
            return False

        def _guard_forget(self) -> None:
            partial.pop(self, None)
            waiting.pop(self, None)

        def _guard_cut(self) -> None:
            self._guard_forget()
            self._guard_disarm()
            transport = getattr(self, "transport", None)
            if transport is None or transport.is_closing():
                return
            if self._guard_bytes:
                transport.write(_TIMEOUT_RESPONSE)
            transport.close()

        def data_received(self, data: bytes) -> None:
            if self._guard_refused:
                return
            if self._guard_health is not None and self._guard_between_requests():
                gated = self._guard_health_gate(data)
                if gated is None:
                    return
                data = gated
            timer = self._guard_timer
            if (timer is None or not timer.armed) and self._guard_between_requests():
                self._guard_arm()  # the first byte of the next request on a kept-alive connection
            self._guard_bytes = True
            if self in waiting:
                del waiting[self]
                partial[self] = None
            super().data_received(data)
            cycle = getattr(self, "cycle", None)
            if cycle is not None and cycle is not self._guard_cycle:
                self._guard_cycle = cycle  # a new request's headers are complete
                self._guard_disarm()
                self._guard_bytes = False
                self._guard_forget()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            transport = getattr(self, "transport", None)
            if (
                self._guard_peer is not None
                and transport is not None
                and not transport.is_closing()
                and self._guard_between_requests()
            ):
                waiting[self] = None  # idle until its next request: may make room

        def connection_lost(self, exc: Exception | None) -> None:
            self._guard_disarm()
            self._guard_forget()
            health = self._guard_health
            if health is not None:
                self._guard_health = None
                left = health_only.get(health, 1) - 1
                if left > 0:
                    health_only[health] = left
                else:
                    health_only.pop(health, None)
            peer = self._guard_peer
            if peer is not None:
                self._guard_peer = None
                left = counts.get(peer, 1) - 1
                if left > 0:
                    counts[peer] = left
                else:
                    counts.pop(peer, None)
                warned.discard(peer)
            super().connection_lost(exc)

        def _guard_between_requests(self) -> bool:
            cycle = getattr(self, "cycle", None)
            return cycle is None or bool(getattr(cycle, "response_complete", False))

        def _guard_arm(self) -> None:
            if header_timeout is None:
                return
            timer = self._guard_timer
            if timer is None:
                timer = self._guard_timer = Timer(timers(), self._guard_cut)
            timer.arm(header_timeout)

        def _guard_disarm(self) -> None:
            if self._guard_timer is not None:
                self._guard_timer.disarm()

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    guarded: type[asyncio.Protocol] = Guarded
    return guarded
