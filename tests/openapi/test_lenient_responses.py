"""``validate_responses="warn"`` / ``"off"`` deliver the API's data to real MCP clients.

A response that may break the document must not come with the document's output schema
advertised as binding: clients check ``structuredContent`` against ``outputSchema`` and reject
the call (mcpkit's client by default, the official SDK always). So only ``"strict"`` — which
guarantees the schema — advertises it. The REST API runs on uvicorn, the MCP server over
Streamable HTTP on loopback, the official SDK as a subprocess.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from _loopback import serving
from _peers import MCP_PYTHON
from mcpkit.client import Client
from mcpkit.contrib.openapi import Contract, OperationError, from_openapi

from ._echo import EchoApp, echo_document
from .conftest import serve

SDK_CALL: Final = Path(__file__).with_name("peers") / "sdk_call.py"
PEER_TIMEOUT: Final = 60.0


async def sdk_call(url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if not MCP_PYTHON.exists():  # a missing peer is a failure, never a skip
        pytest.fail(f"the official MCP SDK peer is missing ({MCP_PYTHON}); scripts/install-peers")
    process = await asyncio.create_subprocess_exec(
        str(MCP_PYTHON),
        str(SDK_CALL),
        url,
        tool,
        json.dumps(arguments),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(PEER_TIMEOUT):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, err.decode()[-3000:]
    summary: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    return summary


@pytest.mark.parametrize("mode", ["warn", "off"])
async def test_lenient_modes_deliver_the_data_to_both_clients(mode: str) -> None:
    async with serve(EchoApp()) as api, httpx.AsyncClient(base_url=api) as http:
        server = from_openapi(echo_document(), http, validate_responses=mode)  # type: ignore[arg-type]
        async with serving(server.http_app()) as base:
            url = f"{base}/mcp"
            async with Client(url) as client:  # default output_validation: strict
                tools = {t.name: t for t in await client.list_tools()}
                assert tools["lie"].output_schema is None
                result = await client.call_tool("lie", {})
            sdk = await sdk_call(url, "lie", {})
    assert not result.is_error and result.structured_content == {"count": "not a number"}
    assert sdk == {
        "output_schema": False,
        "is_error": False,
        "structured": {"count": "not a number"},
    }


async def test_strict_mode_still_advertises_the_schema_it_guarantees() -> None:
    async with serve(EchoApp()) as api, httpx.AsyncClient(base_url=api) as http:
        server = from_openapi(echo_document(), http, validate_responses="strict")
        async with serving(server.http_app()) as base, Client(f"{base}/mcp") as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert tools["lie"].output_schema is not None
            result = await client.call_tool("lie", {})
    assert result.is_error and "does not match the document at $.count" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["warn", "off"])
async def test_a_lenient_contract_delivers_the_data_too(mode: str) -> None:
    from product_search.service import CONTRACT

    contract = Contract(CONTRACT, validate_responses=mode)  # type: ignore[arg-type]

    @contract.implement("products.get")
    async def get_product(product_id: int) -> dict[str, Any]:
        if product_id == 404:
            raise OperationError(404, {"title": "Not Found", "status": 404})
        return {"id": product_id}  # the contract requires name and price too

    server = contract.server(require_all=False)
    async with serving(server.http_app()) as base:
        url = f"{base}/mcp"
        async with Client(url) as client:
            tools = {t.name: t for t in await client.list_tools()}
            assert tools["products_get"].output_schema is None
            result = await client.call_tool("products_get", {"product_id": 5})
        sdk = await sdk_call(url, "products_get", {"product_id": 5})
    assert not result.is_error and result.structured_content == {"id": 5}
    assert sdk == {"output_schema": False, "is_error": False, "structured": {"id": 5}}
