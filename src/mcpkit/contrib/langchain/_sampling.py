"""Answer a server's sampling requests (``sampling/createMessage``) with a LangChain chat model.

    client_options = {**bridge.client_options(), **sampling_options(model)}

The request's ``systemPrompt`` and messages become LangChain messages, the model is called
(with the request's ``tools`` bound when the revision allows sampling with tools and the model
supports ``bind_tools``), and its answer becomes a ``CreateMessageResult``: text, or
``tool_use`` blocks with ``stopReason: "toolUse"`` when the model calls tools.

A model that cannot bind tools (``bind_tools`` is LangChain's optional method: the base class
raises ``NotImplementedError``) still answers: the tools are described in a system message
(name, description, input schema) and the model answers in text. When the server *requires* a
tool call (``toolChoice: {"mode": "required"}``) that model cannot make one, so the answer is a
clear refusal — a text result with ``stopReason: "refusal"`` saying why — never an exception out
of the server's tool or the graph.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from mcpkit.client import QuestionContext
from mcpkit.types import JSONObject

__all__ = ["ChatModelSampler", "sampling_options", "to_messages"]


def _blocks(content: Any) -> list[JSONObject]:
    if isinstance(content, list):
        return [c for c in content if isinstance(c, dict)]
    return [content] if isinstance(content, dict) else []


def _text(blocks: list[JSONObject]) -> str:
    return "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def to_messages(params: Mapping[str, Any]) -> list[BaseMessage]:
    """The request's system prompt and messages as LangChain messages."""
    out: list[BaseMessage] = []
    if params.get("systemPrompt"):
        out.append(SystemMessage(content=str(params["systemPrompt"])))
    for message in params.get("messages") or []:
        blocks = _blocks(message.get("content"))
        if message.get("role") == "assistant":
            calls = [
                {"name": b["name"], "args": b.get("input") or {}, "id": b["id"]}
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            out.append(AIMessage(content=_text(blocks), tool_calls=calls))
            continue
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for result in results:
            out.append(
                ToolMessage(
                    content=_text(_blocks(result.get("content"))),
                    tool_call_id=str(result.get("toolUseId")),
                    status="error" if result.get("isError") else "success",
                )
            )
        if not results:
            out.append(HumanMessage(content=_text(blocks)))
    return out


def _lc_tool(tool: Mapping[str, Any]) -> JSONObject:
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description") or "",
            "parameters": tool.get("inputSchema") or {"type": "object"},
        },
    }


def _described(tools: list[Any]) -> str:
    """The tools of a request in words, for a model that cannot have them bound."""
    lines = [
        "These tools exist, but you cannot call them here: answer in text, using what you know "
        "of them."
    ]
    for tool in tools:
        if isinstance(tool, Mapping):
            schema = json.dumps(tool.get("inputSchema") or {"type": "object"}, sort_keys=True)
            lines.append(f"- {tool.get('name')}: {tool.get('description') or ''} (input: {schema})")
    return "\n".join(lines)


class ChatModelSampler:
    """A sampling handler backed by a LangChain chat model (``model.ainvoke``)."""

    def __init__(self, model: BaseChatModel, *, model_name: str | None = None) -> None:
        self.model = model
        self.model_name = model_name or getattr(model, "model_name", None) or type(model).__name__

    async def __call__(self, params: Any, ctx: QuestionContext) -> JSONObject:
        raw: JSONObject = params if isinstance(params, dict) else msgspec.to_builtins(params)
        runnable: Any = self.model
        messages = to_messages(raw)
        tools = raw.get("tools")
        if tools:
            try:
                runnable = self.model.bind_tools([_lc_tool(t) for t in tools])
            except NotImplementedError:
                choice = raw.get("toolChoice") or {}
                if isinstance(choice, Mapping) and choice.get("mode") == "required":
                    return self._refusal(
                        f"{self.model_name} cannot call tools (no bind_tools), and this request "
                        "requires a tool call"
                    )
                messages.insert(0, SystemMessage(content=_described(tools)))
        options: dict[str, Any] = {}
        if raw.get("stopSequences"):
            options["stop"] = list(raw["stopSequences"])
        answer = await runnable.ainvoke(messages, **options)
        return self._result(answer)

    def _refusal(self, why: str) -> JSONObject:
        return {
            "role": "assistant",
            "content": {"type": "text", "text": why},
            "model": self.model_name,
            "stopReason": "refusal",
        }

    def _result(self, answer: Any) -> JSONObject:
        if not isinstance(answer, AIMessage):
            answer = AIMessage(content=str(getattr(answer, "content", answer)))
        text = answer.content if isinstance(answer.content, str) else answer.text
        if answer.tool_calls:
            content: list[JSONObject] = []
            if text:
                content.append({"type": "text", "text": text})
            for call in answer.tool_calls:
                content.append(
                    {
                        "type": "tool_use",
                        "id": call.get("id") or f"call-{call['name']}",
                        "name": call["name"],
                        "input": dict(call.get("args") or {}),
                    }
                )
            return {
                "role": "assistant",
                "content": content,
                "model": self.model_name,
                "stopReason": "toolUse",
            }
        if not isinstance(text, str):
            text = json.dumps(text)
        return {
            "role": "assistant",
            "content": {"type": "text", "text": text},
            "model": self.model_name,
            "stopReason": "endTurn",
        }


def sampling_options(model: BaseChatModel, *, tools: bool = True) -> dict[str, Any]:
    """``sampling_handler`` (and ``sampling_tools``) client options answering with ``model``."""
    return {"sampling_handler": ChatModelSampler(model), "sampling_tools": tools}
