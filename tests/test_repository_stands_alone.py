"""Nothing in the repository reads a file outside it (a clone has nothing beside it).

``.ci/run`` proves it for real, running ``scripts/test`` in a copy placed where nothing is beside
it; this test catches the usual ways of breaking that early, with a line to fix: an absolute
path into this machine's ``/work``, a ``../shared`` reference (the schemas are in
``tests/data/spec``), and ``.peers`` paths that ignore ``$PEERS_DIR`` (use ``tests/_peers.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
SCANNED: Final = ("src", "tests", "scripts", "benchmarks", "examples", ".ci")
SKIPPED_PARTS: Final = frozenset({"data", "__pycache__", "results", "node_modules"})
FORBIDDEN: Final = {
    "an absolute path into /work": re.compile(r"""["'(]/work/"""),
    "a path to ../shared": re.compile(
        r"""\.\.["'/ ,)]+\s*["']?shared\b|["']shared["']\s*/\s*["']spec"""
    ),
    "a .peers path that ignores $PEERS_DIR": re.compile(r"""/\s*["']\.peers["']"""),
}
ALLOWED: Final = {Path("tests/_peers.py"), Path("tests/test_repository_stands_alone.py")}


def _files() -> list[Path]:
    found: list[Path] = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            relative = path.relative_to(ROOT)
            if (
                path.is_file()
                and not SKIPPED_PARTS & set(relative.parts)
                and relative not in ALLOWED
            ) and (path.suffix in {".py", ".sh", ""} or top in {"scripts", ".ci"}):
                found.append(path)
    return found


def test_no_file_reaches_outside_the_repository() -> None:
    problems = []
    for path in _files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for what, pattern in FORBIDDEN.items():
                if pattern.search(line) and "PEERS_DIR" not in line:
                    problems.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")
    assert not problems, "\n".join(problems)


def test_the_patterns_catch_what_they_are_for() -> None:
    """The scanner is only useful if its patterns match the breakages seen before."""
    seen_before = {
        "an absolute path into /work": 'SPEC = Path("/work/shared/spec")',
        "a path to ../shared": 'SPEC = Path(__file__).parents[2] / ".." / "shared" / "spec"',
        "a .peers path that ignores $PEERS_DIR": 'PY = ROOT / ".peers" / "mcp-venv" / "bin"',
    }
    for what, line in seen_before.items():
        assert FORBIDDEN[what].search(line), what
    assert not any(p.search('uri = "file:///work/project"') for p in FORBIDDEN.values())


def test_the_peers_install_is_never_tracked() -> None:
    """``.peers`` (the installed peers, or a symlink to a shared install) must stay out of git:
    a tracked ``.peers`` symlink, once checked out where the real install is, replaces that
    directory (git treats ignored files as expendable) and deletes every installed peer."""
    import shutil
    import subprocess

    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing can be tracked")
    tracked = subprocess.run(
        [git, "ls-files", "--", ".peers", ".peers/*"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert tracked == [], f"{tracked} tracked: git rm --cached .peers (it is git-ignored)"
