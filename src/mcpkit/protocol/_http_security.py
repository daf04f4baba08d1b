"""Host and Origin checks that keep a local MCP server safe from DNS rebinding.

A web page on ``evil.example`` can make its own hostname resolve to ``127.0.0.1`` and then send
requests to a local server "same-origin". Two headers betray it: ``Host`` names the attacker's
domain, and a browser's ``Origin`` names the attacker's page. The spec requires the Origin check
(403 for a present but invalid ``Origin``); checking ``Host`` too stops rebinding even from
clients that send no ``Origin``.

Decisions:

* A wrong ``Host`` gets **421 Misdirected Request** (RFC 9110 §15.5.20: "the request was directed
  at a server that is unable or unwilling to produce an authoritative response for the target
  URI"). That is exactly the situation, it is a different fix than a forbidden page (configure
  the server's names, not the caller's rights), and it is what the reference SDK sends, so
  existing clients already know it. A wrong ``Origin`` gets **403**, as the spec says.
* A missing ``Origin`` is allowed: non-browser clients (CLIs, SDKs) do not send it, and browsers
  always do on the cross-origin requests that matter. A missing ``Host`` is refused (HTTP/1.1
  requires it).
* Rejection bodies say exactly how to allow the host, because the person who sees them is usually
  the one who runs the server behind a new name.

Entries in ``allowed_hosts`` are ``name`` (any port), ``name:port``, ``name:*`` (any port) or
``*`` (no Host check: for servers behind a proxy that already checks it). IPv6 literals keep their
brackets (``[::1]:8000``). ``allowed_origins`` entries are ``scheme://host[:port]``, optionally
with ``:*``; by default an ``http``/``https`` origin on an allowed host is allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

from mcpkit.protocol._errors import InvalidRequest, UsageError
from mcpkit.protocol._http_routing import HttpRejection

__all__ = [
    "ALLOWED_HOSTS_ENV",
    "ALLOWED_ORIGINS_ENV",
    "DEFAULT_ALLOWED_HOSTS",
    "HOST_REJECTED_STATUS",
    "ORIGIN_REJECTED_STATUS",
    "HostPolicy",
]

DEFAULT_ALLOWED_HOSTS: Final = ("127.0.0.1", "localhost", "[::1]")
ALLOWED_HOSTS_ENV: Final = "MCPKIT_ALLOWED_HOSTS"
ALLOWED_ORIGINS_ENV: Final = "MCPKIT_ALLOWED_ORIGINS"
HOST_REJECTED_STATUS: Final = 421
ORIGIN_REJECTED_STATUS: Final = 403
MAX_HOST_CHARS: Final = 255
"""A ``Host`` or ``Origin`` longer than this is refused without parsing further."""

_DEFAULT_PORTS: Final = {"http": "80", "https": "443"}
_HOST_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=%")
_IPV6_CHARS: Final = frozenset("0123456789abcdef:.")


def _split_host(authority: str) -> tuple[str, str | None] | None:
    """``host[:port]`` → (lower-cased host, port or ``None``); ``None`` if malformed."""
    text = authority.strip().lower()
    if not text or len(text) > MAX_HOST_CHARS:
        return None
    if text.startswith("["):
        end = text.find("]")
        if end < 0 or not set(text[1:end]) <= _IPV6_CHARS or ":" not in text[1:end]:
            return None
        host, rest = text[: end + 1], text[end + 1 :]
        if rest and not rest.startswith(":"):
            return None
        port = rest[1:] if rest else None
    else:
        host, sep, port_text = text.partition(":")
        port = port_text if sep else None
        if not host or not set(host) <= _HOST_CHARS:
            return None
        host = host.removesuffix(".") or host  # "localhost." names the same host
    if port is not None and port != "*" and not (port.isdigit() and 0 < int(port) < 65536):
        return None
    return host, port


@dataclass(frozen=True, slots=True)
class _Pattern:
    host: str
    port: str | None  # None or "*": any port
    scheme: str | None = None  # origins only

    def matches(self, host: str, port: str | None, scheme: str | None = None) -> bool:
        if self.host != host or (self.scheme is not None and self.scheme != scheme):
            return False
        return self.port in (None, "*") or self.port == port


def _host_pattern(entry: str) -> _Pattern:
    parsed = _split_host(entry)
    if parsed is None:
        raise UsageError(f"allowed_hosts entry {entry!r} is not host, host:port or host:*")
    return _Pattern(*parsed)


def _parse_origin(origin: str) -> tuple[str, str, str] | None:
    """``scheme://host[:port]`` → (scheme, host, port with the scheme's default filled in)."""
    scheme, sep, rest = origin.strip().lower().partition("://")
    if (
        not sep
        or not scheme.isascii()
        or not scheme.replace("-", "").replace("+", "").replace(".", "").isalnum()
    ):
        return None
    if "/" in rest or "@" in rest or "?" in rest or "#" in rest:
        return None
    parsed = _split_host(rest)
    if parsed is None or parsed[1] == "*":
        return None
    host, port = parsed
    port = port or _DEFAULT_PORTS.get(scheme)
    if port is None:
        return None
    return scheme, host, port


def _origin_pattern(entry: str) -> _Pattern:
    scheme, sep, rest = entry.strip().lower().partition("://")
    parsed = _split_host(rest) if sep else None
    if parsed is None or "/" in rest:
        raise UsageError(
            f"allowed_origins entry {entry!r} is not scheme://host[:port] (or scheme://host:*)"
        )
    host, port = parsed
    return _Pattern(host, port or _DEFAULT_PORTS.get(scheme), scheme)


