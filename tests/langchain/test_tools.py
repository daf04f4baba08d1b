"""MCP tools as LangChain tools: schemas, results, errors, sync use, resources and prompts."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.documents.base import Blob
from langchain_core.messages import HumanMessage, ToolMessage

from mcpkit.client import InputValidationError
from mcpkit.contrib.langchain import (
    GraphBridge,
    load_prompt,
    load_resources,
    load_tools,
    prompt_template,
)
from mcpkit.protocol._errors import UsageError
from mcpkit.testing import ERAS, connect

from ._graphs import ask, tool_graph
from ._servers import PIXEL, build


@pytest.mark.parametrize("mode", ERAS)
async def test_tools_carry_the_mcp_schema_and_names(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        tools = {t.name: t for t in await load_tools(client, prefix="kit__")}
        add = tools["kit__add"]
        assert add.args_schema == (await client.list_tools())[0].input_schema
        assert add.mcp_tool == "add"
        assert add.description == "Add two integers."
        assert await add.ainvoke({"a": 2, "b": 3}) == "5"


@pytest.mark.parametrize("mode", ERAS)
async def test_results_are_content_and_artifact(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        graph = tool_graph(await load_tools(client))
        state = await graph.ainvoke(ask("picture"))
        message = state["messages"][-1]
        assert isinstance(message, ToolMessage)
        assert message.content == [
            {"type": "text", "text": "a picture"},
            {"type": "image", "base64": PIXEL, "mime_type": "image/png"},
            {"type": "text", "text": "hi"},
        ]
        assert message.artifact["structured_content"] == {"width": 1}
        assert message.artifact["images"] == [
            {"type": "image", "data": PIXEL, "mimeType": "image/png"}
        ]
        assert message.artifact["resources"] == [
            {"uri": "mem://note", "mimeType": "text/plain", "text": "hi"}
        ]


@pytest.mark.parametrize("mode", ERAS)
async def test_is_error_becomes_an_error_tool_message_with_the_servers_text(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        graph = tool_graph(await load_tools(client))
        state = await graph.ainvoke(ask("fail", reason="no stock"))
        message = state["messages"][-1]
        assert message.status == "error"
        assert message.content == "refused: no stock"


async def test_bad_arguments_raise_the_typed_error_naming_the_field() -> None:
    async with connect(build()) as client:
        add = {t.name: t for t in await load_tools(client)}["add"]
        with pytest.raises(InputValidationError) as caught:
            await add.ainvoke({"a": 1, "b": "two"})
        assert caught.value.path == "$.b"


async def test_sync_invoke_runs_on_the_connections_loop_from_another_thread() -> None:
    async with connect(build()) as client:
        add = {t.name: t for t in await load_tools(client)}["add"]
        assert await asyncio.to_thread(add.invoke, {"a": 20, "b": 22}) == "42"
        with pytest.raises(UsageError, match="use ainvoke"):
            add.invoke({"a": 1, "b": 2})


async def test_questions_outside_a_graph_use_the_fallback_or_cancel() -> None:
    async def fallback(params: object, ctx: object) -> dict[str, object]:
        message = getattr(params, "message", "")
        return {"action": "accept", "content": {"address": "Oslo"} if "Where" in message else {}}

    for bridge, expected in (
        (GraphBridge(), "cancelled"),
        (GraphBridge(fallback_elicitation=fallback), '"address":"Oslo"'),
    ):
        async with connect(build(), **bridge.client_options()) as client:
            order = {t.name: t for t in await load_tools(client, bridge=bridge)}["order"]
            assert expected in await order.ainvoke({"product": "shoe"})


@pytest.mark.parametrize("mode", ERAS)
async def test_resources_are_documents_and_blobs(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        items = await load_resources(client)
        by_uri = {(i.metadata["uri"] if isinstance(i, Document) else i.path): i for i in items}
        readme = by_uri["mem://readme"]
        assert isinstance(readme, Document) and readme.page_content == "read me"
        blob = by_uri["mem://blob.bin"]
        assert isinstance(blob, Blob) and blob.as_bytes() == b"\x00\x01\x02"
        assert blob.mimetype == "application/octet-stream"


@pytest.mark.parametrize("mode", ERAS)
async def test_prompts_are_chat_messages_and_templates(mode: str) -> None:
    async with connect(build(), mode=mode) as client:
        assert await load_prompt(client, "greet", {"name": "Ann"}) == [
            HumanMessage("Say hello to Ann")
        ]
        value = await prompt_template(client, "greet").ainvoke({"name": "Bo"})
        assert value.to_messages() == [HumanMessage("Say hello to Bo")]
