"""Answering a server's elicitation at the terminal.

The server's message is shown, then the user chooses accept / decline / cancel and, on accept,
fills each field of the form: the prompt shows the field's title or name, its type, its
description, its choices (enums) and its default — an empty answer takes the default. Values are
checked against the field's type and re-asked up to :data:`MAX_ATTEMPTS` times. URL-mode
elicitation shows the URL and asks whether the user completed it.

Questions and prompts go to stderr, answers are read from stdin (a terminal, or a pipe in
scripts). End of input cancels. With ``--no-input`` every question is declined without asking.
Reading happens on a daemon thread, so Ctrl-C while waiting for an answer exits at once.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from collections.abc import Mapping
from typing import Any, Final, TextIO

__all__ = ["MAX_ATTEMPTS", "TerminalElicitation", "declining_handler"]

MAX_ATTEMPTS: Final = 3
"""Invalid answers to one field before the whole question is cancelled."""

_YES: Final = frozenset({"y", "yes", "true", "on", "1"})
_NO: Final = frozenset({"n", "no", "false", "off", "0"})


async def declining_handler(params: Any, context: Any) -> dict[str, Any]:
    """``--no-input``: decline every question (a script must not block on a prompt)."""
    return {"action": "decline"}


class _Cancelled(Exception):
    pass


class TerminalElicitation:
    """An elicitation handler for :class:`~mcpkit.client.Client` that asks at the terminal."""

    def __init__(self, stdin: TextIO | None = None, stderr: TextIO | None = None) -> None:
        self._in = stdin or sys.stdin
        self._out = stderr or sys.stderr
        self.before_asking: list[Any] = []
        """Callables run before the first prompt (e.g. clearing a progress bar)."""

    async def _readline(self, prompt: str) -> str:
        self._out.write(prompt)
        self._out.flush()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[str] = loop.create_future()

        def read() -> None:
            try:
                line = self._in.readline()
            except (OSError, ValueError):
                line = ""
            loop.call_soon_threadsafe(_resolve, future, line)

        threading.Thread(target=read, name="mcpkit-elicit-input", daemon=True).start()
        line = await future
        if not line:  # end of input
            self._out.write("\n")
            raise _Cancelled
        return line.rstrip("\r\n")

    async def __call__(self, params: Any, context: Any) -> dict[str, Any]:
        for hook in self.before_asking:
            hook()
        message = getattr(params, "message", "") or ""
        mode = getattr(params, "mode", None) or "form"
        server = getattr(context, "server_name", "the server")
        self._out.write(f"\n{server} asks: {message}\n")
        try:
            if mode == "url":
                self._out.write(f"  open: {getattr(params, 'url', '')}\n")
                action = await self._choose("Done? [a]ccept (done) / [d]ecline / [c]ancel [a]: ")
                return {"action": action}
            action = await self._choose("[a]ccept / [d]ecline / [c]ancel [a]: ")
            if action != "accept":
                return {"action": action}
            schema = getattr(params, "requested_schema", None)
            import msgspec

            schema = schema if isinstance(schema, dict) else msgspec.to_builtins(schema)
            return {"action": "accept", "content": await self._form(schema or {})}
        except _Cancelled:
            return {"action": "cancel"}

    async def _choose(self, prompt: str) -> str:
        for _ in range(MAX_ATTEMPTS):
            answer = (await self._readline(prompt)).strip().lower()
            if answer in ("", "a", "accept", "y", "yes"):
                return "accept"
            if answer in ("d", "decline", "n", "no"):
                return "decline"
            if answer in ("c", "cancel"):
                return "cancel"
            self._out.write("  please answer a, d or c\n")
        return "cancel"

    async def _form(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = set(schema.get("required") or ())
        content: dict[str, Any] = {}
        for name, prop in properties.items():
            prop = prop if isinstance(prop, Mapping) else {}
            value = await self._field(name, prop, name in required)
            if value is not _SKIP:
                content[name] = value
        return content

    async def _field(self, name: str, prop: Mapping[str, Any], required: bool) -> Any:
        kind = prop.get("type", "string")
        choices = _choices(prop)
        label = str(prop.get("title") or name)
        details = [str(kind)]
        if choices:
            details.append("one of " + ", ".join(choices))
        if prop.get("description"):
            self._out.write(f"  {label}: {prop['description']}\n")
        default = prop.get("default")
        shown = "" if default is None else f" [{_show(default)}]"
        prompt = f"  {label} ({'; '.join(details)}){'' if required else ' optional'}{shown}: "
        for _ in range(MAX_ATTEMPTS):
            text = await self._readline(prompt)
            if text == "":
                if default is not None:
                    return default
                if not required:
                    return _SKIP
                self._out.write("  a value is required\n")
                continue
            try:
                return _convert(text, kind, choices, prop)
            except ValueError as exc:
                self._out.write(f"  {exc}\n")
        raise _Cancelled


_SKIP: Final = object()


def _resolve(future: asyncio.Future[str], line: str) -> None:
    if not future.done():
        future.set_result(line)


def _choices(prop: Mapping[str, Any]) -> list[str]:
    if isinstance(prop.get("enum"), list):
        return [str(v) for v in prop["enum"]]
    for key in ("oneOf", "anyOf"):
        options = prop.get(key)
        if isinstance(options, list):
            return [str(o["const"]) for o in options if isinstance(o, Mapping) and "const" in o]
    items = prop.get("items")
    if prop.get("type") == "array" and isinstance(items, Mapping):
        return _choices(items)
    return []


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def _convert(text: str, kind: Any, choices: list[str], prop: Mapping[str, Any]) -> Any:
    if kind == "boolean":
        lowered = text.strip().lower()
        if lowered in _YES:
            return True
        if lowered in _NO:
            return False
        raise ValueError("please answer yes or no")
    if kind == "integer":
        try:
            value: Any = int(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a whole number") from None
        _check_range(value, prop)
        return value
    if kind == "number":
        try:
            value = float(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        _check_range(value, prop)
        return value
    if kind == "array":
        values = [part.strip() for part in text.split(",") if part.strip()]
        bad = [v for v in values if choices and v not in choices]
        if bad:
            raise ValueError(f"not among the choices: {', '.join(bad)}")
        return values
    if choices and text not in choices:
        raise ValueError(f"choose one of: {', '.join(choices)}")
    return text


def _check_range(value: float, prop: Mapping[str, Any]) -> None:
    low, high = prop.get("minimum"), prop.get("maximum")
    if isinstance(low, int | float) and value < low:
        raise ValueError(f"must be at least {low}")
    if isinstance(high, int | float) and value > high:
        raise ValueError(f"must be at most {high}")
