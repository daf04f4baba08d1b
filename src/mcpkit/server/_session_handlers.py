"""What the methods about the server itself mean: ``initialize``, ``ping``, ``server/discover``,
``logging/setLevel`` and ``subscriptions/listen``.

They read the server's identity and declared capabilities through :class:`ServerFacts` (the
:class:`~mcpkit.server.Server` satisfies it; its attributes stay public and settable, so they
are read per request, never copied), and nothing of the registries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from mcpkit.server._context import Context
from mcpkit.server._dispatch import Handler
from mcpkit.server._listen import ListenHub
from mcpkit.server._params import decode_params
from mcpkit.server._request import RequestInfo
from mcpkit.types._jsonrpc import JSONObject, Response
from mcpkit.types._versions import at_least

if TYPE_CHECKING:
    from mcpkit.server.tasks import TaskManager
    from mcpkit.types._lifecycle import SetLevelRequestParams

__all__ = ["SessionHandlers"]


if TYPE_CHECKING:  # a Protocol class costs every server's start; only mypy reads it

    class ServerFacts(Protocol):
        """What a server says about itself."""

        @property
        def server_info(self) -> JSONObject: ...

        @property
        def instructions(self) -> str | None: ...

        @property
        def supported_versions(self) -> Sequence[str]: ...

        def capabilities(self, *, modern: bool, version: str | None = None) -> JSONObject: ...


class SessionHandlers:
    """The handshake, discovery, liveness, the log level and listen streams."""

    __slots__ = ("_facts", "_listen_hub", "_tasks")

    def __init__(
        self, facts: ServerFacts, listen_hub: ListenHub, tasks: TaskManager | None = None
    ) -> None:
        self._facts = facts
        self._listen_hub = listen_hub
        self._tasks = tasks

    def table(self) -> dict[str, Handler]:
        return {
            "initialize": self.initialize,
            "ping": self.ping,
            "server/discover": self.discover,
            "logging/setLevel": self.set_level,
            "subscriptions/listen": self.listen,
        }

    async def initialize(self, info: RequestInfo, ctx: Context) -> JSONObject:
        # The lifecycle already negotiated the revision and checked the params (InitializeRequest
        # is decoded there, where the handshake rules live) when it saw the request.
        conn = info.connection
        assert conn is not None
        version = conn.protocol_version
        assert version is not None
        info.outbound.protocol_version = version
        facts = self._facts
        result: JSONObject = {
            "protocolVersion": version,
            "capabilities": facts.capabilities(modern=False, version=version),
            "serverInfo": self.server_info_for(version),
        }
        if facts.instructions:
            result["instructions"] = facts.instructions
        conn.lifecycle.send(Response(info.request_id, result))
        return result

    def server_info_for(self, version: str) -> JSONObject:
        """``serverInfo`` as ``version`` defines it (title, icons … arrived in 2025-06-18)."""
        info = self._facts.server_info
        if at_least(version, "2025-06-18"):
            return info
        return {"name": info["name"], "version": info["version"]}

    async def ping(self, info: RequestInfo, ctx: Context) -> JSONObject:
        return {}

    async def discover(self, info: RequestInfo, ctx: Context) -> JSONObject:
        facts = self._facts
        result: JSONObject = {
            "supportedVersions": list(facts.supported_versions),
            "capabilities": facts.capabilities(modern=True),
        }
        if facts.instructions:
            result["instructions"] = facts.instructions
        return result

    async def set_level(self, info: RequestInfo, ctx: Context) -> JSONObject:
        params: SetLevelRequestParams = decode_params("logging/setLevel", info.request.params)
        assert info.connection is not None  # a legacy-only method: the dispatcher saw to it
        info.connection.log_level = params.level
        return {}

    async def listen(self, info: RequestInfo, ctx: Context) -> JSONObject:
        decode_params("subscriptions/listen", info.request.params)  # the shape, in one pass
        requested = info.params["notifications"]  # the wire form the protocol's rules read
        caps = self._facts.capabilities(modern=True)
        task_filter = self._tasks.agree_listen if self._tasks is not None else None
        return await self._listen_hub.serve(info, requested, caps, task_filter=task_filter)
