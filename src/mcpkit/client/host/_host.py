"""``Host``: many servers at once, as one catalogue of tools, prompts and resources.

    async with Host.from_file("claude_desktop_config.json",
                              filters={"files": ToolFilter.read_only()}) as host:
        for tool in await host.list_tools():      # every server's tools, namespaced on collision
            ...
        result = await host.call_tool("files__read_file", {"path": "/tmp/x"})   # routed

Each server gets a :class:`~mcpkit.client.host._supervisor.ServerSupervisor` (its own task, its
own restarts). One bad server — it crashes, hangs, floods, speaks garbage — only ever affects its
own entries: listing skips it (with a warning and a status row), calls to it fail fast with
:class:`~mcpkit.client._errors.ServerUnavailable`, and every other server carries on.

**Names.** ``namespacing="on_collision"`` (default) keeps a tool's own name unless another
server offers the same one, in which case both become ``<server><separator><tool>``;
``"always"`` prefixes every tool; ``"never"`` keeps bare names and resolves a clash by
``on_collision``: ``"first"`` (the first server in configuration order wins, with a warning) or
``"error"``. Prefixes are sanitised to the tool-name alphabet ``[A-Za-z0-9_.-]``.

**Filters.** ``filters={server: ToolFilter(...)}`` picks the subset of a server's tools the host
accepts — allow/deny lists and a predicate, e.g. :meth:`ToolFilter.read_only` for tools whose
``readOnlyHint`` is true. Filtered tools are never listed and never callable through the host.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal, Unpack

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._client import Client, SendHook
from mcpkit.client._connectors import CommandConnector, resolve_target
from mcpkit.client._errors import ClientError, ServerUnavailable, UnknownTool
from mcpkit.client._schemas import ValidationMode
from mcpkit.client.host._config import InputProvider, ServerEntry, load_servers, parse_servers
from mcpkit.client.host._supervisor import ServerSupervisor
from mcpkit.protocol._capabilities import has_capability
from mcpkit.protocol._errors import MCPError, UsageError
from mcpkit.types._prompts import GetPromptResult, Prompt
from mcpkit.types._resources import ReadResourceResult, Resource
from mcpkit.types._tools import CallToolResult, Tool

if TYPE_CHECKING:
    from mcpkit.client.host._host_options import HostOptions

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "DEFAULT_LIST_TIMEOUT",
    "Host",
    "HostPrompt",
    "HostResource",
    "HostTool",
    "ToolCollision",
    "ToolFilter",
]

logger = logging.getLogger("mcpkit.host")

DEFAULT_CONNECT_TIMEOUT: Final = 30.0
"""Seconds ``async with Host(...)`` waits for each server to be ready or to fail."""
DEFAULT_LIST_TIMEOUT: Final = 10.0
"""Seconds one server may take to list its tools/prompts/resources before a host listing
goes on without it (it is skipped this time, with a warning)."""
DEFAULT_SEPARATOR: Final = "__"

Namespacing = Literal["on_collision", "always", "never"]
_NAME_CHARS: Final = re.compile(r"[^A-Za-z0-9_.-]")


class ToolCollision(ClientError, UsageError):
    """Two servers offer the same tool name and the host was told to refuse that."""


class ToolFilter:
    """Which of a server's tools a host accepts: allow list, deny list, then a predicate."""

    def __init__(
        self,
        *,
        allow: Iterable[str] | None = None,
        deny: Iterable[str] = (),
        predicate: Callable[[Tool], bool] | None = None,
    ) -> None:
        self.allow = frozenset(allow) if allow is not None else None
        self.deny = frozenset(deny)
        self.predicate = predicate

    @classmethod
    def read_only(cls) -> ToolFilter:
        """Only tools the server marks ``readOnlyHint: true`` (a hint: trust the server first)."""
        return cls(
            predicate=lambda tool: bool(tool.annotations and tool.annotations.read_only_hint)
        )

    def accepts(self, tool: Tool) -> bool:
        if self.allow is not None and tool.name not in self.allow:
            return False
        if tool.name in self.deny:
            return False
        return self.predicate is None or bool(self.predicate(tool))


@dataclass(frozen=True, slots=True)
class HostTool:
    name: str
    """The name the host exposes (maybe prefixed)."""
    server: str
    tool: Tool
    """The server's own tool object (``tool.name`` is its name on that server)."""


@dataclass(frozen=True, slots=True)
class HostPrompt:
    name: str
    server: str
    prompt: Prompt


@dataclass(frozen=True, slots=True)
class HostResource:
    server: str
    resource: Resource


