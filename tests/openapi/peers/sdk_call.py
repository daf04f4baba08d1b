"""The official SDK's client (``mcp`` 2.3.0) calling one tool; run with the peer venv.

``python sdk_call.py URL TOOL ARGUMENTS_JSON`` prints one JSON object: whether the tool
declares an ``outputSchema``, and the call's ``structuredContent``/``isError`` — or the error
the SDK raised instead of returning the result.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from mcp import Client


async def main(url: str, tool: str, arguments: dict[str, Any]) -> None:
    async with Client(url) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        summary: dict[str, Any] = {"output_schema": listed[tool].output_schema is not None}
        try:
            result = await client.call_tool(tool, arguments)
        except Exception as exc:
            summary["raised"] = f"{type(exc).__name__}: {exc}"
        else:
            summary["is_error"] = bool(result.is_error)
            summary["structured"] = result.structured_content
    print(json.dumps(summary))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))
