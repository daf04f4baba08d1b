"""A tour of every server feature, in one runnable file.

Run it over stdio (``python examples/feature_tour.py``), over HTTP
(``python examples/feature_tour.py --http 8000``), or from a test with ``mcpkit.testing.connect``.
Both protocol eras are served at once; every feature below works in both.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from mcpkit.server import (
    CallNext,
    Context,
    Header,
    Message,
    Question,
    RequestView,
    ResourceData,
    Server,
    ToolError,
    ToolResult,
    content,
)
from mcpkit.types import TextContent

log = logging.getLogger("feature_tour")
DOCS = Path(__file__).parent / "tour_docs"


# -- lifespan: runs once per process, whatever the transport -----------------------------------


@contextlib.asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[dict[str, Any]]:
    DOCS.mkdir(exist_ok=True)
    (DOCS / "welcome.md").write_text("# Welcome\n\nThis file is served as a resource.\n")
    yield {"started_at": time.time(), "orders": {}}


server = Server(
    "feature-tour",
    "1.0.0",
    title="Feature tour",
    description="Every mcpkit server feature in one place",
    instructions="Try `convert` first; `checkout` asks questions.",
    website_url="https://example.com/feature-tour",
    lifespan=lifespan,
    page_size=50,
)


# -- middleware: wraps every request -------------------------------------------------------------


async def timing(info: RequestView, call_next: CallNext) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        return await call_next()
    finally:
        elapsed_ms = (time.perf_counter() - started) * 1000
        log.info("%s %s took %.1f ms", info.era, info.method, elapsed_ms)


server.add_middleware(timing)


# -- tools: schemas from type hints ---------------------------------------------------------------


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@dataclasses.dataclass
class Reading:
    value: float
    unit: Unit


@server.tool(read_only=True, idempotent=True, title="Convert a temperature")
def convert(
    value: Annotated[float, "the temperature to convert"],
    to: Unit = Unit.CELSIUS,
) -> Reading:
    """Convert between Celsius and Fahrenheit.

    Args:
        to: the unit to convert to
    """
    if to is Unit.CELSIUS:
        return Reading(round((value - 32) * 5 / 9, 2), to)
    return Reading(round(value * 9 / 5 + 32, 2), to)


class Order(TypedDict):
    sku: str
    quantity: int


@dataclasses.dataclass
class Confirmation:
    confirm: bool = True


@server.tool(destructive=False, timeout=5)
async def checkout(
    ctx: Context,
    items: list[Order],
    shipping: Literal["standard", "express"] = "standard",
    region: Annotated[str, Header("Region")] = "eu",
) -> str:
    """Place an order, after asking the user to confirm and the model for a thank-you note."""
    if not items:
        raise ToolError("add at least one item")
    await ctx.report_progress(0, 3, "checking stock")
    confirmation, note = await ctx.ask(
        Question.elicit(
            f"Confirm {len(items)} item(s), {shipping} shipping to {region}?",
            Confirmation,  # the schema comes from the dataclass; the answer is a Confirmation
            key="confirm",
        ),
        Question.sample("Write a one-line thank-you note", max_tokens=30, key="note"),
    )
    await ctx.report_progress(2, 3, "placing order")
    if not (confirmation.accepted and confirmation.content and confirmation.content.confirm):
        return "Order cancelled."
    order_id = f"order-{len(ctx.lifespan['orders']) + 1}"
    ctx.lifespan["orders"][order_id] = items
    await ctx.info(f"placed {order_id}")
    await ctx.report_progress(3, 3)
    await ctx.server.notify_resource_updated("orders://recent")
    thanks = note.content.text if isinstance(note.content, TextContent) else ""
    return f"{order_id} placed. {thanks}"


@server.tool
def badge(name: str) -> ToolResult:
    """Content blocks of every kind, with annotations."""
    return ToolResult(
        content=[
            content.text(f"Badge for {name}", annotations={"audience": ["user"], "priority": 0.9}),
            content.image(b"\x89PNG\r\n\x1a\n", "image/png"),
            content.resource_link("orders://recent", "recent-orders", mime_type="application/json"),
            content.embedded_text("memo://badge", f"{name} was here", "text/plain"),
        ]
    )


# -- resources: static, templates, files ---------------------------------------------------------


@server.resource("orders://recent", mime_type="application/json")
def recent_orders(ctx: Context) -> dict[str, Any]:
    """The orders placed since the server started (subscribe to hear about new ones)."""
    return {"orders": list(ctx.lifespan["orders"])}


@server.resource("orders://{order_id}/items{?format}")
def order_items(order_id: str, ctx: Context, format: str = "json") -> ResourceData:
    """One order's items (RFC 6570 template with a query part)."""
    items = ctx.lifespan["orders"].get(order_id)
    if items is None:
        raise KeyError(order_id)  # → resource not found (-32002 legacy, -32602 in 2026)
    text = "\n".join(f"{i['sku']} x{i['quantity']}" for i in items) if format == "text" else None
    return ResourceData(text=text or str(items), mime_type="text/plain")


server.add_directory("file:///tour_docs/", str(DOCS), name="tour-docs")


@server.completion(resource="orders://{order_id}/items{?format}", argument="order_id")
def complete_order_id(value: str, arguments: dict[str, str]) -> list[str]:
    return [f"order-{n}" for n in range(1, 10) if f"order-{n}".startswith(value)]


# -- prompts ---------------------------------------------------------------------------------------


@server.prompt(title="Explain an order")
def explain_order(order_id: str, tone: str = "friendly") -> list[Message]:
    """Explain an order to the customer.

    Args:
        order_id: which order
        tone: how to sound
    """
    return [
        Message(content.resource_link(f"orders://{order_id}/items", f"items of {order_id}")),
        Message(f"Explain order {order_id} in a {tone} tone."),
    ]


@server.completion(prompt="explain_order", argument="tone")
def complete_tone(value: str, arguments: dict[str, str]) -> list[str]:
    return [t for t in ("friendly", "formal", "playful") if t.startswith(value)]


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("http", port=int(sys.argv[2]))
    else:
        server.run()
