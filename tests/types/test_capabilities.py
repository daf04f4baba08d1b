"""Capability paths work the same on Structs and raw dicts; settings objects round-trip."""

from __future__ import annotations

import pytest

import mcpkit.types as t

SERVER = {
    "tools": {"listChanged": True},
    "resources": {"subscribe": False},
    "logging": {},
    "tasks": {"list": {}, "requests": {"tools": {"call": {}}}},
    "extensions": {"io.modelcontextprotocol/tasks": {}},
    "experimental": {"x": {"on": True}},
}


@pytest.mark.parametrize("as_struct", [True, False])
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ((), True),
        (("tools",), True),
        (("tools", "listChanged"), True),
        (("resources",), True),
        (("resources", "subscribe"), False),
        (("resources", "listChanged"), False),
        (("prompts",), False),
        (("logging",), True),
        (("tasks", "list"), True),
        (("tasks", "cancel"), False),
        (("tasks", "requests", "tools", "call"), True),
        (("extensions", "io.modelcontextprotocol/tasks"), True),
        (("extensions", "com.example/other"), False),
        (("experimental", "x"), True),
        (("nonsense", "deeper"), False),
    ],
)
def test_has_capability(as_struct: bool, path: tuple[str, ...], expected: bool) -> None:
    caps = t.decode(t.ServerCapabilities, SERVER) if as_struct else SERVER
    assert t.has_capability(caps, path) is expected


def test_no_capabilities_has_nothing() -> None:
    assert not t.has_capability(None, ())
    assert not t.has_capability(None, ("tools",))


def test_server_capabilities_round_trip() -> None:
    assert t.to_wire(t.decode(t.ServerCapabilities, SERVER)) == SERVER


@pytest.mark.parametrize(
    ("caps", "modes"),
    [
        ({}, set()),
        ({"elicitation": {}}, {"form"}),
        ({"elicitation": {"url": {}}}, {"url"}),
        ({"elicitation": {"form": {}, "url": {}}}, {"form", "url"}),
    ],
)
def test_elicitation_modes(caps: dict[str, object], modes: set[str]) -> None:
    assert t.elicitation_modes(caps) == modes
    assert t.elicitation_modes(t.decode(t.ClientCapabilities, caps)) == modes


def test_client_capabilities_all_revisions() -> None:
    legacy = {
        "roots": {"listChanged": True},
        "sampling": {"context": {}, "tools": {}},
        "tasks": {"requests": {"sampling": {"createMessage": {}}}},
    }
    modern = {"roots": {}, "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["a"]}}}
    for caps in (legacy, modern):
        assert t.to_wire(t.decode(t.ClientCapabilities, caps)) == caps
