"""``mcpkit call``: sampling answered at the terminal or by --sampling-command, feature_tour's
``checkout`` end to end, a progress bar that does not replay 2026 rounds, and ``--task``.

Every run is the real command in a subprocess over stdio; the person at the terminal is piped
stdin.
"""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys

import pytest

from mcpkit.client import Client

from ._process import free_port, wait_for_port
from ._run import CLI_TIMEOUT, MCPKIT, ROOT, mcpkit

TOUR = "examples/feature_tour.py"
TASKS = "tests/server/fixtures/tasks_server.py"
ORDER = '{"items": [{"sku": "tea", "quantity": 2}]}'
ERAS = ["2026-07-28", "legacy"]


@pytest.mark.parametrize("era", ERAS)
def test_checkout_asks_the_person_to_confirm_and_to_write_the_models_reply(era: str) -> None:
    # accept, keep the default (confirm: yes), then type the model's reply
    ran = mcpkit("call", TOUR, "checkout", "--json", ORDER, "--era", era,
                 stdin="a\n\nThank you for shopping!\n")  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "order-1 placed. Thank you for shopping!"
    assert "feature-tour asks the model:" in ran.err
    assert "user: Write a one-line thank-you note" in ran.err
    assert "(max 30 tokens)" in ran.err
    # 2026 runs the tool again from the top after the answers; its first step is not re-shown
    assert ran.err.count("progress 0/3 checking stock") == 1, ran
    assert ran.err.count("progress 2/3 placing order") == 1, ran


@pytest.mark.parametrize("era", ERAS)
def test_an_empty_reply_rejects_the_sampling_request(era: str) -> None:
    ran = mcpkit("call", TOUR, "checkout", "--json", ORDER, "--era", era, stdin="a\n\n\n")
    assert ran.code != 0, ran
    assert "User rejected sampling request: no reply was typed" in ran.err
    assert "order-1" not in ran.out


@pytest.mark.parametrize("era", ERAS)
def test_a_sampling_command_gets_the_request_as_json_and_its_stdout_is_the_reply(
    era: str,
) -> None:
    reply = (
        f'{sys.executable} -c "import json,sys; r=json.load(sys.stdin); '
        "print('Thanks x', r['maxTokens'], r['messages'][0]['content']['text'])\""
    )
    ran = mcpkit("call", TOUR, "checkout", "--json", ORDER, "--era", era,
                 "--sampling-command", reply, stdin="a\n\n")  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "order-1 placed. Thanks x 30 Write a one-line thank-you note"
    assert "asks the model" not in ran.err  # nothing was asked at the terminal


def test_a_failing_sampling_command_is_a_clear_rejection() -> None:
    ran = mcpkit("call", TOUR, "checkout", "--json", ORDER, "--era", "legacy",
                 "--sampling-command", "echo out of credit >&2; exit 3", stdin="a\n\n")  # fmt: skip
    assert ran.code != 0, ran
    assert "exited with 3: out of credit" in ran.err


def test_no_input_does_not_declare_sampling() -> None:
    ran = mcpkit("call", TOUR, "checkout", "--json", ORDER, "--no-input")
    assert ran.code != 0, ran
    assert "needs the client capability 'sampling'" in ran.err


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_task_shows_its_status_answers_questions_and_prints_the_result(era: str) -> None:
    ran = mcpkit("call", TASKS, "confirm", "item=jam", "--task", "--era", era, stdin="a\ny\n")
    assert ran.code == 0, ran
    assert ran.out.strip() == "jam: ordered"
    # (piped answers are not echoed, so a status may follow a prompt on the same line)
    status = re.findall(r"task [\w-]+: (\w+)", ran.err)
    assert status[0] == "working" and status[-1] == "completed", ran
    assert "Really order jam?" in ran.err


def test_task_on_a_tool_that_is_never_a_task() -> None:
    ran = mcpkit("call", TASKS, "plain", "--task", "--era", "legacy")
    assert ran.code == 2, ran
    assert "does not run as a task" in ran.err and "call it without --task" in ran.err
    direct = mcpkit("call", TASKS, "plain", "--task")  # 2026: the server decides
    assert direct.code == 0, direct
    assert direct.out.strip() == "plain answer"
    assert "answered directly" in direct.err


def test_task_output_json_is_the_tool_result() -> None:
    ran = mcpkit("call", TASKS, "slow", "steps=2", "--task", "--output-json")
    assert ran.code == 0, ran
    assert json.loads(ran.out)["content"][0]["text"] == "counted to 2"


def test_ctrl_c_while_waiting_for_a_task_cancels_it_on_the_server() -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, TASKS, "--http", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server)  # type: ignore[arg-type]
        url = f"http://127.0.0.1:{port}/mcp"
        cli = subprocess.Popen(
            [*MCPKIT, "call", url, "hold", "--task"],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert cli.stderr is not None
            first = cli.stderr.readline()  # "task ID: working": the task exists, we wait
            found = re.match(r"task ([\w-]+): working", first)
            assert found, first
            cli.send_signal(signal.SIGINT)
            _, err = cli.communicate(timeout=CLI_TIMEOUT)
        finally:
            if cli.poll() is None:
                cli.kill()
                cli.wait()
        assert cli.returncode == 130, err
        assert f"task {found.group(1)}: cancelled" in err
        state = asyncio.run(_task_status(url, found.group(1)))
        assert state == "cancelled"  # the server was told, not just the terminal
    finally:
        server.terminate()
        server.wait(timeout=CLI_TIMEOUT)


async def _task_status(url: str, task_id: str) -> str:
    async with Client(url, mode="2026-07-28") as client:
        return (await client.get_task(task_id)).status
