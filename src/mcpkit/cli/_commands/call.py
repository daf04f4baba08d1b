"""``mcpkit call TARGET TOOL [key=value | key:=JSON ...] [--json '{...}']``: call one tool.

Arguments are typed by the tool's ``inputSchema`` (see :mod:`mcpkit.cli._arguments`) and checked
against it before anything is sent, so a typo is a usage error naming the field, not a round
trip. Progress the tool reports is drawn on stderr; questions it asks (elicitation, sampling) are
answered at the terminal, or sampling by --sampling-command. --task runs the call as a task
(2026-07-28 Tasks extension or 2025-11-25 core tasks) and shows its status on stderr while it
waits; Ctrl-C then cancels the task. The result prints as its text content, or with
``--output-json`` as the whole result; ``--structured`` prints only ``structuredContent`` as
JSON. A result with ``isError: true`` prints its message on stderr and exits 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser("call", help="call a tool", description=__doc__)
    add_client_options(parser)
    parser.add_argument("tool", metavar="TOOL", help="the tool's name")
    parser.add_argument(
        "arguments", nargs="*", metavar="key=value", help="arguments (key:=JSON for raw JSON)"
    )
    parser.add_argument("--json", dest="json_arguments", metavar="JSON",
                        help="all arguments as one JSON object")  # fmt: skip
    parser.add_argument("--task", action="store_true",
                        help="run the call as a task; show its status while waiting")  # fmt: skip
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--output-json", dest="output_json", action="store_true",
                        help="print the whole CallToolResult as JSON")  # fmt: skip
    output.add_argument("--structured", action="store_true",
                        help="print only structuredContent, as JSON")  # fmt: skip


async def tool_arguments(client: Any, tool: str, args: argparse.Namespace) -> dict[str, Any]:
    """The arguments for ``tool``: parsed, typed by its schema, and checked against it."""
    from mcpkit.cli._arguments import parse_assignments, parse_json_object
    from mcpkit.cli._errors import CliError
    from mcpkit.cli._render import to_jsonable

    tools = {t.name: to_jsonable(t) for t in await client.list_tools()}
    definition = tools.get(tool)
    if definition is None:
        known = ", ".join(sorted(tools)) or "(none)"
        raise CliError(f"the server has no tool named {tool!r}", hint=f"its tools: {known}")
    schema = definition.get("inputSchema")
    arguments: dict[str, Any] = {}
    if args.json_arguments is not None:
        arguments.update(parse_json_object(args.json_arguments))
    arguments.update(parse_assignments(args.arguments, schema))
    await client.check_arguments(tool, arguments)
    return arguments


def print_result(result: Any, args: argparse.Namespace) -> int:
    from mcpkit.cli._errors import EXIT_TOOL_ERROR
    from mcpkit.cli._render import dump_json, render_content, to_jsonable

    data = to_jsonable(result)
    if args.output_json:
        dump_json(data)
    elif args.structured:
        dump_json(data.get("structuredContent"))
    elif data.get("isError"):
        render_content(result.content, stream=sys.stderr)
    elif not data.get("content") and "structuredContent" in data:
        dump_json(data["structuredContent"])
    else:
        render_content(result.content)
    if data.get("isError"):
        sys.stderr.write(f"mcpkit: the tool {args.tool!r} reported an error\n")
        return EXIT_TOOL_ERROR
    return 0


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._connect import open_client, question_handlers
    from mcpkit.cli._progress import ProgressBar

    bar = ProgressBar()
    elicitation, sampling = question_handlers(args, before_asking=bar.close)
    async with open_client(args, elicitation=elicitation, sampling=sampling) as client:
        arguments = await tool_arguments(client, args.tool, args)
        if args.task:
            result = await _run_as_task(client, args, arguments)
        else:
            try:
                result = await client.call_tool(
                    args.tool, arguments, progress_callback=bar.update, output_validation="warn"
                )
            finally:
                bar.close()
    return print_result(result, args)


async def _run_as_task(client: Any, args: argparse.Namespace, arguments: dict[str, Any]) -> Any:
    """``--task``: start the call as a task, show each status change, return its result."""
    import asyncio
    import contextlib

    from mcpkit.cli._errors import CliError
    from mcpkit.client import TaskCancelled, TasksUnsupported

    try:
        task = await client.call_tool_as_task(args.tool, arguments)
    except TasksUnsupported as exc:
        raise CliError(str(exc), hint="call it without --task") from None
    if task.task_id is None:
        sys.stderr.write("task: the server answered directly (no task was created)\n")
        return await task.result()

    shown: list[tuple[str, str | None]] = []

    def show(info: Any) -> None:
        if shown and shown[-1] == (info.status, info.status_message):
            return  # the first poll often repeats the creation's status
        shown.append((info.status, info.status_message))
        message = f" - {info.status_message}" if info.status_message else ""
        sys.stderr.write(f"task {info.task_id}: {info.status}{message}\n")
        sys.stderr.flush()

    show(task.info)
    try:
        return await task.result(on_status=show)
    except TaskCancelled as exc:
        raise CliError(str(exc)) from None
    except asyncio.CancelledError:  # Ctrl-C: do not leave the task running on the server
        with contextlib.suppress(Exception):
            await asyncio.shield(asyncio.wait_for(task.cancel(), 5.0))
            sys.stderr.write(f"task {task.task_id}: cancelled\n")
        raise


def execute(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_main(args))
