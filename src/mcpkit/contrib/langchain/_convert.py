"""MCP results as LangChain values: tool output, documents and blobs, chat messages.

* A tool result becomes ``(content, artifact)`` for a ``content_and_artifact`` tool: content is
  the text (a string when every block is text, else LangChain standard content blocks, with
  images, audio and files as base64 blocks); the artifact keeps what a model does not read —
  ``structured_content``, the raw ``content`` blocks, ``images`` and embedded ``resources``.
  An ``isError`` result raises :class:`~langchain_core.tools.ToolException` with the server's
  text (the error LangChain tools report back to the model).
* A resource's text contents become :class:`~langchain_core.documents.Document`, binary ones
  :class:`~langchain_core.documents.base.Blob` (``metadata``/``path`` carry the URI).
* A prompt's messages become ``HumanMessage`` / ``AIMessage``.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import msgspec
from langchain_core.documents import Document
from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import ToolException

from mcpkit.types import CallToolResult, GetPromptResult, JSONObject, ReadResourceResult

__all__ = [
    "block_for_model",
    "prompt_messages",
    "resource_items",
    "tool_output",
]


def block_for_model(block: JSONObject) -> JSONObject:
    """One MCP content block as a LangChain standard content block."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": block.get("text", "")}
    if kind in ("image", "audio"):
        return {"type": kind, "base64": block.get("data", ""), "mime_type": block.get("mimeType")}
    if kind == "resource":
        inner = block.get("resource") or {}
        if "text" in inner:
            return {"type": "text", "text": inner["text"]}
        return {
            "type": "file",
            "base64": inner.get("blob", ""),
            "mime_type": inner.get("mimeType") or "application/octet-stream",
        }
    if kind == "resource_link":
        label = block.get("title") or block.get("name") or block.get("uri")
        return {"type": "text", "text": f"[resource {label}: {block.get('uri')}]"}
    return {"type": "text", "text": msgspec.json.encode(block).decode()}


def _text(blocks: Sequence[JSONObject]) -> str:
    return "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")


def tool_output(result: CallToolResult) -> tuple[str | list[JSONObject], JSONObject]:
    """``(content, artifact)`` for a LangChain tool; raises ``ToolException`` on ``isError``."""
    raw: JSONObject = msgspec.to_builtins(result)
    blocks: list[JSONObject] = list(raw.get("content") or [])
    if result.is_error:
        raise ToolException(_text(blocks) or "the tool reported an error without a message")
    converted = [block_for_model(b) for b in blocks]
    content: str | list[JSONObject]
    if all(b["type"] == "text" for b in converted):
        content = "\n".join(str(b["text"]) for b in converted)
        if not converted and "structuredContent" in raw:
            content = msgspec.json.encode(raw["structuredContent"]).decode()
    else:
        content = converted
    artifact: JSONObject = {
        "structured_content": raw.get("structuredContent"),
        "content": blocks,
        "images": [b for b in blocks if b.get("type") == "image"],
        "resources": [b["resource"] for b in blocks if b.get("type") == "resource"],
    }
    if "_meta" in raw:
        artifact["meta"] = raw["_meta"]
    return content, artifact


def resource_items(
    result: ReadResourceResult, *, server: str | None = None
) -> list[Document | Blob]:
    """Each content of a ``resources/read`` result: text as a Document, binary as a Blob."""
    items: list[Document | Blob] = []
    for entry in msgspec.to_builtins(result).get("contents") or []:
        metadata: dict[str, Any] = {"uri": entry.get("uri"), "mime_type": entry.get("mimeType")}
        if server is not None:
            metadata["server"] = server
        if "text" in entry:
            items.append(Document(page_content=entry["text"], metadata=metadata))
        else:
            items.append(
                Blob.from_data(
                    base64.b64decode(entry.get("blob", "")),
                    mime_type=entry.get("mimeType"),
                    path=entry.get("uri"),
                    metadata=metadata,
                )
            )
    return items


def prompt_messages(result: GetPromptResult) -> list[BaseMessage]:
    """A prompt's messages as chat messages (text as a string, other blocks as content)."""
    out: list[BaseMessage] = []
    for message in msgspec.to_builtins(result).get("messages") or []:
        block = block_for_model(message.get("content") or {})
        content: Any = block["text"] if block["type"] == "text" else [block]
        if message.get("role") == "assistant":
            out.append(AIMessage(content=content))
        else:
            out.append(HumanMessage(content=content))
    return out
