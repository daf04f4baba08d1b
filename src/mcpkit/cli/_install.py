"""Server entries in each MCP host's own configuration format, and where each host keeps it.

==============  =========================================================  ===================
host            file (default; ``--config`` overrides)                     shape
==============  =========================================================  ===================
claude-desktop  macOS ``~/Library/Application Support/Claude/``,           ``mcpServers``:
                Windows ``%APPDATA%\\Claude\\``, Linux                      command/args/env
                ``$XDG_CONFIG_HOME/Claude/`` + ``claude_desktop_config.json``
claude-code     ``.mcp.json`` in the current directory (project scope)     ``mcpServers``, with
                                                                           ``type`` stdio/http
cursor          ``~/.cursor/mcp.json`` (``--scope project``:               ``mcpServers``:
                ``.cursor/mcp.json``)                                      command/args/env, url
vscode          ``.vscode/mcp.json`` in the current directory              ``servers``, with
                                                                           ``type`` stdio/http
mcp-json        ``mcp.json`` in the current directory                      ``mcpServers``:
                                                                           command/args/env, url
==============  =========================================================  ===================

A host starts a stdio server from its own working directory, so local targets are written with
absolute paths: a Python file or module becomes ``<this python> -m mcpkit.cli run <abs path>``
(modules get ``PYTHONPATH`` set to the current directory). Claude Desktop's file only describes
stdio servers, so a URL is bridged there with ``npx -y mcp-remote URL``.

Writing keeps everything else in the file, refuses to replace an existing entry of the same name
without ``--force``, refuses to touch a file that is not valid JSON, and replaces the file
atomically (a temporary file renamed over it).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from mcpkit.cli._errors import CliError
from mcpkit.cli._targets import ResolvedTarget, split_object

__all__ = [
    "HOSTS",
    "NAME_PROBE_TIMEOUT",
    "Entry",
    "config_path",
    "entry_for",
    "install_entry",
    "render_entry",
    "server_name",
]

HOSTS: Final = ("claude-desktop", "claude-code", "cursor", "vscode", "mcp-json")


@dataclass(frozen=True, slots=True)
class Entry:
    """A host-neutral description of how to reach one server."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    url: str | None = None


def default_name(target: ResolvedTarget) -> str:
    if target.kind == "url":
        from urllib.parse import urlsplit

        return urlsplit(target.text).hostname or "server"
    if target.kind == "config":
        return target.label.rpartition(":")[2]
    if target.kind in ("file", "module"):
        spec, _ = split_object(target.text)
        return Path(spec).stem if target.kind == "file" else spec.rpartition(".")[2]
    command = target.client_target["command"]
    args = target.client_target.get("args") or []
    word = Path(args[-1]).stem if args and command.startswith(("python", "uv", "npx")) else command
    return Path(word).stem or "server"


NAME_PROBE_TIMEOUT: Final = 10.0
"""Seconds ``install`` waits for a command or URL server to say its name before falling back."""


def server_name(target: ResolvedTarget, env: Mapping[str, str]) -> str | None:
    """The server's own name (its ``serverInfo.name``), or ``None`` if it cannot be learned.

    A file or module is imported (the ``Server`` object knows its name; nothing is started); a
    command or URL is asked, within :data:`NAME_PROBE_TIMEOUT`. A config entry keeps its key.
    """
    if target.kind == "config":
        return None
    if target.kind in ("file", "module"):
        from mcpkit.cli._loader import load_server

        try:
            name = load_server(target.text).name
        except CliError:
            return None
        return name.strip() or None if isinstance(name, str) else None
    return _ask_name(target, env)


def _ask_name(target: ResolvedTarget, env: Mapping[str, str]) -> str | None:
    import asyncio

    from mcpkit.client import Client

    async def ask() -> str | None:
        client_target = target.client_target
        if env and isinstance(client_target, dict):
            client_target = {**client_target, "env": {**(client_target.get("env") or {}), **env}}
        async with Client(
            client_target,
            timeout=NAME_PROBE_TIMEOUT,
            initialize_timeout=NAME_PROBE_TIMEOUT,
            probe_timeout=NAME_PROBE_TIMEOUT,
        ) as client:
            name = (client.server_info or {}).get("name")
            return name.strip() or None if isinstance(name, str) else None

    try:
        return asyncio.run(asyncio.wait_for(ask(), NAME_PROBE_TIMEOUT * 2))
    except Exception:  # any failure: the entry is named after the target instead
        return None


