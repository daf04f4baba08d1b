"""The registries a Server is made of: items, change hooks, cached listings, reading resources."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server._pagination import InvalidCursor
from mcpkit.server._prompts import RegisteredPrompt
from mcpkit.server._registries import (
    CompletionRegistry,
    PromptRegistry,
    ResourceNotFoundError,
    ResourceRegistry,
    ToolRegistry,
)
from mcpkit.server._resources import RegisteredResource
from mcpkit.server._tools import RegisteredTool


def echo(text: str) -> str:
    """Echo the text."""
    return text


def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()


class Changes:
    def __init__(self) -> None:
        self.kinds: list[str] = []

    def __call__(self, kind: str) -> None:
        self.kinds.append(kind)


def test_tool_registry_adds_removes_and_announces_each_change() -> None:
    changes = Changes()
    tools = ToolRegistry(changes)
    tools.add(RegisteredTool(echo))
    tools.add(RegisteredTool(shout))
    assert list(tools) == ["echo", "shout"] and len(tools) == 2 and "echo" in tools
    assert tools.find("echo") is tools["echo"] and tools.find("nope") is None
    with pytest.raises(UsageError, match="a tool named 'echo' is already registered"):
        tools.add(RegisteredTool(echo))
    tools.remove("echo")
    with pytest.raises(UsageError, match="no tool named 'echo'"):
        tools.remove("echo")
    assert changes.kinds == ["tools", "tools", "tools"]  # failed changes announce nothing
    assert list(tools) == ["shout"]


def test_a_listing_is_built_once_per_version_of_the_items() -> None:
    tools = ToolRegistry()
    tools.add(RegisteredTool(echo))
    first = tools.definitions()
    assert tools.definitions() is first  # cached: no rebuild per tools/list
    assert [t["name"] for t in first] == ["echo"]
    version = tools.version
    tools.add(RegisteredTool(shout))
    assert tools.version == version + 1
    second = tools.definitions()
    assert second is not first and [t["name"] for t in second] == ["echo", "shout"]


def test_the_2025_11_25_listing_says_which_tools_run_as_tasks() -> None:
    tools = ToolRegistry()
    tools.add(RegisteredTool(echo, task_support="optional"))
    tools.add(RegisteredTool(shout))
    listed = {t["name"]: t for t in tools.definitions(task_support=True)}
    assert listed["echo"]["execution"] == {"taskSupport": "optional"}
    assert "execution" not in listed["shout"]
    assert all("execution" not in t for t in tools.definitions())  # other revisions: never
    assert tools.input_schema("echo") == tools["echo"].definition["inputSchema"]
    assert tools.input_schema("nope") is None


def test_pages_carry_the_version_and_a_change_voids_old_cursors() -> None:
    tools = ToolRegistry()
    tools.add(RegisteredTool(echo))
    tools.add(RegisteredTool(shout))
    first = tools.page("tools", tools.definitions(), None, 1)
    assert [t["name"] for t in first["tools"]] == ["echo"]
    cursor = first["nextCursor"]
    second = tools.page("tools", tools.definitions(), cursor, 1)
    assert [t["name"] for t in second["tools"]] == ["shout"] and "nextCursor" not in second
    assert tools.page("tools", tools.definitions(), None, None) == {"tools": tools.definitions()}
    tools.remove("shout")
    with pytest.raises(InvalidCursor):
        tools.page("tools", tools.definitions(), cursor, 1)


def read_note(name: str) -> str:
    if name == "missing":
        raise FileNotFoundError(name)
    return f"note {name}"


def read_readme() -> str:
    return "hello"


async def test_resource_registry_lists_and_reads_resources_and_templates() -> None:
    changes = Changes()
    resources = ResourceRegistry(changes)
    resources.add(RegisteredResource("docs://readme", read_readme, mime_type="text/plain"))
    resources.add(RegisteredResource("notes://{name}", read_note))
    with pytest.raises(UsageError, match="a resource 'docs://readme' is already registered"):
        resources.add(RegisteredResource("docs://readme", read_readme))
    assert [r["uri"] for r in resources.resources()] == ["docs://readme"]
    assert [r["uriTemplate"] for r in resources.templates()] == ["notes://{name}"]
    ctx: Any = None  # neither reader takes a Context
    readme = await resources.read_contents("docs://readme", ctx)
    assert readme == [{"uri": "docs://readme", "mimeType": "text/plain", "text": "hello"}]
    note = await resources.read_contents("notes://a", ctx)
    assert note[0]["text"] == "note a"
    with pytest.raises(ResourceNotFoundError):  # the reader's FileNotFoundError
        await resources.read_contents("notes://missing", ctx)
    with pytest.raises(LookupError):  # nothing matches
        await resources.read_contents("other://x", ctx)
    resources.remove("notes://{name}")
    with pytest.raises(UsageError, match=re.escape("no resource 'notes://{name}'")):
        resources.remove("notes://{name}")
    assert resources.templates() == []
    assert changes.kinds == ["resources"] * 3


def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello {name}"


async def test_prompt_and_completion_registries() -> None:
    prompts = PromptRegistry()
    prompts.add(RegisteredPrompt(greet))
    assert [p["name"] for p in prompts.definitions()] == ["greet"]
    with pytest.raises(UsageError, match="a prompt named 'greet' is already registered"):
        prompts.add(RegisteredPrompt(greet))
    completions = CompletionRegistry()
    with pytest.raises(UsageError, match="exactly one of prompt= or resource="):
        completions.add(greet, argument="name", prompt=None, resource=None)

    async def names(value: str, arguments: dict[str, str]) -> list[str]:
        return [n for n in ("ada", "alan", "grace") if n.startswith(value)]

    completions.add(names, argument="name", prompt="greet", resource=None)
    assert await completions.complete("ref/prompt", "greet", "name", "a", {}) == ["ada", "alan"]
    assert await completions.complete("ref/prompt", "greet", "other", "a", {}) is None
    assert await completions.complete("ref/resource", "greet", "name", "a", {}) is None
