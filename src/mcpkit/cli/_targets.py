"""What a TARGET argument names, and how the command reaches it.

A target is, in this order of recognition:

* a URL (``http://…``, ``https://…``) — a Streamable HTTP server;
* ``config.json:name`` — entry ``name`` of an ``mcpServers`` (Claude Desktop, Cursor, …) or
  VS Code ``servers`` file;
* a command line with spaces (``"python server.py --flag"``) — a stdio server;
* a Python file ``server.py`` or ``server.py:object`` — run as a stdio server by
  ``python -m mcpkit.cli run`` (so any module-level ``Server`` works, no ``__main__`` block
  needed);
* an importable module ``package.module`` or ``package.module:object`` — the same;
* a program on ``PATH`` (``my-mcp-server``) — a stdio server.

Anything else is refused with a message listing these forms. ``--env KEY=VALUE`` adds variables
for a stdio server (which otherwise gets only the allow-listed environment, see
:data:`mcpkit.transports.DEFAULT_ALLOWED_ENV`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from mcpkit.cli._errors import CliError

__all__ = [
    "MAX_CONFIG_BYTES",
    "ResolvedTarget",
    "config_entries",
    "load_config",
    "resolve",
    "split_object",
]

MAX_CONFIG_BYTES: Final = 4 * 1024 * 1024
"""A configuration file larger than this is refused rather than read."""

_MODULE_RE: Final = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*(:[A-Za-z_][\w.]*)?$")
_OBJECT_RE: Final = re.compile(r"^[A-Za-z_][\w.]*$")
_CONFIG_RE: Final = re.compile(r"^(?P<path>.+\.json)(?::(?P<name>.+))?$")

TargetKind = Literal["url", "config", "command", "file", "module"]

TARGET_FORMS: Final = (
    "a URL (http://host/mcp), config.json:name, a command line in quotes, "
    "a file.py[:object], a module[:object], or a program on PATH"
)


@dataclass(frozen=True, slots=True)
class ResolvedTarget:
    """A target the client can connect to: ``client_target`` is what ``Client()`` accepts."""

    kind: TargetKind
    text: str
    client_target: Any
    label: str


def split_object(spec: str) -> tuple[str, str | None]:
    """``"a/b.py:server"`` → ``("a/b.py", "server")``; no object part → ``(spec, None)``."""
    head, sep, tail = spec.rpartition(":")
    if sep and head and _OBJECT_RE.match(tail) and not re.match(r"^[A-Za-z]$", head):
        return head, tail
    return spec, None


def load_config(path: Path) -> dict[str, Any]:
    """The server entries of an ``mcpServers`` / VS Code ``servers`` file, by name."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise CliError(
            f"cannot read {path}: {exc.strerror or exc}", hint="check the path"
        ) from None
    if size > MAX_CONFIG_BYTES:
        raise CliError(f"{path} is larger than {MAX_CONFIG_BYTES} bytes; is it a config file?")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CliError(
            f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    return config_entries(document, str(path))


def config_entries(document: Any, source: str) -> dict[str, Any]:
    servers = None
    if isinstance(document, dict):
        servers = document.get("mcpServers", document.get("servers"))
    if not isinstance(servers, dict):
        raise CliError(
            f'{source} has no "mcpServers" (or VS Code "servers") object',
            hint='expected {"mcpServers": {"name": {"command": ...} | {"url": ...}}}',
        )
    bad = [name for name, entry in servers.items() if not isinstance(entry, dict)]
    if bad:
        raise CliError(f"{source}: the entries {', '.join(bad)} are not objects")
    return dict(servers)


def _python_target(spec: str, env: Mapping[str, str], kind: TargetKind) -> ResolvedTarget:
    """Run a file or module as a stdio server through this same command.

    It is the person's own code, run from their shell: it gets their whole environment, as
    ``python server.py`` would (so ``MY_SETTING=x mcpkit call server.py …`` works the way a
    server's docs say), plus ``--env``. Other stdio targets get only the allow-listed variables.
    """
    entry: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "mcpkit.cli", "run", spec],
        "env": {**os.environ, **env},
    }
    return ResolvedTarget(kind, spec, entry, spec)


def _module_exists(name: str) -> bool:
    import importlib.util

    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def resolve(text: str, *, env: Mapping[str, str] | None = None) -> ResolvedTarget:
    """Recognise ``text`` (see the module docstring) or raise a usage :class:`CliError`."""
    env = dict(env or {})
    stripped = text.strip()
    if not stripped:
        raise CliError("the target is empty", hint=f"give {TARGET_FORMS}")
    if stripped.startswith(("http://", "https://")):
        if env:
            raise CliError("--env applies to stdio servers, not to a URL")
        return ResolvedTarget("url", stripped, stripped, stripped)

    config = _CONFIG_RE.match(stripped)
    if config:
        return _config_target(Path(config["path"]).expanduser(), config["name"], env, stripped)
    path_part, _ = split_object(stripped)

    if any(ch.isspace() for ch in stripped):
        try:
            argv = shlex.split(stripped)
        except ValueError as exc:
            raise CliError(
                f"cannot split the command line {stripped!r}: {exc}",
                hint="quote the whole command once, and arguments with spaces inside it",
            ) from None
        entry: dict[str, Any] = {"command": argv[0], "args": argv[1:]}
        if env:
            entry["env"] = env
        return ResolvedTarget("command", stripped, entry, stripped)

    if path_part.endswith(".py"):
        if not Path(path_part).is_file():
            raise CliError(f"no such file: {path_part}", hint="check the path (relative to here)")
        return _python_target(stripped, env, "file")

    if os.sep in stripped or (os.altsep and os.altsep in stripped):
        if Path(stripped).is_file() and os.access(stripped, os.X_OK):
            entry = {"command": str(Path(stripped).resolve()), "args": []}
            if env:
                entry["env"] = env
            return ResolvedTarget("command", stripped, entry, stripped)
        raise CliError(f"no such executable file: {stripped}", hint=f"give {TARGET_FORMS}")

    if _MODULE_RE.match(stripped):
        module, _ = split_object(stripped)
        if (":" in stripped or not shutil.which(stripped)) and _module_exists(module):
            return _python_target(stripped, env, "module")
        if shutil.which(stripped):
            entry = {"command": stripped, "args": []}
            if env:
                entry["env"] = env
            return ResolvedTarget("command", stripped, entry, stripped)

    raise CliError(
        f"unknown target {text!r}: not a URL, a file, an importable module or a program on PATH",
        hint=f"give {TARGET_FORMS}",
    )


def _config_target(
    path: Path, name: str | None, env: Mapping[str, str], text: str
) -> ResolvedTarget:
    if not path.is_file():
        raise CliError(f"no such config file: {path}", hint="check the path (relative to here)")
    entries = load_config(path)
    if name is None:
        raise CliError(
            f"{path} holds several servers; name one as {path}:NAME",
            hint=f"servers in it: {', '.join(entries) or '(none)'}",
        )
    entry = entries.get(name)
    if entry is None:
        raise CliError(
            f"{path} has no server named {name!r}",
            hint=f"servers in it: {', '.join(entries) or '(none)'}",
        )
    entry = dict(entry)
    if env:
        if "command" not in entry:
            raise CliError("--env applies to stdio servers, not to a URL entry")
        entry["env"] = {**(entry.get("env") or {}), **env}
    return ResolvedTarget("config", text, entry, f"{path}:{name}")
