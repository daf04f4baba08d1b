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
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, Final, TypeVar, Unpack

from mcpkit._runtime.session import ProgressCallback
from mcpkit.client import _negotiate as nego
from mcpkit.client._channel import DEFAULT, TimeoutArg
from mcpkit.client._client import (
    DEFAULT_REQUEST_TIMEOUT,
    Client,
    NotificationCallback,
    ServerLogHandler,
)
from mcpkit.client._connectors import Target
from mcpkit.client._mrtr import DEFAULT_MAX_INPUT_ROUNDS, InputRequired
from mcpkit.client._negotiate import Negotiated
from mcpkit.client._questions import ElicitationHandler, RootsSource, SamplingHandler
from mcpkit.client._renewal import SessionRenewedHandler
from mcpkit.client._schemas import ValidationMode
from mcpkit.client._tasks import TaskInfo, ToolTask
from mcpkit.client.host._host import Host, HostPrompt, HostResource, HostTool
from mcpkit.protocol._errors import ConnectionClosed
from mcpkit.types._common import Implementation
from mcpkit.types._completion import CompleteResult, PromptReference, ResourceTemplateReference
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._lifecycle import DiscoverResult
from mcpkit.types._prompts import GetPromptResult, Prompt
from mcpkit.types._resources import ReadResourceResult, Resource, ResourceTemplate
from mcpkit.types._tools import CallToolResult, Tool
from mcpkit.types._versions import Era

if TYPE_CHECKING:
    from mcpkit.client.host._host_options import HostOptions
    from mcpkit.transports._stdio_client import StderrSink

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


