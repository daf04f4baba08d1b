"""Opening a client for a TARGET with the command's options, and the options themselves.

Every client command (``list``, ``call``, ``read``, ``prompt``, ``inspect``) shares: the target,
``--env KEY=VALUE`` for stdio servers, ``--timeout``, ``--era``, ``--no-input``,
``--sampling-command`` and ``--log-level``. The client it opens answers elicitation and sampling
at the terminal (or sampling with the command; see :mod:`mcpkit.cli._sampling`), declares the
current directory as its one root, prints the server's log messages at or above ``--log-level`` on
stderr, and turns every failure into a :class:`~mcpkit.cli._errors.CliError`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from mcpkit.cli import _server_stderr as server_stderr
from mcpkit.cli._errors import EXIT_CONNECTION, CliError, explain
from mcpkit.cli._targets import ResolvedTarget, resolve
from mcpkit.types import CLIENT_MODES

__all__ = [
    "BEARER_ENV",
    "DEFAULT_TIMEOUT",
    "ENV_HINT",
    "LOG_LEVELS",
    "add_client_options",
    "open_client",
    "question_handlers",
    "parse_env",
    "parse_headers",
    "with_http_headers",
    "with_verbosity",
]

DEFAULT_TIMEOUT: Final = 60.0
"""Seconds a request may go without an answer (or without progress) unless ``--timeout``."""
BEARER_ENV: Final = "MCPKIT_BEARER"
"""A bearer token for URL servers when ``--bearer`` is not given."""
LOG_LEVELS: Final = (
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency",
)  # fmt: skip


def add_client_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("target", metavar="TARGET", help="the server (see `mcpkit --help`)")
    parser.add_argument(
        "-e", "--env", action="append", default=[], metavar="KEY=VALUE",
        help="environment variable for a stdio server (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="SECONDS",
        help=f"per-request limit (default {DEFAULT_TIMEOUT:g}; progress resets it)",
    )  # fmt: skip
    parser.add_argument(
        "--era", choices=CLIENT_MODES, default="auto",
        help="protocol era: detect (default), legacy handshake only, or 2026-07-28 only",
    )  # fmt: skip
    parser.add_argument(
        "--no-input", action="store_true",
        help="decline the server's questions instead of asking at the terminal",
    )  # fmt: skip
    parser.add_argument(
        "--sampling-command", metavar="CMD",
        help="answer the server's sampling requests with this shell command (request JSON on "
        "its stdin, reply text on its stdout) instead of asking at the terminal",
    )  # fmt: skip
    parser.add_argument(
        "--log-level", choices=LOG_LEVELS, default="warning",
        help="show the server's log messages at or above this level (default warning)",
    )  # fmt: skip
    parser.add_argument(
        "-H", "--header", action="append", default=[], metavar="'NAME: VALUE'",
        help="HTTP header for a URL server (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--bearer", metavar="TOKEN",
        help=f"send 'Authorization: Bearer TOKEN' to a URL server (default: ${BEARER_ENV} "
        "when it is set)",
    )  # fmt: skip


def parse_headers(items: list[str]) -> dict[str, str]:
    """``--header 'Name: value'`` items as a dict (a later one of the same name wins)."""
    headers: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        name = name.strip()
        if not sep or not name or any(ch.isspace() for ch in name):
            raise CliError(
                f"--header {item!r} is not 'Name: value'",
                hint="e.g. --header 'X-Api-Key: abc123'",
            )
        headers[name] = value.strip()
    return headers


def with_http_headers(target: ResolvedTarget, args: argparse.Namespace) -> ResolvedTarget:
    """A URL target (or a config entry with a ``url``) gets ``--header`` and the bearer token.

    The token is ``--bearer``, else :data:`BEARER_ENV` from the environment; ``--header`` and
    ``--bearer`` given for a stdio server are a usage error (``$MCPKIT_BEARER`` is ignored).
    """
    import os

    headers = parse_headers(getattr(args, "header", None) or [])
    explicit = getattr(args, "bearer", None)
    token = explicit if explicit is not None else os.environ.get(BEARER_ENV) or None
    entry = target.client_target
    is_url = target.kind == "url" or (isinstance(entry, dict) and "command" not in entry)
    if not is_url:
        if headers or explicit is not None:
            raise CliError(
                "--header and --bearer apply to URL servers, not to a stdio server",
                hint="give a stdio server what it needs with -e KEY=VALUE",
            )
        return target
    if token:
        headers = {"Authorization": f"Bearer {token}", **headers}
    if not headers:
        return target
    if target.kind == "url":
        return replace(target, client_target={"url": target.text, "headers": headers})
    merged = {**(entry.get("headers") or {}), **headers}
    return replace(target, client_target={**entry, "headers": merged})


def parse_env(items: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CliError(f"--env {item!r} is not KEY=VALUE")
        env[key] = value
    return env


def _log_printer(threshold: str) -> Any:
    rank = {name: i for i, name in enumerate(LOG_LEVELS)}
    minimum = rank[threshold]

    def show(params: Any) -> None:
        level = getattr(params, "level", "info")
        if rank.get(level, 0) >= minimum:
            name = getattr(params, "logger", None)
            data = getattr(params, "data", "")
            sys.stderr.write(f"server {level}{f' [{name}]' if name else ''}: {data}\n")

    return show


def question_handlers(args: argparse.Namespace, before_asking: Any = None) -> tuple[Any, Any]:
    """The (elicitation, sampling) handlers the options ask for, taking turns at the terminal.

    Elicitation is asked at the terminal, or declined with ``--no-input``; sampling goes to
    ``--sampling-command``, else to the terminal, and is not declared with ``--no-input``.
    ``before_asking`` runs before anything is shown (e.g. clearing a progress bar).
    """
    import asyncio

    from mcpkit.cli._elicit import TerminalElicitation, declining_handler
    from mcpkit.cli._sampling import CommandSampling, TerminalSampling, one_at_a_time

    lock = asyncio.Lock()
    elicitation: Any = declining_handler
    if not args.no_input:
        terminal = TerminalElicitation()
        if before_asking is not None:
            terminal.before_asking.append(before_asking)
        elicitation = one_at_a_time(terminal, lock)
    sampling: Any = None
    command = getattr(args, "sampling_command", None)
    if command:
        sampling = CommandSampling(command, timeout=args.timeout)
    elif not args.no_input:
        typed = TerminalSampling()
        if before_asking is not None:
            typed.before_asking.append(before_asking)
        sampling = one_at_a_time(typed, lock)
    return elicitation, sampling


@contextlib.asynccontextmanager
async def open_client(
    args: argparse.Namespace,
    *,
    elicitation: Any = None,
    sampling: Any = None,
    wire: Any = None,
    notifications: Any = None,
    extensions: Any = None,
) -> AsyncIterator[Any]:
    """A connected :class:`~mcpkit.client.Client` for ``args.target``; failures → CliError.

    Without ``elicitation``/``sampling`` handlers, those of :func:`question_handlers` are used.
    """
    from mcpkit.client import Client, resolve_target

    target: ResolvedTarget = with_http_headers(
        with_verbosity(resolve(args.target, env=parse_env(args.env)), args.verbose), args
    )
    if elicitation is None and sampling is None:
        elicitation, sampling = question_handlers(args)
    try:
        connector: Any = resolve_target(target.client_target)
        if wire is not None:
            connector = wire.wrap(connector)
        client = Client(
            connector,
            name=target.label,
            mode=args.era,
            elicitation_handler=elicitation,
            sampling_handler=sampling,
            roots=[{"uri": Path.cwd().as_uri(), "name": "current directory"}],
            logging_handler=_log_printer(args.log_level),
            notification_handler=notifications,
            extensions=extensions,
            log_level=args.log_level,
            timeout=args.timeout,
            initialize_timeout=args.timeout,
            probe_timeout=min(args.timeout, 10.0),
        )
        connected = False
        async with client:
            connected = True
            stderr_lines = server_stderr.current()
            if stderr_lines is not None:
                stderr_lines.go_live()
            yield client
    except CliError:
        raise
    except Exception as exc:  # every failure becomes one line
        raise _unwrap(exc, target) from exc
    finally:
        stderr_lines = server_stderr.current()
        if stderr_lines is not None and not connected:
            stderr_lines.go_live()  # a failure after the start quotes no stderr of its own


ENV_HINT: Final = (
    "a command's server gets only an allow-listed environment (PATH, HOME, locale ...): "
    "pass what it needs with -e KEY=VALUE"
)


def _unwrap(exc: BaseException, target: ResolvedTarget) -> CliError:
    """The most telling error of a group (task groups wrap what went wrong), explained.

    Once the server's stderr is shown as it comes, an error quoting its last lines would
    repeat them; before that, the quoted lines are all the person sees of it.
    """
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    error = explain(exc, target=target.label)
    stdio_command = isinstance(target.client_target, dict) and "command" in target.client_target
    if error.code == EXIT_CONNECTION and stdio_command and target.kind in ("command", "config"):
        error.hint = f"{error.hint}; {ENV_HINT}" if error.hint else ENV_HINT
    stderr_lines = server_stderr.current()
    if stderr_lines is not None:
        if stderr_lines.live:
            error.message = server_stderr.without_quoted_tail(error.message)
        elif server_stderr.quotes_tail(error.message):
            stderr_lines.drop_held()
    return error


def with_verbosity(target: ResolvedTarget, verbose: int) -> ResolvedTarget:
    """``-v`` reaches a stdio server too: its entry gets ``MCPKIT_VERBOSE`` (see ``run``)."""
    from mcpkit.cli._app import VERBOSE_ENV

    entry = target.client_target
    if verbose <= 0 or not isinstance(entry, dict) or "command" not in entry:
        return target
    env = {**(entry.get("env") or {}), VERBOSE_ENV: str(verbose)}
    return replace(target, client_target={**entry, "env": env})
