"""Every fenced code block of README.md and docs/*.md runs, so the documentation cannot drift.

One test per block, named ``FILE:LINE`` (the opening fence), so a failure points at the block.
The rules (written for doc authors in docs/contributing.md, "Docs are executed"):

* ``python`` blocks run as a script file through ``runpy.run_path(FILE, run_name="__docs__")`` —
  not as ``__main__``, so ``if __name__ == "__main__": server.run()`` does not block — with this
  venv's interpreter, ``examples/`` on ``PYTHONPATH``, and the block's workspace as the working
  directory. They must exit 0 within 60 s and touch only loopback.
* ``bash``/``sh``/``shell``/``console`` blocks run line by line (``bash -c LINE``; a trailing
  ``# comment`` is bash's own comment). Each line must exit 0 within 60 s. Lines run in the
  block's workspace, except lines starting with ``scripts/``, which run from the repository root.
  This venv's ``bin`` comes first on ``PATH`` (so ``mcpkit`` is the checkout's).
* ``json`` blocks must parse. Other languages (``text``, ``toml``, ``nginx``, none …) are not run.
* ``<!-- no-run: REASON -->`` directly above a fence skips that block; markers must give a reason
  and stay rare (:data:`MAX_NO_RUN`).

The workspace of a block is a fresh temporary directory holding links to the repository's
top-level files and folders (``examples/``, ``docs/``, ``src/`` …; not ``scripts/``), plus every
block of the same document, up to and including this one, that a "Save this as `NAME`" sentence
introduces, written to NAME (``~/`` names go to the fake home). So the README's ``server.py`` is
there for the ``mcpkit call server.py …`` lines below it. ``HOME`` is a fresh folder too (so
``mcpkit install`` or ``~`` paths never touch the real one), ``MCPKIT_*`` variables are cleared
and ``MCPKIT_EXAMPLES_DATA`` points into the temporary directory. Processes a block leaves behind
are killed with its process group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import suppress
from pathlib import Path
from typing import Final

import pytest

from ._blocks import (
    JSON_LANGUAGES,
    NO_RUN_MARKER,
    PYTHON_LANGUAGES,
    SHELL_LANGUAGES,
    Block,
    parse_blocks,
    shell_commands,
)

ROOT: Final = Path(__file__).resolve().parents[2]
DOCUMENTS: Final = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK_TIMEOUT_S: Final = 60.0
"""What one python block, or one shell line, may take."""
SHELL_BLOCK_TIMEOUT_S: Final = 600.0
"""What a whole shell block may take (its lines are bounded one by one above)."""
MAX_NO_RUN: Final = 8
"""At most this many blocks across all documents may be marked ``no-run``."""
OUTPUT_TAIL_CHARS: Final = 3000
"""How much of a failing block's output the failure shows."""
NOT_LINKED: Final = frozenset({"scripts"})
"""Top-level entries kept out of workspaces: scripts find the repository from their own path."""
RUN_PATH: Final = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__docs__')"

BLOCKS: Final = [
    block
    for document in DOCUMENTS
    for block in parse_blocks(document.relative_to(ROOT), document.read_text(encoding="utf-8"))
]
RUNNABLE: Final = PYTHON_LANGUAGES | SHELL_LANGUAGES | JSON_LANGUAGES


def _params(languages: frozenset[str]) -> list[object]:
    return [
        pytest.param(block, id=f"{block.path}:{block.line}")
        for block in BLOCKS
        if block.language in languages and block.no_run is None
    ]


@pytest.mark.parametrize("block", _params(PYTHON_LANGUAGES))
def test_python_block_runs(block: Block, tmp_path: Path) -> None:
    work, env = _workspace(block, tmp_path)
    script = _saved_path(block, work, env) if block.save_as else work / f"doc_block_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    _run(block, [sys.executable, "-c", RUN_PATH, str(script)], work, env, what="the block")