class SyncClient:
    """A :class:`~mcpkit.client.Client` you can call without ``await``.

    Takes the same arguments as ``Client`` and connects on construction. Every async method of
    ``Client`` is here with the same signature and result (``ainvoke`` is :meth:`invoke`,
    ``aclose`` is :meth:`close`). Callbacks (handlers, ``progress_callback``) run on the
    facade's event-loop thread.
    """

    def __init__(
        self,
        target: Target,
        *,
        mode: nego.Mode = "auto",
        name: str | None = None,
        client_info: Implementation | Mapping[str, Any] | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        url_elicitation: bool = False,
        sampling_handler: SamplingHandler | None = None,
        sampling_tools: bool = False,
        sampling_context: bool = False,
        roots: RootsSource | None = None,
        logging_handler: ServerLogHandler | None = None,
        notification_handler: NotificationCallback | None = None,
        elicitation_complete_handler: Callable[[str], Awaitable[None] | None] | None = None,
        session_renewed_handler: SessionRenewedHandler | None = None,
        log_level: str | None = None,
        timeout: float | None = DEFAULT_REQUEST_TIMEOUT,
        max_timeout: float | None = None,
        probe_timeout: float = nego.DEFAULT_PROBE_TIMEOUT,
        initialize_timeout: float = nego.DEFAULT_INITIALIZE_TIMEOUT,
        output_validation: ValidationMode = "strict",
        discover_result: Mapping[str, Any] | None = None,
        cache: bool = True,
        max_input_rounds: int = DEFAULT_MAX_INPUT_ROUNDS,
        experimental: Mapping[str, Any] | None = None,
        extensions: Mapping[str, Any] | None = None,
        server_stderr: StderrSink | None = None,
    ) -> None:
        options = {key: value for key, value in locals().items() if key not in ("self", "target")}
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

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._thread.run(coro)

    @property
    def client(self) -> Client:
        """The underlying async client (use it only from the facade's loop)."""
        return self._client

    # -- what the connection agreed (plain reads, no round trip) --------------------------------

    @property
    def connected(self) -> bool:
        return self._client.connected

    @property
    def negotiated(self) -> Negotiated:
        return self._client.negotiated

    @property
    def era(self) -> Era:
        return self._client.era

    @property
    def protocol_version(self) -> str:
        return self._client.protocol_version

    @property
    def server_capabilities(self) -> JSONObject:
        return self._client.server_capabilities

    @property
    def server_info(self) -> JSONObject:
        return self._client.server_info

    @property
    def instructions(self) -> str | None:
        return self._client.instructions

    @property
    def discover_result(self) -> JSONObject | None:
        return self._client.discover_result

    @property
    def client_capabilities(self) -> JSONObject:
        return self._client.client_capabilities

    # -- tools ---------------------------------------------------------------------------------

    def list_tools(self) -> list[Tool]:
        return self._run(self._client.list_tools())

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CallToolResult:
        return self._run(
            self._client.call_tool(
                name,
                arguments,
                timeout=timeout,
                progress_callback=progress_callback,
                output_validation=output_validation,
                meta=meta,
            )
        )

    def invoke(
        self,
        tool: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> CallToolResult:
        """Check ``params`` against the tool's ``inputSchema``, call it, check the output."""
        return self._run(
            self._client.ainvoke(tool, params, timeout=timeout, progress_callback=progress_callback)
        )

    def check_arguments(self, name: str, arguments: Mapping[str, Any] | None) -> None:
        return self._run(self._client.check_arguments(name, arguments))

    def call_tool_round(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
    ) -> CallToolResult | InputRequired:
        return self._run(
            self._client.call_tool_round(
                name,
                arguments,
                input_responses=input_responses,
                request_state=request_state,
                timeout=timeout,
                progress_callback=progress_callback,
                output_validation=output_validation,
            )
        )

    def answer_input_request(
        self, key: str, request: Any, *, asked_during: str = "tools/call"
    ) -> JSONObject:
        return self._run(self._client.answer_input_request(key, request, asked_during=asked_during))

    # -- tasks ---------------------------------------------------------------------------------

    def call_tool_as_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        ttl_ms: int | None = None,
        timeout: TimeoutArg = DEFAULT,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolTask:
        """Start a task; follow it with :meth:`get_task` / :meth:`task_result` (its own methods
        are async and belong to the facade's loop)."""
        return self._run(
            self._client.call_tool_as_task(
                name, arguments, ttl_ms=ttl_ms, timeout=timeout, meta=meta
            )
        )

    def get_task(self, task_id: str) -> TaskInfo:
        return self._run(self._client.get_task(task_id))

    def list_tasks(self) -> list[TaskInfo]:
        return self._run(self._client.list_tasks())

    def cancel_task(self, task_id: str) -> TaskInfo:
        return self._run(self._client.cancel_task(task_id))

    def task_result(self, task_id: str, *, timeout: float | None = None) -> CallToolResult:
        return self._run(self._client.task_result(task_id, timeout=timeout))

    # -- resources, prompts, completion --------------------------------------------------------

    def list_resources(self) -> list[Resource]:
        return self._run(self._client.list_resources())

    def list_resource_templates(self) -> list[ResourceTemplate]:
        return self._run(self._client.list_resource_templates())

    def read_resource(
        self,
        uri: str,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> ReadResourceResult:
        return self._run(
            self._client.read_resource(uri, timeout=timeout, progress_callback=progress_callback)
        )

    def subscribe_resource(self, uri: str) -> None:
        return self._run(self._client.subscribe_resource(uri))

    def unsubscribe_resource(self, uri: str) -> None:
        return self._run(self._client.unsubscribe_resource(uri))

    def list_prompts(self) -> list[Prompt]:
        return self._run(self._client.list_prompts())

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
    ) -> GetPromptResult:
        return self._run(self._client.get_prompt(name, arguments, timeout=timeout))

    def complete(
        self,
        ref: PromptReference | ResourceTemplateReference | Mapping[str, Any],
        argument: str,
        value: str,
        *,
        context_arguments: Mapping[str, str] | None = None,
    ) -> CompleteResult:
        return self._run(
            self._client.complete(ref, argument, value, context_arguments=context_arguments)
        )

    # -- the rest of the protocol --------------------------------------------------------------

    def ping(self, *, timeout: TimeoutArg = DEFAULT) -> None:
        return self._run(self._client.ping(timeout=timeout))

    def discover(self, *, timeout: TimeoutArg = DEFAULT) -> DiscoverResult:
        return self._run(self._client.discover(timeout=timeout))

    def set_logging_level(self, level: str) -> None:
        return self._run(self._client.set_logging_level(level))

    def set_roots(self, roots: RootsSource) -> None:
        return self._run(self._client.set_roots(roots))

    def send_request(
        self,
        method: str,
        params: JSONObject | None = None,
        *,
        meta: JSONObject | None = None,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        answer_input: bool = False,
    ) -> JSONObject:
        """Any request as given; the raw result (see ``Client.send_request``)."""
        return self._run(
            self._client.send_request(
                method,
                params,
                meta=meta,
                timeout=timeout,
                progress_callback=progress_callback,
                answer_input=answer_input,
            )
        )

    def send_notification(
        self, method: str, params: JSONObject | None = None, *, meta: JSONObject | None = None
    ) -> None:
        return self._run(self._client.send_notification(method, params, meta=meta))

    def wait_disconnected(self) -> None:
        """Block until the connection ends (the server went away or :meth:`close` ran)."""
        return self._run(self._client.wait_disconnected())

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
    """A :class:`~mcpkit.client.host.Host` you can call without ``await``: every async method
    of ``Host`` with the same signature (``ainvoke`` is :meth:`invoke`; ``start`` runs on
    construction, ``aclose`` is :meth:`close`)."""

    def __init__(self, servers: Any, **options: Unpack[HostOptions]) -> None:
        self._thread = _LoopThread("mcpkit-sync-host")
        try:
            self._host: Host = self._thread.run(self._open(servers, options))
        except BaseException:
            self._thread.stop()
            raise

    @staticmethod
    async def _open(servers: Any, options: HostOptions) -> Host:
        host = Host(servers, **options)
        await host.start()
        return host

    @property
    def host(self) -> Host:
        return self._host

    def invoke(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
    ) -> CallToolResult:
        """Check ``params`` against the tool's ``inputSchema``, call it, check the output."""
        return self._thread.run(
            self._host.ainvoke(name, params, timeout=timeout, progress_callback=progress_callback)
        )

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: TimeoutArg = DEFAULT,
        progress_callback: ProgressCallback | None = None,
        output_validation: ValidationMode | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> CallToolResult:
        return self._thread.run(
            self._host.call_tool(
                name,
                arguments,
                timeout=timeout,
                progress_callback=progress_callback,
                output_validation=output_validation,
                meta=meta,
            )
        )

    def list_tools(self) -> list[HostTool]:
        return self._thread.run(self._host.list_tools())

    def list_prompts(self) -> list[HostPrompt]:
        return self._thread.run(self._host.list_prompts())

    def get_prompt(self, name: str, arguments: Mapping[str, str] | None = None) -> GetPromptResult:
        return self._thread.run(self._host.get_prompt(name, arguments))

    def list_resources(self) -> list[HostResource]:
        return self._thread.run(self._host.list_resources())

    def read_resource(self, uri: str, *, server: str | None = None) -> ReadResourceResult:
        return self._thread.run(self._host.read_resource(uri, server=server))

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
