"""Sending a request from the Wire panel again, as it was or edited (*replay*).

The request goes through the connected :class:`~mcpkit.client.Client`'s own methods, so that it
is shaped for the negotiated era (``_meta`` in 2026, the session in legacy HTTP), gets a fresh
id, answers the server's questions, and shows on the wire like any other. Only requests a person
can meaningfully repeat are replayed; notifications, ``initialize`` and the like are not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from mcpkit.cli.inspector._session import InspectorError

__all__ = ["REPLAYABLE", "replay"]

REPLAYABLE: Final = (
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "logging/setLevel",
    "ping",
    "server/discover",
)


def _text(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str) or not value:
        raise InspectorError(f'replay: params need "{key}" (a string)')
    return value


def _object(params: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = params.get(key) or {}
    if not isinstance(value, dict):
        raise InspectorError(f'replay: params "{key}" must be an object')
    return value


async def replay(client: Any, method: str, params: Mapping[str, Any]) -> Any:
    """Send ``method`` with ``params`` through ``client``; the result as JSON-ready builtins."""
    result: Any
    if method == "tools/call":
        result = await client.call_tool(_text(params, "name"), _object(params, "arguments"))
    elif method == "tools/list":
        result = await client.list_tools()
    elif method == "resources/read":
        result = await client.read_resource(_text(params, "uri"))
    elif method == "resources/list":
        result = await client.list_resources()
    elif method == "resources/templates/list":
        result = await client.list_resource_templates()
    elif method == "prompts/get":
        arguments = {k: str(v) for k, v in _object(params, "arguments").items()}
        result = await client.get_prompt(_text(params, "name"), arguments)
    elif method == "prompts/list":
        result = await client.list_prompts()
    elif method == "completion/complete":
        argument = _object(params, "argument")
        context = _object(_object(params, "context"), "arguments")
        result = await client.complete(
            _object(params, "ref"),
            str(argument.get("name", "")),
            str(argument.get("value", "")),
            context_arguments={k: str(v) for k, v in context.items()},
        )
    elif method == "logging/setLevel":
        await client.set_logging_level(_text(params, "level"))
        result = {}
    elif method in ("ping", "server/discover"):
        result = await (client.ping() if method == "ping" else client.discover())
        result = result or {}
    else:
        raise InspectorError(
            f"{method} cannot be replayed from the page (replayable: {', '.join(REPLAYABLE)})"
        )
    return msgspec.to_builtins(result)
