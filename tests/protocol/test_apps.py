"""MCP Apps rules (mcpkit.protocol._apps): declarations, visibility, the sandbox's policies."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._apps import (
    apps_client_options,
    callable_by_app,
    client_supports_apps,
    content_security_policy,
    hide_from_host_without_apps,
    permission_policy,
    sandbox_csp_domains,
    tool_resource_uri,
    tool_visibility,
    visible_to_model,
)
from mcpkit.types._apps import APP_MIME_TYPE, APPS_EXTENSION_ID


def tool(**ui: Any) -> dict[str, Any]:
    return {"name": "t", "inputSchema": {"type": "object"}, "_meta": {"ui": ui}}


@pytest.mark.parametrize(
    ("capabilities", "supported"),
    [
        ({"extensions": {APPS_EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}}, True),
        ({"experimental": {APPS_EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}}, True),
        ({"extensions": {APPS_EXTENSION_ID: {"mimeTypes": ["text/uri-list"]}}}, False),
        ({"extensions": {APPS_EXTENSION_ID: {}}}, False),  # mimeTypes is required
        ({"extensions": {APPS_EXTENSION_ID: True}}, False),
        ({"extensions": {"com.example/ui": {"mimeTypes": [APP_MIME_TYPE]}}}, False),
        ({}, False),
        (None, False),
    ],
)
def test_a_client_supports_apps_only_with_the_html_mime_type(
    capabilities: Any, supported: bool
) -> None:
    assert client_supports_apps(capabilities) is supported


def test_the_client_declaration_is_read_back_in_both_places() -> None:
    options = apps_client_options()
    assert options["extensions"] == {APPS_EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}
    assert client_supports_apps({"extensions": options["extensions"]})
    assert client_supports_apps({"experimental": options["experimental"]})


def test_visibility_defaults_to_model_and_app() -> None:
    assert tool_visibility({"name": "t"}) == ("model", "app")
    assert tool_visibility(tool(visibility="app")) == ("model", "app")  # malformed: default
    app_only = tool(visibility=["app"])
    assert not visible_to_model(app_only) and callable_by_app(app_only)
    model_only = tool(visibility=["model"])
    assert visible_to_model(model_only) and not callable_by_app(model_only)
    listed = hide_from_host_without_apps([app_only, model_only, {"name": "plain"}])
    assert listed == [model_only, {"name": "plain"}]


def test_the_resource_uri_is_read_nested_and_in_the_deprecated_flat_key() -> None:
    assert tool_resource_uri(tool(resourceUri="ui://a/b")) == "ui://a/b"
    assert tool_resource_uri({"_meta": {"ui/resourceUri": "ui://old"}}) == "ui://old"
    assert tool_resource_uri(tool(resourceUri="https://evil.example/x")) is None
    assert tool_resource_uri({"name": "t"}) is None


def test_the_default_policy_is_the_specs_restrictive_one() -> None:
    policy = content_security_policy(None)
    assert "default-src 'none'" in policy
    assert "connect-src 'none'" in policy
    assert "frame-src 'none'" in policy and "object-src 'none'" in policy
    assert "base-uri 'self'" in policy
    assert "script-src 'self' 'unsafe-inline';" in policy


def test_declared_domains_open_only_their_directives() -> None:
    policy = content_security_policy(
        {
            "connectDomains": ["https://api.example.com", "wss://live.example.com"],
            "resourceDomains": ["https://*.cdn.example"],
            "frameDomains": ["https://www.youtube.com"],
        }
    )
    directives = dict(d.split(" ", 1) for d in policy.split("; "))
    assert directives["connect-src"] == "https://api.example.com wss://live.example.com"
    assert directives["img-src"] == "'self' data: https://*.cdn.example"
    assert directives["script-src"] == "'self' 'unsafe-inline' https://*.cdn.example"
    assert directives["frame-src"] == "https://www.youtube.com"


@pytest.mark.parametrize(
    "smuggled",
    [
        "https://ok.example; script-src *",
        "'unsafe-eval'",
        "*",
        "https://ok.example/path",
        "javascript:alert(1)",
        "https://a.example https://b.example",
    ],
)
def test_a_declared_domain_cannot_loosen_the_policy(smuggled: str) -> None:
    assert sandbox_csp_domains({"connectDomains": [smuggled]}) == {}
    policy = content_security_policy({"connectDomains": [smuggled]})
    assert "connect-src 'none'" in policy
    assert smuggled not in policy


def test_permissions_map_to_the_iframe_allow_attribute() -> None:
    assert permission_policy({"camera": {}, "clipboardWrite": {}}) == "camera; clipboard-write"
    assert permission_policy({"camera": True, "usb": {}}) == ""
    assert permission_policy(None) == ""
