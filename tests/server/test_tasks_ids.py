"""Task ids are safe to paste into a command line: none starts with ``-``.

``mcpkit watch URL --task ID`` read an id starting with ``-`` as an option (one id in 64 did, and
the CLI test that watches a task failed once in a CI run for it).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Iterator

import pytest

from mcpkit.server import tasks


def test_an_id_starting_with_a_dash_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: Iterator[str] = iter(["-first", "-second", "third-"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda _n: next(drawn))
    assert tasks._new_task_id() == "third-"


def test_ids_keep_their_entropy_and_alphabet() -> None:
    ids = [tasks._new_task_id() for _ in range(2_000)]
    assert len(set(ids)) == len(ids)
    assert not any(task_id.startswith("-") for task_id in ids)
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert set(itertools.chain.from_iterable(ids)) <= alphabet
    assert {len(task_id) for task_id in ids} == {22}  # 16 bytes, base64url without padding
