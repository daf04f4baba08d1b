"""``mcpkit rest TARGET --port N``: serve any MCP server as a plain REST API.

One endpoint per tool (``POST /tools/NAME``, JSON body = arguments), the server's prompts and
resources readable, errors as HTTP statuses with RFC 9457 problem details, and the generated
OpenAPI 3.1 document at ``/openapi.json`` (see :mod:`mcpkit.contrib.openapi._facade`). The
target is anything the other commands take: a command, a URL, ``config.json:name``, a file.
``--port 0`` picks a free port; the address is printed on stderr once the API is serving. A
server that cannot be reached or started is reported on stderr and exits with code 3.

It is served like ``mcpkit run --http``: the serve path's guard (header deadline, per-peer and
total connection limits) in front, and the facade's own (allowed hosts and origins, JSON bodies,
a body deadline). Binding to a name or address other than loopback allows that name as ``Host``;
more with ``--allow-host`` / ``--allow-origin`` or ``MCPKIT_ALLOWED_HOSTS`` / ``_ORIGINS``.
"""

from __future__ import annotations

import argparse
from typing import Any, Final

from mcpkit.types import CLIENT_MODES

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import DEFAULT_TIMEOUT

    parser = subparsers.add_parser(
        "rest", help="serve an MCP server as a REST API (OpenAPI 3.1)", description=__doc__
    )
    parser.add_argument("target", metavar="TARGET", help="the server (see `mcpkit --help`)")
    parser.add_argument(
        "-e", "--env", action="append", default=[], metavar="KEY=VALUE",
        help="environment variable for a stdio server (repeatable)",
    )  # fmt: skip
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"host (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any)"
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
        help=f"per-call limit; past it the API answers 504 (default {DEFAULT_TIMEOUT:g})",
    )  # fmt: skip
    parser.add_argument(
        "--era", choices=CLIENT_MODES, default="auto",
        help="protocol era towards the server (default: detect)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="also answer requests for this Host (repeatable; loopback names always)",
    )  # fmt: skip
    parser.add_argument(
        "--allow-origin", action="append", default=[], metavar="ORIGIN",
        help="let web pages from this origin call the API (repeatable)",
    )  # fmt: skip


def execute(args: argparse.Namespace) -> int:
    import os
    import socket
    import sys

    import uvicorn

    from mcpkit.cli._connect import parse_env
    from mcpkit.cli._elicit import declining_handler
    from mcpkit.cli._targets import resolve
    from mcpkit.client import resolve_target
    from mcpkit.contrib.openapi import rest_app
    from mcpkit.protocol import DEFAULT_ALLOWED_HOSTS, HostPolicy
    from mcpkit.transports.http import uvicorn_config

    target = resolve(args.target, env=parse_env(args.env))
    hosts = [*DEFAULT_ALLOWED_HOSTS, *args.allow_host]
    if args.host not in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "::"):
        hosts.append(f"[{args.host}]" if ":" in args.host else args.host)
    origins = None  # None: the allowed hosts' own http/https origins
    if args.allow_origin:
        own = [f"{scheme}://{host}:*" for host in hosts for scheme in ("http", "https")]
        origins = [*own, *args.allow_origin]
    app = rest_app(
        resolve_target(target.client_target),
        timeout=args.timeout,
        client_options={"mode": args.era, "elicitation_handler": declining_handler},
        host_policy=HostPolicy.from_env(os.environ, hosts, origins),
    )
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))
    sock.listen(128)
    host, port = sock.getsockname()[:2]
    url = f"http://{f'[{host}]' if family == socket.AF_INET6 else host}:{port}"

    class _Announce(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets=sockets)
            if not self.should_exit:
                sys.stderr.write(
                    f"mcpkit rest: serving {target.label} at {url} ({url}/openapi.json)\n"
                )
                sys.stderr.flush()

    config = uvicorn_config(app, log_level="warning", access_log=False)
    server = _Announce(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0 if server.started else 1
