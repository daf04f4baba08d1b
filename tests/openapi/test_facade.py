"""Any MCP server as a REST API: the facade in process (both eras) and `mcpkit rest` as a real
subprocess in front of a real stdio server, checked with schemathesis (property-based API
testing) against the running app."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import httpx
import pytest

from mcpkit.contrib.openapi import rest_app

from . import _facade_server

SERVER_SCRIPT: Final = Path(_facade_server.__file__)
START_TIMEOUT: Final = 30.0


@pytest.fixture(params=["legacy", "2026-07-28"])
async def http(request: pytest.FixtureRequest) -> Any:
    facade = rest_app(_facade_server.server, client_options={"mode": request.param})
    async with facade:
        transport = httpx.ASGITransport(app=facade)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            yield client


async def test_tools_as_endpoints(http: httpx.AsyncClient) -> None:
    added = await http.post("/tools/add", json={"a": 2, "b": 40})
    assert added.status_code == 200 and added.json() == {"result": 42}
    summary = await http.post("/tools/summarize", json={"name": "n", "tags": ["x", "y"]})
    assert summary.json() == {"name": "n", "tags": ["x", "y"], "count": 2}
    shouted = await http.post("/tools/shout", json={"text": "hi"})
    assert shouted.json() == {"content": [{"type": "text", "text": "HI"}]}
    listed = await http.get("/tools")
    assert {t["name"] for t in listed.json()} == {"add", "divide", "summarize", "shout"}


async def test_errors_are_statuses_with_problem_details(http: httpx.AsyncClient) -> None:
    failed = await http.post("/tools/divide", json={"a": 1, "b": 0})
    assert failed.status_code == 422
    assert failed.headers["content-type"] == "application/problem+json"
    assert failed.json()["detail"] == "cannot divide by zero" and failed.json()["status"] == 422
    invalid = await http.post("/tools/add", json={"a": "two"})
    assert invalid.status_code == 400
    assert {e["field"] for e in invalid.json()["errors"]} == {"a", None}  # wrong type, b missing
    not_json = await http.post(
        "/tools/add", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 400 and "not valid JSON" in not_json.json()["detail"]
    unknown = await http.post("/tools/nope", json={})
    assert unknown.status_code == 404
    wrong_method = await http.get("/tools/add")
    assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"


async def test_resources_and_prompts_are_readable(http: httpx.AsyncClient) -> None:
    listed = (await http.get("/resources")).json()
    assert [r["uri"] for r in listed["resources"]] == ["config://app"]
    assert [t["uriTemplate"] for t in listed["resourceTemplates"]] == ["notes://{note_id}"]
    read = await http.get("/resources/read", params={"uri": "notes://1"})
    assert read.json()["contents"][0]["text"] == "the first note"
    missing = await http.get("/resources/read", params={"uri": "notes://2"})
    assert missing.status_code == 404
    prompt = await http.post("/prompts/greet", json={"name": "Ada"})
    assert prompt.json()["messages"][0]["content"]["text"] == "Hello, Ada!"
    no_name = await http.post("/prompts/greet", json={})
    assert no_name.status_code == 400 and "missing argument(s): name" in no_name.json()["detail"]


async def test_generated_document(http: httpx.AsyncClient) -> None:
    from jsonschema import Draft202012Validator

    document = (await http.get("/openapi.json")).json()
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] == "facade-demo" and document["info"]["version"] == "1.2.3"
    add = document["paths"]["/tools/add"]["post"]
    assert add["requestBody"]["content"]["application/json"]["schema"]["required"] == ["a", "b"]
    assert set(add["responses"]) >= {"200", "400", "404", "422", "502", "504"}
    assert "/prompts/greet" in document["paths"] and "/resources/read" in document["paths"]
    for schema in document["components"]["schemas"].values():
        Draft202012Validator.check_schema(schema)


@pytest.fixture(scope="module")
def rest_process() -> Iterator[str]:
    """`mcpkit rest` in front of the demo server over stdio, on a free loopback port."""
    command = f"{sys.executable} {SERVER_SCRIPT}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "mcpkit.cli", "rest", command, "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert process.stderr is not None
        line = asyncio.run(
            asyncio.wait_for(asyncio.to_thread(process.stderr.readline), START_TIMEOUT)
        )
        assert "serving" in line, line
        yield line.split(" at ")[1].split()[0]
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_rest_command_serves_the_stdio_server(rest_process: str) -> None:
    with httpx.Client(base_url=rest_process, timeout=30) as http:
        assert http.post("/tools/add", json={"a": 1, "b": 2}).json() == {"result": 3}
        assert http.get("/openapi.json").json()["info"]["title"] == "facade-demo"


@pytest.mark.timeout(600)
def test_schemathesis_finds_no_failure(rest_process: str, tmp_path: Path) -> None:
    # 422 means "the tool ran and reported an error" (divide by zero), which valid arguments
    # can cause: it is documented on every tool, so positive data may meet it.
    config = tmp_path / "schemathesis.toml"
    config.write_text(
        '[checks.positive_data_acceptance]\nexpected-statuses = ["2xx", "404", "422"]\n'
    )
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"),
            "--config-file", str(config),
            "run", f"{rest_process}/openapi.json",
            "--max-examples", "25",
            "--checks", "all",
            "--seed", "1",
        ],
        capture_output=True, text=True, timeout=540, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "No issues found" in done.stdout or " passed" in done.stdout, done.stdout[-3000:]


async def test_tools_added_later_are_found() -> None:
    from mcpkit.server import Server

    server = Server("growing")

    @server.tool
    def first() -> str:
        return "1"

    async with rest_app(server) as facade:
        transport = httpx.ASGITransport(app=facade)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:

            @server.tool
            def second() -> str:
                return "2"

            answer = await http.post("/tools/second", json={})
            assert answer.status_code == 200, answer.text
            assert answer.json() == {"content": [{"type": "text", "text": "2"}]}
            document = (await http.get("/openapi.json")).json()
            assert "/tools/second" in document["paths"]
            assert (await http.post("/tools/third", json={})).status_code == 404


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_streamable_http_server_behind_the_facade(mode: str) -> None:
    from .conftest import serve

    async with serve(_facade_server.server.http_app(), lifespan="on") as url:
        facade = rest_app(f"{url}/mcp", client_options={"mode": mode})
        async with facade:
            assert facade.client.era == ("legacy" if mode == "legacy" else "modern")
            transport = httpx.ASGITransport(app=facade)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
                added = await http.post("/tools/add", json={"a": 20, "b": 22})
                assert added.json() == {"result": 42}
                note = await http.get("/resources/read", params={"uri": "notes://1"})
                assert note.json()["contents"][0]["text"] == "the first note"


async def test_a_server_that_dies_is_a_502() -> None:
    from . import _crashing_server

    facade = rest_app(f"{sys.executable} {_crashing_server.__file__}", timeout=30)
    async with facade:
        transport = httpx.ASGITransport(app=facade)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
            assert (await http.post("/tools/ok", json={})).status_code == 200
            died = await http.post("/tools/crash", json={})
            assert died.status_code == 502, died.text
            assert died.headers["content-type"] == "application/problem+json"
            after = await http.post("/tools/ok", json={})
            assert after.status_code == 502


def test_rest_command_with_a_server_that_will_not_start() -> None:
    broken = f"{sys.executable} -c 'import sys; sys.exit(1)'"
    done = subprocess.run(
        [sys.executable, "-m", "mcpkit.cli", "rest", broken, "--port", "0"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr  # mcpkit's "connection" exit code
    assert "the server exited with code 1" in done.stderr
    assert "serving" not in done.stderr
