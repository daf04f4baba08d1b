"""Errors for tool arguments and tool results, with messages a model can act on.

msgspec reports ``Expected `int`, got `str` - at `$.count```; a model reading an ``isError`` tool
result does better with ``Invalid arguments: `count`: expected an integer, got a string``. The
translation happens only on the failure path, so it costs nothing per successful call.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Final

from mcpkit.protocol._errors import InternalError, InvalidParams

__all__ = ["ArgumentError", "InvalidToolOutput", "MAX_REPORTED_ERRORS"]

MAX_REPORTED_ERRORS: Final = 5
"""At most this many individual problems are listed in one ArgumentError message."""

_TYPE_WORDS: Final = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "a boolean",
    "null": "null",
    "array": "an array",
    "object": "an object",
    "bytes": "a base64 string",
    "datetime": "an RFC 3339 date-time string",
    "date": "an RFC 3339 date string",
    "time": "an RFC 3339 time string",
    "uuid": "a UUID string",
    "decimal": "a decimal number",
    "duration": "an ISO 8601 duration",
}
# Patterns, compiled by ``re`` on the first bad argument (and cached there): compiling them at
# import cost ~1.35 M instructions on every server's start, for the error path only.
_BACKTICKED = r"`([^`]*)`"
_AT_PATH = r"(?s)^(?P<msg>.*?) - at `\$(?P<path>[^`]*)`$"
_MISSING = r"^Object missing required field `(?P<field>[^`]*)`$"
_UNKNOWN = r"^Object contains unknown field `(?P<field>[^`]*)`$"


def _describe_type(name: str) -> str:
    words = [_TYPE_WORDS.get(part.strip(), f"`{part.strip()}`") for part in name.split("|")]
    return " or ".join(words)


def _humanise(message: str) -> str:
    """``Expected `int` >= 1, got `str``` → ``expected an integer >= 1, got a string``."""
    text = re.sub(_BACKTICKED, lambda m: _describe_type(m.group(1)), message)
    return text[:1].lower() + text[1:] if text else text


def _join_path(prefix: str, path: str) -> str:
    """Join a parent path and a msgspec-style suffix (``.x``, ``[2]``) into ``a.b[2]``."""
    if not path:
        return prefix
    if path.startswith("."):
        path = path[1:]
        return f"{prefix}.{path}" if prefix else path
    return f"{prefix}{path}"


class ArgumentError(InvalidParams):
    """Tool (or prompt) arguments failed validation.

    The message names the offending field path, e.g.
    ``Invalid arguments: `count`: expected an integer, got a string``. ``problems`` holds each
    ``(path, description)`` pair; ``path`` is ``""`` when the arguments object itself is wrong.
    A server turns this into an ``isError`` tool result (SEP-1303) or a -32602 error.
    """

    def __init__(self, problems: Sequence[tuple[str, str]]) -> None:
        self.problems: tuple[tuple[str, str], ...] = tuple(problems)
        shown = [f"`{p}`: {d}" if p else d for p, d in self.problems[:MAX_REPORTED_ERRORS]]
        hidden = len(self.problems) - len(shown)
        if hidden > 0:
            shown.append(f"and {hidden} more")
        super().__init__(
            "Invalid arguments: " + "; ".join(shown),
            {"fields": fields} if (fields := [p for p, _ in self.problems if p]) else None,
        )

    @property
    def path(self) -> str:
        """The first offending field path (``""`` for the arguments object as a whole)."""
        return self.problems[0][0] if self.problems else ""

    @classmethod
    def from_msgspec(
        cls,
        message: str,
        *,
        prefix: str = "",
        allowed: Iterable[str] = (),
        enums: dict[str, list[Any]] | None = None,
    ) -> ArgumentError:
        """Translate one msgspec ``ValidationError`` message.

        ``allowed`` lists the accepted top-level argument names (for the unknown-argument hint);
        ``enums`` maps top-level argument names to their allowed values (for the enum hint).
        """
        match = re.match(_AT_PATH, message)
        body, path = (match.group("msg"), match.group("path")) if match else (message, "")
        full = _join_path(prefix, path)
        if missing := re.match(_MISSING, body):
            where = _join_path(full, "." + missing.group("field"))
            what = "required argument is missing" if not full else "required field is missing"
            return cls([(where, what)])
        if unknown := re.match(_UNKNOWN, body):
            where = _join_path(full, "." + unknown.group("field"))
            names = sorted(allowed)
            if full:
                return cls([(where, "unknown field")])
            hint = f" (expected one of: {', '.join(names)})" if names else " (takes no arguments)"
            return cls([(where, "unknown argument" + hint)])
        text = _humanise(body)
        if enums and full in enums and text.startswith("invalid enum value"):
            text += " (expected one of: " + ", ".join(repr(v) for v in enums[full]) + ")"
        return cls([(full, text)])

    @classmethod
    def from_pydantic(cls, errors: Sequence[Any], *, prefix: str) -> ArgumentError:
        """Translate pydantic's ``ValidationError.errors()`` list for the argument ``prefix``."""
        problems: list[tuple[str, str]] = []
        for err in errors:
            path = prefix
            for part in err.get("loc", ()):
                path = f"{path}[{part}]" if isinstance(part, int) else _join_path(path, f".{part}")
            msg = str(err.get("msg", "invalid value"))
            problems.append((path, msg[:1].lower() + msg[1:]))
        return cls(problems or [(prefix, "invalid value")])


class InvalidToolOutput(InternalError):
    """A tool returned a value that does not match its return annotation.

    This is a bug in the tool, not in the caller's input, so it is an internal error (-32603);
    the message names the tool, the declared type and what was wrong.
    """
