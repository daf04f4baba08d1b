"""``mcpkit run TARGET``: serve a Server from a file or module.

``TARGET`` is ``file.py``, ``file.py:object``, ``package.module`` or ``package.module:object``
(see :mod:`mcpkit.cli._loader`). stdio by default; ``--http`` serves Streamable HTTP on
``--host``/``--port`` (localhost by default); ``--workers N`` serves it from N processes sharing
the port (see :mod:`mcpkit.cli._workers`), and ``--redis URL`` shares their state on Redis
(``RedisState``), so any of them serves any request. ``--reload`` restarts the server whenever its
source file changes (see :mod:`mcpkit.cli._reload`) — best with ``--http``, since a restarted
stdio server starts a new session.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Final

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run", help="serve a server (stdio or HTTP)", description=__doc__
    )
    parser.add_argument("target", metavar="FILE.py[:OBJECT] | MODULE[:OBJECT]")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"HTTP host (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})"
    )
    parser.add_argument("--reload", action="store_true", help="restart when the file changes")
    parser.add_argument(
        "--redis",
        metavar="URL",
        default=None,
        help="share sessions, event logs, tasks and keys on this Redis (mcpkit[redis]; "
        "see docs/redis.md): any worker then serves any request",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="serve handshake-era requests without sessions, each POST on its own (what "
        "--workers N does without --redis, where a session would not survive a change of worker)",
    )
    parser.add_argument(
        "--forwarded-allow-ips",
        metavar="LIST",
        default=None,
        help="the reverse proxies in front (addresses or networks, comma-separated, '*' for "
        "any; default FORWARDED_ALLOW_IPS or loopback): clients are counted by their "
        "X-Forwarded-For address, not the proxy's (docs/deploy.md)",
    )
    parser.add_argument(
        "--max-connections-per-peer",
        type=_peer_cap,
        default=None,
        metavar="N",
        help="connections (behind a trusted proxy: open requests) one client may hold "
        "(default 100; 0: no cap)",
    )
    from mcpkit.cli._workers import worker_count

    parser.add_argument(
        "--workers",
        type=worker_count,
        default=1,
        metavar="N",
        help="serve HTTP from N processes sharing the port (default 1; see docs/deploy.md)",
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="with --workers: one SO_REUSEPORT socket per worker, the kernel spreading the "
        "connections, instead of one socket they all accept from (docs/deploy.md)",
    )


def server_argv(args: argparse.Namespace) -> list[str]:
    """This same command without ``--reload``: what the reloader runs as its child."""
    argv = ["run", args.target]
    if args.http:
        argv += ["--http", "--host", args.host, "--port", str(args.port)]
    return argv + _shared_state_argv(args)


def _peer_cap(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a count (0 or more)")
    return value


def _shared_state_argv(args: argparse.Namespace) -> list[str]:
    """The options every worker (or a reloaded child) is started with."""
    argv = ["--redis", args.redis] if args.redis else (["--stateless"] if args.stateless else [])
    if args.forwarded_allow_ips is not None:
        argv += ["--forwarded-allow-ips", args.forwarded_allow_ips]
    if args.max_connections_per_peer is not None:
        argv += ["--max-connections-per-peer", str(args.max_connections_per_peer)]
    return argv


def _serve_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"forwarded_allow_ips": args.forwarded_allow_ips}
    if args.max_connections_per_peer is not None:
        options["max_connections_per_peer"] = args.max_connections_per_peer or None
    return options


NO_SHARED_SESSIONS: Final = (
    "mcpkit: {count} workers without --redis share no sessions: handshake-era (legacy) requests "
    "are served without sessions, each POST on its own (no GET stream, no resumption); "
    "2026-07-28 requests are stateless anyway. Add --redis URL to keep legacy sessions across "
    "workers (docs/deploy.md)\n"
)


def execute(args: argparse.Namespace) -> int:
    from mcpkit.cli._errors import CliError

    if not args.http and (args.host != DEFAULT_HOST or args.port != DEFAULT_PORT):
        raise CliError("--host and --port apply to --http", hint="add --http")
    if args.redis and not args.http:
        raise CliError("--redis applies to --http", hint="add --http")
    if args.stateless and not args.http:
        raise CliError("--stateless applies to --http", hint="add --http")
    if not args.http and (
        args.forwarded_allow_ips is not None or args.max_connections_per_peer is not None
    ):
        raise CliError(
            "--forwarded-allow-ips and --max-connections-per-peer apply to --http",
            hint="add --http",
        )
    if args.reuse_port and args.workers < 2:
        raise CliError("--reuse-port applies to --workers N", hint="add --workers 2 or more")
    if args.workers > 1:
        if not args.http:
            raise CliError("--workers applies to --http", hint="add --http")
        if args.reload:
            raise CliError(
                "--workers and --reload do not combine", hint="use --reload with one worker"
            )
        from mcpkit.cli._workers import supervise_workers

        if not args.redis and not args.stateless:
            # Each worker would keep its own sessions, and a session's GET stream and POSTs
            # take different connections, so different workers: it would break at random.
            args.stateless = True
            sys.stderr.write(NO_SHARED_SESSIONS.format(count=args.workers))
            sys.stderr.flush()
        with _bind_errors(args):
            return supervise_workers(
                args.target,
                args.workers,
                args.host,
                args.port,
                extra=_shared_state_argv(args),
                reuse_port=args.reuse_port,
            )
    if args.reload:
        from mcpkit.cli._loader import source_file
        from mcpkit.cli._reload import supervise

        watched = source_file(args.target)
        if watched is None:
            raise CliError(f"cannot find the source file of {args.target} to watch")
        return supervise(server_argv(args), [watched])

    from mcpkit.cli._loader import load_server
    from mcpkit.cli._reload import watch_reload_parent

    watch_reload_parent()  # a reloader's child: end with it, even if it is killed
    if args.http:
        server = load_server(args.target)
    else:
        # stdout carries the protocol: a print() at import time goes to stderr, as it does
        # once the server runs.
        with contextlib.redirect_stdout(sys.stderr):
            server = load_server(args.target)
    if args.http:
        serve_http(server, args)
    else:
        server.run()
    return 0


def serve_http(server: Any, args: argparse.Namespace) -> None:
    """``server.run("http")``; a missing extra or a port in use is one line, not a traceback."""
    from mcpkit.cli._errors import CliError
    from mcpkit.protocol import UsageError

    options = _serve_options(args)
    try:
        if args.redis:
            from mcpkit.contrib.redis import RedisState

            options["state"] = RedisState(args.redis)
        if args.stateless:
            options["stateless"] = True
        with _bind_errors(args):
            server.run("http", host=args.host, port=args.port, **options)
    except UsageError as exc:
        raise CliError(str(exc), hint="" if "mcpkit[http]" in str(exc) else None) from None


@contextlib.contextmanager
def _bind_errors(args: argparse.Namespace) -> Iterator[None]:
    """A port in use (or another bind failure) as one :class:`CliError` line."""
    import errno

    from mcpkit.cli._errors import EXIT_CONNECTION, CliError

    try:
        yield
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise CliError(
                f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}",
                hint="check --host and --port",
                code=EXIT_CONNECTION,
            ) from None
        raise CliError(
            exc.strerror or str(exc),
            hint=f"choose another port with --port, or stop what listens on {args.port}",
            code=EXIT_CONNECTION,
        ) from None
