"""``RegisteredTool.from_schema``: a tool declared by a JSON Schema and a callable (issue #26).

The public way to build what the OpenAPI provider used to build by copying a private template:
the schema is checked and compiled once, at registration (a broken one is a ``UsageError``
then); the callable gets the validated arguments as keywords; a caller with its own validator
passes it in. Calls go through a real in-memory client and server, in both eras.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.errors import UsageError
from mcpkit.server import ArgumentValidator, RegisteredTool, Server, ToolResult
from mcpkit.testing import ERAS, connect

POINT = {
    "type": "object",
    "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
    "required": ["x"],
    "additionalProperties": False,
}
SUM = {"type": "object", "properties": {"sum": {"type": "integer"}}, "required": ["sum"]}


def add(**arguments: Any) -> dict[str, int]:
    return {"sum": arguments["x"] + arguments.get("y", 0)}


async def add_async(**arguments: Any) -> dict[str, int]:
    return add(**arguments)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("fn", [add, add_async], ids=["sync", "async"])
async def test_a_schema_tool_is_listed_validated_and_called(mode: str, fn: Any) -> None:
    server = Server("schema-tools")
    server.add_tool(
        RegisteredTool.from_schema(
            fn,
            name="add",
            title="Add",
            description="Add two integers.",
            input_schema=POINT,
            output_schema=SUM,
            annotations={"readOnlyHint": True},
        )
    )
    async with connect(server, mode=mode) as client:
        (tool,) = await client.list_tools()
        assert (tool.name, tool.title, tool.description) == ("add", "Add", "Add two integers.")
        assert tool.input_schema == POINT and tool.output_schema == SUM
        assert tool.annotations is not None and tool.annotations.read_only_hint is True

        result = await client.call_tool("add", {"x": 2, "y": 3})
        assert not result.is_error
        assert result.structured_content == {"sum": 5}
        assert result.content[0].text == '{"sum":5}'  # type: ignore[union-attr]

        refused = await client.call_tool("add", {"x": "two"})
        assert refused.is_error
        assert "`x`" in refused.content[0].text  # type: ignore[union-attr]
        unknown = await client.call_tool("add", {"x": 1, "z": 1})
        assert unknown.is_error


async def test_a_result_of_its_own_and_plain_text_pass_through() -> None:
    def shout(**arguments: Any) -> Any:
        if arguments["word"] == "raw":
            return ToolResult(content=[{"type": "text", "text": "RAW"}], is_error=True)
        return arguments["word"].upper()

    schema = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}
    server = Server("schema-tools")
    server.add_tool(RegisteredTool.from_schema(shout, name="shout", input_schema=schema))
    async with connect(server) as client:
        loud = await client.call_tool("shout", {"word": "hi"})
        assert loud.content[0].text == "HI" and loud.structured_content is None  # type: ignore[union-attr]
        raw = await client.call_tool("shout", {"word": "raw"})
        assert raw.is_error and raw.content[0].text == "RAW"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("schema", "output", "needle"),
    [
        ({"type": "array"}, None, "type 'object' at its root"),
        ({"type": "object", "properties": {"x": {"type": 5}}}, None, "input_schema is not usable"),
        ({"type": "object", "$schema": "https://example.com/mine"}, None, "unsupported"),
        (
            {"type": "object", "properties": {"x": {"$ref": "https://example.com/x.json"}}},
            None,
            "never fetched",
        ),
        ({"type": "object"}, {"type": "object", "required": "sum"}, "output_schema is not usable"),
        ({"type": "object"}, ["not", "an", "object"], "output_schema must be a JSON object"),
    ],
    ids=["root-not-object", "invalid", "dialect", "remote-ref", "bad-output", "output-list"],
)
def test_a_broken_schema_is_refused_at_registration(
    schema: dict[str, Any], output: Any, needle: str
) -> None:
    with pytest.raises(UsageError, match=needle):
        RegisteredTool.from_schema(add, name="add", input_schema=schema, output_schema=output)


def test_the_name_and_options_are_checked_like_a_decorated_tools() -> None:
    with pytest.raises(UsageError):
        RegisteredTool.from_schema(add, name="not a valid name!", input_schema=POINT)
    with pytest.raises(UsageError, match="task_support"):
        RegisteredTool.from_schema(
            add,
            name="add",
            input_schema=POINT,
            task_support="sometimes",  # type: ignore[arg-type]
        )


class Recording:
    """An :class:`ArgumentValidator` of the caller's own: it refuses odd ``x``."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def errors(self, value: Any) -> list[tuple[str, str]]:
        self.seen.append(value)
        return [("$.x", "must be even")] if value.get("x", 0) % 2 else []


async def test_a_validator_of_the_callers_own_replaces_the_compiled_check() -> None:
    validator = Recording()
    checker: ArgumentValidator = validator  # the protocol is structural
    server = Server("schema-tools")
    server.add_tool(
        RegisteredTool.from_schema(add, name="add", input_schema=POINT, validator=checker)
    )
    async with connect(server) as client:
        assert (await client.call_tool("add", {"x": 2})).structured_content is None
        odd = await client.call_tool("add", {"x": 3})
        assert odd.is_error and odd.content[0].text == "Invalid arguments: `x`: must be even"  # type: ignore[union-attr]
    assert validator.seen == [{"x": 2}, {"x": 3}]