class Host:
    """Connections to many servers; see the module docstring."""

    request_hook: SendHook | None = None
    """Given to every client this host makes (telemetry: a span per routed call; see
    :data:`~mcpkit.client._client.SendHook`)."""

    def __init__(
        self,
        servers: Mapping[str, Any] | Sequence[ServerEntry] | str | os.PathLike[str],
        *,
        filters: Mapping[str, ToolFilter] | None = None,
        namespacing: Namespacing = "on_collision",
        separator: str = DEFAULT_SEPARATOR,
        on_collision: Literal["first", "error"] = "first",
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        list_timeout: float = DEFAULT_LIST_TIMEOUT,
        restart: bool = True,
        client_options: Mapping[str, Any] | None = None,
        server_options: Mapping[str, Mapping[str, Any]] | None = None,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        entries: list[ServerEntry]
        if isinstance(servers, str | os.PathLike):
            entries = load_servers(servers)
        elif isinstance(servers, Mapping):
            entries = parse_servers(servers)
        else:
            entries = list(servers)
        names = [entry.name for entry in entries]
        if len(set(names)) != len(names):
            raise UsageError(f"server names must be unique: {names}")
        unknown = set(filters or {}) - set(names)
        if unknown:
            raise UsageError(f"filters name servers that are not configured: {sorted(unknown)}")
        if namespacing not in ("on_collision", "always", "never"):
            raise UsageError('namespacing must be "on_collision", "always" or "never"')
        self._entries = entries
        self._filters = dict(filters or {})
        self._namespacing = namespacing
        self._separator = separator
        self._on_collision = on_collision
        self._connect_timeout = connect_timeout
        self._list_timeout = list_timeout
        self._client_options = dict(client_options or {})
        self._server_options = {k: dict(v) for k, v in (server_options or {}).items()}
        self._on_change = on_change
        self.servers: dict[str, ServerSupervisor] = {
            entry.name: ServerSupervisor(
                entry.name, self._client_factory(entry), on_change=self._changed, restart=restart
            )
            for entry in entries
        }
        self._tools: dict[str, list[Tool]] = {}
        self._prompts: dict[str, list[Prompt]] = {}
        self._resources: dict[str, list[Resource]] = {}
        self._tool_routes: dict[str, tuple[str, str]] = {}
        self._prompt_routes: dict[str, tuple[str, str]] = {}

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        inputs: InputProvider | None = None,
        workspace_folder: str | None = None,
        **options: Unpack[HostOptions],
    ) -> Host:
        """A host for the servers of a Claude Desktop, Cursor or VS Code configuration file."""
        entries = load_servers(path, inputs=inputs, workspace_folder=workspace_folder)
        return cls(entries, **options)

    def _client_factory(self, entry: ServerEntry) -> Callable[[], Client]:
        options = {**self._client_options, **self._server_options.get(entry.name, {})}
        options.setdefault("name", entry.name)

        def make() -> Client:
            client = Client(_named(entry), **options)
            if self.request_hook is not None:  # restarts make new clients: each gets the hook
                client.request_hook = self.request_hook
            return client

        return make

    # -- lifecycle -----------------------------------------------------------------------------

    async def __aenter__(self) -> Host:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def start(self) -> None:
        """Start every server and wait (bounded) until each is ready or has failed."""
        for supervisor in self.servers.values():
            supervisor.start()
        await asyncio.gather(
            *(s.wait_settled(self._connect_timeout) for s in self.servers.values())
        )
        for name, supervisor in self.servers.items():
            if supervisor.state != "ready":
                logger.warning("server %r is %s: %s", name, supervisor.state, supervisor.last_error)

    async def aclose(self) -> None:
        """Close every connection. Safe to call from any task, more than once."""
        await asyncio.gather(*(s.stop() for s in self.servers.values()))

    def status(self) -> dict[str, dict[str, Any]]:
        """One row per server: state, era, protocol version, server info, last error."""
        return {name: supervisor.describe() for name, supervisor in self.servers.items()}

    def client(self, server: str) -> Client:
        """The live client of ``server`` (:class:`ServerUnavailable` if it is down)."""
        supervisor = self.servers.get(server)
        if supervisor is None:
            raise UsageError(f"no server named {server!r}; configured: {sorted(self.servers)}")
        return supervisor.client

    def _changed(self, server: str) -> None:
        """A server's lists changed (or it restarted): forget them; tell ``on_change``."""
        self._tools.pop(server, None)
        self._prompts.pop(server, None)
        self._resources.pop(server, None)
        if self._on_change is not None:
            try:
                self._on_change(server)
            except Exception:
                logger.exception("the host's on_change callback failed")

    # -- aggregation ---------------------------------------------------------------------------

    async def _fetch(self, kind: str, cache: dict[str, list[Any]]) -> dict[str, list[Any]]:
        """Per server, the list of ``kind`` (cached until that server reports a change)."""

        async def one(name: str) -> None:
            try:
                client = self.servers[name].client
                if not has_capability(client.server_capabilities, (kind,)):
                    cache[name] = []
                    return
                if kind == "tools":
                    found: list[Any] = await client.list_tools()
                    accept = self._filters.get(name)
                    if accept is not None:
                        found = [tool for tool in found if accept.accepts(tool)]
                elif kind == "prompts":
                    found = await client.list_prompts()
                else:
                    found = await client.list_resources()
                cache[name] = found
            except ServerUnavailable as exc:
                cache.pop(name, None)
                logger.debug("listing %s: %s", kind, exc)
            except MCPError as exc:
                cache.pop(name, None)
                logger.warning("server %r: could not list %s: %s", name, kind, exc)

        async def bounded(name: str) -> None:
            try:
                await asyncio.wait_for(one(name), self._list_timeout)
            except TimeoutError:
                cache.pop(name, None)
                logger.warning(
                    "server %r: listing %s took over %g s; skipped", name, kind, self._list_timeout
                )

        stale = [name for name in self.servers if name not in cache]
        await asyncio.gather(*(bounded(name) for name in stale))
        return {name: cache[name] for name in self.servers if name in cache}

    def _prefix(self, server: str) -> str:
        return _NAME_CHARS.sub("_", server) + self._separator

    def _name(self, names: dict[str, int], server: str, own: str, kind: str) -> str | None:
        clash = names.get(own, 0) > 1
        if self._namespacing == "always" or (clash and self._namespacing == "on_collision"):
            return self._prefix(server) + own
        if clash and self._on_collision == "error":
            raise ToolCollision(
                f"{kind} {own!r} is offered by several servers; use namespacing or a filter"
            )
        return own

    def _aggregate(self, per_server: dict[str, list[Any]], kind: str) -> list[tuple[str, str, Any]]:
        counts: dict[str, int] = {}
        for items in per_server.values():
            for item in items:
                counts[item.name] = counts.get(item.name, 0) + 1
        out: list[tuple[str, str, Any]] = []
        taken: set[str] = set()
        for server, items in per_server.items():
            for item in items:
                name = self._name(counts, server, item.name, kind)
                if name is None or name in taken:
                    logger.warning(
                        "%s %r of server %r is hidden by an earlier server's", kind, name, server
                    )
                    continue
                taken.add(name)
                out.append((name, server, item))
        return out

    async def list_tools(self) -> list[HostTool]:
        """Every accepted tool of every reachable server, named as the namespacing says."""
        rows = self._aggregate(await self._fetch("tools", self._tools), "tool")
        self._tool_routes = {name: (server, tool.name) for name, server, tool in rows}
        return [HostTool(name, server, tool) for name, server, tool in rows]

    async def list_prompts(self) -> list[HostPrompt]:
        rows = self._aggregate(await self._fetch("prompts", self._prompts), "prompt")
        self._prompt_routes = {name: (server, prompt.name) for name, server, prompt in rows}
        return [HostPrompt(name, server, prompt) for name, server, prompt in rows]

    async def list_resources(self) -> list[HostResource]:
        per_server = await self._fetch("resources", self._resources)
        return [HostResource(server, r) for server, items in per_server.items() for r in items]

    # -- routing -------------------------------------------------------------------------------

    async def _route(self, name: str) -> tuple[str, str]:
        route = self._tool_routes.get(name)
        if route is None or route[0] not in self._tools:
            await self.list_tools()
            route = self._tool_routes.get(name)
        if route is None:
            raise UnknownTool(name, list(self._tool_routes))
        return route

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CallToolResult:
        """Call a tool by its host name on the server that offers it (the keywords are
        :meth:`Client.call_tool`'s)."""
        server, own = await self._route(name)
        return await self.servers[server].client.call_tool(
            own,
            arguments,
            timeout=timeout,
            progress_callback=progress_callback,
            output_validation=output_validation,
            meta=meta,
        )

    async def ainvoke(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> CallToolResult:
        """:meth:`Client.ainvoke` (inputs checked before sending) through the host's routing."""
        server, own = await self._route(name)
        return await self.servers[server].client.ainvoke(
            own, params, timeout=timeout, progress_callback=progress_callback
        )

    async def get_prompt(
        self, name: str, arguments: Mapping[str, str] | None = None
    ) -> GetPromptResult:
        route = self._prompt_routes.get(name)
        if route is None:
            await self.list_prompts()
            route = self._prompt_routes.get(name)
        if route is None:
            raise UsageError(f"no prompt named {name!r}; known: {sorted(self._prompt_routes)}")
        server, own = route
        return await self.servers[server].client.get_prompt(own, arguments)

    async def read_resource(self, uri: str, *, server: str | None = None) -> ReadResourceResult:
        """Read ``uri`` from ``server``, or from the one server that lists it."""
        if server is None:
            listed = [r.server for r in await self.list_resources() if r.resource.uri == uri]
            if len(listed) == 1:
                server = listed[0]
            else:
                offering = [
                    name
                    for name, s in self.servers.items()
                    if s.state == "ready"
                    and has_capability(s.client.server_capabilities, ("resources",))
                ]
                if len(offering) != 1:
                    raise UsageError(
                        f"cannot tell which server has {uri!r} (listed by {listed or 'none'}, "
                        f"resource servers {offering}); pass server="
                    )
                server = offering[0]
        return await self.client(server).read_resource(uri)


def _named(entry: ServerEntry) -> Any:
    """A stdio entry's child is named after the entry (its stderr lines and errors say whose)."""
    target = entry.target
    if isinstance(target, Mapping) and "command" in target:
        connector = resolve_target(target)
        if isinstance(connector, CommandConnector) and connector.name is None:
            connector.name = entry.name
        return connector
    return target
