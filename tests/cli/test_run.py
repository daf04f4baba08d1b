"""``mcpkit run``: serving a Server from a file or module over stdio, HTTP, with --reload."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import httpx
import pytest

from ._process import Running, free_port, modern_request, wait_for_port
from ._run import EXAMPLES, MCPKIT, mcpkit

SERVER_V1 = """
from mcpkit.server import Server

app = Server("reloading")


@app.tool
def first() -> str:
    return "one"
"""
SERVER_V2 = (
    SERVER_V1
    + """

@app.tool
def second() -> str:
    return "two"
"""
)


@pytest.mark.parametrize("target", ["examples/shop_server.py", "examples/shop_server.py:server",
                                    "examples.shop_server"])  # fmt: skip
def test_run_serves_stdio_from_a_file_or_module(target: str) -> None:
    running = Running([*MCPKIT, "run", target])
    try:
        running.send(modern_request(1, "tools/call", {
            "name": "search_products", "arguments": {"query": "跑步鞋", "limit": 1}}))  # fmt: skip
        answer = running.read_json()
        assert answer["id"] == 1
        product = answer["result"]["structuredContent"]["result"][0]
        assert (product["name"], product["price"]) == ("Nike Air Max", 899.0)
    finally:
        assert running.close() == 0  # the server exits on stdin EOF


def test_examples_also_run_as_plain_python_scripts() -> None:
    running = Running([sys.executable, str(EXAMPLES / "prompts_server.py")])
    try:
        running.send(modern_request(7, "prompts/list"))
        names = [p["name"] for p in running.read_json()["result"]["prompts"]]
        assert names == ["code-review", "sql-review"]
    finally:
        assert running.close() == 0


def test_run_names_the_problem_when_several_servers_or_a_bad_object(tmp_path: Path) -> None:
    source = tmp_path / "two.py"
    source.write_text("from mcpkit.server import Server\na = Server('a')\nb = Server('b')\n")
    ran = mcpkit("run", str(source))
    assert ran.code == 2, ran
    assert "defines several servers: a, b" in ran.err
    assert f"hint: pick one as {source}:a" in ran.err
    ran = mcpkit("run", f"{source}:c")
    assert ran.code == 2
    assert "has no attribute 'c'" in ran.err


def test_run_reload_restarts_the_server_when_its_file_changes(tmp_path: Path) -> None:
    source = tmp_path / "reloading.py"
    source.write_text(SERVER_V1)
    running = Running([*MCPKIT, "run", "--reload", str(source)], cwd=tmp_path)
    try:
        running.wait_stderr("watching reloading.py for changes")
        running.send(modern_request(1, "tools/list"))
        assert [t["name"] for t in running.read_json()["result"]["tools"]] == ["first"]
        source.write_text(SERVER_V2)
        running.wait_stderr("reloading.py changed; restarting")
        running.wait_stderr("serving (pid")
        running.send(modern_request(2, "tools/list"))
        answer = running.read_json()
        assert answer["id"] == 2
        assert [t["name"] for t in answer["result"]["tools"]] == ["first", "second"]
    finally:
        code = running.close()
    assert code == 0  # stdin closed: the server exited cleanly, and so did the supervisor


def test_host_and_port_need_http() -> None:
    ran = mcpkit("run", "examples/shop_server.py", "--port", "9999")
    assert ran.code == 2
    assert "--host and --port apply to --http" in ran.err


def test_run_http_serves_streamable_http() -> None:
    """--http serves Streamable HTTP: a raw POST gets its answer, and the client commands reach
    it by URL (``inspect --wire`` records the HTTP exchanges too)."""
    port = free_port()
    server = Running([*MCPKIT, "run", "examples/docs_server.py", "--http", "--port", str(port)])
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_port(port, server.process)
        answer = httpx.post(
            url,
            json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "cli-tests", "version": "0"}}},
            headers={"Accept": "application/json, text/event-stream"},
            timeout=30,
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        assert '"serverInfo":{"name":"docs"' in answer.text.replace(" ", "")
        ran = mcpkit("read", url, "file:///docs/api-guide.md")
        assert ran.code == 0, ran
        assert ran.out.startswith("# API guide")
        ran = mcpkit("inspect", url, "--wire")
        assert ran.code == 0, ran
        sent = [json.loads(line[2:]) for line in ran.out.splitlines() if line.startswith("→")]
        assert [m["method"] for m in sent][:2] == ["server/discover", "tools/list"]
        ran = mcpkit("call", url, "search_docs", "query=token", "--era", "legacy")
        assert ran.code == 0, ran
        assert "file:///docs/api-guide.md" in ran.out
    finally:
        server.process.terminate()
        server.process.wait(30)
