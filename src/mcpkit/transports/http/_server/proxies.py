"""Which peers are trusted reverse proxies (``forwarded_allow_ips``), and what that changes.

Behind a reverse proxy every connection comes from the proxy's address. Counting connections per
address would then count *every* client as one peer: a hundred open streams from anyone and the
worker refuses everyone, its ``/healthz`` included, so the proxy marks it down. The addresses
listed here are proxies (the same list uvicorn trusts to rewrite ``scope["client"]`` from
``X-Forwarded-For``): their connections are not capped per address, and the open requests they
carry are counted per *forwarded* client instead
(:mod:`mcpkit.transports.http._server.client_limit`).

The default is uvicorn's: ``FORWARDED_ALLOW_IPS`` from the environment, else the loopback
addresses (a proxy on the same machine).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Sequence
from typing import Final

__all__ = ["DEFAULT_FORWARDED_ALLOW_IPS", "TrustedProxies", "proxy_spec"]

DEFAULT_FORWARDED_ALLOW_IPS: Final = "127.0.0.1,::1"
"""uvicorn's default when ``FORWARDED_ALLOW_IPS`` is unset: a proxy on the same machine."""

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def proxy_spec(value: str | Sequence[str] | None) -> str:
    """``value`` as the comma-separated text uvicorn takes; ``None``: the environment's
    ``FORWARDED_ALLOW_IPS``, else :data:`DEFAULT_FORWARDED_ALLOW_IPS`."""
    if value is None:
        return os.environ.get("FORWARDED_ALLOW_IPS", DEFAULT_FORWARDED_ALLOW_IPS)
    if isinstance(value, str):
        return value
    return ",".join(value)


class TrustedProxies:
    """Addresses and networks (``10.0.0.0/8``) of trusted proxies; ``*`` trusts every peer."""

    __slots__ = ("_any", "_hosts", "_networks")

    def __init__(self, spec: str) -> None:
        self._any = False
        self._networks: list[_Network] = []
        self._hosts: set[str] = set()  # names (a Unix socket path, say) matched literally
        for item in (part.strip() for part in spec.split(",")):
            if not item:
                continue
            if item == "*":
                self._any = True
                continue
            try:
                self._networks.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self._hosts.add(item)

    def __bool__(self) -> bool:
        return self._any or bool(self._networks) or bool(self._hosts)

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str):
            return False
        if self._any:
            return True
        if host in self._hosts:
            return True
        try:
            address = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self._networks)
