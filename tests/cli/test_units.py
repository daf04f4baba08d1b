"""The pieces behind the commands: argument typing, tables, progress, terminal questions."""

from __future__ import annotations

import io
from typing import Any

import pytest

from mcpkit.cli._arguments import parse_assignments, parse_string_assignments
from mcpkit.cli._elicit import TerminalElicitation
from mcpkit.cli._errors import CliError
from mcpkit.cli._progress import ProgressBar
from mcpkit.cli._render import render_table
from mcpkit.client import QuestionContext

SCHEMA = {
    "type": "object",
    "properties": {
        "zip": {"type": "string"},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "on": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "label": {"type": ["string", "null"]},
        "mode": {"enum": ["fast", "slow"]},
    },
}


def test_values_follow_the_schema() -> None:
    parsed = parse_assignments(
        ["zip=01234", "count=3", "ratio=0.5", "on=yes", 'tags=["a","b"]', "maybe=null",
         "label=123", "mode=fast", "extra=[1]", "other=plain words", "raw:=\"01\""],
        SCHEMA,
    )  # fmt: skip
    assert parsed == {
        "zip": "01234", "count": 3, "ratio": 0.5, "on": True, "tags": ["a", "b"],
        "maybe": None, "label": "123", "mode": "fast", "extra": [1], "other": "plain words",
        "raw": "01",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("count=3.5x", "Invalid arguments: `count`: expected an integer, got '3.5x'"),
        ("on=maybe", "Invalid arguments: `on`: expected a boolean (true or false), got 'maybe'"),
        ("tags=a,b", "Invalid arguments: `tags`: expected an array, got 'a,b'"),
        ("=5", "has no name before '='"),
        ("raw:=[1", "argument raw:= is not valid JSON"),
    ],
)
def test_bad_values_name_the_argument(item: str, message: str) -> None:
    with pytest.raises(CliError) as caught:
        parse_assignments([item], SCHEMA)
    assert message in caught.value.message
    assert caught.value.code == 2


def test_prompt_arguments_stay_strings() -> None:
    assert parse_string_assignments(["n=5", "code=a = b"]) == {"n": "5", "code": "a = b"}
    with pytest.raises(CliError):
        parse_string_assignments(["n:=5"])


def test_tables_align_wide_characters_and_cut_long_cells() -> None:
    out = io.StringIO()
    render_table(("NAME", "NOTE"), [("跑步鞋", "x" * 100), ("shoe", None)], stream=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "NAME    NOTE"
    assert lines[2].startswith("跑步鞋  xxx")  # 3 wide characters take 6 columns
    assert lines[2].endswith("…") and len(lines[2]) == 6 + 2 + 60 - 3  # 60 columns, 3 wide
    assert lines[3] == "shoe"


def test_progress_in_a_pipe_is_one_line_per_update() -> None:
    out = io.StringIO()
    bar = ProgressBar(out)
    bar.update(1, 4, "first")
    bar.update(2.5, None, None)
    bar.close()
    assert out.getvalue() == "progress 1/4 first\nprogress 2.5\n"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_redraws_one_line_and_clears_it() -> None:
    out = _Tty()
    bar = ProgressBar(out)
    bar.update(1, 2, "half")
    bar.close()
    assert out.getvalue() == "\r\x1b[2K[" + "#" * 15 + "." * 15 + "]  50%  half\r\x1b[2K"


class _Params:
    def __init__(self, schema: dict[str, Any], mode: str = "form") -> None:
        self.message = "Book a room?"
        self.mode = mode
        self.requested_schema = schema
        self.url = "https://example.com/pay"


CONTEXT = QuestionContext(
    era="legacy", protocol_version="2025-11-25", server_name="hotel", method="elicitation/create"
)
FORM = {
    "type": "object",
    "properties": {
        "nights": {"type": "integer", "minimum": 1, "default": 2},
        "view": {"type": "string", "enum": ["sea", "city"]},
        "breakfast": {"type": "boolean", "title": "Breakfast included"},
        "note": {"type": "string"},
    },
    "required": ["view", "breakfast"],
}


async def _ask(answers: str, schema: dict[str, Any] = FORM, mode: str = "form") -> tuple[Any, str]:
    err = io.StringIO()
    handler = TerminalElicitation(stdin=io.StringIO(answers), stderr=err)
    result = await handler(_Params(schema, mode), CONTEXT)
    return result, err.getvalue()


async def test_a_form_is_filled_field_by_field_with_defaults_and_retries() -> None:
    result, shown = await _ask("\n0\n\nmountain\nsea\nyes\n\n")
    assert result == {"action": "accept",
                      "content": {"nights": 2, "view": "sea", "breakfast": True}}  # fmt: skip
    assert "hotel asks: Book a room?" in shown
    assert "nights (integer) optional [2]: " in shown
    assert "must be at least 1" in shown
    assert "choose one of: sea, city" in shown
    assert "Breakfast included (boolean): " in shown


async def test_decline_cancel_and_end_of_input() -> None:
    assert (await _ask("d\n"))[0] == {"action": "decline"}
    assert (await _ask("c\n"))[0] == {"action": "cancel"}
    assert (await _ask("a\n2\n"))[0] == {"action": "cancel"}  # input ended mid-form
    assert (await _ask("x\ny\nz\n"))[0] == {"action": "cancel"}  # never a valid choice


async def test_url_mode_shows_the_url() -> None:
    result, shown = await _ask("a\n", mode="url")
    assert result == {"action": "accept"}
    assert "open: https://example.com/pay" in shown
