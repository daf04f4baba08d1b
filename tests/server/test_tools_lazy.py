"""Plain tools are built on first use; everything that can be wrong is still refused at once.

``RegisteredTool`` defers the definition (schemas, validator) of a tool whose signature is
plain (``mcpkit.server._tools._is_plain_function``) to the first ``tools/list`` or call, so a
server with 1,000 tools starts without building 1,000 schemas. These tests hold the deferred
path to the eager one (same definition, same answers) and check that the gate lets through
only what cannot fail later: every other tool is analysed, and refused, at registration.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import typing
from typing import Any

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server import Context, Server
from mcpkit.server import _tools as tools_module
from mcpkit.server._schema.signature import _PLAIN_SCHEMAS, analyze_function
from mcpkit.server._tools import RegisteredTool, _is_plain_function


def _function(source: str, namespace: dict[str, Any] | None = None) -> Any:
    scope: dict[str, Any] = {"Any": Any, "Optional": typing.Optional, **(namespace or {})}
    # Compiled without this module's ``from __future__ import annotations``: unquoted
    # annotations are objects, quoted ones strings (both forms reach registration).
    exec(compile(textwrap.dedent(source), "<tool>", "exec", dont_inherit=True), scope)
    return next(v for k, v in scope.items() if k.startswith("tool_"))


PLAIN_SOURCES = [
    "async def tool_a(city: str, days: int = 3, units: str = 'metric', hourly: bool = False)"
    " -> str: return city",
    "def tool_b(x: float, y: 'int | None' = None, tags: 'list[str] | None' = None) -> None: pass",
    "def tool_c(values: list[int], extra: dict[str, Any], anything: Any) -> int: return 1",
    "def tool_d(a: 'Optional[bool]' = None, *, b: 'list[float]' = None) -> 'list[str]': return []",
    "def tool_e(untyped, also_untyped=1.5): return untyped",
    "def tool_f(text: str) -> 'None':\n"
    "    '''Say it.\n\n    Args:\n        text: what to say\n    '''",
]


@pytest.mark.parametrize("source", PLAIN_SOURCES)
def test_a_deferred_definition_equals_the_eager_one(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fn = _function(source)
    lazy = RegisteredTool(fn, title="T", annotations={"readOnlyHint": True})
    deferred = _is_plain_function(fn) and lazy._pending is not None
    monkeypatch.setattr(tools_module, "_is_plain_function", lambda fn: False)
    eager = RegisteredTool(fn, title="T", annotations={"readOnlyHint": True})
    assert eager._pending is None
    if "tool_b" in source:  # 'list[str] | None' is not in the table: analysed at once
        assert not deferred
        return
    assert deferred
    assert lazy.definition == eager.definition
    assert lazy._pending is None
    assert lazy.signature.parameters == eager.signature.parameters


def test_the_gate_admits_only_annotations_whose_schema_comes_from_the_table() -> None:
    assert set(_PLAIN_SCHEMAS) >= tools_module._PLAIN_OBJECTS
    for text, lookups in tools_module._PLAIN_TEXTS.items():
        fn = _function(f"def tool_x(a: {text!r}) -> {text!r}: pass")
        assert _is_plain_function(fn), text
        evaluated = eval(text, {"Any": Any, "Optional": typing.Optional})
        assert evaluated in _PLAIN_SCHEMAS, text
        analyze_function(fn)  # nothing left to fail
        assert all(name in text for name, _ in lookups)


@pytest.mark.parametrize(
    ("source", "namespace"),
    [
        ("def tool_x(*args: str) -> str: ...", {}),
        ("def tool_x(**kwargs: str) -> str: ...", {}),
        ("def tool_x(a: str, /) -> str: ...", {}),
        ("def tool_x(a: 'Missing') -> str: ...", {}),
        ("def tool_x(a: 'str') -> str: ...", {"str": bytes}),  # the module rebinds str
        ("def tool_x(a: 'dict[str, Any]') -> str: ...", {"Any": object}),
        ("def tool_x(a: list = []) -> str: ...", {}),
        ("def tool_x(a: str) -> dict: ...", {}),
        ("def tool_x(ctx: Context) -> str: ...", {"Context": Context}),
    ],
)
def test_anything_else_is_analysed_at_registration(source: str, namespace: dict[str, Any]) -> None:
    fn = _function(source, namespace)
    assert not _is_plain_function(fn)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def tool_x(*args: str) -> str: ...", "*args/**kwargs"),
        ("def tool_x(a: str, /) -> str: ...", "positional-only"),
        ("def tool_x(a: 'NoSuchType') -> str: ...", "cannot resolve a type annotation"),
        ("def tool_x(a: 'str') -> str: ...", "is not supported"),  # str rebound: not a type
    ],
)
def test_a_bad_signature_still_fails_at_registration(source: str, message: str) -> None:
    fn = _function(source, {"str": object()} if "'str'" in source else None)
    with pytest.raises(UsageError, match=message.replace("*", r"\*")):
        Server("s").tool(fn)


def test_other_registration_errors_still_raise_at_registration() -> None:
    plain = _function("def tool_ok(text: str) -> str: return text")
    server = Server("s")
    with pytest.raises(UsageError, match="contains the character"):
        server.tool(plain, name="bad name")
    with pytest.raises(UsageError, match="structured_output=True"):
        server.tool(plain, structured_output=True)
    with pytest.raises(UsageError, match="task_support"):
        server.tool(plain, task_support="sometimes")  # type: ignore[call-overload]
    with pytest.raises(UsageError, match=r"dialect|\$schema"):
        server.tool(
            _function("def tool_s(**arguments: Any) -> str: return ''"),
            input_schema={"$schema": "https://example.com/unknown", "type": "object"},
        )


async def test_a_deferred_tool_is_built_by_its_first_call() -> None:
    fn = _function("async def tool_echo(text: str, times: int = 1) -> str: return text * times")
    tool = RegisteredTool(fn)
    no_context = typing.cast(Context, None)  # the function takes none
    assert tool._pending is not None
    result = await tool.call({"text": "ab", "times": 2}, no_context)
    assert result == {"content": [{"type": "text", "text": "abab"}]}
    assert not tool._pending
    bad = await tool.call({"text": 1}, no_context)
    assert bad["isError"] is True


def test_a_stdio_server_with_plain_tools_starts_without_the_schema_engine() -> None:
    code = textwrap.dedent(
        """
        import sys
        from mcpkit.server import Server

        app = Server("s")

        @app.tool
        async def forecast(city: str, days: int = 3, hourly: bool = False) -> str:
            return city

        import mcpkit.server._stdio, mcpkit.transports._stdio_server
        print(sorted(m for m in sys.modules if m.startswith("mcpkit.server._schema.")))
        print(app._tools["forecast"].definition["inputSchema"]["required"])
        print("mcpkit.server._schema.signature" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out == ["['mcpkit.server._schema.errors']", "['city']", "True"]
