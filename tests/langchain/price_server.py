"""A stdio shop whose price comes from ``$PRICE``: restarting it with another price makes the
same tool ask a different question (``Pay 10 for a kite?`` becomes ``Pay 12 ...``).

Each start of ``buy``'s body is appended to ``$STARTS`` (a file), so tests see what re-ran.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mcpkit.server import Context, Server, ToolError


@dataclass
class Confirm:
    ok: bool = True


@dataclass
class Address:
    address: str


@dataclass
class Receipt:
    item: str
    paid: int
    address: str


def record(path: str, item: str) -> None:
    """One line per start of ``buy`` (a tiny append: no need for a thread)."""
    with open(path, "a", encoding="utf-8") as log:
        log.write(f"{item}\n")


def build(price: int, starts: str | None = None) -> Server:
    """The shop at ``price``; ``starts`` names a file each start of ``buy`` is appended to."""
    server = Server("shop", "1.0.0")

    @server.tool
    async def buy(item: str, ctx: Context) -> Receipt:
        """Asks to confirm the price, then where to send the item."""
        if starts:
            record(starts, item)
        consent = await ctx.elicit(f"Pay {price} for a {item}?", Confirm)
        if not consent.accepted or consent.content is None or not consent.content.ok:
            raise ToolError("not bought")
        where = await ctx.elicit("Where to?", Address)
        if not where.accepted or where.content is None:
            raise ToolError("not sent")
        return Receipt(item, price, where.content.address)

    return server


if __name__ == "__main__":
    build(int(os.environ.get("PRICE", "10")), os.environ.get("STARTS")).run()
