"""The feature tour example works end to end, in both eras, through mcpkit's own client."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpkit.client import QuestionContext
from mcpkit.testing import ERAS, connect

TOUR = Path(__file__).parents[2] / "examples" / "feature_tour.py"


def load_tour() -> Any:
    spec = importlib.util.spec_from_file_location("feature_tour", TOUR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["feature_tour"] = module
    spec.loader.exec_module(module)
    return module


async def accept_defaults(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {"action": "accept", "content": dict(context.defaults)}


async def thank(params: Any, context: QuestionContext) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "Thanks!"}, "model": "m"}


@pytest.mark.parametrize("mode", ERAS)
async def test_tour(mode: str) -> None:
    tour = load_tour()
    progress: list[float] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append(p)

    async with connect(
        tour.server, mode=mode, elicitation_handler=accept_defaults, sampling_handler=thank
    ) as client:
        converted = await client.call_tool("convert", {"value": 212, "to": "celsius"})
        assert converted.structured_content == {"value": 100.0, "unit": "celsius"}
        order = await client.call_tool(
            "checkout",
            {"items": [{"sku": "shoe", "quantity": 2}], "shipping": "express"},
            progress_callback=on_progress,
        )
        assert order.content[0].text == "order-1 placed. Thanks!"
        badge = await client.call_tool("badge", {"name": "Ada"})
        kinds = [type(b).__name__ for b in badge.content]
        assert kinds == ["TextContent", "ImageContent", "ResourceLink", "EmbeddedResource"]
        items = await client.read_resource("orders://order-1/items?format=text")
        welcome = await client.read_resource("file:///tour_docs/welcome.md")
        prompt = await client.get_prompt("explain_order", {"order_id": "order-1"})
        bad = await client.call_tool("checkout", {"items": "not a list"})
    assert progress[-1] == 3
    assert "shoe x2" in str(items)
    assert "Welcome" in str(welcome)
    assert "friendly" in str(prompt)
    assert bad.is_error and "items" in bad.content[0].text
