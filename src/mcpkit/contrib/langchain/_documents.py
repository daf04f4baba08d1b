"""Resources as LangChain documents and blobs; prompts as chat messages and templates.

docs = await load_resources(host, ["catalog://brands"])   # Documents (text), Blobs (binary)
messages = await load_prompt(host, "recommend", {"budget": "1000"})
template = prompt_template(host, "recommend")               # a Runnable: {args} -> messages
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.documents import Document
from langchain_core.documents.base import Blob
from langchain_core.messages import BaseMessage
from langchain_core.prompt_values import ChatPromptValue
from langchain_core.runnables import RunnableLambda

from mcpkit.client import Client, Host
from mcpkit.contrib.langchain._convert import prompt_messages, resource_items

__all__ = ["load_prompt", "load_resources", "prompt_template"]


async def load_resources(
    source: Host | Client, uris: Iterable[str] | None = None, *, server: str | None = None
) -> list[Document | Blob]:
    """Read ``uris`` (default: every listed resource) as Documents (text) and Blobs (binary).

    A host finds the server that lists each URI (``server=`` to say it); a missing resource
    raises :class:`~mcpkit.protocol._errors.ResourceNotFound`.
    """
    items: list[Document | Blob] = []
    pairs: list[tuple[str | None, str]]
    if uris is None:
        if isinstance(source, Host):
            pairs = [(r.server, r.resource.uri) for r in await source.list_resources()]
        else:
            pairs = [(source.name, r.uri) for r in await source.list_resources()]
    else:
        pairs = [(server, uri) for uri in uris]
    for owner, uri in pairs:
        if isinstance(source, Host):
            result = await source.read_resource(uri, server=owner)
        else:
            result = await source.read_resource(uri)
        items.extend(resource_items(result, server=owner or getattr(source, "name", None)))
    return items


async def load_prompt(
    source: Host | Client, name: str, arguments: Mapping[str, str] | None = None
) -> list[BaseMessage]:
    """Render a prompt on its server; its messages as LangChain chat messages."""
    return prompt_messages(await source.get_prompt(name, arguments))


def prompt_template(source: Host | Client, name: str) -> RunnableLambda[Any, ChatPromptValue]:
    """A prompt as a Runnable template: ``await template.ainvoke({"arg": "value"})`` renders it
    on the server (arguments are strings, as MCP prompts take them) into a ``ChatPromptValue``,
    which a chat model accepts directly."""

    async def render(arguments: Mapping[str, Any] | None) -> ChatPromptValue:
        args = {key: str(value) for key, value in (arguments or {}).items()}
        return ChatPromptValue(messages=await load_prompt(source, name, args))

    return RunnableLambda(render, name=f"mcp_prompt:{name}")
