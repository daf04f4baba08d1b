"""``server.run("http")`` and ``server.http_app()``: a :class:`Server` over Streamable HTTP.

The HTTP machinery lives in :mod:`mcpkit.transports.http` and knows nothing about this package
(layers point down); a :class:`~mcpkit.server.Server` satisfies its small ``HttpServable``
protocol, so this module only turns keyword options into the app and runs it.
"""

from __future__ import annotations

import os
import sys
from dataclasses import fields
from typing import TYPE_CHECKING, Any, Unpack

from mcpkit.protocol._errors import UsageError
from mcpkit.server._http_options import HttpAppOptions, HttpRunOptions

if TYPE_CHECKING:
    from mcpkit.server._server import Server
    from mcpkit.transports.http._server.asgi import McpHttpApp

__all__ = ["HTTP_EXTRA_MISSING", "asgi_app", "endpoint_url", "run_http"]

HTTP_EXTRA_MISSING = (
    "serving HTTP needs uvicorn, which is not installed: install mcpkit[http] "
    "(pip install 'mcpkit[http]')"
)


class _Default:
    """The default of an option whose explicit ``None`` means "off"."""


_DEFAULT = _Default()
_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
_ANY = ("0.0.0.0", "::", "")


RUN_OPTIONS = tuple(sorted(HttpRunOptions.__optional_keys__ - HttpAppOptions.__optional_keys__))
"""What ``server.run("http")`` takes besides the fields of ``HttpOptions``."""


def asgi_app(
    server: Server, *, _run: bool = False, **options: Unpack[HttpAppOptions]
) -> McpHttpApp:
    """The ASGI app serving ``server``; ``options`` are the fields of ``HttpOptions``.

    ``event_store`` may be a path (a SQLite file, durable across restarts) or an event store.
    An unknown option is refused naming the known ones (with ``run``'s own, from ``run``).
    """
    from mcpkit.transports.http._server.asgi import HttpOptions, McpHttpApp

    known = {f.name for f in fields(HttpOptions)}
    unknown = sorted(set(options) - known)
    if unknown:
        choices = sorted(known | set(RUN_OPTIONS)) if _run else sorted(known)
        raise UsageError(
            f"unknown HTTP option(s) {', '.join(unknown)}; choose from {', '.join(choices)}"
        )
    settings: dict[str, Any] = dict(options)  # checked above; a path becomes a store below
    store = settings.get("event_store")
    if isinstance(store, str | os.PathLike):
        from mcpkit.transports.http._server.event_store_sqlite import SQLiteEventStore

        sqlite = SQLiteEventStore(store)
        settings["event_store"] = sqlite
        app = McpHttpApp(server, HttpOptions(**settings))
        app.owned_closers.append(sqlite.aclose)  # we opened it, so the app closes it
        return app
    return McpHttpApp(server, HttpOptions(**settings))


def run_http(
    server: Server,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    forwarded_allow_ips: str | list[str] | None = None,
    max_connections_per_peer: int | _Default | None = _DEFAULT,
    uvicorn_options: dict[str, Any] | None = None,
    **options: Unpack[HttpAppOptions],
) -> None:
    """Serve ``server`` over Streamable HTTP on uvicorn until interrupted.

    ``forwarded_allow_ips`` are the reverse proxies in front of it (behind a proxy, list its
    addresses: otherwise every client counts as the proxy's one peer) and
    ``max_connections_per_peer`` what one client may hold open; see
    :func:`mcpkit.transports.http._server.serve.uvicorn_config` and ``docs/deploy.md``.

    Binding to a specific name or address other than loopback adds it to ``allowed_hosts``
    (that is the name clients will use); binding to all interfaces does not, because the names
    the server is reached by are unknown: list them in ``allowed_hosts`` (or
    ``MCPKIT_ALLOWED_HOSTS``).
    """
    from mcpkit.protocol._http_security import DEFAULT_ALLOWED_HOSTS

    try:
        import uvicorn  # noqa: F401  (checked here: the one line below beats a traceback)
    except ImportError:
        raise UsageError(HTTP_EXTRA_MISSING) from None
    from mcpkit.transports.http._server.serve import serve

    if host not in _LOOPBACK and host not in _ANY and "host_policy" not in options:
        allowed = tuple(options.get("allowed_hosts", DEFAULT_ALLOWED_HOSTS))
        name = f"[{host}]" if ":" in host and not host.startswith("[") else host
        options["allowed_hosts"] = (*allowed, name)
    path = str(options.get("path", "/mcp"))
    app = asgi_app(server, _run=True, **options)

    def announce(bound_host: str, bound_port: int) -> None:
        sys.stderr.write(
            f"mcpkit: serving {server.name} at {endpoint_url(bound_host, bound_port, path)}\n"
        )
        sys.stderr.flush()

    limits: dict[str, Any] = {"forwarded_allow_ips": forwarded_allow_ips}
    if not isinstance(max_connections_per_peer, _Default):
        limits["max_connections_per_peer"] = max_connections_per_peer
    serve(
        app,
        host=host,
        port=port,
        log_level=log_level,
        on_listening=announce,
        **{**limits, **(uvicorn_options or {})},
    )


def endpoint_url(host: str, port: int, path: str = "/mcp") -> str:
    """The URL clients use for an endpoint bound to ``host:port`` (all interfaces: loopback)."""
    if host in _ANY:
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}{path}"
