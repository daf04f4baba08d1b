"""compare_revs.py's plumbing: the revisions are checked out and removed again, and the table
says new/old. No timing is asserted.

Run with: .venv/bin/pytest benchmarks/tests -q
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCHMARKS))

import compare_revs  # noqa: E402


def _worktrees() -> str:
    return subprocess.run(
        ["git", "worktree", "list"], cwd=BENCHMARKS, check=True, capture_output=True, text=True
    ).stdout


def test_each_revision_is_checked_out_with_its_own_server_and_removed_after() -> None:
    with compare_revs.checked_out(["HEAD~1", "HEAD"]) as revisions:
        assert [rev.label for rev in revisions] == ["HEAD~1", "HEAD"]
        for rev in revisions:
            assert rev.script.is_file() and (rev.src / "mcpkit" / "__init__.py").is_file()
            assert str(rev.tree) in _worktrees()
        trees = [rev.tree for rev in revisions]
    for tree in trees:
        assert not tree.exists()
        assert str(tree) not in _worktrees()


def test_the_table_gives_medians_and_new_over_old() -> None:
    results = {"x: server CPU us/call": {"old": [10.0, 12.0, 11.0], "new": [5.0, 6.0, 6.6]}}
    table = compare_revs.render(results, "old", "new").splitlines()
    assert table[0].startswith("| figure | old (old) | new (new) | new/old |")
    assert table[2] == "| x: server CPU us/call | 11.0 | 6.0 | 0.545 | 0.50-0.60 |"
