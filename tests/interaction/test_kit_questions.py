"""A tool asks the client (elicitation, sampling, roots) over every transport and both eras.

``ask_connect`` runs each test over the pairs that can carry a question: memory, stdio and
``http-sse`` in both eras (a legacy server asks inside the open request), and ``http-json`` in
2026-07-28 (the question is an ``input_required`` result, the client answers in a new call) —
7 runs. The client's handlers run in the test, so they record what was asked and in which
order; the tool answers with what the server made of the replies (the type an answer was
converted to), since for stdio and HTTP the server is another process. Moved here from the
in-process ``tests/server`` tests; the server is :mod:`kit.feature_server`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from mcpkit.client import QuestionContext
from mcpkit.protocol._errors import (
    InternalError,
    InvalidRequest,
    MissingRequiredClientCapability,
    UsageError,
)

Connect = Callable[..., Any]

ROOTS = [{"uri": "file:///work", "name": "work"}]


def _text(result: Any) -> str:
    text: str = result.content[0].text
    return text


def answering(
    content: dict[str, Any], action: str = "accept", asked: list[Any] | None = None
) -> Any:
    """An elicitation handler giving ``action`` (and ``content`` when accepting); it records
    each request's params in ``asked``."""

    async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
        if asked is not None:
            asked.append(params)
        return {"action": action, "content": content} if action == "accept" else {"action": action}

    return elicit


def sampling(text: str, model: str, asked: list[Any] | None = None) -> Any:
    async def sample(params: Any, context: QuestionContext) -> dict[str, Any]:
        if asked is not None:
            asked.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": text}, "model": model}

    return sample


async def test_one_tool_asks_everything_in_order(ask_connect: Connect) -> None:
    order: list[str] = []
    schemas: list[Any] = []

    async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
        order.append("elicitation")
        schemas.append(msgspec.to_builtins(params.requested_schema))
        return {"action": "accept", "content": {"name": "Ada"}}

    async def sample(params: Any, context: QuestionContext) -> dict[str, Any]:
        order.append("sampling")
        return {
            "role": "assistant",
            "content": {"type": "text", "text": "autumn moon"},
            "model": "m",
        }

    async def roots() -> list[dict[str, Any]]:
        order.append("roots")
        return ROOTS

    async with ask_connect(
        elicitation_handler=elicit, sampling_handler=sample, roots=roots
    ) as client:
        result = await client.call_tool("interview", {})
    assert _text(result) == "accept:Ada|autumn moon|file:///work", result
    assert order == ["elicitation", "sampling", "roots"]
    assert schemas[0]["properties"]["name"] == {"type": "string", "default": "anon"}


async def test_accepting_the_defaults_sends_them_back(ask_connect: Connect) -> None:
    """A handler may accept what the form proposes (``context.defaults``, from the schema)."""

    async def elicit(params: Any, context: QuestionContext) -> dict[str, Any]:
        return {"action": "accept", "content": dict(context.defaults)}

    async with ask_connect(
        elicitation_handler=elicit, sampling_handler=sampling("dew", "m"), roots=ROOTS
    ) as client:
        result = await client.call_tool("interview", {})
    assert _text(result) == "accept:anon|dew|file:///work"


async def test_a_client_without_handlers_is_told_which_capability_is_missing(
    kit_connect: Connect,
) -> None:
    """Nothing is asked of a client that did not declare the capability: a legacy server
    refuses the call with -32600 naming it, a 2026 server with -32021 and
    ``data.requiredCapabilities`` (every transport: the refusal is the call's answer)."""
    async with kit_connect() as client:
        if client.era == "modern":
            with pytest.raises(MissingRequiredClientCapability) as modern:
                await client.call_tool("ask", {"question": "Who?"})
            assert modern.value.code == -32021
            assert modern.value.required_capabilities == {"elicitation": {"form": {}}}
            refused: Exception = modern.value
        else:
            with pytest.raises(InvalidRequest) as legacy:
                await client.call_tool("ask", {"question": "Who?"})
            assert legacy.value.code == -32600
            refused = legacy.value
        assert "needs the client capability 'elicitation.form'" in str(refused)
        assert _text(await client.call_tool("echo", {"text": "on"})) == "on"


async def test_accepted_content_is_an_instance_of_the_schema_type(ask_connect: Connect) -> None:
    handler = answering({"nights": 3, "city": "Porto"})
    async with ask_connect(elicitation_handler=handler) as client:
        for kind in ("dataclass", "pydantic", "struct"):
            result = await client.call_tool("book", {"kind": kind})
            assert not result.is_error, (kind, result)
            # the server checked isinstance(answer.content, the type): the True after accept|True
            assert _text(result) == "accept|True|True|3|Porto", kind


async def test_a_typeddict_schema_gives_a_dict_and_a_dict_schema_too(ask_connect: Connect) -> None:
    async with ask_connect(elicitation_handler=answering({"nights": 3, "city": "Porto"})) as client:
        typed = await client.call_tool("book", {"kind": "typeddict"})
        plain = await client.call_tool("as_dict", {})
    assert _text(typed) == "accept|True|dict|3|Porto"
    assert _text(plain) == "accept|dict|{'nights': 3, 'city': 'Porto'}"


async def test_the_schema_sent_comes_from_the_type(ask_connect: Connect) -> None:
    asked: list[Any] = []
    async with ask_connect(elicitation_handler=answering({"nights": 1}, asked=asked)) as client:
        await client.call_tool("book", {"kind": "pydantic"})
    (params,) = asked
    properties = msgspec.to_builtins(params.requested_schema)["properties"]
    assert set(properties) == {"nights", "city"}
    assert properties["nights"]["type"] == "integer"


