"""Resources, prompts, completion, logging, discovery, roots and subscriptions of
:class:`~mcpkit.client.Client` — the same in both eras (tools are in :mod:`mcpkit.client._tools`,
tasks in :mod:`mcpkit.client._tasks`).

Everything returns typed objects from :mod:`mcpkit.types`. Results the server marked cacheable
(2026 ``ttlMs``) are served from the client's cache until they expire or a notification
invalidates them. Protocol errors raise the typed hierarchy of :mod:`mcpkit.protocol._errors`; a
missing resource is :class:`ResourceNotFound` whichever code the server used for it. Methods an
era does not have raise :class:`~mcpkit.client._errors.UnsupportedInEra` with the replacement.
A request the server declared no capability for fails with
:class:`~mcpkit.protocol._errors.MissingServerCapability` before anything is sent: the channel's
:class:`~mcpkit.protocol._connection.ClientConnection` refuses it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import msgspec

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._errors import (
    UnsupportedInEra,
)
from mcpkit.client._questions import RootsSource
from mcpkit.client._tasks import TaskMethods
from mcpkit.client._typed import decode_result
from mcpkit.protocol._errors import JSONRPCError, UsageError
from mcpkit.protocol._meta import LOG_LEVELS
from mcpkit.types._completion import (
    CompleteResult,
    PromptReference,
    ResourceTemplateReference,
)
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._lifecycle import DiscoverResult
from mcpkit.types._prompts import GetPromptResult, Prompt
from mcpkit.types._resources import ReadResourceResult, Resource, ResourceTemplate

if TYPE_CHECKING:
    from mcpkit.client._client import Client
    from mcpkit.client._subscriptions import ResyncCallback, Subscription

__all__ = ["ClientFeatures"]

logger = logging.getLogger("mcpkit.client")


class ClientFeatures(TaskMethods):
    """Mixin with the MCP methods; :class:`~mcpkit.client.Client` provides the plumbing."""

    async def list_resources(self) -> list[Resource]:
        raw = await self._list_all("resources/list", "resources")
        return decode_result(list[Resource], raw, "resources/list")

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        raw = await self._list_all("resources/templates/list", "resourceTemplates")
        return decode_result(list[ResourceTemplate], raw, "resources/templates/list")

    async def list_prompts(self) -> list[Prompt]:
        raw = await self._list_all("prompts/list", "prompts")
        return decode_result(list[Prompt], raw, "prompts/list")

    # -- resources -----------------------------------------------------------------------------

    async def read_resource(
        self,
        uri: str,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> ReadResourceResult:
        """Read a resource; a missing one raises :class:`ResourceNotFound`."""
        if self._cache is not None:
            cached = self._cache.get("resources/read", uri)
            if cached is not None:
                return decode_result(ReadResourceResult, cached, "resources/read")
        try:
            result, retries = await self._request_with_input(
                "resources/read",
                {"uri": uri},
                timeout=timeout,
                progress_callback=progress_callback,
            )
        except JSONRPCError as exc:
            raise self._resource_error(exc, uri) from None
        if self._cache is not None and retries == 0 and self.era == "modern":
            self._cache.put("resources/read", uri, result)
        return decode_result(ReadResourceResult, result, "resources/read")

    async def subscribe_resource(self, uri: str) -> None:
        """Legacy ``resources/subscribe``; in 2026 use :meth:`listen` with ``resources=[uri]``.

        The subscription is made again in a session that replaces an expired one."""
        self._legacy_only("resources/subscribe", "listen(resources=[uri])")
        await self._request("resources/subscribe", {"uri": uri})
        self._subscribed[uri] = None

    async def unsubscribe_resource(self, uri: str) -> None:
        self._legacy_only("resources/unsubscribe", "closing the listen() subscription")
        self._subscribed.pop(uri, None)
        await self._request("resources/unsubscribe", {"uri": uri})

    # -- prompts and completion ----------------------------------------------------------------

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
    ) -> GetPromptResult:
        params: JSONObject = {"name": name}
        if arguments is not None:
            bad = [key for key, value in arguments.items() if not isinstance(value, str)]
            if bad:
                raise UsageError(f"prompt arguments must be strings; not: {', '.join(bad)}")
            params["arguments"] = dict(arguments)
        result, _ = await self._request_with_input("prompts/get", params, timeout=timeout)
        return decode_result(GetPromptResult, result, "prompts/get")

    async def complete(
        self,
        ref: PromptReference | ResourceTemplateReference | Mapping[str, Any],
        argument: str,
        value: str,
        *,
        context_arguments: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        """Ask for completions of ``argument`` (partially typed as ``value``) of a prompt or a
        resource template (``ref``)."""
        ref_obj = dict(ref) if isinstance(ref, Mapping) else msgspec.to_builtins(ref)
        params: JSONObject = {"ref": ref_obj, "argument": {"name": argument, "value": value}}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        result = await self._request("completion/complete", params)
        return decode_result(CompleteResult, result, "completion/complete")

    # -- utilities -----------------------------------------------------------------------------

    async def set_logging_level(self, level: str) -> None:
        """Legacy: ``logging/setLevel`` (set again in a session that replaces an expired one).
        2026: every later request carries ``logLevel``."""
        if level not in LOG_LEVELS:
            raise UsageError(
                f"unknown log level {level!r}; expected one of {', '.join(LOG_LEVELS)}"
            )
        if self.era == "modern":
            self._log_level = level
            return
        await self._request("logging/setLevel", {"level": level})
        self._log_level = level

    async def ping(self, *, timeout: TimeoutArg = DEFAULT) -> None:
        """Check the server answers. 2026 removed ``ping``; a ``server/discover`` does the job."""
        if self.era == "modern":
            await self.discover(timeout=timeout)
            return
        await self._request("ping", None, timeout=timeout)

    async def discover(self, *, timeout: TimeoutArg = DEFAULT) -> DiscoverResult:
        """Send ``server/discover`` again (2026) and adopt what it says."""
        if self.era != "modern":
            raise UnsupportedInEra("server/discover is a 2026-07-28 method; this server is legacy")
        result = await self._request("server/discover", {}, timeout=timeout)
        typed = decode_result(DiscoverResult, result, "server/discover")
        negotiated = self.negotiated
        negotiated.capabilities = result.get("capabilities") or {}
        negotiated.discover_result = result
        # the connection gates the next requests by what the server declares now
        self._require_channel().adopt_discover(negotiated.protocol_version, negotiated.capabilities)
        return typed

    async def set_roots(self, roots: RootsSource) -> None:
        """Replace the roots; a legacy server is told with ``notifications/roots/list_changed``.

        Every root must be a ``file://`` URI (:class:`UsageError` otherwise; a function's list
        is checked each time it is read)."""
        if self._questions.roots is None:
            raise UsageError("roots must be given when the client is created (to declare them)")
        self._questions.set_roots(roots)
        if self.era == "legacy":
            channel = self._require_channel()
            await channel.notify(
                "notifications/roots/list_changed",
                None,
                protocol_version=self.negotiated.protocol_version,
            )

    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: Sequence[str] = (),
        on_resync: ResyncCallback | None = None,
        task_ids: Sequence[str] = (),
    ) -> Subscription:
        """Change notifications as an async iterator (use ``async with``), in both eras.

        The first item is the acknowledgement (``notifications/subscriptions/acknowledged``,
        synthesised for legacy servers) saying what the server agreed to. 2026: one
        ``subscriptions/listen`` stream, re-opened with backoff if the server ends it, with
        ``on_resync`` called after each re-open (changes may have been missed). Legacy: the
        session's notifications, and ``resources/subscribe`` for ``resource_uris``.
        ``task_ids`` (2026 Tasks extension; the client must declare it) follows those tasks:
        their ``notifications/tasks`` come as plain :class:`~mcpkit.types._jsonrpc.Notification`.
        """
        from mcpkit.client._subscriptions import Subscription

        return Subscription(
            cast("Client", self),
            tools=tools,
            prompts=prompts,
            resources=resources,
            resource_uris=list(resource_uris),
            on_resync=on_resync,
            task_ids=list(task_ids),
        )
