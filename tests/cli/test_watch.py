"""``mcpkit watch``: a server's notifications printed as they come, in both eras, until Ctrl-C
(real processes: the server over HTTP, the watcher, and the calls that make the server talk)."""

from __future__ import annotations

import json
import re
import signal
from collections.abc import Iterator

import pytest

from ._process import Running
from ._run import FIXTURES, MCPKIT, mcpkit

SERVER = str(FIXTURES / "announcing_server.py")
STOP_TIMEOUT = 30.0


def _stop(running: Running) -> int:
    running.process.send_signal(signal.SIGINT)
    return running.process.wait(STOP_TIMEOUT)


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    running = Running([*MCPKIT, "run", SERVER, "--http", "--port", "0"])
    try:
        line = running.wait_stderr("mcpkit: serving announcing at ")
        found = re.search(r"(http://\S+)$", line)
        assert found, line
        yield found.group(1)
    finally:
        _stop(running)


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_watch_prints_changes_until_interrupted(url: str, era: str) -> None:
    watcher = Running([*MCPKIT, "watch", url, "--era", era, "--resource", "note://today", "--json"])
    try:
        ready = watcher.wait_stderr("mcpkit: watching")
        assert "toolsListChanged" in ready and "updates of note://today" in ready, ready
        assert mcpkit("call", url, "touch", "uri=note://today").code == 0
        updated = json.loads(watcher.wait_stdout("notifications/resources/updated"))
        assert updated == {
            "method": "notifications/resources/updated",
            "params": updated["params"] | {"uri": "note://today"},
        }
        assert mcpkit("call", url, "change_tools").code == 0
        changed = json.loads(watcher.wait_stdout("notifications/tools/list_changed"))
        assert changed["method"] == "notifications/tools/list_changed"
    finally:
        code = _stop(watcher)
    assert code == 0
    err = "\n".join(watcher._drain_stderr())
    assert "Traceback" not in err, err


@pytest.mark.parametrize("era", ["legacy", "2026-07-28"])
def test_watch_a_resource_prefix_follows_every_listed_resource_under_it(url: str, era: str) -> None:
    watcher = Running([*MCPKIT, "watch", url, "--era", era, "--resource", "note://archive/",
                       "--json"])  # fmt: skip
    try:
        ready = watcher.wait_stderr("mcpkit: watching")
        assert "updates of note://archive/one" in ready, ready
        assert "updates of note://archive/two" in ready, ready
        assert "note://today" not in ready, ready
        # Not under the prefix: not followed (it would arrive first, the calls are in order).
        assert mcpkit("call", url, "touch", "uri=note://today").code == 0
        assert mcpkit("call", url, "touch", "uri=note://archive/two").code == 0
        updated = json.loads(watcher.wait_stdout("notifications/resources/updated"))
        assert updated["params"]["uri"] == "note://archive/two"
    finally:
        code = _stop(watcher)
    assert code == 0


def test_watch_a_stdio_server_stops_cleanly_on_ctrl_c() -> None:
    watcher = Running([*MCPKIT, "watch", SERVER])
    try:
        watcher.wait_stderr("mcpkit: watching")
    finally:
        code = _stop(watcher)
    assert code == 0
    err = "\n".join(watcher._drain_stderr())
    assert "stopped watching" in err and "Traceback" not in err, err


async def test_watch_follows_a_task_of_the_2026_tasks_extension(url: str) -> None:
    from mcpkit.client import Client

    async with Client(url, mode="2026-07-28") as client:
        task = await client.call_tool_as_task("job")
        assert task.info is not None
        task_id = task.info.task_id
        watcher = Running([*MCPKIT, "watch", url, "--task", task_id, "--json"])
        try:
            ready = watcher.wait_stderr("mcpkit: watching")
            assert f"task {task_id}" in ready, ready
            assert (await client.call_tool("release")).content[0].text == "released"  # type: ignore[union-attr]
            line = watcher.wait_stdout('"completed"')
        finally:
            code = _stop(watcher)
    note = json.loads(line)
    assert note["method"] == "notifications/tasks"
    assert note["params"]["taskId"] == task_id
    assert code == 0
