"""Every fenced code block of README.md and docs/*.md runs as a reader would run it.

One test per block, named ``FILE:LINE`` (the opening fence), so a failure points at the block.
The rules (written for doc authors in docs/contributing.md, "Docs are executed"):

* Blocks run against mcpkit **as a reader installs it**: the wheel ``scripts/build`` makes,
  installed into a clean virtualenv with exactly the extras the page tells its reader to install
  (every ``pip install …[extras]`` on it; see ``_install``), nothing added to ``PYTHONPATH``.
  The venv's ``bin`` comes first on ``PATH`` (so ``mcpkit`` is the installed one).
* ``python`` blocks run as ``__main__`` (``python FILE``), the block's workspace as the working
  directory. They must exit 0 within 60 s and touch only loopback.
* ``bash``/``sh``/``shell``/``console`` blocks run line by line (``bash -c LINE``). Each line must
  exit 0 within 60 s. Lines run in the block's workspace, except lines starting with ``scripts/``,
  which run from the repository root (they are the repository's own tools).
* **Claimed output is checked.** A comment ``# → TEXT`` at the end of a line claims TEXT in the
  output: of that command for a shell line, of the block for a Python line (the claims of a block
  in order). ``…`` or ``...`` in TEXT stands for anything.
* ``json`` blocks must parse, ``toml`` too. ``text`` and unlabelled blocks are output or
  diagrams: one that is really Python (it parses and imports or defines something) fails, so code
  is fenced with its language.
* ``<!-- no-run: REASON -->`` directly above a fence skips that block; markers must give a reason
  and stay rare (:data:`MAX_NO_RUN`).

The workspace of a block is a fresh temporary directory holding links to the repository's
top-level files and folders (``examples/``, ``docs/`` …; not ``scripts/`` nor ``src/``: the
installed mcpkit is the one used), plus every block of the same document, up to and including
this one, that a "Save this as `NAME`" sentence introduces, written to NAME (``~/`` names go to
the fake home). So the README's ``server.py`` is there for the ``mcpkit call server.py …`` lines
below it. ``HOME`` is a fresh folder too (so ``mcpkit install`` or ``~`` paths never touch the
real one), ``MCPKIT_*`` and ``PYTHON*`` variables are cleared and ``MCPKIT_EXAMPLES_DATA`` points
into the temporary directory. Processes a block leaves behind are killed with its process group.
"""

from __future__ import annotations

import ast
import functools
import io
import json
import os
import re
import signal
import subprocess
import threading
import time
import tokenize
import tomllib
from contextlib import suppress
from pathlib import Path
from typing import IO, Final

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
from ._install import INSTALL_TIMEOUT_S, Installs, Told, installs_told

ROOT: Final = Path(__file__).resolve().parents[2]
DOCUMENTS: Final = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK_TIMEOUT_S: Final = 60.0
"""What one python block, or one shell line, may take."""
SHELL_BLOCK_TIMEOUT_S: Final = 600.0
"""What a whole shell block may take (its lines are bounded one by one above)."""
MAX_NO_RUN: Final = 10
"""At most this many blocks across all documents may be marked ``no-run`` (of about a hundred:
those that serve until interrupted, install things, or need a server or secrets of the
reader's)."""
OUTPUT_TAIL_CHARS: Final = 3000
"""How much of a failing block's output the failure shows."""
NOT_LINKED: Final = frozenset({"scripts", "src", "tests", "pyproject.toml"})
"""Top-level entries kept out of workspaces: scripts find the repository from their own path, and
the reader has the installed mcpkit, not the checkout's source, test helpers or project settings
(mcpkit's pytest settings would change the reader's own ``pytest`` run)."""
TEXT_LANGUAGES: Final = frozenset({"text", ""})
TOML_LANGUAGES: Final = frozenset({"toml"})
CLAIM: Final = re.compile(r"#\s*→\s*(?P<text>.+?)\s*$")
"""A ``# → TEXT`` comment: the output the line claims."""
_ANYTHING: Final = re.compile(r"\s*(?:…|\.\.\.)\s*")
SERVING: Final = re.compile(r"^mcpkit: serving .+ at http://")
"""What a server a block starts says once it is up (``server.run("http")``, ``mcpkit run``)."""
STOP_TIMEOUT_S: Final = 15.0
"""How long a server the block started gets to exit after Ctrl-C."""
POLL_S: Final = 0.2
"""How often the wait for a block wakes to check its process (an event wakes it sooner)."""
DOCS_REDIS_URL: Final = "redis://127.0.0.1:6379/14"
"""The Redis a block reaches through ``REDIS_URL`` (the test machine's; database 14 is ours)."""

