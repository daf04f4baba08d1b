"""The ``mcpkit`` command: argument parsing, dispatch, and what every failure looks like.

Each subcommand lives in :mod:`mcpkit.cli._commands` as a module with ``register(subparsers)``
and ``execute(args) -> int``; only the chosen command's heavy imports are ever loaded, so
``mcpkit --help`` is quick. Failures print as::

    mcpkit: error: <one clear line>
    hint: <what to try>

and exit with the documented code (:mod:`mcpkit.cli._errors`); Ctrl-C exits 130 after the
server child process has been stopped.
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
from collections.abc import Sequence
from typing import Any, Final

from mcpkit.cli._errors import EXIT_INTERRUPTED, EXIT_USAGE, CliError

__all__ = ["COMMANDS", "build_parser", "run_cli"]

COMMANDS: Final = (
    "run", "list", "call", "read", "prompt", "inspect", "install", "dev", "host", "rest",
    "watch", "gateway",
)  # fmt: skip

DESCRIPTION: Final = """\
Run, explore and call MCP servers (both protocol eras).

TARGET is a server: a URL (http://127.0.0.1:8000/mcp), config.json:name (an mcpServers
entry), a command line in quotes ("uvx some-server"), a Python file (server.py or
server.py:object), a module (package.module[:object]), or a program on PATH.
"""

EPILOG: Final = """\
exit codes: 0 ok, 1 the tool reported an error, 2 usage, 3 connection (server failed to
start, went away or timed out), 4 protocol error, 130 interrupted.
help: `mcpkit COMMAND --help` shows every option of a command; the whole guide is docs/cli.md
in mcpkit's source (a checkout, or the sdist that scripts/build makes).
"""


_SEE_MODULE: Final = re.compile(r"\s*\(see :[a-z]+:`[^`]+`\)")
_ROLE: Final = re.compile(r":[a-z]+:`(?:([^`<]*?)\s*<[^`>]+>|~?([^`]+))`")


def plain_text(doc: str) -> str:
    """A module docstring as ``--help`` text: no reST markup, no pointers into the source.

    ``(see :mod:`x`)`` is dropped, ``:class:`~a.B``` becomes ``B``, ````code```` becomes
    ``code``.
    """

    def role(match: re.Match[str]) -> str:
        shown, target = match.group(1), match.group(2)
        if shown is not None:
            return shown
        return target.rpartition(".")[2] if match.group(0).count("~") else target

    text = _SEE_MODULE.sub("", doc)
    text = _ROLE.sub(role, text)
    return text.replace("``", "")


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors look like every other error (one line, a hint, exit 2), and
    descriptions taken from docstrings are shown as plain text (:func:`plain_text`)."""

    _intermixing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for key in ("description", "epilog"):
            if isinstance(kwargs.get(key), str):
                kwargs[key] = plain_text(kwargs[key])
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CliError(message, hint=f"see `{self.prog} --help`", code=EXIT_USAGE)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Subcommands accept options anywhere (``mcpkit call T --timeout 5 tool a=1``)."""
        if self._intermixing or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


def build_parser() -> argparse.ArgumentParser:
    from mcpkit.cli._commands import load_command

    parser = _Parser(
        prog="mcpkit",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0,
        help="more logging on stderr, ours and the server's (-v: info; -vv: debug)",
    )  # fmt: skip
    parser.add_argument("--version", action="version", version=_version())
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for name in COMMANDS:
        load_command(name).register(subparsers)
    return parser


def _version() -> str:
    import mcpkit

    return f"mcpkit {mcpkit.__version__}"


SERVER_COMMANDS: Final = ("run", "gateway")
"""Commands that *are* the server: their log (tracebacks of failing tools) is the server's
stderr, shown from ``warning`` up without ``-v``."""
CONNECTING_COMMANDS: Final = ("list", "call", "read", "prompt", "inspect", "watch")
"""Commands that open their one client with :func:`mcpkit.cli._connect.open_client`."""
VERBOSE_ENV: Final = "MCPKIT_VERBOSE"
"""``-v`` as a number for a server this command starts (``mcpkit run`` reads it, and so does
:meth:`mcpkit.server.Server.run`), so the server logs in as much detail as the command."""


def verbosity(args: argparse.Namespace) -> int:
    """``-v`` count, or for ``run`` the larger of it and :data:`VERBOSE_ENV` (set by a client)."""
    import os

    level = int(getattr(args, "verbose", 0) or 0)
    if getattr(args, "command", None) in SERVER_COMMANDS:
        raw = os.environ.get(VERBOSE_ENV, "")
        level = max(level, int(raw) if raw.isdigit() else 0)
    return level


def _configure_logging(verbosity: int, command: str | None = None) -> None:
    level = logging.ERROR if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    if command in SERVER_COMMANDS:
        # A server's warnings and errors (a tool's traceback) are what its stderr is for.
        root.setLevel(min(level, logging.WARNING))
        return
    root.setLevel(level)
    from mcpkit.cli import _server_stderr as server_stderr

    # Commands that connect through ``open_client`` hold the lines until the server is up (see
    # ``server_stderr``); the others (host, dev, rest) show them as they come.
    server_stderr.install(prefix=command == "host", live=command not in CONNECTING_COMMANDS)
    handler.addFilter(lambda record: not server_stderr.is_server_line(record))
    if verbosity <= 0:
        # Our error line already quotes what these say (exit codes, the stderr tail); the
        # server's own stderr lines still reach the terminal through ``server_stderr``.
        handler.addFilter(lambda record: not record.name.startswith("mcpkit"))


def report(error: CliError) -> int:
    sys.stderr.write(f"mcpkit: error: {error.message}\n")
    hint = error.hint  # "" means the message says it all (no hint line)
    if hint is None and error.code == EXIT_USAGE:
        hint = "see `mcpkit --help`"
    if hint:
        sys.stderr.write(f"hint: {hint}\n")
    sys.stderr.flush()
    return error.code


def run_cli(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: ``sys.argv[1:]``), run the command, return the exit code."""
    from mcpkit.cli._commands import load_command

    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        _configure_logging(verbosity(args), args.command)
        return int(load_command(args.command).execute(args))
    except CliError as error:
        return report(error)
    except KeyboardInterrupt:
        sys.stderr.write("\nmcpkit: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `mcpkit list x | head`: the reader went away; not our failure
        sys.stderr.close()
        return 0
