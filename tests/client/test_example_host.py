"""The host example runs: two real servers answer through the host, the broken one is reported."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "host" / "run_host.py"


async def test_host_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPKIT_EXAMPLES_DATA", str(tmp_path))
    spec = importlib.util.spec_from_file_location("run_host_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    answers = await module.main()
    assert json.loads(answers["search_products"])[0]["id"] == "nike-air-max"
    assert json.loads(answers["query_database"])["columns"] == ["n"]
