"""Exit codes, and turning any failure into one clear line plus a hint.

The codes are part of the command's interface (scripts branch on them) and are documented in
``docs/cli.md``:

====  ==========================================================================================
0     success
1     the tool ran and reported an error (``isError: true``); its message is printed
2     usage: bad arguments, unknown target, tool, prompt or resource, invalid JSON
3     connection: the server could not be started, went away, or did not answer in time
4     protocol: the server answered with a JSON-RPC error or broke the protocol
130   interrupted (Ctrl-C)
====  ==========================================================================================
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "EXIT_CONNECTION",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROTOCOL",
    "EXIT_TOOL_ERROR",
    "EXIT_USAGE",
    "CliError",
    "explain",
]

EXIT_OK: Final = 0
EXIT_TOOL_ERROR: Final = 1
EXIT_USAGE: Final = 2
EXIT_CONNECTION: Final = 3
EXIT_PROTOCOL: Final = 4
EXIT_INTERRUPTED: Final = 130


class CliError(Exception):
    """A failure to report as ``mcpkit: error: <message>`` and ``hint: <hint>``, then exit."""

    def __init__(self, message: str, *, hint: str | None = None, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.code = code


def explain(exc: BaseException, *, target: str | None = None) -> CliError:
    """The :class:`CliError` for an exception raised by the client, transports or protocol."""
    from mcpkit.errors import (
        IncompatibleServer,
        InputValidationError,
        ServerMisbehaved,
        UnknownTool,
    )
    from mcpkit.protocol import (
        AuthorizationError,
        ConnectionBroken,
        ConnectionClosed,
        JSONRPCError,
        LocalProtocolError,
        MissingServerCapability,
        RemoteProtocolError,
        RequestTimeout,
        UsageError,
    )

    where = f" ({target})" if target else ""
    if isinstance(exc, CliError):
        return exc
    if isinstance(exc, UnknownTool | InputValidationError):
        return CliError(str(exc), hint="run `mcpkit list TARGET` to see the tools and their inputs")
    if isinstance(exc, MissingServerCapability):
        return CliError(
            str(exc),
            hint="the server does not offer this feature; `mcpkit inspect TARGET` shows what it "
            "declares",
            code=EXIT_PROTOCOL,
        )
    if isinstance(exc, UsageError):
        return CliError(str(exc), hint="see `mcpkit --help`")
    if isinstance(exc, RequestTimeout):
        return CliError(
            f"the server did not answer in time{where}: {exc}",
            hint="raise the limit with --timeout SECONDS",
            code=EXIT_CONNECTION,
        )
    if isinstance(exc, ConnectionBroken | ConnectionClosed):
        return CliError(
            str(exc).strip(),
            hint="check that the server starts on its own (run its command in a terminal); "
            "add -v for more detail from it and from us",
            code=EXIT_CONNECTION,
        )
    if isinstance(exc, OSError):
        return CliError(
            f"{exc}{where}",
            hint="check the address and that the server is running",
            code=EXIT_CONNECTION,
        )
    if isinstance(exc, JSONRPCError):
        return CliError(
            f"the server answered with error {exc.code}: {exc.message}",
            hint=_hint_for_code(exc.code),
            code=EXIT_PROTOCOL,
        )
    if isinstance(exc, AuthorizationError):
        return CliError(
            f"the server refused us{where}: {exc}",
            hint="give credentials: --bearer TOKEN (or set MCPKIT_BEARER), or "
            "--header 'Name: value'",
            code=EXIT_PROTOCOL,
        )
    if isinstance(exc, IncompatibleServer | ServerMisbehaved | RemoteProtocolError):
        return CliError(
            f"protocol error{where}: {exc}",
            hint="`mcpkit inspect --wire TARGET` shows the messages exchanged",
            code=EXIT_PROTOCOL,
        )
    if isinstance(exc, LocalProtocolError):
        return CliError(
            str(exc),
            hint="`mcpkit inspect TARGET` shows what the server declares",
            code=EXIT_PROTOCOL,
        )
    return CliError(
        f"unexpected {type(exc).__name__}: {exc}",
        hint="run again with -vv for details, and report it if it persists",
        code=EXIT_PROTOCOL,
    )


def _hint_for_code(code: int) -> str:
    if code == -32601:
        return "the server does not implement this method"
    if code == -32602:
        return "check the name and the arguments with `mcpkit list TARGET`"
    if code == -32002:
        return "no such resource; `mcpkit list TARGET` shows the resources"
    return "`mcpkit inspect --wire TARGET` shows the messages exchanged"
