"""Who a request comes from, for per-peer limits (sessions here, connections in the guard).

One client must not be able to take every session or connection slot from the others. The HTTP
server only knows the peer's address (``scope["client"]``; behind a reverse proxy that forwards
``X-Forwarded-For`` and is trusted by uvicorn's ``forwarded_allow_ips``, the original client). An
IPv6 host usually owns a whole ``/64``, so IPv6 peers are grouped by that prefix: otherwise one
machine could pose as 2**64 peers.
"""

from __future__ import annotations

import functools
import ipaddress
from collections import OrderedDict
from typing import Any, Final

__all__ = ["IPV6_PEER_PREFIX", "UNKNOWN_PEER", "PeerTable", "peer_key"]

IPV6_PEER_PREFIX: Final = 64
"""IPv6 addresses in one ``/64`` count as one peer."""
UNKNOWN_PEER: Final = "-"
"""The peer of a request whose transport reports no address (a Unix socket, a test client)."""


PEER_KEY_CACHE_SIZE: Final = 4096
"""Distinct peer addresses whose keys are remembered (least recently used dropped first)."""


def peer_key(client: Any) -> str:
    """The peer a request counts against: an IPv4 address or an IPv6 ``/64`` prefix."""
    if not isinstance(client, list | tuple) or not client or not isinstance(client[0], str):
        return UNKNOWN_PEER
    return _host_key(client[0])


@functools.lru_cache(maxsize=PEER_KEY_CACHE_SIZE)
def _host_key(host: str) -> str:
    """:func:`peer_key` of one address text. Cached: every request asks (the per-client limit),
    a keep-alive client asks with the same address each time, and parsing it with
    :mod:`ipaddress` cost more than the rest of the limit's work together."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host  # a name (some ASGI servers report Unix sockets that way)
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, IPV6_PEER_PREFIX), strict=False))
    return str(address)


class PeerTable:
    """The keys (session ids) each peer holds, least recently used first per peer."""

    __slots__ = ("_by_peer",)

    def __init__(self) -> None:
        self._by_peer: dict[str, OrderedDict[str, None]] = {}

    def count(self, peer: str) -> int:
        held = self._by_peer.get(peer)
        return len(held) if held is not None else 0

    def add(self, peer: str, key: str) -> None:
        self._by_peer.setdefault(peer, OrderedDict())[key] = None

    def used(self, peer: str, key: str) -> None:
        """``key`` was just used: it becomes the peer's most recently used."""
        held = self._by_peer.get(peer)
        if held is not None and key in held:
            held.move_to_end(key)

    def remove(self, peer: str, key: str) -> None:
        held = self._by_peer.get(peer)
        if held is None:
            return
        held.pop(key, None)
        if not held:
            del self._by_peer[peer]

    def largest(self) -> str | None:
        """The peer holding the most keys (``None`` when none holds any); a pass over peers,
        done only when the whole table is full."""
        if not self._by_peer:
            return None
        return max(self._by_peer, key=lambda peer: len(self._by_peer[peer]))

    def oldest(self, peer: str) -> list[str]:
        """The peer's keys, least recently used first."""
        held = self._by_peer.get(peer)
        return list(held) if held is not None else []
