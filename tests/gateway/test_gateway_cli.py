"""``mcpkit gateway CONFIG`` as people run it: a real process, over stdio and over HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path

from _gateway_harness import NOTES

from mcpkit.client import Client

TOKEN = "cli-client-token-0123456789"


def _config(tmp_path: Path, **gateway: object) -> Path:
    path = tmp_path / "gateway.json"
    config = {
        "mcpServers": {"notes": {"command": sys.executable, "args": [str(NOTES)]}},
        "gateway": {"name": "cli-gateway", **gateway},
    }
    path.write_text(json.dumps(config))
    return path


async def test_over_stdio_with_an_audit_file(tmp_path: Path) -> None:
    config = _config(tmp_path, clients={}, anonymous={"allow": ["notes/read_*"]})
    audit = tmp_path / "audit.jsonl"
    argv = [sys.executable, "-m", "mcpkit.cli", "gateway", str(config), "--audit", str(audit)]
    async with Client(argv) as client:
        assert client.server_info["name"] == "cli-gateway"
        assert [t.name for t in await client.list_tools()] == ["notes__read_note"]
        result = await client.call_tool("notes__read_note", {"name": "readme"})
        assert result.content[0].text == "Read me first."
    record = json.loads(audit.read_text().splitlines()[-1])
    assert record["client"] == "anonymous"
    assert (record["backend"], record["target"], record["outcome"]) == (
        "notes", "notes__read_note", "ok"
    )  # fmt: skip


async def test_over_http_behind_a_static_token(tmp_path: Path) -> None:
    config = _config(tmp_path, clients={"ci": {"token": TOKEN, "allow": ["*"]}})
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcpkit.cli", "gateway", str(config), "--http", "--port", "0",
        stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        assert process.stderr is not None
        url = None
        said: list[str] = []
        async with asyncio.timeout(60):
            while url is None:
                line = (await process.stderr.readline()).decode()
                assert line, f"the gateway exited ({await process.wait()}) before serving: {said}"
                said.append(line)
                found = re.search(r"gateway cli-gateway at (\S+)", line)
                url = found.group(1) if found else None
        target = {"url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}
        async with Client(target) as client:
            names = {t.name for t in await client.list_tools()}
            assert "notes__delete_note" in names
            result = await client.call_tool("notes__read_note", {"name": "todo"})
            assert result.content[0].text == "Ship the gateway."
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 20)
        except TimeoutError:
            process.kill()
            await process.wait()
