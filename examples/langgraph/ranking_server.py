"""Ranking: orders candidate products for a user (budget, stock), and explains a choice by
asking the client's model (sampling). Run: ``python examples/langgraph/ranking_server.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from _serve import main, versions

from mcpkit.server import Context, Server, ToolError


@dataclass
class Candidate:
    id: str
    price: float
    stock: int = 0


@dataclass
class Ranked:
    id: str
    score: float
    reason: str


def build(legacy_only: bool = False) -> Server:
    server = Server("ranking", "1.0.0", supported_versions=versions(legacy_only))

    @server.tool(read_only=True)
    def rank(budget: float, candidates: list[Candidate]) -> list[Ranked]:
        """Rank candidates for a budget (CNY): in stock and affordable first, then by price
        closest to the budget."""
        if not candidates:
            raise ToolError("no candidates to rank: search the catalogue first")
        ranked = []
        for c in candidates:
            affordable = c.price <= budget
            score = (2.0 if c.stock > 0 else 0.0) + (1.0 if affordable else 0.0)
            score += 1.0 - min(abs(budget - c.price) / max(budget, 1.0), 1.0)
            reason = ("in stock" if c.stock > 0 else "out of stock") + (
                ", within budget" if affordable else ", over budget"
            )
            ranked.append(Ranked(c.id, round(score, 3), reason))
        return sorted(ranked, key=lambda r: -r.score)

    @server.tool(read_only=True)
    async def explain(product_id: str, ctx: Context) -> str:
        """One sentence on why a product fits, written by the client's model (sampling)."""
        answer = await ctx.sample(
            f"In one sentence, why is {product_id} a good running shoe?", max_tokens=60
        )
        return str(getattr(answer.content, "text", ""))

    return server


if __name__ == "__main__":
    main(build)
