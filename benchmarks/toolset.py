"""The tools every benchmark server exposes, defined once (stdlib only: every venv imports it).

* ``echo(text)`` and ``add(a, b)``: the calls measured for throughput and latency;
* ``blob(size)``: returns ``size`` bytes of text, for the large-result measurements;
* ``many_tools(n)``: ``n`` generated functions with realistic signatures (a few typed
  parameters, defaults, a docstring), for ``tools/list`` with 1,000 tools. Each library derives
  its own schemas from the signatures; the raw floor serves :func:`raw_definition` for each,
  the hand-written equivalent.

Tools are plain ``async def`` functions: none of them blocks, and that is how a non-blocking
tool is declared in every library measured (a sync ``def`` makes all three run it on a worker
thread, which measures the thread hop rather than the library).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ECHO_DESCRIPTION = "Return the given text unchanged."
ADD_DESCRIPTION = "Add two integers."
BLOB_DESCRIPTION = "Return `size` bytes of text."
BLOB_CHAR = "x"


async def echo(text: str) -> str:
    return text


async def add(a: int, b: int) -> int:
    return a + b


async def blob(size: int) -> str:
    return BLOB_CHAR * size


def sync_echo(text: str) -> str:
    """A blocking-style echo (``def``), served on a worker thread by every library."""
    return text


BASIC_TOOLS: list[tuple[Callable[..., Any], str]] = [
    (echo, ECHO_DESCRIPTION),
    (add, ADD_DESCRIPTION),
    (blob, BLOB_DESCRIPTION),
]

_TEMPLATE = """
async def {name}(city: str, days: int = 3, units: str = "metric", hourly: bool = False) -> str:
    return city
"""
GENERATED_DESCRIPTION = (
    "Forecast #{i}: the weather for a city over the next days, in metric or imperial units, "
    "optionally hour by hour."
)


def tool_name(i: int) -> str:
    return f"forecast_{i:04d}"


def many_tools(n: int) -> list[tuple[Callable[..., Any], str]]:
    """``n`` distinct tool functions (own names, same realistic signature) with descriptions."""
    tools = []
    for i in range(n):
        namespace: dict[str, Any] = {}
        exec(_TEMPLATE.format(name=tool_name(i)), namespace)
        tools.append((namespace[tool_name(i)], GENERATED_DESCRIPTION.format(i=i)))
    return tools


def raw_definition(i: int) -> dict[str, Any]:
    """What the raw floor lists for generated tool ``i`` (what a library derives, by hand)."""
    return {
        "name": tool_name(i),
        "description": GENERATED_DESCRIPTION.format(i=i),
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "default": 3},
                "units": {"type": "string", "default": "metric"},
                "hourly": {"type": "boolean", "default": False},
            },
            "required": ["city"],
        },
    }