BLOCKS: Final = [
    block
    for document in DOCUMENTS
    for block in parse_blocks(document.relative_to(ROOT), document.read_text(encoding="utf-8"))
]
RUNNABLE: Final = PYTHON_LANGUAGES | SHELL_LANGUAGES | JSON_LANGUAGES | TOML_LANGUAGES
INSTALL_PATIENCE_S: Final = 2 * INSTALL_TIMEOUT_S + SHELL_BLOCK_TIMEOUT_S
"""A test may first have to build the wheel and a venv (once per session), then run."""


@functools.cache
def page_installs(path: Path) -> Told:
    """What the page tells its reader to install (its blocks run with exactly that)."""
    return installs_told((ROOT / path).read_text(encoding="utf-8"))


def _params(languages: frozenset[str]) -> list[object]:
    return [
        pytest.param(block, id=f"{block.path}:{block.line}")
        for block in BLOCKS
        if block.language in languages and block.no_run is None
    ]


@pytest.mark.timeout(INSTALL_PATIENCE_S)
@pytest.mark.parametrize("block", _params(PYTHON_LANGUAGES))
def test_python_block_runs(block: Block, tmp_path: Path, installs: Installs) -> None:
    venv = installs.venv(page_installs(block.path))
    work, env = _workspace(block, tmp_path, venv)
    script = _saved_path(block, work, env) if block.save_as else work / f"doc_block_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    out = _run(block, [str(venv / "bin" / "python"), str(script)], work, env, what="the block")
    _check_claims(block, _python_claims(block), out, what="the block")


@pytest.mark.timeout(INSTALL_PATIENCE_S)
@pytest.mark.parametrize("block", _params(SHELL_LANGUAGES))
def test_shell_block_runs(block: Block, tmp_path: Path, installs: Installs) -> None:
    venv = installs.venv(page_installs(block.path))
    work, env = _workspace(block, tmp_path, venv)
    commands = shell_commands(block)
    assert commands, f"{block.path}:{block.line}: a shell block with no command"
    for command in commands:
        cwd = ROOT if command.startswith("scripts/") else work
        out = _run(block, ["bash", "-c", command], cwd, env, what=f"`{command}`")
        claim = CLAIM.search(command)
        _check_claims(block, [claim.group("text")] if claim else [], out, what=f"`{command}`")