def _derived_origins(hosts: Iterable[str]) -> tuple[str, ...]:
    """The http/https origins of the allowed hosts (a host without a port allows any port)."""
    out: list[str] = []
    for entry in hosts:
        if entry == "*":
            continue
        pattern = _host_pattern(entry)
        host, port = pattern.host, pattern.port
        out.extend(f"{scheme}://{host}:{port or '*'}" for scheme in ("http", "https"))
    return tuple(out)


def _csv(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


@dataclass(frozen=True)
class HostPolicy:
    """Which ``Host`` and ``Origin`` values a server answers; :meth:`check` applies it.

    The default allows only loopback names on any port, which is right for a server bound to
    127.0.0.1. Serving under another name means listing it here (or in ``MCPKIT_ALLOWED_HOSTS``,
    see :meth:`from_env`).
    """

    allowed_hosts: tuple[str, ...] = DEFAULT_ALLOWED_HOSTS
    allowed_origins: tuple[str, ...] | None = None
    """``None``: http/https origins on an allowed host (never via ``*``). ``("*",)``: any origin."""
    _hosts: tuple[_Pattern, ...] = field(init=False, repr=False, compare=False)
    _origins: tuple[_Pattern, ...] = field(init=False, repr=False, compare=False)
    _any_host: bool = field(init=False, repr=False, compare=False)
    _any_origin: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        hosts = tuple(self.allowed_hosts)
        object.__setattr__(self, "allowed_hosts", hosts)
        object.__setattr__(self, "_any_host", "*" in hosts)
        object.__setattr__(self, "_hosts", tuple(_host_pattern(h) for h in hosts if h != "*"))
        if self.allowed_origins is None:
            origins = tuple(_origin_pattern(o) for o in _derived_origins(hosts))
            object.__setattr__(self, "_any_origin", False)
        else:
            listed = tuple(self.allowed_origins)
            object.__setattr__(self, "allowed_origins", listed)
            object.__setattr__(self, "_any_origin", "*" in listed)
            origins = tuple(_origin_pattern(o) for o in listed if o not in ("*", "null"))
        object.__setattr__(self, "_origins", origins)

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str],
        allowed_hosts: Iterable[str] = DEFAULT_ALLOWED_HOSTS,
        allowed_origins: Iterable[str] | None = None,
    ) -> HostPolicy:
        """A policy extended by ``MCPKIT_ALLOWED_HOSTS`` / ``MCPKIT_ALLOWED_ORIGINS`` (comma lists).

        Pass ``os.environ``; the environment adds to the given lists, it never removes.
        """
        hosts = (*allowed_hosts, *_csv(environ.get(ALLOWED_HOSTS_ENV)))
        extra_origins = _csv(environ.get(ALLOWED_ORIGINS_ENV))
        origins: tuple[str, ...] | None
        if allowed_origins is None and not extra_origins:
            origins = None
        else:
            base = (
                tuple(allowed_origins) if allowed_origins is not None else _derived_origins(hosts)
            )
            origins = (*base, *extra_origins)
        return cls(allowed_hosts=hosts, allowed_origins=origins)

    def check(self, host: str | None, origin: str | None) -> HttpRejection | None:
        """``None`` if the request may proceed, else the 421 (Host) or 403 (Origin) to answer."""
        if not self._any_host:
            parsed = _split_host(host) if host is not None else None
            if (
                parsed is None
                or parsed[1] == "*"
                or not any(p.matches(*parsed) for p in self._hosts)
            ):
                return self._reject_host(host)
        if origin is None or self._any_origin:
            return None
        if origin.strip().lower() == "null":
            if "null" in (self.allowed_origins or ()):
                return None
            return self._reject_origin(origin)
        parsed_origin = _parse_origin(origin)
        if parsed_origin is not None:
            scheme, name, port = parsed_origin
            if any(p.matches(name, port, scheme) for p in self._origins):
                return None
        return self._reject_origin(origin)

    def _reject_host(self, host: str | None) -> HttpRejection:
        if host is None:
            message = "Request refused: it carries no Host header (HTTP/1.1 requires one)"
        else:
            shown = host[:100]
            message = (
                f"Invalid Host header {shown!r}: this server answers only to "
                f"{', '.join(self.allowed_hosts)}. If {shown!r} is a name this server should "
                f"answer to, add it to allowed_hosts=[{_listed(self.allowed_hosts, shown)}] or "
                f"set {ALLOWED_HOSTS_ENV}={shown} (comma-separated). This check blocks DNS "
                "rebinding attacks; do not disable it on a server reachable from a browser."
            )
        return HttpRejection(HOST_REJECTED_STATUS, InvalidRequest(message))

    def _reject_origin(self, origin: str) -> HttpRejection:
        shown = origin[:100]
        current = self.allowed_origins or _derived_origins(self.allowed_hosts)
        message = (
            f"Invalid Origin header {shown!r}: web pages from this origin may not call this "
            f"server. If they should, add it to allowed_origins=[{_listed(current, shown)}] or "
            f"set {ALLOWED_ORIGINS_ENV}={shown} (comma-separated)."
        )
        return HttpRejection(ORIGIN_REJECTED_STATUS, InvalidRequest(message))


def _listed(current: Iterable[str], extra: str) -> str:
    return ", ".join(repr(item) for item in (*current, extra))
