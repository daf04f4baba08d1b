"""Tool name and _meta key rules."""

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server._names import (
    TOOL_NAME_MAX_LENGTH,
    is_reserved_meta_key,
    validate_meta,
    validate_meta_key,
    validate_tool_name,
)


@pytest.mark.parametrize(
    "name", ["getUser", "DATA_EXPORT_v2", "admin.tools.list", "a", "x-y", "9", "a" * 128]
)
def test_valid_tool_names(name: str) -> None:
    validate_tool_name(name)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "must not be empty"),
        ("a" * (TOOL_NAME_MAX_LENGTH + 1), "limit is 128"),
        ("get user", "' ' at position 3"),
        ("a,b", "',' at position 1"),
        ("naïve", "'ï' at position 2"),
        ("a/b", "'/'"),
    ],
)
def test_invalid_tool_names_name_the_problem(name: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        validate_tool_name(name)


def test_kind_changes_the_wording() -> None:
    with pytest.raises(UsageError, match=r"^prompt name"):
        validate_tool_name("a b", kind="prompt")


@pytest.mark.parametrize(
    "key",
    [
        "progressToken",
        "io.modelcontextprotocol/related-task",
        "com.example/my_key.v2",
        "com.example/",
        "traceparent",
        "a",
        "x-1/y",
    ],
)
def test_valid_meta_keys(key: str) -> None:
    validate_meta_key(key)


@pytest.mark.parametrize(
    "key",
    ["-bad", "bad-", "com..example/x", "1com/x", "com.example-/x", "/x", "com/ex ample", "a/b/c"],
)
def test_invalid_meta_keys(key: str) -> None:
    with pytest.raises(UsageError, match="_meta key"):
        validate_meta_key(key)


@pytest.mark.parametrize(
    ("key", "reserved"),
    [
        ("io.modelcontextprotocol/x", True),
        ("dev.mcp/x", True),
        ("org.modelcontextprotocol.api/x", True),
        ("com.mcp.tools/x", True),
        ("com.example.mcp/x", False),
        ("mcp/x", False),
        ("progressToken", False),
    ],
)
def test_reserved_prefixes(key: str, reserved: bool) -> None:
    assert is_reserved_meta_key(key) is reserved


def test_validate_meta_rejects_reserved_keys_from_users() -> None:
    validate_meta({"com.example/a": 1, "plain": 2})
    with pytest.raises(UsageError, match="reserved"):
        validate_meta({"io.modelcontextprotocol/serverInfo": {}})
    validate_meta({"io.modelcontextprotocol/serverInfo": {}}, allow_reserved=True)
