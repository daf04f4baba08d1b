"""Blocking facades for scripts and notebooks: ``SyncClient`` and ``SyncHost``.

    with SyncClient("python -m my_server") as client:
        result = client.invoke("add", {"a": 1, "b": 2})   # inputs checked before sending

The async objects run on an event loop in a background thread owned by the facade, so this works
where a loop is already running (Jupyter) and where none is (a script). Every call is submitted to
that loop and waited for; a call that raises re-raises the same exception here. ``close()`` (or
leaving the ``with``) closes the connection and stops the thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine, Mapping
from concurrent.futures import Future
from typing import Any, Final, TypeVar

from mcpkit.client.client import Client
from mcpkit.client.host.host import Host, HostTool
from mcpkit.protocol.errors import ConnectionClosed
from mcpkit.types.tools import CallToolResult, Tool

__all__ = ["LOOP_START_TIMEOUT", "SyncClient", "SyncHost"]

T = TypeVar("T")

LOOP_START_TIMEOUT: Final = 10.0
"""Seconds to wait for the background loop thread to start."""


class _LoopThread:
    """An event loop running in a daemon thread until :meth:`stop`."""

    def __init__(self, name: str) -> None:
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        if not self._ready.wait(LOOP_START_TIMEOUT):
            raise RuntimeError("the mcpkit background event loop did not start")

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        loop = self._loop
        if loop is None or not self._thread.is_alive():
            coro.close()
            raise ConnectionClosed("the client was closed")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)
        return future.result(timeout)

    def stop(self) -> None:
        loop = self._loop
        if loop is not None and self._thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            self._thread.join()


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


class SyncClient:
    """A :class:`~mcpkit.client.Client` you can call without ``await``.

    Takes the same arguments as ``Client``; connects on construction.
    """

    def __init__(self, target: Any, **options: Any) -> None:
        self._thread = _LoopThread("mcpkit-sync-client")
        try:
            self._client: Client = self._thread.run(self._open(target, options))
        except BaseException:
            self._thread.stop()
            raise

    @staticmethod
    async def _open(target: Any, options: dict[str, Any]) -> Client:
        client = Client(target, **options)
        await client.connect()
        return client

    @property
    def client(self) -> Client:
        """The underlying async client (use it only from the facade's loop)."""
        return self._client

    def invoke(
        self, tool: str, params: Mapping[str, Any] | None = None, **kw: Any
    ) -> CallToolResult:
        """Check ``params`` against the tool's ``inputSchema``, call it, check the output."""
        return self._thread.run(self._client.ainvoke(tool, params, **kw))

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, **kw: Any
    ) -> CallToolResult:
        return self._thread.run(self._client.call_tool(name, arguments, **kw))

    def list_tools(self) -> list[Tool]:
        return self._thread.run(self._client.list_tools())

    def call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        """Any other async method of the client, by name (``call("read_resource", uri)``)."""
        return self._thread.run(_await(getattr(self._client, method)(*args, **kwargs)))

    def close(self) -> None:
        try:
            self._thread.run(self._client.aclose())
        except ConnectionClosed:
            pass
        finally:
            self._thread.stop()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class SyncHost:
    """A :class:`~mcpkit.client.host.Host` you can call without ``await``."""

    def __init__(self, servers: Any, **options: Any) -> None:
        self._thread = _LoopThread("mcpkit-sync-host")
        try:
            self._host: Host = self._thread.run(self._open(servers, options))
        except BaseException:
            self._thread.stop()
            raise

    @staticmethod
    async def _open(servers: Any, options: dict[str, Any]) -> Host:
        host = Host(servers, **options)
        await host.start()
        return host

    @property
    def host(self) -> Host:
        return self._host

    def invoke(
        self, tool: str, params: Mapping[str, Any] | None = None, **kw: Any
    ) -> CallToolResult:
        return self._thread.run(self._host.ainvoke(tool, params, **kw))

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, **kw: Any
    ) -> CallToolResult:
        return self._thread.run(self._host.call_tool(name, arguments, **kw))

    def list_tools(self) -> list[HostTool]:
        return self._thread.run(self._host.list_tools())

    def status(self) -> dict[str, dict[str, Any]]:
        return self._host.status()

    def close(self) -> None:
        try:
            self._thread.run(self._host.aclose())
        finally:
            self._thread.stop()

    def __enter__(self) -> SyncHost:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
