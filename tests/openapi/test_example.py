"""The product-search example as users run it: one contract, served as MCP over stdio (a real
subprocess, both eras) and as REST (a real uvicorn process), the REST side checked with
schemathesis against the contract itself."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest

from mcpkit.client import Client
from mcpkit.testing import ERAS

from .conftest import EXAMPLES

SCRIPT: Final = EXAMPLES / "product_search_server.py"
START_TIMEOUT: Final = 30.0


@pytest.mark.parametrize("mode", ERAS)
async def test_example_as_mcp_over_stdio(tmp_path: Path, mode: str) -> None:
    entry = {
        "command": sys.executable,
        "args": [str(SCRIPT)],
        "env": {"MCPKIT_EXAMPLES_DATA": str(tmp_path)},
    }
    async with Client(entry, mode=mode) as client:
        tools = {t.name for t in await client.list_tools()}
        assert tools == {"search_products", "products_get", "categories_list"}
        found = await client.call_tool("search_products", {"q": "coffee", "min_price": 10})
        assert [p["name"] for p in found.structured_content["results"]] == [
            "Coffee beans 1kg", "Coffee grinder",
        ]  # fmt: skip
    assert (tmp_path / "products.db").is_file()


@pytest.fixture(scope="module")
def rest_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("catalog")
    env = {**os.environ, "MCPKIT_EXAMPLES_DATA": str(data), "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--rest", "0"], stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert process.stderr is not None
        import asyncio

        line = asyncio.run(
            asyncio.wait_for(asyncio.to_thread(process.stderr.readline), START_TIMEOUT)
        )
        assert "REST API at" in line, line
        yield line.split(" at ")[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_example_as_rest(rest_url: str) -> None:
    with httpx.Client(base_url=rest_url, timeout=30) as http:
        found = http.get("/products/search", params={"q": "coffee", "min_price": 10})
        assert found.status_code == 200
        assert [p["name"] for p in found.json()["results"]] == [
            "Coffee beans 1kg",
            "Coffee grinder",
        ]
        past = http.get("/products/search", params={"q": "coffee", "page": 9})
        assert past.status_code == 400 and past.json()["code"] == "PAGE_OUT_OF_RANGE"


@pytest.mark.timeout(600)
def test_schemathesis_finds_no_failure_in_the_contract_api(rest_url: str, tmp_path: Path) -> None:
    # Schema-valid requests may still meet the contract's typed 400s: a price range whose
    # minimum is above its maximum, or a page past the last, are rules JSON Schema cannot state.
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        '[checks.positive_data_acceptance]\nexpected-statuses = ["2xx", "400", "404"]\n'
    )
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file", str(config),
            "run", f"{rest_url}/openapi.json",
            "--url", rest_url,
            "--max-examples", "25",
            "--checks", "all",
            "--seed", "1",
        ],
        capture_output=True, text=True, timeout=540, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
