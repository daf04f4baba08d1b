"""``mcpkit call``: typed arguments, results, tool errors, progress and terminal elicitation."""

from __future__ import annotations

import json

import pytest

from ._run import mcpkit

SHOP = "examples/shop_server.py"
HANGING = "tests/cli/fixtures/hanging_server.py"


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_searching_running_shoes_in_chinese_finds_the_nike_air_max_at_899(era: str) -> None:
    ran = mcpkit("call", SHOP, "search_products", "query=跑步鞋", "limit=1", "--era", era)
    assert ran.code == 0, ran
    products = json.loads(ran.out)
    assert [(p["name"], p["price"]) for p in products] == [("Nike Air Max", 899.0)]


def test_values_are_typed_by_the_schema_and_json_arguments_merge() -> None:
    ran = mcpkit(
        "call", SHOP, "search_products", "--json", '{"query": "running shoes"}',
        "max_price=1000", "--structured",
    )  # fmt: skip
    assert ran.code == 0, ran
    structured = json.loads(ran.out)
    assert [p["id"] for p in structured["result"]] == ["nike-air-max"]


def test_raw_json_assignment_and_the_whole_result_as_json() -> None:
    ran = mcpkit("call", SHOP, "get_product", 'product_id:="asics-gel-kayano"', "--output-json")
    assert ran.code == 0, ran
    result = json.loads(ran.out)
    assert result["structuredContent"]["price"] == 1099.0
    assert result["content"][0]["type"] == "text"


def test_a_tool_error_prints_its_message_and_exits_1() -> None:
    ran = mcpkit("call", SHOP, "get_product", "product_id=no-such-thing")
    assert ran.code == 1, ran
    assert ran.out == ""
    assert "no product with id 'no-such-thing'" in ran.err
    assert "mcpkit: the tool 'get_product' reported an error" in ran.err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--json", "{bad"], "--json is not valid JSON: Expecting property name"),
        (["--json", "[1, 2]"], "--json must be a JSON object, not list"),
        (["query=x", "limit=many"], "Invalid arguments: `limit`: expected an integer, got 'many'"),
        (["query"], "argument 'query' is not key=value"),
        (["max_price=5"], "Invalid arguments: `query`: required argument is missing"),
        (["query=a", "query=b"], "argument query is given twice"),
    ],
)
def test_bad_arguments_are_usage_errors_before_anything_is_called(
    arguments: list[str], message: str
) -> None:
    ran = mcpkit("call", SHOP, "search_products", *arguments)
    assert ran.code == 2, ran
    assert message in ran.err
    assert "hint: " in ran.err


def test_an_unknown_tool_names_the_tools_there_are() -> None:
    ran = mcpkit("call", SHOP, "search")
    assert ran.code == 2, ran
    assert "the server has no tool named 'search'" in ran.err
    assert "hint: its tools: get_product, place_order, search_products" in ran.err


def test_progress_is_drawn_on_stderr_one_line_per_update_when_not_a_terminal() -> None:
    ran = mcpkit("call", HANGING, "steps", "count=3")
    assert ran.code == 0, ran
    assert ran.out.strip() == "did 3 steps"
    progress = [line for line in ran.err.splitlines() if line.startswith("progress ")]
    assert progress == ["progress 1/3 step 1", "progress 2/3 step 2", "progress 3/3 step 3"]


@pytest.mark.parametrize("era", ["auto", "legacy"])
def test_the_servers_question_is_answered_at_the_terminal(era: str) -> None:
    ran = mcpkit(
        "call", SHOP, "place_order", "product_id=nike-air-max", "--era", era,
        stdin="a\n2\nBeijing\n",
    )  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "Order #1: 2 x Nike Air Max to Beijing, 1798 CNY."
    assert "shop asks: Order Nike Air Max at 899 CNY each?" in ran.err
    assert "quantity (integer) optional [1]: " in ran.err
    assert "progress 3/3 confirmed" in ran.err


def test_empty_answers_take_the_defaults_and_bad_ones_are_asked_again() -> None:
    ran = mcpkit(
        "call", SHOP, "place_order", "product_id=nike-air-max", stdin="\nlots\n3\n\n"
    )  # fmt: skip
    assert ran.code == 0, ran
    assert ran.out.strip() == "Order #1: 3 x Nike Air Max to Shanghai, 2697 CNY."
    assert "'lots' is not a whole number" in ran.err


@pytest.mark.parametrize(("flags", "stdin"), [(["--no-input"], ""), ([], "d\n"), ([], "")])
def test_declining_cancelling_or_no_input_ends_the_order(flags: list[str], stdin: str) -> None:
    ran = mcpkit("call", SHOP, "place_order", "product_id=nike-air-max", *flags, stdin=stdin)
    assert ran.code == 0, ran
    assert ran.out.strip() == "Order cancelled."
