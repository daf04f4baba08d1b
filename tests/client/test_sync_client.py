"""SyncClient: every async ``Client`` method has a blocking twin with the same signature."""

from __future__ import annotations

import inspect
import sys
from typing import Any

import pytest

from mcpkit.client import Client, Host, QuestionContext, SyncClient, SyncHost
from mcpkit.protocol._errors import ConnectionClosed, InvalidParams

from .conftest import PEERS_DIR

RENAMED = {"ainvoke": "invoke", "aclose": "close"}
"""Async names whose blocking twin reads better without the ``a``."""
NOT_MIRRORED = {"connect"}
"""``SyncClient`` connects on construction."""


def _async_methods() -> list[str]:
    return sorted(
        name
        for name, value in inspect.getmembers(Client, inspect.iscoroutinefunction)
        if not name.startswith("_") and name not in NOT_MIRRORED
    )


def _shape(fn: Any) -> list[tuple[str, Any, Any, Any]]:
    return [
        (p.name, p.kind, p.default, p.annotation) for p in inspect.signature(fn).parameters.values()
    ]


@pytest.mark.parametrize("name", _async_methods())
def test_every_async_client_method_has_a_sync_twin(name: str) -> None:
    twin = getattr(SyncClient, RENAMED.get(name, name), None)
    assert twin is not None, f"SyncClient has no {RENAMED.get(name, name)} for Client.{name}"
    assert not inspect.iscoroutinefunction(twin)
    original = getattr(Client, name)
    assert _shape(twin) == _shape(original), (
        f"SyncClient.{twin.__name__} differs from Client.{name}"
    )
    assert (
        inspect.signature(twin).return_annotation == inspect.signature(original).return_annotation
    )


@pytest.mark.parametrize(
    "name",
    sorted(
        name
        for name, _ in inspect.getmembers(Host, inspect.iscoroutinefunction)
        if not name.startswith("_") and name != "start"
    ),
)
def test_every_async_host_method_has_a_sync_twin(name: str) -> None:
    twin = getattr(SyncHost, RENAMED.get(name, name), None)
    assert twin is not None, f"SyncHost has no {RENAMED.get(name, name)} for Host.{name}"
    original = getattr(Host, name)
    assert _shape(twin) == _shape(original), f"SyncHost.{twin.__name__} != Host.{name}"
    assert (
        inspect.signature(twin).return_annotation == inspect.signature(original).return_annotation
    )


def test_constructor_takes_what_client_takes() -> None:
    assert _shape(SyncClient.__init__) == _shape(Client.__init__)


def test_the_string_named_call_is_gone() -> None:
    assert not hasattr(SyncClient, "call")


def test_read_only_facts_are_mirrored() -> None:
    facts = [
        name
        for name, value in inspect.getmembers(Client, lambda v: isinstance(v, property))
        if not name.startswith("_")
    ]
    missing = [name for name in facts if not isinstance(getattr(SyncClient, name, None), property)]
    assert not missing, f"SyncClient lacks the properties {missing}"


async def answer(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": {"nights": 4}}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_stdio_server_through_the_blocking_methods(mode: str) -> None:
    """The path scripts run: a real subprocess, handlers on the facade's loop, typed results."""
    command = [sys.executable, str(PEERS_DIR / "sync_demo.py")]
    with SyncClient(command, mode=mode, elicitation_handler=answer) as client:
        assert client.era == ("legacy" if mode == "legacy" else "modern")
        assert [t.name for t in client.list_tools()] == ["book"]
        assert client.call_tool("book").content[0].text == "4 nights"  # type: ignore[union-attr]
        assert client.read_resource("demo://greeting").contents[0].text == "hello"  # type: ignore[union-attr]
        assert [p.name for p in client.list_prompts()] == ["hello"]
        rendered = client.get_prompt("hello", {"name": "Ada"})
        assert rendered.messages[0].content.text == "Hello Ada"  # type: ignore[union-attr]
        with pytest.raises(InvalidParams):
            client.call_tool("missing")
        assert client.list_resources()[0].uri == "demo://greeting"  # still serving
    with pytest.raises(ConnectionClosed):
        client.list_tools()


def test_sync_host_reads_prompts_and_resources() -> None:
    command = [sys.executable, str(PEERS_DIR / "sync_demo.py")]
    with SyncHost({"demo": command}) as host:
        assert [p.name for p in host.list_prompts()] == ["hello"]
        rendered = host.get_prompt("hello", {"name": "Ada"})
        assert rendered.messages[0].content.text == "Hello Ada"  # type: ignore[union-attr]
        assert [r.resource.uri for r in host.list_resources()] == ["demo://greeting"]
        assert host.read_resource("demo://greeting").contents[0].text == "hello"  # type: ignore[union-attr]
