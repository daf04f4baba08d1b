"""``subscriptions/listen`` on the wire (2026-07-28): the acknowledgement comes first, every
notification carries the subscription id, only what was asked for is sent, the server's
shutdown ends the stream with a final result, and a cancel stops it.

What a client sees of resources, templates, files, prompts, completion and subscriptions runs
over every transport and both eras in tests/interaction/test_kit_resources_prompts.py (and
tools added while a client listens in tests/interaction/test_kit_tools.py).
"""

from __future__ import annotations

import asyncio

import pytest
from _server_harness import connect

from mcpkit.server import Server


def build() -> Server:
    server = Server("library")

    @server.resource("test://static-text", mime_type="text/plain", description="Plain text")
    def static_text() -> str:
        return "This is static."

    return server


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
