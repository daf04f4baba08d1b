"""The ``_meta`` key syntax, reserved prefixes and the reserved-key accessors."""

from __future__ import annotations

import pytest

from mcpkit.types import meta


@pytest.mark.parametrize(
    "key",
    [
        "progressToken",
        "io.modelcontextprotocol/protocolVersion",
        "io.modelcontextprotocol/related-task",
        "com.example/my_key.v2",
        "com.example-corp.api/x",
        "a/b",
        "x",
        "com.example/",  # the name may be empty
        "",
    ],
)
def test_valid_keys(key: str) -> None:
    assert meta.meta_key_error(key) is None


@pytest.mark.parametrize(
    ("key", "part"),
    [
        ("-bad", "name"),
        ("bad_", "name"),
        ("com.example/-x", "name"),
        ("com.example/x y", "name"),
        ("1com.example/x", "prefix"),
        ("com.example-/x", "prefix"),
        ("com..example/x", "prefix"),
        ("/x", "prefix"),
        ("a/b/c", "prefix"),
        ("com_example/x", "prefix"),
    ],
)
def test_invalid_keys_say_which_part_is_wrong(key: str, part: str) -> None:
    problem = meta.meta_key_error(key)
    assert problem is not None
    assert f"the {part} must" in problem
    assert repr(key) in problem


def test_invalid_meta_keys_lists_each_bad_key() -> None:
    problems = meta.invalid_meta_keys({"ok": 1, "-no": 2, "1a/b": 3})
    assert len(problems) == 2


@pytest.mark.parametrize(
    ("key", "reserved"),
    [
        ("io.modelcontextprotocol/anything", True),
        ("dev.mcp/x", True),
        ("org.modelcontextprotocol.api/x", True),
        ("com.mcp.tools/x", True),
        ("com.example.mcp/x", False),
        ("mcp/x", False),
        ("progressToken", True),
        ("traceparent", True),
        ("myKey", False),
    ],
)
def test_reserved_keys(key: str, reserved: bool) -> None:
    assert meta.is_reserved_key(key) is reserved


def test_every_named_key_is_reserved_and_valid() -> None:
    for key in meta.RESERVED_KEYS:
        assert meta.meta_key_error(key) is None, key
        assert meta.is_reserved_key(key), key


def test_accessors_read_only_well_typed_values() -> None:
    m = {
        meta.PROTOCOL_VERSION: "2026-07-28",
        meta.CLIENT_CAPABILITIES: {"roots": {}},
        meta.CLIENT_INFO: {"name": "c", "version": "1"},
        meta.LOG_LEVEL: "info",
        meta.PROGRESS_TOKEN: 7,
        meta.SUBSCRIPTION_ID: "listen-1",
    }
    assert meta.get_protocol_version(m) == "2026-07-28"
    assert meta.get_client_capabilities(m) == {"roots": {}}
    assert meta.get_client_info(m) == {"name": "c", "version": "1"}
    assert meta.get_log_level(m) == "info"
    assert meta.get_progress_token(m) == 7
    assert meta.get_subscription_id(m) == "listen-1"
    bad = {meta.PROTOCOL_VERSION: 1, meta.CLIENT_CAPABILITIES: [], meta.PROGRESS_TOKEN: True}
    assert meta.get_protocol_version(bad) is None
    assert meta.get_client_capabilities(bad) is None
    assert meta.get_progress_token(bad) is None
    assert meta.get_protocol_version(None) is None
