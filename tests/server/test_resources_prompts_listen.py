"""Resources, prompts, completion and change notifications, in both eras."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path
from typing import Any

import pytest
from _server_harness import connect

from mcpkit.protocol.errors import InvalidParams, ResourceNotFound
from mcpkit.server import Message, ResourceData, Server, content


def build(docs: Path | None = None) -> Server:
    server = Server("library")

    @server.resource("test://static-text", mime_type="text/plain", description="Plain text")
    def static_text() -> str:
        return "This is static."

    @server.resource("test://static-binary", mime_type="image/png")
    def static_binary() -> bytes:
        return b"\x89PNG\r\n\x1a\n"

    @server.resource("test://template/{id}/data", mime_type="application/json")
    def item(id: str) -> dict[str, Any]:
        if id == "missing":
            raise KeyError(id)
        return {"id": id}

    @server.resource("test://many")
    def many() -> list[ResourceData]:
        return [
            ResourceData(uri="test://many/a", text="a"),
            ResourceData(uri="test://many/b", blob=b"b"),
        ]

    if docs is not None:
        server.add_directory("file:///docs/", str(docs), name="docs")

    @server.prompt(title="Code review")
    def code_review(language: str, code: str) -> list[Message]:
        """Review code.

        Args:
            language: the programming language
            code: the code to review
        """
        return [
            Message(f"Review this {language} code:\n{code}"),
            Message("I will look for bugs.", role="assistant"),
        ]

    @server.prompt
    def with_image() -> list[Any]:
        return [Message(content.image(b"\x89PNG", "image/png"))]

    @server.completion(prompt="code_review", argument="language")
    def languages(value: str, arguments: dict[str, str]) -> list[str]:
        return [lang for lang in ("python", "pascal", "rust") if lang.startswith(value)]

    return server


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_list_and_read(era: str) -> None:
    async with connect(build()) as peer:
        if era == "legacy":
            await peer.initialize()
            call = peer.legacy
        else:
            call = peer.modern
        resources = (await call("resources/list"))["resources"]
        templates = (await call("resources/templates/list"))["resourceTemplates"]
        text = await call("resources/read", {"uri": "test://static-text"})
        binary = await call("resources/read", {"uri": "test://static-binary"})
        item = await call("resources/read", {"uri": "test://template/42/data"})
        many = await call("resources/read", {"uri": "test://many"})
    assert {r["uri"] for r in resources} == {
        "test://static-text",
        "test://static-binary",
        "test://many",
    }
    assert templates == [
        {"uriTemplate": "test://template/{id}/data", "name": "item", "mimeType": "application/json"}
    ]
    assert text["contents"] == [
        {"uri": "test://static-text", "mimeType": "text/plain", "text": "This is static."}
    ]
    assert base64.b64decode(binary["contents"][0]["blob"]) == b"\x89PNG\r\n\x1a\n"
    assert item["contents"][0]["text"] == '{"id":"42"}'
    assert [c["uri"] for c in many["contents"]] == ["test://many/a", "test://many/b"]


async def test_not_found_is_32002_in_legacy_and_32602_with_uri_in_2026() -> None:
    async with connect(build()) as peer:
        with pytest.raises(InvalidParams) as modern:
            await peer.modern("resources/read", {"uri": "test://nope"})
        with pytest.raises(InvalidParams) as lookup_error:
            await peer.modern("resources/read", {"uri": "test://template/missing/data"})
        await peer.initialize()
        with pytest.raises(ResourceNotFound) as legacy:
            await peer.legacy("resources/read", {"uri": "test://nope"})
    assert modern.value.data == {"uri": "test://nope"}
    assert lookup_error.value.data == {"uri": "test://template/missing/data"}
    assert legacy.value.code == -32002 and legacy.value.data == {"uri": "test://nope"}


async def test_file_resources_refuse_traversal(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "api-guide.md").write_text("# API guide\n")
    (tmp_path / "secret.txt").write_text("top secret")
    async with connect(build(docs)) as peer:
        guide = await peer.modern("resources/read", {"uri": "file:///docs/api-guide.md"})
        for sneaky in ("file:///docs/../secret.txt", "file:///docs/%2e%2e/secret.txt"):
            with pytest.raises(InvalidParams):
                await peer.modern("resources/read", {"uri": sneaky})
    assert guide["contents"][0]["text"] == "# API guide\n"
    assert guide["contents"][0]["mimeType"] == "text/markdown"


async def test_prompts_with_arguments_and_content() -> None:
    async with connect(build()) as peer:
        prompts = {p["name"]: p for p in (await peer.modern("prompts/list"))["prompts"]}
        got = await peer.modern(
            "prompts/get",
            {"name": "code_review", "arguments": {"language": "python", "code": "x=1"}},
        )
        image = await peer.modern("prompts/get", {"name": "with_image"})
        with pytest.raises(InvalidParams, match="missing required argument"):
            await peer.modern("prompts/get", {"name": "code_review", "arguments": {"code": "x"}})
        with pytest.raises(InvalidParams, match="Unknown prompt"):
            await peer.modern("prompts/get", {"name": "nope"})
    assert prompts["code_review"]["arguments"] == [
        {"name": "language", "description": "the programming language", "required": True},
        {"name": "code", "description": "the code to review", "required": True},
    ]
    assert got["messages"][0]["content"]["text"] == "Review this python code:\nx=1"
    assert got["messages"][1]["role"] == "assistant"
    assert image["messages"][0]["content"]["type"] == "image"


async def test_completion() -> None:
    async with connect(build()) as peer:
        result = await peer.modern(
            "completion/complete",
            {
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "language", "value": "p"},
            },
        )
        none = await peer.modern(
            "completion/complete",
            {
                "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                "argument": {"name": "id", "value": ""},
            },
        )
    assert result["completion"]["values"] == ["python", "pascal"]
    assert none["completion"]["values"] == []


async def test_legacy_subscribe_and_updated() -> None:
    server = build()
    async with connect(server) as peer:
        await peer.initialize()
        await peer.legacy("resources/subscribe", {"uri": "test://static-text"})
        await server.notify_resource_updated("test://static-binary")  # not subscribed
        await server.notify_resource_updated("test://static-text")
        updates = await peer.wait_for("notifications/resources/updated")
        await peer.legacy("resources/unsubscribe", {"uri": "test://static-text"})
    assert updates == [{"uri": "test://static-text"}]


async def test_modern_listen_acknowledges_first_and_tags_every_notification() -> None:
    server = build()
    async with connect(server) as peer:
        listen = asyncio.create_task(
            peer.modern(
                "subscriptions/listen",
                {
                    "notifications": {
                        "toolsListChanged": True,
                        "resourceSubscriptions": ["test://static-text"],
                    }
                },
            )
        )
        (ack,) = await peer.wait_for("notifications/subscriptions/acknowledged")
        subscription_id = ack["_meta"]["io.modelcontextprotocol/subscriptionId"]
        assert ack["notifications"] == {
            "toolsListChanged": True,
            "resourceSubscriptions": ["test://static-text"],
        }
        await server.notify_resource_updated("test://static-text")
        await server.notify_resource_updated("test://other")
        await server.notify_list_changed("prompts")  # not requested

        @server.tool
        def new_tool() -> str:
            return "new"

        await peer.wait_for("notifications/tools/list_changed")
        (updated,) = await peer.wait_for("notifications/resources/updated")
        assert updated["uri"] == "test://static-text"
        for note in peer.notifications:
            assert note.params["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription_id
        assert peer.of("notifications/prompts/list_changed") == []
        # the server shuts down: the listener gets its graceful final result
        await server.listen_hub.close_all()
        final = await asyncio.wait_for(listen, 5)
    assert final["resultType"] == "complete"
    assert final["_meta"]["io.modelcontextprotocol/subscriptionId"] == subscription_id


async def test_cancelling_a_listen_stops_its_notifications() -> None:
    server = build()
    async with connect(server) as peer:
        listen = asyncio.create_task(
            peer.modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        )
        await peer.wait_for("notifications/subscriptions/acknowledged")
        listen.cancel()  # the client sends notifications/cancelled
        with pytest.raises(asyncio.CancelledError):
            await listen
        async with asyncio.timeout(5):
            await server.listen_hub.wait_count(0)
        assert server.listen_hub.count == 0


async def test_a_sync_tool_in_a_worker_thread_can_change_the_lists() -> None:
    server = build()

    @server.tool
    def grow() -> str:  # runs in a worker thread, where there is no event loop
        server.tool(name="grown")(lambda: "grown")
        return "grew"

    async with server.running(), connect(server) as peer:
        listen = asyncio.create_task(
            peer.modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        )
        await peer.wait_for("notifications/subscriptions/acknowledged")
        await peer.modern("tools/call", {"name": "grow"})
        await peer.wait_for("notifications/tools/list_changed")
        listen.cancel()
        with pytest.raises(asyncio.CancelledError):
            await listen
