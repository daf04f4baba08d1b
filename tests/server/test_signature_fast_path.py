"""The cheap registration paths give exactly what the general ones give.

Registering a tool reads its signature without ``inspect.signature`` (plain functions) and takes
the schema of plain parameter types from a table instead of msgspec's generator (see
``mcpkit.server._schema.reflect`` and ``_plain_schemas`` in ``signature.py``). Both are
shortcuts for speed: these tests hold them to the general path's results, so a msgspec upgrade
that changes its output, or a signature shape the reader gets wrong, fails here.
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Any, Union

import msgspec
import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server._schema.jsonschema import msgspec_schema
from mcpkit.server._schema.reflect import Param, read_signature
from mcpkit.server._schema.signature import _PLAIN_SCHEMAS, analyze_function


@pytest.mark.parametrize("tp", list(_PLAIN_SCHEMAS), ids=repr)
def test_plain_table_matches_msgspec_for_required_and_optional(tp: Any) -> None:
    fields: list[Any] = [("a", tp), ("b", Union[tp, msgspec.UnsetType], msgspec.UNSET)]  # noqa: UP007
    struct = msgspec.defstruct("T", fields, forbid_unknown_fields=True)
    root, defs = msgspec_schema(struct)
    assert defs == {}
    expected = msgspec.json.decode(_PLAIN_SCHEMAS[tp])
    assert root["properties"] == {"a": expected, "b": expected}


def test_plain_tool_schema_and_validation_match_the_general_path() -> None:
    async def plain(
        city: str, days: int = 3, ratio: float | None = None, tags: list[str] | None = None
    ) -> str:
        return city

    async def general(  # one parameter outside the table forces msgspec's generator
        city: str,
        days: int = 3,
        ratio: float | None = None,
        tags: list[str] | None = None,
        extra: tuple[int, int] = (0, 0),
    ) -> str:
        return city

    fast = analyze_function(plain)
    slow = analyze_function(general)
    slow_props = dict(slow.input_schema["properties"])
    del slow_props["extra"]
    assert fast.input_schema["properties"] == slow_props
    assert fast.input_schema["required"] == ["city"]
    assert fast.validate_arguments({"city": "Oslo", "ratio": 2}) == {"city": "Oslo", "ratio": 2}
    with pytest.raises(Exception, match="days"):
        fast.validate_arguments({"city": "Oslo", "days": "3"})
    with pytest.raises(Exception, match="unknown"):
        fast.validate_arguments({"city": "Oslo", "unknown": 1})
    again = analyze_function(plain)  # each tool owns its schema: no nested object is shared
    assert (
        again.input_schema["properties"]["tags"]["anyOf"][0]
        is not (fast.input_schema["properties"]["tags"]["anyOf"][0])
    )


def _reference(fn: Any) -> tuple[list[Param], Any]:
    sig = inspect.signature(fn, eval_str=True)
    params = [Param(p.name, p.kind, p.default, p.annotation) for p in sig.parameters.values()]
    return params, sig.return_annotation


def _every_shape(
    a: int, /, b: str, c: float = 1.5, *rest: int, d: bool, e: str | None = None, **kw: Any
) -> list[int]:
    return []


def _unannotated(x, y=2):  # type: ignore[no-untyped-def]
    return x


def _string_annotations(x: "typing.Annotated[int, 'n']", y: "dict[str, Any]") -> "str":  # noqa: UP037
    return ""


class _Holder:
    def method(self, x: int) -> int:
        return x


@functools.wraps(_every_shape)
def _wrapped(*args: Any, **kwargs: Any) -> Any:
    return None


@pytest.mark.parametrize(
    "fn",
    [
        _every_shape,
        _unannotated,
        _string_annotations,
        _Holder().method,
        functools.partial(_every_shape, 1),
        _wrapped,
        lambda: None,
    ],
    ids=["every-shape", "unannotated", "strings", "bound", "partial", "wrapped", "lambda"],
)
def test_read_signature_agrees_with_inspect(fn: Any) -> None:
    assert read_signature(fn) == _reference(fn)


def test_unresolvable_string_annotation_is_a_usage_error() -> None:
    def broken(x: NoSuchName) -> str:  # type: ignore[name-defined]  # noqa: F821
        return ""

    with pytest.raises(UsageError, match="cannot resolve a type annotation"):
        analyze_function(broken)