@pytest.mark.timeout(SHELL_BLOCK_TIMEOUT_S)
@pytest.mark.parametrize("block", _params(SHELL_LANGUAGES))
def test_shell_block_runs(block: Block, tmp_path: Path) -> None:
    work, env = _workspace(block, tmp_path)
    commands = shell_commands(block)
    assert commands, f"{block.path}:{block.line}: a shell block with no command"
    for command in commands:
        cwd = ROOT if command.startswith("scripts/") else work
        _run(block, ["bash", "-c", command], cwd, env, what=f"`{command}`")


@pytest.mark.parametrize("block", _params(JSON_LANGUAGES))
def test_json_block_parses(block: Block) -> None:
    try:
        json.loads(block.text)
    except json.JSONDecodeError as exc:
        pytest.fail(f"{block.path}:{block.line}: the JSON block does not parse: {exc}")


def test_no_run_markers_are_explained_rare_and_placed() -> None:
    marked = [block for block in BLOCKS if block.no_run is not None]
    unexplained = [f"{b.path}:{b.line}" for b in marked if not b.no_run]
    assert not unexplained, f"no-run markers without a reason: {unexplained}"
    where = [f"{b.path}:{b.line} ({b.no_run})" for b in marked]
    assert len(marked) <= MAX_NO_RUN, f"{len(marked)} no-run blocks (at most {MAX_NO_RUN}): {where}"
    # A marker that is not directly above a fence marks nothing: it is a mistake.
    fences = {(block.path, block.line) for block in BLOCKS}
    for document in DOCUMENTS:
        relative = document.relative_to(ROOT)
        lines = document.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, start=1):
            if NO_RUN_MARKER.match(line):
                assert (relative, number + 1) in fences, (
                    f"{relative}:{number}: a no-run marker must be on the line directly above a "
                    "code fence"
                )


def test_every_document_has_runnable_blocks_found() -> None:
    """Guards the harness itself: the parser finds the README's blocks and runs most of them."""
    readme = [b for b in BLOCKS if b.path == Path("README.md")]
    assert any(b.language in PYTHON_LANGUAGES and b.save_as == "server.py" for b in readme)
    runnable = [b for b in BLOCKS if b.language in RUNNABLE]
    assert sum(b.no_run is None for b in runnable) > len(runnable) // 2


def _workspace(block: Block, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work, home, data = tmp_path / "work", tmp_path / "home", tmp_path / "data"
    for folder in (work, home, data):
        folder.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith(".") and entry.name not in NOT_LINKED:
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MCPKIT_", "XDG_", "PYTEST"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(ROOT / "examples"),
        HOME=str(home),
        MCPKIT_EXAMPLES_DATA=str(data),
        PYTHONDONTWRITEBYTECODE="1",
    )
    for earlier in BLOCKS:
        if earlier.path == block.path and earlier.line < block.line and earlier.save_as:
            target = _saved_path(earlier, work, env)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(earlier.text, encoding="utf-8")
    return work, env


def _saved_path(block: Block, work: Path, env: dict[str, str]) -> Path:
    assert block.save_as is not None
    name = block.save_as
    path = Path(env["HOME"]) / name[2:] if name.startswith("~/") else work / name
    assert not Path(name).is_absolute() and ".." not in Path(name).parts, (
        f"{block.path}:{block.line}: 'Save this as' needs a relative or ~/ name, not {name!r}"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _run(block: Block, argv: list[str], cwd: Path, env: dict[str, str], *, what: str) -> None:
    """Run ``argv``; fail naming the block (and ``what`` in it) unless it exits 0 in time."""
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    timed_out = False
    try:
        out, err = process.communicate(timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
    finally:
        with suppress(ProcessLookupError, PermissionError):  # whatever the block left running
            os.killpg(process.pid, signal.SIGKILL)
    if timed_out or process.returncode != 0:
        how = (
            f"did not finish within {BLOCK_TIMEOUT_S:g} s"
            if timed_out
            else (f"exited {process.returncode}")
        )
        pytest.fail(
            f"{block.path}:{block.line}: {what} {how}\n"
            f"--- stdout ---\n{out[-OUTPUT_TAIL_CHARS:]}\n"
            f"--- stderr ---\n{err[-OUTPUT_TAIL_CHARS:]}"
        )
