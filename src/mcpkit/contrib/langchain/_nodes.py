"""A graph node that calls one named MCP tool and puts its validated result into the state.

    graph.add_node("profile", tool_node(host, "profile__get_user",
                                        arguments=lambda s: {"user_id": s["user_id"]},
                                        result_key="user",
                                        on_error={ResourceNotFound: None}))

The arguments are checked against the tool's ``inputSchema`` before anything is sent, and the
result's ``structuredContent`` strictly against its ``outputSchema`` (a violation raises
:class:`~mcpkit.client.OutputValidationError` naming the field, e.g. ``$.stock``). The value
stored under ``result_key`` is ``structuredContent`` (unwrapped from ``{"result": ...}`` when the
tool declares such a wrapper), else the text. ``on_error`` maps typed errors to a value (or a
function of the error) stored instead; everything else raises. A missing resource is
:class:`~mcpkit.protocol._errors.ResourceNotFound` in both eras (:mod:`.errors`). An ``isError``
result is :class:`ToolCallFailed` (with the server's text), so it can be mapped too.

Questions become interrupts (:mod:`.bridge`). With ``then="next_node"`` the node routes with
``Command(goto=...)`` and, for a 2026 server, keeps the round's ``requestState`` in the graph's
state under ``pending_key`` (declare it in your state, e.g. by inheriting :class:`PendingState`):
the node finishes with the question's round stored, runs again, interrupts, and on resume —
even in a new process, from a persistent checkpointer — sends the answers with the stored
``requestState``, so the server's first round is never re-run.

A resume never gets stuck: when the server refuses the stored ``requestState`` (it expired
because the user took longer than its lifetime, or the server restarted with another key), the
tool is called again from the start. Its questions are answered with the answers already given
only where they are the *same* question (message and schema, :mod:`.binding`); a question that
changed — the price went from 10 to 12 — interrupts again, so an answer is never applied to a
question the user did not see.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypedDict

import msgspec
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphBubbleUp
from langgraph.types import Command, interrupt

from mcpkit.client import Client, ClientError, Host, InputRequired, form_defaults, is_stale_state
from mcpkit.contrib.langchain._binding import question_id
from mcpkit.contrib.langchain._bridge import (
    GraphBridge,
    answer_from_resume,
    current_writer,
    question_payload,
)
from mcpkit.contrib.langchain._errors import era_neutral
from mcpkit.protocol import InvalidParams, UsageError
from mcpkit.types import REQUEST_STATE_KEY, CallToolResult, JSONObject

__all__ = ["PendingState", "ToolCallFailed", "structured_value", "tool_node"]

logger = logging.getLogger("mcpkit.contrib.langchain")


class PendingState(TypedDict, total=False):
    """Mix into a graph state that uses ``tool_node(..., then=...)`` with 2026 servers."""

    mcp_pending: dict[str, Any] | None


class ToolCallFailed(ClientError):
    """The tool answered ``isError``: ``.text`` is what the server said."""

    def __init__(self, tool: str, text: str, result: CallToolResult) -> None:
        super().__init__(f"tool {tool!r} failed: {text}")
        self.tool = tool
        self.text = text
        self.result = result


def structured_value(tool: str, result: CallToolResult) -> Any:
    """What a node stores: ``structuredContent`` (a lone ``result`` wrapper unwrapped), else the
    text; :class:`ToolCallFailed` for an ``isError`` result."""
    text = "\n".join(
        str(getattr(block, "text", "")) for block in result.content if hasattr(block, "text")
    )
    if result.is_error:
        raise ToolCallFailed(tool, text, result)
    value = result.structured_content
    if value is None or value is msgspec.UNSET:
        return text
    if isinstance(value, dict) and list(value) == ["result"]:
        return value["result"]
    return value


def _answer(params: Mapping[str, Any], value: Any) -> JSONObject:
    answer = answer_from_resume(value)
    if answer.get("action") == "accept" and params.get("mode", "form") == "form":
        answer["content"] = {
            **form_defaults(params.get("requestedSchema")),
            **(answer.get("content") or {}),
        }
    return answer


NodeFn = Callable[[Any, RunnableConfig], Awaitable[Any]]


def tool_node(
    source: Host | Client,
    tool: str,
    *,
    arguments: Callable[[Any], Mapping[str, Any]],
    result_key: str,
    on_error: Mapping[type[BaseException], Any] | None = None,
    bridge: GraphBridge | None = None,
    then: str | None = None,
    pending_key: str = "mcp_pending",
) -> NodeFn:
    """A node calling ``tool`` (the host's name for it) with ``arguments(state)``; see the
    module docstring."""
    errors = dict(on_error or {})
    for cls in errors:
        if issubclass(cls, GraphBubbleUp):
            raise UsageError("interrupts cannot be mapped by on_error")
    the_bridge = bridge or GraphBridge()
    routes: dict[str, tuple[str, str]] = {}

    async def route() -> tuple[Client, str, str]:
        if isinstance(source, Client):
            return source, source.name, tool
        if tool not in routes:
            for row in await source.list_tools():
                routes[row.name] = (row.server, row.tool.name)
        if tool not in routes:
            raise UsageError(f"no tool named {tool!r}; the host offers {sorted(routes)}")
        server, own = routes[tool]
        return source.client(server), server, own

    def mapped(exc: BaseException) -> tuple[bool, Any]:
        exc = era_neutral(exc)
        for cls, value in errors.items():
            if isinstance(exc, cls):
                return True, value(exc) if callable(value) else value
        return False, None

    async def node(state: Any, config: RunnableConfig) -> Any:
        client, server, own = await route()
        writer = current_writer()

        def progress(value: float, total: float | None, message: str | None) -> None:
            if writer is not None:
                writer(
                    {
                        "type": "mcp_progress",
                        "server": server,
                        "tool": own,
                        "tool_call_id": None,
                        "progress": value,
                        "total": total,
                        "message": message,
                    }
                )

        def done(value: Any, **extra: Any) -> Any:
            update = {result_key: value, **extra}
            return Command(update=update, goto=then) if then is not None else update

        try:
            if then is not None and client.era == "modern":
                name = str((config.get("metadata") or {}).get("langgraph_node", ""))
                pending = state.get(pending_key) if isinstance(state, Mapping) else None
                answers: dict[str, Any] = {}
                if isinstance(pending, Mapping) and pending.get("node") == name:
                    args = dict(pending["arguments"])
                    answers = dict(pending.get("answers") or {})
                    responses: JSONObject = {}
                    for key, request in pending["input_requests"].items():
                        params = request.get("params") or {}
                        if request.get("method") == "elicitation/create":
                            asked = question_id("elicitation/create", params)
                            if pending.get("replay") and asked in answers:
                                responses[key] = answers[asked]  # the same question, answered
                            else:
                                payload = question_payload(server, own, params)
                                responses[key] = _answer(params, interrupt(payload))
                            answers[asked] = responses[key]
                        else:
                            responses[key] = await client.answer_input_request(key, request)
                    try:
                        outcome = await client.call_tool_round(
                            own,
                            args,
                            input_responses=responses,
                            request_state=pending.get("request_state"),
                            progress_callback=progress,
                            output_validation="strict",
                        )
                        replay = bool(pending.get("replay"))
                    except InvalidParams as exc:
                        sent: JSONObject = {REQUEST_STATE_KEY: pending.get("request_state")}
                        if not is_stale_state(exc, sent) or pending.get("request_state") is None:
                            raise
                        logger.warning(
                            "%s/%s: the server refused the stored requestState (%s); calling "
                            "the tool again, its questions answered only where they are the "
                            "ones already answered",
                            server,
                            own,
                            exc.message,
                        )
                        outcome = await client.call_tool_round(
                            own, args, progress_callback=progress, output_validation="strict"
                        )
                        replay = True
                else:
                    args = dict(arguments(state))
                    await client.check_arguments(own, args)
                    outcome = await client.call_tool_round(
                        own, args, progress_callback=progress, output_validation="strict"
                    )
                    replay = False
                if isinstance(outcome, InputRequired):
                    stored = {
                        "node": name,
                        "server": server,
                        "tool": own,
                        "arguments": args,
                        "input_requests": outcome.input_requests,
                        "request_state": outcome.request_state,
                        "answers": answers,
                        "replay": replay,
                    }
                    return Command(update={pending_key: stored}, goto=name)
                return done(structured_value(tool, outcome), **{pending_key: None})
            args = dict(arguments(state))
            result = await the_bridge.run(
                lambda: client.ainvoke(own, args, progress_callback=progress),
                server=server,
                server_name=client.negotiated.server_name,
                tool=own,
                key=(server, own),
                writer=writer,
                era=client.era,
            )
            return done(structured_value(tool, result))
        except GraphBubbleUp:
            raise
        except Exception as exc:
            handled, value = mapped(exc)
            if not handled:
                neutral = era_neutral(exc)
                if neutral is not exc:
                    raise neutral from None
                raise
            return done(value)

    node.__name__ = f"mcp_{tool}"
    return node