def entry_for(
    target: ResolvedTarget,
    name: str | None,
    env: Mapping[str, str],
    *,
    ask_server: bool = True,
) -> Entry:
    """How a host should start (or reach) ``target``, with absolute paths.

    Named ``name``, else the server's own name (:func:`server_name`), else after the target.
    """
    name = name or (server_name(target, env) if ask_server else None) or default_name(target)
    if target.kind == "url":
        return Entry(name, url=target.text)
    if target.kind in ("file", "module"):
        spec, obj = split_object(target.text)
        run_env = dict(env)
        if target.kind == "file":
            spec = str(Path(spec).resolve())
        else:
            run_env.setdefault("PYTHONPATH", os.getcwd())
        spec = f"{spec}:{obj}" if obj else spec
        return Entry(name, sys.executable, ("-m", "mcpkit.cli", "run", spec), run_env or None)
    entry = target.client_target
    if "url" in entry or "serverUrl" in entry:
        return Entry(name, url=str(entry.get("url") or entry.get("serverUrl")))
    merged = {**(entry.get("env") or {}), **env}
    return Entry(name, str(entry["command"]), tuple(entry.get("args") or ()), merged or None)


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def config_path(host: str, *, scope: str | None = None) -> Path:
    """Where ``host`` reads its MCP servers from (see the module docstring)."""
    if host == "claude-desktop":
        if sys.platform == "darwin":
            base = _home() / "Library" / "Application Support"
        elif sys.platform == "win32":
            base = Path(os.environ.get("APPDATA") or _home() / "AppData" / "Roaming")
        else:
            base = Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    if host == "claude-code":
        return Path.cwd() / ".mcp.json"
    if host == "cursor":
        return (Path.cwd() if scope == "project" else _home()) / ".cursor" / "mcp.json"
    if host == "vscode":
        return Path.cwd() / ".vscode" / "mcp.json"
    if host == "mcp-json":
        return Path.cwd() / "mcp.json"
    raise CliError(f"unknown host {host!r}", hint=f"one of: {', '.join(HOSTS)}")


def render_entry(host: str, entry: Entry) -> tuple[str, dict[str, Any]]:
    """``(top-level key, server object)`` in ``host``'s format."""
    key = "servers" if host == "vscode" else "mcpServers"
    typed = host in ("vscode", "claude-code")
    if entry.url is not None:
        if host == "claude-desktop":
            return key, {"command": "npx", "args": ["-y", "mcp-remote", entry.url]}
        return key, ({"type": "http", "url": entry.url} if typed else {"url": entry.url})
    body: dict[str, Any] = {"type": "stdio"} if typed else {}
    body["command"] = entry.command
    body["args"] = list(entry.args)
    if entry.env:
        body["env"] = dict(entry.env)
    return key, body


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not text.strip():
        return {}
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(
            f"{path} is not valid JSON ({exc.msg} at line {exc.lineno}); not touching it",
            hint="fix the file by hand, or write elsewhere with --config PATH",
        ) from None
    if not isinstance(document, dict):
        raise CliError(f"{path} does not hold a JSON object; not touching it")
    return document


def install_entry(host: str, entry: Entry, path: Path, *, force: bool = False) -> Path:
    """Add ``entry`` to the configuration file at ``path`` (created if missing)."""
    key, body = render_entry(host, entry)
    document = _read(path)
    servers = document.setdefault(key, {})
    if not isinstance(servers, dict):
        raise CliError(f'{path}: "{key}" is not an object; not touching it')
    if entry.name in servers and servers[entry.name] != body and not force:
        raise CliError(
            f"{path} already has a server named {entry.name!r}",
            hint="replace it with --force, or choose another --name",
        )
    servers[entry.name] = body
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
