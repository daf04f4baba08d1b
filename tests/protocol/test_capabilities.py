"""Capability gating for both sides."""

from __future__ import annotations

import pytest

from mcpkit.protocol._capabilities import (
    agree_listen_filter,
    elicitation_modes,
    has_capability,
    require_client_capability,
    require_elicitation_mode,
    require_sampling,
    require_server_capability,
    server_supports,
)
from mcpkit.protocol._errors import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    LocalProtocolError,
    MissingRequiredClientCapability,
    MissingServerCapability,
)


def test_has_capability() -> None:
    caps = {"roots": {"listChanged": True}, "sampling": {}, "x": {"off": False, "none": None}}
    assert has_capability(caps, ("roots",))
    assert has_capability(caps, ("roots", "listChanged"))
    assert has_capability(caps, ("sampling",))
    assert not has_capability(caps, ("sampling", "tools"))
    assert not has_capability(caps, ("elicitation",))
    assert not has_capability(caps, ("x", "off"))
    assert not has_capability(caps, ("x", "none"))
    assert not has_capability({"roots": True}, ("roots", "listChanged"))
    assert not has_capability(None, ("roots",))


def test_require_client_capability_builds_nested_required_capabilities() -> None:
    require_client_capability({"elicitation": {"url": {}}}, ("elicitation", "url"))
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_client_capability({"elicitation": {}}, ("elicitation", "url"))
    err = info.value
    assert err.code == MISSING_REQUIRED_CLIENT_CAPABILITY == -32021
    assert err.data == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    assert err.required_capabilities == {"elicitation": {"url": {}}}
    assert "elicitation.url" in err.message


def test_elicitation_modes() -> None:
    assert elicitation_modes({}) == frozenset()
    assert elicitation_modes({"elicitation": {}}) == {"form"}
    assert elicitation_modes({"elicitation": {"url": {}}}) == {"url"}
    assert elicitation_modes({"elicitation": {"form": {}, "url": {}}}) == {"form", "url"}
    assert elicitation_modes({"elicitation": {"other": {}}}) == {"form"}
    assert elicitation_modes({"elicitation": True}) == frozenset()


def test_require_elicitation_mode() -> None:
    require_elicitation_mode({"elicitation": {}}, "form")
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_elicitation_mode({"elicitation": {}}, "url")
    assert info.value.required_capabilities == {"elicitation": {"url": {}}}
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_elicitation_mode({"elicitation": {"url": {}}}, "form")
    assert info.value.required_capabilities == {"elicitation": {"form": {}}}
    with pytest.raises(MissingRequiredClientCapability):
        require_elicitation_mode({}, "form")


def test_sampling_sub_capabilities() -> None:
    plain = {"messages": [], "maxTokens": 10}
    require_sampling({"sampling": {}}, plain)
    require_sampling({"sampling": {}}, {**plain, "includeContext": "none"})
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_sampling({}, plain)
    assert info.value.required_capabilities == {"sampling": {}}
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_sampling({"sampling": {}}, {**plain, "tools": []})
    assert info.value.required_capabilities == {"sampling": {"tools": {}}}
    with pytest.raises(MissingRequiredClientCapability):
        require_sampling({"sampling": {}}, {**plain, "toolChoice": {"mode": "auto"}})
    with pytest.raises(MissingRequiredClientCapability) as info:
        require_sampling({"sampling": {"tools": {}}}, {**plain, "includeContext": "thisServer"})
    assert info.value.required_capabilities == {"sampling": {"context": {}}}
    require_sampling(
        {"sampling": {"tools": {}, "context": {}}},
        {**plain, "tools": [], "includeContext": "allServers"},
    )


def test_server_capabilities_before_client_sends() -> None:
    caps = {"tools": {}, "resources": {"listChanged": True}}
    assert server_supports(caps, "tools/call")
    assert server_supports(caps, "resources/read")
    assert not server_supports(caps, "resources/subscribe")
    assert not server_supports(caps, "prompts/get")
    assert server_supports(caps, "ping")  # ungated
    assert server_supports({}, "server/discover")
    require_server_capability(caps, "tools/list")
    with pytest.raises(MissingServerCapability) as info:
        require_server_capability(caps, "resources/subscribe")
    assert isinstance(info.value, LocalProtocolError)
    assert info.value.capability == ("resources", "subscribe")
    assert "resources.subscribe" in str(info.value)
    with pytest.raises(MissingServerCapability):
        require_server_capability({"logging": {}}, "completion/complete")
    require_server_capability({"tasks": {"list": {}}}, "tasks/list")
    with pytest.raises(MissingServerCapability):
        require_server_capability({"tasks": {}}, "tasks/cancel")


def test_agree_listen_filter() -> None:
    caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True}}
    requested = {
        "toolsListChanged": True,
        "promptsListChanged": True,
        "resourcesListChanged": True,
        "resourceSubscriptions": ["file:///a", 5, "file:///b"],
        "unknown": True,
    }
    assert agree_listen_filter(caps, requested) == {
        "toolsListChanged": True,
        "resourceSubscriptions": ["file:///a", "file:///b"],
    }
    assert agree_listen_filter(caps, {"toolsListChanged": False}) == {}
    assert agree_listen_filter({}, requested) == {}
