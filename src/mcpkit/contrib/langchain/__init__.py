"""MCP servers in LangChain and LangGraph (the ``[langchain]`` extra).

* :func:`load_tools` — every tool of a ``Host`` (or ``Client``) as a LangChain tool.
* :func:`load_resources`, :func:`load_prompt`, :func:`prompt_template` — resources as
  documents and blobs, prompts as chat messages.
* :class:`GraphBridge` — questions (elicitation) become ``interrupt()``; progress and logs become
  custom stream events.
* :func:`sampling_options` — answer a server's sampling requests with a LangChain chat model.
* :func:`tool_node` — a graph node calling one tool, with typed-error mapping.

Importing this package needs ``langchain-core`` and ``langgraph`` (``pip install
'mcpkit[langchain]'``); nothing else in mcpkit imports it.
"""

from __future__ import annotations

try:
    import langchain_core  # noqa: F401
    import langgraph  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "mcpkit.contrib.langchain needs langchain-core and langgraph: "
        "pip install 'mcpkit[langchain]'"
    ) from exc

from mcpkit.contrib.langchain._bridge import GraphBridge, answer_from_resume, question_payload
from mcpkit.contrib.langchain._convert import prompt_messages, resource_items, tool_output
from mcpkit.contrib.langchain._documents import load_prompt, load_resources, prompt_template
from mcpkit.contrib.langchain._errors import era_neutral
from mcpkit.contrib.langchain._nodes import (
    PendingState,
    ToolCallFailed,
    structured_value,
    tool_node,
)
from mcpkit.contrib.langchain._sampling import ChatModelSampler, sampling_options
from mcpkit.contrib.langchain._tools import MCPTool, load_tools, load_tools_sync

__all__ = [
    "ChatModelSampler",
    "GraphBridge",
    "MCPTool",
    "PendingState",
    "ToolCallFailed",
    "answer_from_resume",
    "era_neutral",
    "load_prompt",
    "load_resources",
    "load_tools",
    "load_tools_sync",
    "prompt_messages",
    "prompt_template",
    "question_payload",
    "resource_items",
    "sampling_options",
    "structured_value",
    "tool_node",
    "tool_output",
]
