"""Request params are decoded in one pass into the method's model; a wrong shape is -32602 with a
message that says which member is wrong and how, in both eras, and the server keeps serving."""

from __future__ import annotations

from typing import Any

import pytest
from _server_harness import RawPeer, connect

from mcpkit.protocol._errors import InvalidParams
from mcpkit.server import Server
from mcpkit.server._params import invalid_params_message


def build() -> Server:
    server = Server("params-test")

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    @server.resource("docs://readme")
    def readme() -> str:
        return "hello"

    return server


async def call(peer: RawPeer, era: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if era == "modern":
        return await peer.modern(method, params)
    return await peer.legacy(method, params)


@pytest.fixture(params=["legacy", "modern"])
def era(request: pytest.FixtureRequest) -> str:
    return str(request.param)


BAD_TOOLS_CALL = [
    ({"arguments": {"text": "hi"}}, "Invalid params for tools/call: params.name is required"),
    (
        {"name": 7},
        "Invalid params for tools/call: params.name: expected `str`, got `int`",
    ),
    (
        {"name": "echo", "arguments": ["hi"]},
        "Invalid params for tools/call: params.arguments: expected `object | null`, got `array`",
    ),
]


@pytest.mark.no_schema_check  # the test's own requests are invalid on purpose
@pytest.mark.parametrize(("params", "message"), BAD_TOOLS_CALL)
async def test_an_invalid_tools_call_shape_is_32602_naming_the_member(
    era: str, params: dict[str, Any], message: str
) -> None:
    async with connect(build()) as peer:
        if era == "legacy":
            await peer.initialize()
        with pytest.raises(InvalidParams) as caught:
            await call(peer, era, "tools/call", params)
        ok = await call(peer, era, "tools/call", {"name": "echo", "arguments": {"text": "hi"}})
    assert caught.value.code == -32602
    assert caught.value.message.startswith(message), caught.value.message
    assert ok["content"] == [{"type": "text", "text": "hi"}]  # the server keeps serving


@pytest.mark.no_schema_check
async def test_a_legacy_meta_that_is_not_an_object_is_refused() -> None:
    # (a 2026 request's _meta is read, and refused, before any handler: tests/protocol)
    async with connect(build()) as peer:
        await peer.initialize()
        with pytest.raises(InvalidParams) as caught:
            await peer.legacy("tools/call", {"name": "echo", "_meta": "x"})
    assert caught.value.message.startswith("Invalid params for tools/call: params._meta: ")


@pytest.mark.no_schema_check
@pytest.mark.parametrize(
    ("method", "params", "message"),
    [
        (
            "prompts/get",
            {"name": "greet", "arguments": {"name": 3}},
            "Invalid params for prompts/get: params.arguments[...]: expected `str`, got `int`",
        ),
        ("resources/read", {}, "Invalid params for resources/read: params.uri is required"),
        ("tools/list", {"cursor": 5}, "Invalid params for tools/list: params.cursor"),
        (
            "completion/complete",
            {"ref": {"type": "ref/nothing", "name": "x"}, "argument": {"name": "a", "value": ""}},
            "Invalid params for completion/complete: params.ref",
        ),
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "greet"}},
            "Invalid params for completion/complete: params.argument is required",
        ),
    ],
)
async def test_every_feature_method_decodes_its_params_in_both_eras(
    era: str, method: str, params: dict[str, Any], message: str
) -> None:
    async with connect(build()) as peer:
        if era == "legacy":
            await peer.initialize()
        with pytest.raises(InvalidParams) as caught:
            await call(peer, era, method, params)
    assert message in caught.value.message, caught.value.message


@pytest.mark.no_schema_check
async def test_set_level_names_the_levels_it_takes() -> None:
    async with connect(build()) as peer:
        await peer.initialize()
        with pytest.raises(InvalidParams) as caught:
            await peer.legacy("logging/setLevel", {"level": "loud"})
        assert await peer.legacy("logging/setLevel", {"level": "debug"}) == {}
    assert caught.value.message == (
        "Invalid params for logging/setLevel: params.level: invalid enum value 'loud' (one of "
        "'alert', 'critical', 'debug', 'emergency', 'error', 'info', 'notice', 'warning')"
    )


def test_the_message_turns_msgspec_paths_into_params_paths() -> None:
    assert (
        invalid_params_message("tools/call", "Expected `str`, got `int` - at `$.name`")
        == "Invalid params for tools/call: params.name: expected `str`, got `int`"
    )
    assert (
        invalid_params_message("x/y", "Object missing required field `uri` - at `$.ref`")
        == "Invalid params for x/y: params.ref.uri is required"
    )
    assert (
        invalid_params_message("x/y", "Expected `object`, got `array`")
        == "Invalid params for x/y: params: expected `object`, got `array`"
    )


@pytest.mark.no_schema_check
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({}, "Invalid params for subscriptions/listen: params.notifications is required"),
        (
            {"notifications": {"resourceSubscriptions": "docs://readme"}},
            "Invalid params for subscriptions/listen: params.notifications.resourceSubscriptions: "
            "expected `array | null`, got `str`",
        ),
        (
            {"notifications": {"toolsListChanged": "yes"}},
            "Invalid params for subscriptions/listen: params.notifications.toolsListChanged: "
            "expected `bool | null`, got `str`",
        ),
    ],
)
async def test_a_listen_filter_of_the_wrong_shape_is_refused_before_any_stream(
    params: dict[str, Any], message: str
) -> None:
    server = build()
    async with connect(server) as peer:
        with pytest.raises(InvalidParams) as caught:
            await peer.modern("subscriptions/listen", params)
    assert caught.value.message == message
    assert server.listen_hub.count == 0
