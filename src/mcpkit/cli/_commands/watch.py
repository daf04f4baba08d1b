"""``mcpkit watch TARGET [--resource URI ...]``: print a server's notifications until Ctrl-C.

Follows what the server announces, in either era: tool, prompt and resource list changes, and
``resources/updated`` for each ``--resource`` URI or prefix (repeatable: a value that is not
a listed resource's URI stands for every listed resource whose URI starts with it) — a
``subscriptions/listen`` stream with 2026-07-28 servers, the session's notifications and
``resources/subscribe`` with legacy ones. ``--task ID`` follows a task of the 2026-07-28 Tasks
extension (``notifications/tasks``); a legacy session's ``notifications/tasks/status`` and any
other notification the server sends are printed too. A line on stderr says what the
server agreed to follow; then each notification is one line on stdout (``--json``: the
notification as JSON). Ctrl-C ends it cleanly (exit 0) and stops a stdio server.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from typing import Any, Final

_FOLLOWED: Final = frozenset(
    {
        "notifications/tools/list_changed",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/subscriptions/acknowledged",
    }
)
"""What the subscription yields (also offered to the client's catch-all: printed once)."""


def register(subparsers: Any) -> None:
    from mcpkit.cli._connect import add_client_options

    parser = subparsers.add_parser(
        "watch", help="print the server's notifications until Ctrl-C", description=__doc__
    )
    add_client_options(parser)
    parser.add_argument("--resource", action="append", default=[], metavar="URI",
                        help="follow updates of this resource URI, or of every listed "
                             "resource starting with it (repeatable)")  # fmt: skip
    parser.add_argument("--task", action="append", default=[], metavar="TASK_ID",
                        help="follow this task (2026 Tasks extension; repeatable)")  # fmt: skip
    parser.add_argument("--json", dest="as_json", action="store_true",
                        help="print each notification as one JSON object per line")  # fmt: skip


def _describe(method: str, params: dict[str, Any]) -> str:
    if method == "notifications/resources/updated":
        return f"resource updated: {params.get('uri')}"
    if method.endswith("/list_changed"):
        kind = method.split("/")[1]
        return f"{kind} list changed"
    if method in ("notifications/tasks/status", "notifications/tasks"):
        nested = params.get("task")
        task: dict[str, Any] = nested if isinstance(nested, dict) else params
        message = task.get("statusMessage")
        return f"task {task.get('taskId')}: {task.get('status')}" + (
            f" ({message})" if message else ""
        )
    return f"{method} {json.dumps(params, ensure_ascii=False)}" if params else method


class _Printer:
    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json

    def __call__(self, method: str, params: dict[str, Any]) -> None:
        if self.as_json:
            line = json.dumps({"method": method, "params": params}, ensure_ascii=False)
        else:
            line = f"{datetime.now().strftime('%H:%M:%S')}  {_describe(method, params)}"
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _wire(note: Any) -> tuple[str, dict[str, Any]]:
    from mcpkit.cli._render import to_jsonable

    data = to_jsonable(note)
    method = str(getattr(note, "method", None) or data.get("method", ""))
    params = data.get("params") if isinstance(data, dict) else None
    return method, params if isinstance(params, dict) else {}


async def _resource_uris(client: Any, wanted: list[str]) -> list[str]:
    """``--resource`` values as the URIs to subscribe to, in either era.

    A subscription names exact URIs (``resources/subscribe``, ``resourceSubscriptions``), so a
    prefix is expanded against the resources listed now; a value that is a listed URI, or that
    matches none (a template's resource, say), is kept as given.
    """
    if not wanted:
        return []
    listed = [resource.uri for resource in await client.list_resources()]
    uris: list[str] = []
    for value in wanted:
        matches = [value] if value in listed else [u for u in listed if u.startswith(value)]
        for uri in matches or [value]:
            if uri not in uris:
                uris.append(uri)
    return uris


async def _main(args: argparse.Namespace) -> int:
    from mcpkit.cli._connect import open_client
    from mcpkit.types import TASKS_EXTENSION_ID

    show = _Printer(args.as_json)

    def other(note: Any) -> None:  # what the subscription does not follow
        method, params = _wire(note)
        if method not in _FOLLOWED:
            show(method, params)

    extensions: dict[str, Any] | None = {TASKS_EXTENSION_ID: {}} if args.task else None
    async with open_client(args, notifications=other, extensions=extensions) as client:
        uris = await _resource_uris(client, args.resource)
        return await _follow(args, client, uris, show)


async def _follow(args: argparse.Namespace, client: Any, uris: list[str], show: _Printer) -> int:
    async with client.listen(
        tools=True, prompts=True, resources=True, resource_uris=uris, task_ids=args.task
    ) as subscription:
        agreed = subscription.agreed or {}
        following = [name for name, value in agreed.items() if value is True]
        following += [f"updates of {uri}" for uri in agreed.get("resourceSubscriptions", [])]
        following += [f"task {task_id}" for task_id in agreed.get("taskIds", [])]
        sys.stderr.write(
            f"mcpkit: watching {args.target} ({client.era} era): "
            f"{', '.join(following) or 'no change notifications (the server declares none)'}"
            "; Ctrl-C to stop\n"
        )
        sys.stderr.flush()
        async for note in subscription:
            method, params = _wire(note)
            if method != "notifications/subscriptions/acknowledged":
                show(method, params)
    return 0


def execute(args: argparse.Namespace) -> int:
    import asyncio

    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:  # the way to stop watching: not a failure
        sys.stderr.write("mcpkit: stopped watching\n")
        return 0
