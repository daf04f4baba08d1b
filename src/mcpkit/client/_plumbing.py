"""The plumbing the client's feature mixins stand on: declared attributes, request hooks and
paginated listing.

:class:`~mcpkit.client.Client` implements the hooks (``_request``, ``negotiated`` …); the mixins
(:mod:`mcpkit.client._tools`, :mod:`mcpkit.client._features`) only call them. Lists are fetched page
by page until the server stops giving a ``nextCursor`` (an empty-string cursor is a real cursor in
2026), with a bound on pages and a guard against a server that repeats a cursor; pages the server
marked cacheable (2026 ``ttlMs``) come from the client's cache while fresh.
"""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client._cache import ResultCache
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._errors import ServerMisbehaved, UnsupportedInEra
from mcpkit.client._questions import Questions
from mcpkit.client._schemas import SchemaCache, ValidationMode
from mcpkit.protocol._errors import InvalidParams, JSONRPCError
from mcpkit.types._jsonrpc import JSONObject, Notification
from mcpkit.types._versions import Era

if TYPE_CHECKING:
    from mcpkit._runtime.session import Session
    from mcpkit.client._client import SendHook
    from mcpkit.client._negotiate import Negotiated
    from mcpkit.protocol._connection import ClientConnection

__all__ = ["MAX_PAGES", "ClientPlumbing", "DirectPath"]

MAX_PAGES: Final = 1000
"""Pages followed for one list before the server is considered to be looping."""


class DirectPath:
    """What a request over the client's own session needs, read once after the negotiation
    (``Client._direct``, set while the client runs over a stream it started: stdio, memory):
    the session, the revision and era agreed, and the connection's renewal count then.

    The general path reads the same through the channel, the renewal tracker and the
    ``negotiated`` property on every request; ``SessionChannel.request`` hands over the same
    ``Session.send_request``. A renewal (only a legacy HTTP session has them) or a request hook
    sends requests back the general way.
    """

    __slots__ = ("connection", "modern", "protocol_version", "renewals", "session")

    def __init__(
        self, session: Session, negotiated: Negotiated, connection: ClientConnection[Any, Any]
    ) -> None:
        self.session = session
        self.connection = connection
        self.protocol_version = negotiated.protocol_version
        self.modern = negotiated.era == "modern"
        self.renewals = connection.renewals

    def usable(self, hook: SendHook | None) -> bool:
        """Whether a request may take the direct path: no hook to pass it through, and the
        verdict it was read from still the connection's."""
        return hook is None and self.connection.renewals == self.renewals


class ClientPlumbing(abc.ABC):
    """Attributes and hooks :class:`~mcpkit.client.Client` provides, plus listing helpers.

    The hooks are abstract: the mixins call them, :class:`~mcpkit.client.Client` implements them.
    """

    name: str
    output_validation: ValidationMode
    _cache: ResultCache | None
    _schemas: SchemaCache
    _tools: dict[str, JSONObject]
    _tools_complete: bool
    _questions: Questions
    _log_level: str | None
    _subscribed: dict[str, None]
    _listeners: set[Callable[[Notification], None]]
    _http: bool

    # provided by Client
    @property
    @abc.abstractmethod
    def negotiated(self) -> Negotiated: ...

    @property
    @abc.abstractmethod
    def era(self) -> Era: ...

    @property
    @abc.abstractmethod
    def server_capabilities(self) -> JSONObject: ...

    @abc.abstractmethod
    async def _request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        on_notification: Callable[[Notification], Awaitable[None]] | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> JSONObject: ...

    @abc.abstractmethod
    async def _request_with_input(
        self,
        method: str,
        params: JSONObject,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        tool: Mapping[str, Any] | None = None,
    ) -> tuple[JSONObject, int]: ...

    @abc.abstractmethod
    async def _follow_input_rounds(
        self,
        method: str,
        params: JSONObject,
        first: JSONObject,
        timeout: TimeoutArg,
        progress_callback: ProgressCallback | None,
        tool: Mapping[str, Any] | None,
    ) -> tuple[JSONObject, int]: ...

    @abc.abstractmethod
    def _require_channel(self) -> Any: ...

    @staticmethod
    @abc.abstractmethod
    def _resource_error(exc: JSONRPCError, uri: str) -> JSONRPCError: ...

    # -- lists ---------------------------------------------------------------------------------

    async def _page(self, method: str, cursor: str | None) -> JSONObject:
        selector = "" if cursor is None else f"cursor:{cursor}"
        if self._cache is not None:
            cached = self._cache.get(method, selector)
            if cached is not None:
                return cached
        result = await self._request(method, {} if cursor is None else {"cursor": cursor})
        if self._cache is not None and self.era == "modern":
            self._cache.put(method, selector, result)
        return result

    async def _list_all(self, method: str, key: str) -> list[JSONObject]:
        for attempt in range(2):  # the connection refuses a method the server did not declare
            try:
                return await self._collect(method, key)
            except InvalidParams:
                # A cursor from a cached page went stale: drop every page and start over once.
                if attempt or self._cache is None or not len(self._cache):
                    raise
                self._cache.invalidate_method(method)
        raise AssertionError("unreachable")

    async def _collect(self, method: str, key: str) -> list[JSONObject]:
        items: list[JSONObject] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = await self._page(method, cursor)
            entries = page.get(key)
            if not isinstance(entries, list):
                raise ServerMisbehaved(f"{method}: the result has no {key!r} list")
            items.extend(entries)
            next_cursor = page.get("nextCursor")
            if next_cursor is None:
                return items
            if not isinstance(next_cursor, str):
                raise ServerMisbehaved(f"{method}: nextCursor must be a string")
            if next_cursor in seen:
                raise ServerMisbehaved(f"{method}: the server repeated cursor {next_cursor!r}")
            seen.add(next_cursor)
            cursor = next_cursor
        raise ServerMisbehaved(f"{method}: more than {MAX_PAGES} pages; stopped following")

    def _legacy_only(self, method: str, instead: str) -> None:
        if self.era == "modern":
            raise UnsupportedInEra(
                f"{method} does not exist in protocol {self.negotiated.protocol_version}; "
                f"use {instead}"
            )