@pytest.mark.parametrize("block", _params(JSON_LANGUAGES | TOML_LANGUAGES))
def test_data_block_parses(block: Block) -> None:
    """JSON and TOML blocks (configuration a reader copies) must parse."""
    try:
        if block.language in TOML_LANGUAGES:
            tomllib.loads(block.text)
        else:
            json.loads(block.text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        pytest.fail(f"{block.path}:{block.line}: the {block.language} block does not parse: {exc}")


@pytest.mark.parametrize("block", _params(TEXT_LANGUAGES))
def test_text_block_is_not_code_in_disguise(block: Block) -> None:
    """Output and diagrams are fenced as text; Python is fenced as python, so it runs."""
    try:
        tree = ast.parse(block.text)
    except SyntaxError:
        return
    code_nodes = ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    code = [node for node in tree.body if isinstance(node, code_nodes)]
    assert not code, f"{block.path}:{block.line}: this text block is Python: fence it as python"


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


def _python_claims(block: Block) -> list[str]:
    """The ``# → TEXT`` comments of a Python block, in order (real comments, not strings)."""
    claims: list[str] = []
    with suppress(tokenize.TokenError, SyntaxError):
        for token in tokenize.generate_tokens(io.StringIO(block.text).readline):
            if token.type == tokenize.COMMENT and (found := CLAIM.match(token.string)):
                claims.append(found.group("text"))
    return claims


def _check_claims(block: Block, claims: list[str], out: str, *, what: str) -> None:
    """Each claim appears in ``out``, in order (``…`` matching anything)."""
    position = 0
    for claim in claims:
        pattern = ".*?".join(re.escape(part) for part in _ANYTHING.split(claim))
        found = re.compile(pattern, re.DOTALL).search(out, position)
        if found is None:
            pytest.fail(
                f"{block.path}:{block.line}: {what} claims `{claim}` in its output, which is:\n"
                f"{out[-OUTPUT_TAIL_CHARS:]}"
            )
        position = found.end()


def _workspace(block: Block, tmp_path: Path, venv: Path) -> tuple[Path, dict[str, str]]:
    work, home, data = tmp_path / "work", tmp_path / "home", tmp_path / "data"
    for folder in (work, home, data):
        folder.mkdir()
    for entry in ROOT.iterdir():
        if not entry.name.startswith(".") and entry.name not in NOT_LINKED:
            (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MCPKIT_", "XDG_", "PYTEST", "PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        PORT="0",  # a block serving on os.environ.get("PORT", …) takes a free port
        REDIS_URL=DOCS_REDIS_URL,
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


def _run(block: Block, argv: list[str], cwd: Path, env: dict[str, str], *, what: str) -> str:
    """Run ``argv``; fail naming the block (and ``what`` in it) unless it exits 0 in time.
    Returns what it printed on stdout.

    A server the block starts as its reader would (``python app.py`` serving HTTP) runs until
    stopped: once it announces ``mcpkit: serving NAME at URL`` it has done what the block shows,
    so it gets Ctrl-C (SIGINT) and must then exit cleanly in time.
    """
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    assert process.stdout is not None and process.stderr is not None
    out_parts: list[str] = []
    err_parts: list[str] = []
    serving = threading.Event()

    def pump(stream: IO[str], parts: list[str], watch: bool) -> None:
        for line in stream:
            parts.append(line)
            if watch and SERVING.search(line):
                serving.set()

    readers = [
        threading.Thread(target=pump, args=(process.stdout, out_parts, False), daemon=True),
        threading.Thread(target=pump, args=(process.stderr, err_parts, True), daemon=True),
    ]
    for reader in readers:
        reader.start()
    timed_out = False
    deadline = time.monotonic() + BLOCK_TIMEOUT_S
    try:
        while process.poll() is None and not serving.is_set():
            if time.monotonic() > deadline:
                timed_out = True
                break
            serving.wait(POLL_S)
        if serving.is_set() and process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)  # the reader's Ctrl-C
            try:
                process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                timed_out = True
        if timed_out:  # deaf to Ctrl-C, or never announced: killed (waiting would wait forever)
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    finally:
        with suppress(ProcessLookupError, PermissionError):  # whatever the block left running
            os.killpg(process.pid, signal.SIGKILL)
    for reader in readers:
        reader.join(STOP_TIMEOUT_S)
    out, err = "".join(out_parts), "".join(err_parts)
    stopped_cleanly = serving.is_set() and process.returncode in (0, -signal.SIGINT, 130)
    if timed_out or not (process.returncode == 0 or stopped_cleanly):
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
    return out


def test_claims_are_read_from_comments_and_checked_in_order() -> None:
    """Guards the harness: ``# → TEXT`` is a claim (in a comment, not in a string), ``…`` is a
    wildcard, and a claim the output does not hold fails the block."""
    block = Block(
        path=Path("doc.md"), line=1, language="python", no_run=None, save_as=None,
        text='print("a # → not a claim")  # → a\nprint({"n": 1, "m": 2})  # → {"n": 1, …}\n',
    )  # fmt: skip
    claims = _python_claims(block)
    assert claims == ["a", '{"n": 1, …}']
    _check_claims(block, claims, 'a # → not a claim\n{"n": 1, "m": 2}\n', what="the block")
    with pytest.raises(pytest.fail.Exception, match="claims `a`"):
        _check_claims(block, claims, 'b\n{"n": 1}\n', what="the block")
    with pytest.raises(pytest.fail.Exception, match="claims"):  # in order, not anywhere
        _check_claims(block, claims, '{"n": 1, "m": 2}\na\n', what="the block")