async def test_declined_answers_carry_no_content(ask_connect: Connect) -> None:
    async with ask_connect(elicitation_handler=answering({}, action="decline")) as client:
        result = await client.call_tool("book", {"kind": "dataclass"})
    assert _text(result) == "decline|False|None"


async def test_content_that_does_not_fit_the_type_is_a_clear_error(ask_connect: Connect) -> None:
    """The client checks the answer against the requested schema before it leaves (issue #27):
    2026 fails the call on the client, naming the field; a legacy server is told -32603 for
    its question. (The server's own check of such content, -32602 "does not fit", is tested
    with a raw peer that sends it anyway: tests/server/test_server_seams.py.)"""
    async with ask_connect(elicitation_handler=answering({"nights": "many"})) as client:
        with pytest.raises((UsageError, InternalError)) as raised:
            await client.call_tool("book", {"kind": "struct"})
        if client.era == "modern":
            assert isinstance(raised.value, UsageError)
            assert "does not match the requested schema at $.nights" in str(raised.value)
        else:
            assert isinstance(raised.value, InternalError) and raised.value.code == -32603
        # the connection serves on (as_dict, asked before, would now refuse "many" too: its
        # raw schema says integer, and raw schemas are checked as types are)
        echoed = await client.call_tool("echo", {"text": "still here"})
        assert not echoed.is_error and _text(echoed) == "still here"


async def test_sample_returns_a_typed_result(ask_connect: Connect) -> None:
    async with ask_connect(sampling_handler=sampling("old pond", "m1")) as client:
        result = await client.call_tool("haiku", {})
    assert _text(result) == "CreateMessageResult|TextContent|old pond|m1"


async def test_a_nested_form_schema_is_refused_before_it_is_sent(ask_connect: Connect) -> None:
    """The tool author gets the reason as the tool's error; the client is never asked."""
    asked: list[Any] = []
    async with ask_connect(elicitation_handler=answering({}, asked=asked)) as client:
        result = await client.call_tool("ask_address", {})
    assert result.is_error is True
    assert "field 'address': forms are flat" in _text(result)
    assert asked == []


async def test_malformed_sampling_tool_loops_never_reach_the_client(ask_connect: Connect) -> None:
    """``ctx.sample`` checks the tool-loop rules before anything is asked (a server→client
    request in legacy, an ``input_required`` round in 2026): a broken loop is the tool
    author's ``UsageError``; a well-formed one is asked as usual."""
    asked: list[Any] = []
    async with ask_connect(
        sampling_handler=sampling("ok", "m1", asked=asked), sampling_tools=True
    ) as client:
        stray = _text(await client.call_tool("sample_loop", {"shape": "stray_result"}))
        mixed = _text(await client.call_tool("sample_loop", {"shape": "mixed"}))
        assert asked == []
        good = _text(await client.call_tool("sample_loop", {"shape": "good"}))
    assert stray.startswith("refused: ") and "'other'" in stray and "'u1'" in stray, stray
    assert mixed.startswith("refused: ") and "only tool results" in mixed, mixed
    assert good == "model said: m1"
    assert len(asked) == 1
    assert [tool.name for tool in asked[0].tools] == ["get_weather"]


async def test_url_elicitation_reaches_the_handler(ask_connect: Connect) -> None:
    """URL mode (``url_elicitation=True``): a legacy request carries an ``elicitationId``, a
    2026 input request none (it is a 2025-11-25 field)."""
    asked: list[Any] = []
    async with ask_connect(
        elicitation_handler=answering({}, asked=asked), url_elicitation=True
    ) as client:
        result = await client.call_tool("visit", {})
        era = client.era
    assert _text(result) == "accept"
    (params,) = asked
    assert (params.mode, params.message, params.url) == (
        "url",
        "Authorize the wallet",
        "https://example.com/auth",
    )
    if era == "modern":
        assert params.elicitation_id is None
    else:
        assert params.elicitation_id


async def test_url_mode_needs_the_url_capability(kit_connect: Connect) -> None:
    """A form-only client is never asked to visit a URL: -32021 naming ``elicitation.url`` in
    2026, -32600 in a legacy session."""
    asked: list[Any] = []
    async with kit_connect(elicitation_handler=answering({}, asked=asked)) as client:
        with pytest.raises((MissingRequiredClientCapability, InvalidRequest)) as refused:
            await client.call_tool("visit", {})
        era = client.era
    if era == "modern":
        assert isinstance(refused.value, MissingRequiredClientCapability)
        assert refused.value.required_capabilities == {"elicitation": {"url": {}}}
    else:
        assert isinstance(refused.value, InvalidRequest)
        assert refused.value.code == -32600
    assert "'elicitation.url'" in str(refused.value)
    assert asked == []


async def test_changed_roots_are_seen_on_the_next_question(ask_connect: Connect) -> None:
    """``client.set_roots`` (legacy: ``notifications/roots/list_changed``; 2026: the next
    round carries them): the server's next ``list_roots`` sees the new list."""
    async with ask_connect(roots=ROOTS) as client:
        before = await client.call_tool("roots_now", {})
        await client.set_roots([{"uri": "file:///elsewhere"}, {"uri": "file:///more"}])
        after = await client.call_tool("roots_now", {})
    assert before.structured_content == {"result": ["file:///work"]}
    assert after.structured_content == {"result": ["file:///elsewhere", "file:///more"]}
