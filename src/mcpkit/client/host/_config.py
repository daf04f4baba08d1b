"""Server lists in the formats people already have.

* **Claude Desktop / Cursor** (``claude_desktop_config.json``, ``.cursor/mcp.json``)::

      {"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-fs", "/tmp"],
                                "env": {"KEY": "..."}},
                      "remote": {"url": "https://example.com/mcp", "headers": {...}}}}

  An entry with ``"disabled": true`` is skipped.
* **VS Code** (``.vscode/mcp.json``): ``{"servers": {...}, "inputs": [...]}`` with ``type``
  (``stdio`` / ``http`` / ``sse``) and variables in strings: ``${env:NAME}``, ``${input:id}``
  (asked through ``inputs=`` — a mapping or a function given the input's declaration — never
  guessed), ``${workspaceFolder}`` and ``${userHome}``.
* a ``dict`` in either shape, or simply ``{name: target}`` where each target is anything
  :func:`~mcpkit.client._connectors.resolve_target` accepts.

Variables are substituted in ``command``, ``args``, ``env``, ``cwd``, ``url`` and ``headers``. An
unknown variable, an unset environment variable or an unanswered input is an error naming the
server and the variable, not an empty string quietly passed to a server.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from mcpkit.protocol._errors import UsageError

__all__ = ["InputProvider", "ServerEntry", "load_servers", "parse_servers"]

InputProvider = Mapping[str, str] | Callable[[Mapping[str, Any]], str]
"""Answers ``${input:id}``: a mapping by id, or a function given the input's declaration
(``{"id", "type", "description", "password"?}``)."""

_VARIABLE: Final = re.compile(r"\$\{([^}]*)\}")
_SUBSTITUTED_KEYS: Final = ("command", "args", "env", "cwd", "url", "headers")


@dataclass(slots=True)
class ServerEntry:
    """One configured server: its name and what to connect to (a target for ``Client``)."""

    name: str
    target: Any
    options: dict[str, Any] = field(default_factory=dict)
    """Extra keys of the entry the host does not interpret (kept for callers)."""


class _Substituter:
    def __init__(
        self,
        inputs: InputProvider | None,
        declared: Mapping[str, Mapping[str, Any]],
        environ: Mapping[str, str],
        workspace: str | None,
    ) -> None:
        self._inputs = inputs
        self._declared = declared
        self._environ = environ
        self._workspace = workspace
        self._answers: dict[str, str] = {}

    def value(self, server: str, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            return self._resolve(server, match.group(1))

        return _VARIABLE.sub(replace, text)

    def _resolve(self, server: str, name: str) -> str:
        if name.startswith("env:"):
            var = name[4:]
            if var not in self._environ:
                raise UsageError(f"server {server!r}: environment variable {var} is not set")
            return self._environ[var]
        if name.startswith("input:"):
            return self._input(server, name[6:])
        if name == "workspaceFolder":
            if self._workspace is None:
                raise UsageError(
                    f"server {server!r} uses ${{workspaceFolder}}: pass workspace_folder="
                )
            return self._workspace
        if name == "userHome":
            return str(Path.home())
        raise UsageError(f"server {server!r}: unknown variable ${{{name}}}")

    def _input(self, server: str, input_id: str) -> str:
        if input_id in self._answers:
            return self._answers[input_id]
        provider = self._inputs
        if provider is None:
            raise UsageError(
                f"server {server!r} needs ${{input:{input_id}}}: pass inputs={{{input_id!r}: ...}}"
            )
        if isinstance(provider, Mapping):
            if input_id not in provider:
                raise UsageError(f"server {server!r}: no value for ${{input:{input_id}}}")
            answer = provider[input_id]
        else:
            declaration = dict(self._declared.get(input_id, {"id": input_id}))
            answer = provider(declaration)
        if not isinstance(answer, str):
            raise UsageError(f"the value of ${{input:{input_id}}} must be a string")
        self._answers[input_id] = answer
        return answer

    def entry(self, server: str, entry: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(entry)
        for key in _SUBSTITUTED_KEYS:
            if key not in out:
                continue
            value = out[key]
            if isinstance(value, str):
                out[key] = self.value(server, value)
            elif isinstance(value, list):
                out[key] = [self.value(server, v) if isinstance(v, str) else v for v in value]
            elif isinstance(value, Mapping):
                out[key] = {
                    k: self.value(server, v) if isinstance(v, str) else v for k, v in value.items()
                }
        return out


def parse_servers(
    config: Mapping[str, Any],
    *,
    inputs: InputProvider | None = None,
    environ: Mapping[str, str] | None = None,
    workspace_folder: str | None = None,
) -> list[ServerEntry]:
    """The servers of a configuration ``dict`` (any of the shapes in the module docstring)."""
    if "mcpServers" in config:
        servers = config["mcpServers"]
    elif "servers" in config and isinstance(config["servers"], Mapping):
        servers = config["servers"]
    else:
        servers = config
    if not isinstance(servers, Mapping):
        raise UsageError('"mcpServers" / "servers" must be an object mapping names to servers')
    declared: dict[str, Mapping[str, Any]] = {}
    for item in config.get("inputs", []) if isinstance(config.get("inputs"), list) else []:
        if isinstance(item, Mapping) and isinstance(item.get("id"), str):
            declared[item["id"]] = item
    substitute = _Substituter(
        inputs, declared, os.environ if environ is None else environ, workspace_folder
    )
    entries: list[ServerEntry] = []
    for name, raw in servers.items():
        if not isinstance(name, str) or not name:
            raise UsageError("server names must be non-empty strings")
        if not isinstance(raw, Mapping):
            entries.append(ServerEntry(name, raw))  # {name: target} shorthand
            continue
        if raw.get("disabled") is True:
            continue
        entry = substitute.entry(name, raw)
        known = {"command", "args", "env", "cwd", "url", "headers", "type", "transport"}
        options = {k: v for k, v in entry.items() if k not in known}
        target = {k: v for k, v in entry.items() if k in known}
        entries.append(ServerEntry(name, target, options))
    return entries


def load_servers(
    path: str | os.PathLike[str],
    *,
    inputs: InputProvider | None = None,
    environ: Mapping[str, str] | None = None,
    workspace_folder: str | None = None,
) -> list[ServerEntry]:
    """Read a Claude Desktop, Cursor or VS Code configuration file (a leading ``~`` is the home
    folder, as in the paths those hosts document)."""
    file = Path(path).expanduser()
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read server configuration {file}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{file} is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise UsageError(f"{file} must hold a JSON object")
    return parse_servers(config, inputs=inputs, environ=environ, workspace_folder=workspace_folder)
