"""The gateway on the public extension surface (issue #26): what that rework fixed.

* a call cancelled while its audit record is being written is *cancelled* (the caller sees its
  ``CancelledError``; it used to return normally, the cancellation swallowed) and the record
  is still written, by the gateway's own task;
* the gateway's package imports no private module of ``mcpkit.server`` / ``mcpkit.client``
  and starts no task of its own outside a ``TaskSet`` (nor does the LangChain bridge).
"""

from __future__ import annotations

import ast
import asyncio
import sys
from pathlib import Path
from typing import Final

from mcpkit.client import Client
from mcpkit.gateway import AuditRecord, Gateway
from mcpkit.server import CallNext, RequestView
from mcpkit.types import JSONObject

SERVERS: Final = Path(__file__).resolve().parent / "servers"
SRC: Final = Path(__file__).resolve().parents[2] / "src" / "mcpkit"
WAIT: Final = 20.0


async def test_a_call_cancelled_while_its_audit_is_written_is_cancelled_and_still_audited() -> None:
    writing, release, written = asyncio.Event(), asyncio.Event(), asyncio.Event()
    records: list[AuditRecord] = []

    async def slow_sink(record: AuditRecord) -> None:
        writing.set()
        await release.wait()
        records.append(record)
        written.set()

    gateway = Gateway(
        {"notes": {"command": sys.executable, "args": [str(SERVERS / "notes_server.py")]}},
        audit=slow_sink,
    )
    outcomes: list[str] = []
    ended = asyncio.Event()

    async def observe(request: RequestView, call_next: CallNext) -> JSONObject:
        """What the gateway's ``tools/call`` handler did: returned, or was cancelled."""
        if request.method != "tools/call":
            return await call_next()
        try:
            result = await call_next()
        except asyncio.CancelledError:
            outcomes.append("cancelled")
            raise
        finally:
            ended.set()
        outcomes.append("returned")
        return result

    gateway.server.add_middleware(observe)
    async with gateway:
        front = Client(gateway.server.connect_in_memory(), mode="2026-07-28", timeout=WAIT)
        async with front as client:
            call = asyncio.ensure_future(client.call_tool("notes__read_note", {"name": "todo"}))
            await asyncio.wait_for(writing.wait(), WAIT)  # the backend answered; audit begins
            call.cancel()  # the front client gives up: the gateway's handler is cancelled
            await asyncio.wait_for(ended.wait(), WAIT)
            release.set()
            await asyncio.wait_for(written.wait(), WAIT)
        assert call.cancelled()
    assert outcomes == ["cancelled"]  # was ["returned"]: the cancellation swallowed
    assert [(r.method, r.target, r.outcome) for r in records] == [
        ("tools/call", "notes__read_note", "ok")
    ]


def _imports(package: Path) -> list[tuple[str, str]]:
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.append((path.name, node.module))
            elif isinstance(node, ast.Import):
                found.extend((path.name, alias.name) for alias in node.names)
    return found


def test_the_gateway_and_the_langchain_bridge_import_only_public_server_and_client_names() -> None:
    for package in (SRC / "gateway", SRC / "contrib" / "langchain"):
        private = [
            (file, module)
            for file, module in _imports(package)
            if module.startswith(("mcpkit.server._", "mcpkit.client._"))
        ]
        assert not private, private


def test_the_gateway_and_the_langchain_bridge_start_no_unowned_task() -> None:
    banned = {"create_task", "ensure_future", "call_later"}
    for package in (SRC / "gateway", SRC / "contrib" / "langchain"):
        for path in sorted(package.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            calls = [
                node.func.attr
                for node in ast.walk(tree)
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in banned
            ]
            assert not calls, (path.name, calls)


def test_the_gateway_does_not_subclass_the_servers_handler_table() -> None:
    source = (SRC / "gateway" / "_gateway.py").read_text(encoding="utf-8")
    assert "def _handlers" not in source and "._session_handlers" not in source
    assert "._request(" not in source and "._request_with_input(" not in source


def test_the_gateway_and_the_langchain_bridge_share_the_parked_call_primitive() -> None:
    """Issue #26's "done when": one parked call, not two hand-rolled copies."""
    for module in (SRC / "gateway" / "_gateway.py", SRC / "contrib" / "langchain" / "_bridge.py"):
        assert "mcpkit.client.parked" in {imported for _, imported in _imports_of(module)}
        source = module.read_text(encoding="utf-8")
        assert "ParkingLot(" in source
        assert "asked.get()" not in source and "PendingCall" not in source


def _imports_of(path: Path) -> list[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (path.name, node.module)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    ]
