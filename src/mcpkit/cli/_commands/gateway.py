"""``mcpkit gateway CONFIG``: serve every backend of CONFIG as one MCP server (stdio or HTTP).

CONFIG is an ``mcpServers`` file with a ``gateway`` section (clients and their policies, static
tokens, rate limits, the audit log, timeouts; see docs/gateway.md). stdio by default; ``--http``
serves Streamable HTTP on ``--host``/``--port``, behind the configured bearer tokens. Backends
that fail to start are reported on stderr and retried with backoff; the others serve at once.
"""

from __future__ import annotations

import argparse
from typing import Any, Final

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "gateway", help="serve many servers as one, with per-client consent", description=__doc__
    )
    parser.add_argument("config", metavar="CONFIG", help="gateway configuration (JSON)")
    parser.add_argument("--http", action="store_true", help="serve Streamable HTTP, not stdio")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"HTTP host (default {DEFAULT_HOST})")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT})"
    )
    parser.add_argument("--audit", metavar="FILE", help="append audit records to FILE (JSON lines)")


def execute(args: argparse.Namespace) -> int:
    import errno

    from mcpkit.cli._errors import EXIT_CONNECTION, CliError
    from mcpkit.protocol import UsageError

    if not args.http and (args.host != DEFAULT_HOST or args.port != DEFAULT_PORT):
        raise CliError("--host and --port apply to --http", hint="add --http")
    try:
        from mcpkit.gateway import Gateway

        overrides = {"audit": args.audit} if args.audit else {}
        gateway = Gateway.from_file(args.config, **overrides)
        if args.http:
            gateway.run("http", host=args.host, port=args.port)
        else:
            gateway.run("stdio")
    except UsageError as exc:
        raise CliError(str(exc), hint="check the gateway configuration") from None
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise CliError(
            f"port {args.port} on {args.host} is in use",
            hint="pick another with --port",
            code=EXIT_CONNECTION,
        ) from None
    return 0
