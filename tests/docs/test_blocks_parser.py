"""The documentation harness's parsing rules (tests/docs/_blocks.py), on small documents."""

from __future__ import annotations

from pathlib import Path

import pytest

from ._blocks import parse_blocks, shell_commands

DOC = Path("doc.md")


def test_language_position_marker_and_save_as() -> None:
    text = (
        "# Title\n"
        "\n"
        "Save this as `server.py`:\n"
        "\n"
        "```python\n"
        "print('hi')\n"
        "```\n"
        "\n"
        "<!-- no-run: serves forever -->\n"
        "```bash\n"
        "mcpkit run server.py --http\n"
        "```\n"
        "```\n"
        "plain\n"
        "```\n"
    )
    first, second, third = parse_blocks(DOC, text)
    assert (first.line, first.language, first.text) == (5, "python", "print('hi')\n")
    assert (first.save_as, first.no_run) == ("server.py", None)
    assert (second.line, second.language, second.no_run, second.save_as) == (
        10, "bash", "serves forever", None,
    )  # fmt: skip
    assert (third.language, third.text) == ("", "plain\n")


def test_save_as_may_wrap_inside_the_paragraph_just_above() -> None:
    text = "Intro.\n\nOn Linux, save this as\n`~/.config/x.json` (or not):\n```json\n{}\n```\n"
    (block,) = parse_blocks(DOC, text)
    assert block.save_as == "~/.config/x.json"


def test_save_as_must_be_in_the_paragraph_just_above() -> None:
    text = "Save this as `a.py`:\n\nSomething else entirely.\n\n```python\npass\n```\n"
    (block,) = parse_blocks(DOC, text)
    assert block.save_as is None


def test_a_save_as_sentence_above_a_marker_still_counts() -> None:
    text = "Save it as `a.json`:\n<!-- no-run: example only -->\n```json\n{}\n```\n"
    (block,) = parse_blocks(DOC, text)
    assert (block.save_as, block.no_run) == ("a.json", "example only")


def test_indented_blocks_in_list_items_are_dedented() -> None:
    text = '- item:\n\n  ```json\n  {"a": 1}\n  ```\n'
    (block,) = parse_blocks(DOC, text)
    assert block.text == '{"a": 1}\n'


def test_longer_fences_hold_shorter_ones() -> None:
    text = "````markdown\n```python\nx\n```\n````\n"
    (block,) = parse_blocks(DOC, text)
    assert block.language == "markdown"
    assert block.text == "```python\nx\n```\n"


def test_an_unclosed_fence_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"doc\.md:2: .* never closed"):
        parse_blocks(DOC, "text\n```python\nx = 1\n")


def test_shell_commands_skip_comments_and_join_continuations() -> None:
    text = "```bash\n# setup\nmcpkit call a.py \\\n  t x=1   # prints 1\n\nmcpkit list a.py\n```\n"
    (block,) = parse_blocks(DOC, text)
    assert shell_commands(block) == ["mcpkit call a.py    t x=1   # prints 1", "mcpkit list a.py"]


def test_console_blocks_with_prompts_run_only_the_prompted_lines() -> None:
    text = "```console\n$ mcpkit call a.py t\nHello\n$ echo done\ndone\n```\n"
    (block,) = parse_blocks(DOC, text)
    assert shell_commands(block) == ["mcpkit call a.py t", "echo done"]
