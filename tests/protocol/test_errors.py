"""Errors users raise are checked where they are built: a misbuilt one is a clear TypeError,
never an answer that cannot be encoded (which would leave the peer waiting)."""

from __future__ import annotations

import msgspec
import pytest

from mcpkit.protocol._errors import InvalidParams, JSONRPCError, ResourceNotFound
from mcpkit.server import ToolError


def test_the_code_given_as_first_argument_is_refused_with_the_signature() -> None:
    with pytest.raises(TypeError) as caught:
        JSONRPCError(404, "not found")  # type: ignore[arg-type]
    message = str(caught.value)
    assert "JSONRPCError(message, data=None, *, code=None)" in message
    assert "message must be a str, got int 404" in message
    assert "code=..." in message


def test_a_code_that_is_not_an_int_is_refused() -> None:
    with pytest.raises(TypeError, match="code must be an int, got str 'oops'"):
        JSONRPCError("broken", code="oops")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="code must be an int, got bool"):
        JSONRPCError("broken", code=True)


def test_data_that_is_not_json_is_refused_by_the_subclass_name() -> None:
    with pytest.raises(TypeError, match=r"^InvalidParams\(message, .*data must be JSON"):
        InvalidParams("bad widget", {"widget": object()})


def test_well_built_errors_encode() -> None:
    error = ResourceNotFound("no such file", {"uri": "file:///x"})
    wire = msgspec.json.decode(msgspec.json.encode(error.to_error_object()))
    assert wire == {"code": -32002, "message": "no such file", "data": {"uri": "file:///x"}}
    assert JSONRPCError("custom", code=-32050).code == -32050


def test_tool_error_takes_one_message_string() -> None:
    with pytest.raises(TypeError, match=r"ToolError\(message\): message must be a str, got int"):
        ToolError(42)  # type: ignore[arg-type]
    assert str(ToolError("b must not be zero")) == "b must not be zero"


def test_every_error_users_raise_is_importable_from_mcpkit_errors() -> None:
    import mcpkit.errors
    import mcpkit.server

    assert len(mcpkit.errors.__all__) == len(set(mcpkit.errors.__all__))
    for name in mcpkit.errors.__all__:
        assert isinstance(getattr(mcpkit.errors, name), type), name
    assert mcpkit.errors.ToolError is mcpkit.server.ToolError
    assert issubclass(mcpkit.errors.InvalidParams, mcpkit.errors.JSONRPCError)


def test_mcpkit_errors_does_not_load_the_server_or_the_client() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcpkit.errors; "
        "print(sorted(m for m in sys.modules if m in ('mcpkit.server', 'mcpkit.client')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
