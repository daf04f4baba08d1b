"""``ctx.elicit(schema=T)`` hands back a ``T``; ``ctx.sample`` a ``CreateMessageResult``.

Each tool body runs through a real client in both eras: a legacy session (server→client
requests) and 2026-07-28 (an MRTR round trip), so the conversion is proven on both paths.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypedDict

import msgspec
import pydantic
import pytest

from mcpkit.client import QuestionContext
from mcpkit.server import Context, ElicitAnswer, Server
from mcpkit.testing import ERAS, connect
from mcpkit.types import CreateMessageResult, TextContent


@dataclasses.dataclass
class BookingDC:
    nights: int
    city: str = "Lisbon"


class BookingStruct(msgspec.Struct):
    nights: int
    city: str = "Lisbon"


class BookingModel(pydantic.BaseModel):
    nights: int
    city: str = "Lisbon"


class BookingTD(TypedDict):
    nights: int
    city: str


SCHEMAS: dict[str, Any] = {
    "dataclass": BookingDC,
    "struct": BookingStruct,
    "pydantic": BookingModel,
    "typeddict": BookingTD,
}


def build(seen: list[Any]) -> Server:
    server = Server("typed")

    @server.tool
    async def book(kind: str, ctx: Context) -> str:
        answer = await ctx.elicit("How long?", SCHEMAS[kind])
        seen.append(answer)
        return answer.action

    @server.tool
    async def as_dict(ctx: Context) -> str:
        answer = await ctx.elicit(
            "How long?", {"type": "object", "properties": {"nights": {"type": "integer"}}}
        )
        seen.append(answer)
        return answer.action

    @server.tool
    async def haiku(ctx: Context) -> str:
        result = await ctx.sample("A haiku", max_tokens=20)
        seen.append(result)
        return result.model

    return server


def answering(content: dict[str, Any], action: str = "accept") -> Any:
    async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
        return {"action": action, "content": content} if action == "accept" else {"action": action}

    return elicit


async def sample(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "old pond"}, "model": "m1"}


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize("kind", sorted(SCHEMAS))
async def test_accepted_content_is_an_instance_of_the_schema_type(mode: str, kind: str) -> None:
    seen: list[Any] = []
    handler = answering({"nights": 3, "city": "Porto"})
    async with connect(build(seen), mode=mode, elicitation_handler=handler) as client:
        result = await client.call_tool("book", {"kind": kind})
    assert not result.is_error, result
    (answer,) = seen
    assert isinstance(answer, ElicitAnswer) and answer.accepted
    if kind == "typeddict":
        assert answer.content == {"nights": 3, "city": "Porto"}
    else:
        assert isinstance(answer.content, SCHEMAS[kind])
        assert (answer.content.nights, answer.content.city) == (3, "Porto")


@pytest.mark.parametrize("mode", ERAS)
async def test_the_schema_sent_comes_from_the_type(mode: str) -> None:
    schemas: list[Any] = []

    async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
        schemas.append(params.requested_schema)
        return {"action": "accept", "content": {"nights": 1}}

    async with connect(build([]), mode=mode, elicitation_handler=elicit) as client:
        await client.call_tool("book", {"kind": "pydantic"})
    properties = msgspec.to_builtins(schemas[0])["properties"]
    assert set(properties) == {"nights", "city"}
    assert properties["nights"]["type"] == "integer"


@pytest.mark.parametrize("mode", ERAS)
async def test_a_dict_schema_still_gives_a_dict(mode: str) -> None:
    seen: list[Any] = []
    handler = answering({"nights": 2})
    async with connect(build(seen), mode=mode, elicitation_handler=handler) as client:
        await client.call_tool("as_dict", {})
    assert seen[0].content == {"nights": 2}


@pytest.mark.parametrize("mode", ERAS)
async def test_declined_answers_carry_no_content(mode: str) -> None:
    seen: list[Any] = []
    handler = answering({}, action="decline")
    async with connect(build(seen), mode=mode, elicitation_handler=handler) as client:
        result = await client.call_tool("book", {"kind": "dataclass"})
    assert result.content[0].text == "decline"  # type: ignore[union-attr]
    assert seen[0].content is None and not seen[0].accepted


@pytest.mark.parametrize("mode", ERAS)
async def test_content_that_does_not_fit_the_type_is_a_clear_error(mode: str) -> None:
    handler = answering({"nights": "many"})
    async with connect(build([]), mode=mode, elicitation_handler=handler) as client:
        with pytest.raises(Exception, match="does not fit BookingStruct") as info:
            await client.call_tool("book", {"kind": "struct"})
        assert getattr(info.value, "code", None) == -32602
        # the connection keeps serving
        assert not (await client.call_tool("as_dict", {})).is_error


@pytest.mark.parametrize("mode", ERAS)
async def test_sample_returns_a_typed_result(mode: str) -> None:
    seen: list[Any] = []
    async with connect(build(seen), mode=mode, sampling_handler=sample) as client:
        result = await client.call_tool("haiku", {})
    assert result.content[0].text == "m1"  # type: ignore[union-attr]
    (sampled,) = seen
    assert isinstance(sampled, CreateMessageResult)
    assert isinstance(sampled.content, TextContent) and sampled.content.text == "old pond"
