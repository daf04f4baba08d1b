"""Every task has an owner (issue #26): no bare task creation outside ``mcpkit._runtime``.

A task nobody awaits is cancelled by nobody at shutdown, and its failure surfaces as "Task
exception was never retrieved" long after the fact. So only the runtime creates tasks and timers
(``TaskSet``, ``TaskScope``, ``race``); every other module asks one of those. These tests read
the source (AST), so a new bare ``create_task`` fails here with its file and line.

The second rule: a cancelled caller always sees its own cancellation. ``with
suppress(CancelledError): await child`` (or ``except CancelledError: pass`` around the await)
also swallows a cancellation aimed at the *caller* while it waits; ``cancel_and_wait`` does it
right.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mcpkit

SOURCE = Path(mcpkit.__file__).parent
RUNTIME = "_runtime/"
BARE_TASK_CALLS = frozenset({"create_task", "ensure_future", "call_later"})


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        if relative.startswith(RUNTIME):
            continue
        yield relative, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def bare_task_calls(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, name)`` of every call named ``create_task``/``ensure_future``/``call_later``."""
    return sorted(
        (node.lineno, name)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (name := _called_name(node)) in BARE_TASK_CALLS
    )


CATCHES_CANCELLED = frozenset({"CancelledError", "BaseException"})


def _is_cancelled_error(node: ast.expr | None) -> bool:
    """Whether an exception spec catches ``CancelledError`` (by name or as ``BaseException``)."""
    if node is None:
        return False
    if isinstance(node, ast.Tuple):
        return any(_is_cancelled_error(element) for element in node.elts)
    if isinstance(node, ast.Attribute):
        return node.attr in CATCHES_CANCELLED
    return isinstance(node, ast.Name) and node.id in CATCHES_CANCELLED


def _awaits(statements: list[ast.stmt]) -> bool:
    return any(isinstance(node, ast.Await) for stmt in statements for node in ast.walk(stmt))


def _is_suppress_cancelled(item: ast.withitem) -> bool:
    call = item.context_expr
    return (
        isinstance(call, ast.Call)
        and _called_name(call) == "suppress"
        and any(_is_cancelled_error(arg) for arg in call.args)
    )


def swallowed_cancellations(tree: ast.Module) -> list[int]:
    """Lines where an ``await`` sits inside ``suppress(CancelledError)``, or in a ``try`` whose
    ``except CancelledError`` handler neither raises nor returns (it carries on as if the
    caller had not been cancelled). A handler that keeps the exception (uses its ``as`` name)
    hands it on to be raised later."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.With | ast.AsyncWith):
            if any(_is_suppress_cancelled(item) for item in node.items) and _awaits(node.body):
                lines.append(node.lineno)
        elif isinstance(node, ast.Try):
            for handler in node.handlers:
                leaves = any(
                    isinstance(inner, ast.Raise | ast.Return)
                    for stmt in handler.body
                    for inner in ast.walk(stmt)
                )
                # ``except CancelledError as exc: first = exc`` keeps it to re-raise after
                # cleanup (the shutdown's every-step runner): not swallowed
                kept = handler.name is not None and any(
                    isinstance(inner, ast.Name) and inner.id == handler.name
                    for stmt in handler.body
                    for inner in ast.walk(stmt)
                )
                if (
                    _is_cancelled_error(handler.type)
                    and not (leaves or kept)
                    and _awaits(node.body)
                ):
                    lines.append(handler.lineno)
    return sorted(lines)


def test_no_bare_task_creation_outside_the_runtime() -> None:
    found = [
        f"src/mcpkit/{relative}:{line}: {name}"
        for relative, tree in _modules()
        for line, name in bare_task_calls(tree)
    ]
    assert not found, "tasks and timers need an owner (TaskSet, TaskScope, race):\n" + "\n".join(
        found
    )


def test_no_cancellation_is_swallowed_around_an_await() -> None:
    found = [
        f"src/mcpkit/{relative}:{line}"
        for relative, tree in _modules()
        for line in swallowed_cancellations(tree)
    ]
    assert not found, "use cancel_and_wait: the caller's cancellation is swallowed at\n" + (
        "\n".join(found)
    )


def test_the_checks_see_what_they_look_for() -> None:
    # each pattern the rules forbid is found (so a pass above means something)
    bad = ast.parse(
        "import asyncio, contextlib\n"
        "async def f(loop, child):\n"
        "    asyncio.create_task(child)\n"
        "    asyncio.ensure_future(child)\n"
        "    loop.call_later(1, print)\n"
        "    create_task(child)\n"
        "    with contextlib.suppress(asyncio.CancelledError):\n"
        "        await child\n"
        "    try:\n"
        "        await child\n"
        "    except (asyncio.CancelledError, ValueError):\n"
        "        pass\n"
        "    try:\n"
        "        await child\n"
        "    except asyncio.CancelledError:\n"
        "        raise\n"
        "    with contextlib.suppress(BaseException):\n"
        "        await child\n"
    )
    assert bare_task_calls(bad) == [
        (3, "create_task"),
        (4, "ensure_future"),
        (5, "call_later"),
        (6, "create_task"),
    ]
    assert swallowed_cancellations(bad) == [7, 11, 17]
