"""Schemas and validators derived from tool function signatures."""

import dataclasses
import datetime
import enum
import json
import subprocess
import sys
import textwrap
from typing import Annotated, Any, Literal, NotRequired, Optional, TypedDict

import annotated_types as at
import jsonschema
import msgspec
import pytest

from mcpkit.protocol._errors import INTERNAL_ERROR, INVALID_PARAMS, UsageError
from mcpkit.server._signature import (
    ArgumentError,
    InvalidToolOutput,
    ToolSignature,
    analyze_function,
    inline_refs,
    parse_docstring,
)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0


class Movie(TypedDict):
    title: str
    year: int


class Partial(TypedDict, total=False):
    a: int
    b: str


class Mixed(TypedDict):
    must: int
    may: NotRequired[str]


class Item(msgspec.Struct):
    """An item."""

    name: str
    qty: Annotated[int, msgspec.Meta(ge=0)] = 0


@dataclasses.dataclass
class Node:
    value: int
    children: "list[Node]" = dataclasses.field(default_factory=list)


class Context:
    """Stands in for the server's Context class (recognised by a predicate)."""


def analyze(fn: Any, **kw: Any) -> ToolSignature:
    sig = analyze_function(fn, **kw)
    jsonschema.Draft202012Validator.check_schema(sig.input_schema)
    if sig.output_schema is not None:
        jsonschema.Draft202012Validator.check_schema(sig.output_schema)
    return sig


def props(sig: ToolSignature) -> dict[str, Any]:
    result: dict[str, Any] = sig.input_schema["properties"]
    return result


def error_of(sig: ToolSignature, args: Any) -> ArgumentError:
    with pytest.raises(ArgumentError) as info:
        sig.validate_arguments(args)
    return info.value


# -- input schema --------------------------------------------------------------------------------


def test_scalars_required_defaults_and_object_root() -> None:
    def tool(a: str, b: int, c: float, d: bool, e: None = None, f: int = 3) -> None: ...

    sig = analyze(tool)
    assert sig.input_schema["type"] == "object"
    assert sig.input_schema["additionalProperties"] is False
    assert sig.input_schema["required"] == ["a", "b", "c", "d"]
    p = props(sig)
    assert p["a"] == {"type": "string"}
    assert p["b"] == {"type": "integer"}
    assert p["c"] == {"type": "number"}
    assert p["d"] == {"type": "boolean"}
    assert p["e"] == {"type": "null", "default": None}
    assert p["f"] == {"type": "integer", "default": 3}
    assert sig.parameters == ("a", "b", "c", "d", "e", "f")


def test_no_parameters_gives_an_empty_object_schema() -> None:
    def tool() -> str:
        return "x"

    sig = analyze(tool)
    assert sig.input_schema == {
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": False,
    }
    assert sig.validate_arguments(None) == {}
    assert sig.validate_arguments({}) == {}


def test_optional_union_literal_enum() -> None:
    def tool(
        a: Optional[int],  # noqa: UP045 - the typing spelling is what is under test
        b: int | str,
        c: Literal["x", "y"],
        d: Color = Color.BLUE,
    ) -> None: ...

    sig = analyze(tool)
    p = props(sig)
    assert p["a"] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert {"type": "integer"} in p["b"]["anyOf"] and {"type": "string"} in p["b"]["anyOf"]
    assert p["c"] == {"enum": ["x", "y"]}
    assert p["d"] == {"$ref": "#/$defs/Color", "default": "blue"}
    assert sorted(sig.input_schema["$defs"]["Color"]["enum"]) == ["blue", "red"]
    assert sig.validate_arguments({"a": None, "b": "s", "c": "y", "d": "red"}) == {
        "a": None,
        "b": "s",
        "c": "y",
        "d": Color.RED,
    }


def test_containers() -> None:
    def tool(
        a: list[str], b: tuple[int, str], c: set[int], d: dict[str, float], e: tuple[int, ...]
    ) -> None: ...

    sig = analyze(tool)
    p = props(sig)
    assert p["a"] == {"type": "array", "items": {"type": "string"}}
    assert p["b"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert p["c"] == {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}
    assert p["d"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert p["e"] == {"type": "array", "items": {"type": "integer"}}
    got = sig.validate_arguments({"a": ["x"], "b": [1, "s"], "c": [1, 2], "d": {"k": 1}, "e": []})
    assert got == {"a": ["x"], "b": (1, "s"), "c": {1, 2}, "d": {"k": 1.0}, "e": ()}


def test_dataclass_typeddict_struct_become_defs_and_instances() -> None:
    def tool(p: Point, m: Movie, part: Partial, mixed: Mixed, item: Item) -> None: ...

    sig = analyze(tool)
    defs = sig.input_schema["$defs"]
    assert props(sig)["p"] == {"$ref": "#/$defs/Point"}
    assert defs["Point"]["required"] == ["x"]
    assert defs["Movie"]["required"] == ["title", "year"]
    assert "required" not in defs["Partial"] or defs["Partial"]["required"] == []
    assert defs["Mixed"]["required"] == ["must"]
    assert defs["Item"]["description"] == "An item."
    assert defs["Item"]["properties"]["qty"]["minimum"] == 0
    got = sig.validate_arguments(
        {
            "p": {"x": 1},
            "m": {"title": "T", "year": 1999},
            "part": {"b": "x"},
            "mixed": {"must": 1},
            "item": {"name": "n"},
        }
    )
    assert got["p"] == Point(1, 0)
    assert got["m"] == {"title": "T", "year": 1999}
    assert got["part"] == {"b": "x"}
    assert got["item"] == Item("n", 0)
    assert error_of(sig, {**_good_nested(), "item": {"name": "n", "qty": -1}}).path == "item.qty"
    assert error_of(sig, {**_good_nested(), "mixed": {}}).path == "mixed.must"


def _good_nested() -> dict[str, Any]:
    return {
        "p": {"x": 1},
        "m": {"title": "T", "year": 1},
        "part": {},
        "mixed": {"must": 1},
        "item": {"name": "n"},
    }


def test_datetime_and_bytes_parameters_convert_from_strings() -> None:
    def tool(when: datetime.date, blob: bytes) -> None: ...

    sig = analyze(tool)
    got = sig.validate_arguments({"when": "2024-02-29", "blob": "aGk="})
    assert got == {"when": datetime.date(2024, 2, 29), "blob": b"hi"}
    assert error_of(sig, {"when": "2024-13-01", "blob": ""}).path == "when"


def test_annotated_descriptions_and_constraints() -> None:
    def tool(
        a: Annotated[int, "How many", at.Ge(1), at.Le(10)],
        b: Annotated[str, at.MinLen(2), at.MaxLen(4)],
        c: Annotated[float, at.Gt(0), at.Lt(1)],
        d: Annotated[list[int], at.Len(1, 2)],
        e: Annotated[str, msgspec.Meta(pattern="^[a-z]+$", description="lower")],
        f: Annotated[int, at.Interval(ge=5, lt=7)] = 5,
        g: list[Annotated[int, at.Ge(0)]] | None = None,
    ) -> None: ...

    sig = analyze(tool)
    p = props(sig)
    assert p["a"] == {"type": "integer", "minimum": 1, "maximum": 10, "description": "How many"}
    assert p["b"] == {"type": "string", "minLength": 2, "maxLength": 4}
    assert p["c"] == {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}
    assert (p["d"]["minItems"], p["d"]["maxItems"]) == (1, 2)
    assert p["e"]["pattern"] == "^[a-z]+$" and p["e"]["description"] == "lower"
    assert (p["f"]["minimum"], p["f"]["exclusiveMaximum"]) == (5, 7)
    good = {"a": 1, "b": "xy", "c": 0.5, "d": [1], "e": "abc"}
    assert sig.validate_arguments(good) == good
    cases = {
        "a": (11, "`a`: expected an integer <= 10"),
        "b": ("x", "`b`: expected a string of length >= 2"),
        "c": (1.0, "`c`: expected a number < 1.0"),
        "d": ([], "`d`: expected an array of length >= 1"),
        "e": ("ABC", "`e`: expected a string matching regex '^[a-z]+$'"),
        "f": (7, "`f`: expected an integer <= 6"),
        "g": ([1, -1], "`g[1]`: expected an integer >= 0"),
    }
    for name, (value, message) in cases.items():
        err = error_of(sig, {**good, name: value})
        assert err.message == f"Invalid arguments: {message}", name
        assert err.code == INVALID_PARAMS


def test_unsupported_annotated_types_constraint_is_a_usage_error() -> None:
    def tool(a: Annotated[int, at.Predicate(lambda v: v > 0)]) -> None: ...

    with pytest.raises(UsageError, match="Predicate"):
        analyze_function(tool)


def test_constraint_on_the_wrong_type_is_a_usage_error() -> None:
    def tool(a: Annotated[str, at.Ge(1)]) -> None: ...

    with pytest.raises(UsageError, match="parameter 'a'"):
        analyze_function(tool)


@pytest.mark.parametrize(
    "doc",
    [
        """Summary line.

        More prose.

        Args:
            a (int): The first
                number.
            b: The second.

        Returns:
            Nothing.
        """,
        """Summary line.

        More prose.

        Parameters
        ----------
        a : int
            The first
            number.
        b : str
            The second.

        Returns
        -------
        None
        """,
        """Summary line.

        More prose.

        :param int a: The first
            number.
        :param b: The second.
        :type b: str
        :returns: nothing
        """,
    ],
    ids=["google", "numpy", "sphinx"],
)
def test_docstring_styles_feed_descriptions(doc: str) -> None:
    def tool(a: int, b: str) -> None: ...

    tool.__doc__ = doc
    sig = analyze(tool)
    assert props(sig)["a"]["description"] == "The first number."
    assert props(sig)["b"]["description"] == "The second."
    assert sig.description == "Summary line.\n\nMore prose."


def test_annotated_description_wins_over_docstring() -> None:
    def tool(a: Annotated[int, "from annotation"]) -> None:
        """Do it.

        Args:
            a: from docstring
        """

    assert props(analyze(tool))["a"]["description"] == "from annotation"


def test_parse_docstring_without_sections() -> None:
    parsed = parse_docstring("  Just prose.\n\n  Two paragraphs. ")
    assert parsed.summary == "Just prose.\n\nTwo paragraphs."
    assert parsed.params == {}
    assert parse_docstring(None).summary is None


def test_unannotated_parameter_accepts_any_json() -> None:
    def tool(a, b=1):  # type: ignore[no-untyped-def]
        ...

    sig = analyze(tool)
    assert props(sig)["a"] == {}
    assert sig.validate_arguments({"a": [1, {"x": None}]}) == {"a": [1, {"x": None}]}


# -- validation ----------------------------------------------------------------------------------


def test_missing_required_argument_is_named() -> None:
    def tool(count: int, name: str = "x") -> None: ...

    err = error_of(analyze(tool), {"name": "y"})
    assert err.message == "Invalid arguments: `count`: required argument is missing"
    assert err.path == "count"
    assert err.data == {"fields": ["count"]}


def test_unknown_argument_is_rejected_and_named() -> None:
    def tool(count: int) -> None: ...

    err = error_of(analyze(tool), {"count": 1, "cuont": 2})
    assert err.message == "Invalid arguments: `cuont`: unknown argument (expected one of: count)"


def test_wrong_type_is_named_with_plain_words() -> None:
    def tool(count: int, flag: bool = False) -> None: ...

    sig = analyze(tool)
    assert (
        error_of(sig, {"count": "3"}).message
        == "Invalid arguments: `count`: expected an integer, got a string"
    )
    assert error_of(sig, {"count": 1.5}).path == "count"
    assert error_of(sig, {"count": 1, "flag": "true"}).path == "flag"
    assert error_of(sig, ["not", "an", "object"]).message == (
        "Invalid arguments: expected an object, got an array"
    )


def test_numbers_ints_accepted_for_floats_but_strings_never_coerced() -> None:
    def tool(x: float) -> None: ...

    sig = analyze(tool)
    got = sig.validate_arguments({"x": 2})
    assert got == {"x": 2.0} and isinstance(got["x"], float)
    with pytest.raises(ArgumentError):
        sig.validate_arguments({"x": "2.5"})


def test_coerce_strings_for_prompt_style_arguments() -> None:
    def prompt(n: int, flag: bool = False) -> str:
        return ""

    sig = analyze(prompt, coerce_strings=True)
    assert sig.validate_arguments({"n": "5", "flag": "true"}) == {"n": 5, "flag": True}


def test_enum_error_lists_allowed_values() -> None:
    def tool(color: Color) -> None: ...

    err = error_of(analyze(tool), {"color": "green"})
    assert err.message == (
        "Invalid arguments: `color`: invalid enum value 'green' (expected one of: 'blue', 'red')"
    )


def test_nested_path_in_lists_and_dataclasses() -> None:
    def tool(points: list[Point]) -> None: ...

    err = error_of(analyze(tool), {"points": [{"x": 1}, {"x": "a"}]})
    assert err.message == "Invalid arguments: `points[1].x`: expected an integer, got a string"


def test_omitted_optional_arguments_use_python_defaults() -> None:
    calls: list[Any] = []

    def tool(items: list[int] | None = None, n: int = 4) -> None:
        calls.append((items, n))

    sig = analyze(tool)
    kwargs = sig.validate_arguments({})
    assert kwargs == {}
    tool(**kwargs)
    assert calls == [(None, 4)]


def test_argument_error_is_invalid_params_subclass() -> None:
    from mcpkit.protocol._errors import InvalidParams

    assert issubclass(ArgumentError, InvalidParams)


def test_many_problems_are_capped() -> None:
    err = ArgumentError([(f"f{i}", "bad") for i in range(9)])
    assert err.message.endswith("and 4 more")


# -- injection and usage errors ------------------------------------------------------------------


def is_context(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Context)


def test_injected_parameters_are_left_out_of_the_schema() -> None:
    def tool(a: int, ctx: Context, maybe: Context | None = None) -> None: ...

    sig = analyze(tool, skip_params=is_context)
    assert sig.injected == ("ctx", "maybe")
    assert list(props(sig)) == ["a"]
    assert error_of(sig, {"a": 1, "ctx": {}}).path == "ctx"
    assert sig.validate_arguments({"a": 1}) == {"a": 1}


def test_methods_and_async_functions() -> None:
    class Tools:
        async def run(self, n: int) -> int:
            return n

    sig = analyze(Tools().run)
    assert sig.parameters == ("n",)
    assert sig.output_wrapped


@pytest.mark.parametrize(
    ("source", "match"),
    [
        ("def f(*args: int) -> None: ...", r"\*args"),
        ("def f(**kw: int) -> None: ...", r"\*\*kwargs"),
        ("def f(a: int, /) -> None: ...", "positional-only"),
        ("def f(a: 'Missing') -> None: ...", "cannot resolve"),
        ("class C: pass\ndef f(a: C) -> None: ...", "cannot be converted from JSON"),
        ("def f(a: P | Item) -> None: ...", "not supported"),
    ],
)
def test_unusable_signatures_are_usage_errors(source: str, match: str) -> None:
    namespace: dict[str, Any] = {"P": Point, "Item": Item}
    exec(source, namespace)
    with pytest.raises(UsageError, match=match):
        analyze_function(namespace["f"])


# -- $ref handling -------------------------------------------------------------------------------


def test_ref_free_inlines_definitions() -> None:
    def tool(p: Point, c: Color) -> Point:
        return p

    sig = analyze(tool, ref_free=True)
    assert "$defs" not in sig.input_schema
    assert "$ref" not in json.dumps(sig.input_schema)
    assert props(sig)["p"]["properties"]["x"] == {"type": "integer"}
    assert sig.output_schema is not None and "$ref" not in json.dumps(sig.output_schema)


def test_recursive_types_keep_refs_and_refuse_ref_free() -> None:
    def tool(tree: Node) -> None: ...

    sig = analyze(tool)
    node = sig.input_schema["$defs"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert sig.validate_arguments({"tree": {"value": 1, "children": [{"value": 2}]}}) == {
        "tree": Node(1, [Node(2, [])])
    }
    with pytest.raises(UsageError, match="recursive"):
        analyze_function(tool, ref_free=True)


def test_inline_refs_rejects_non_local_refs() -> None:
    with pytest.raises(UsageError, match="not a local"):
        inline_refs({"$ref": "https://example.com/schema.json"})


# -- output --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "annotation", [str, None, Any, "absent"], ids=["str", "None", "Any", "absent"]
)
def test_text_like_returns_have_no_output_schema(annotation: Any) -> None:
    def tool() -> None: ...

    if annotation == "absent":
        del tool.__annotations__["return"]
    else:
        tool.__annotations__["return"] = annotation
    sig = analyze(tool)
    assert sig.output_schema is None and not sig.output_wrapped
    assert sig.serialize_output("hi") == (None, "hi")
    assert sig.serialize_output(None) == (None, "")
    assert sig.serialize_output({"a": 1}) == (None, '{"a":1}')


def test_content_returns_recognised_by_predicate_have_no_output_schema() -> None:
    class TextBlock(dict[str, Any]):
        pass

    def tool() -> list[TextBlock]:
        return []

    sig = analyze(tool, is_content=lambda t: t is TextBlock)
    assert sig.output_schema is None


def test_object_returns_are_not_wrapped() -> None:
    def tool() -> Point:
        return Point(1, 2)

    sig = analyze(tool)
    assert not sig.output_wrapped
    assert sig.output_schema is not None
    assert sig.output_schema["type"] == "object"
    assert sig.output_schema["required"] == ["x"]
    assert sig.serialize_output(Point(1, 2)) == ({"x": 1, "y": 2}, '{"x":1,"y":2}')


@pytest.mark.parametrize(
    ("annotation", "value", "structured", "text"),
    [
        (int, 5, {"result": 5}, "5"),
        (list[str], ["a", "b"], {"result": ["a", "b"]}, '["a","b"]'),
        (Point | None, None, {"result": None}, "null"),
        (Color, Color.RED, {"result": "red"}, '"red"'),
    ],
)
def test_non_object_returns_are_wrapped(
    annotation: Any, value: Any, structured: Any, text: str
) -> None:
    def tool() -> None: ...

    tool.__annotations__["return"] = annotation
    sig = analyze(tool)
    assert sig.output_wrapped
    assert sig.output_schema is not None
    assert sig.output_schema["type"] == "object"
    assert sig.output_schema["required"] == ["result"]
    assert sig.serialize_output(value) == (structured, text)
    jsonschema.validate(structured, sig.output_schema)


def test_dict_and_typeddict_returns_are_objects() -> None:
    def a() -> dict[str, int]:
        return {}

    def b() -> Movie:
        return {"title": "t", "year": 1}

    assert not analyze(a).output_wrapped
    sig = analyze(b)
    assert not sig.output_wrapped
    assert sig.serialize_output({"title": "t", "year": 1})[0] == {"title": "t", "year": 1}


def test_wrong_output_shape_is_a_clear_internal_error() -> None:
    def tool() -> Point:
        return Point(1, 2)

    sig = analyze(tool)
    with pytest.raises(InvalidToolOutput) as info:
        sig.serialize_output({"x": "one"})
    assert info.value.code == INTERNAL_ERROR
    assert "tool" in info.value.message and "Point" in info.value.message
    with pytest.raises(InvalidToolOutput):
        sig.serialize_output("not a point")


def test_output_constraints_are_checked() -> None:
    def tool() -> Annotated[int, at.Ge(0)]:
        return 1

    sig = analyze(tool)
    assert sig.serialize_output(3) == ({"result": 3}, "3")
    with pytest.raises(InvalidToolOutput):
        sig.serialize_output(-1)


def test_output_datetime_and_struct_serialise_to_json_builtins() -> None:
    def tool() -> list[Item]:
        return []

    sig = analyze(tool)
    structured, text = sig.serialize_output([Item("a", 2)])
    assert structured == {"result": [{"name": "a", "qty": 2}]}
    assert json.loads(text) == [{"name": "a", "qty": 2}]


# -- pydantic --------------------------------------------------------------------------------------


def test_pydantic_is_not_imported_for_plain_signatures() -> None:
    code = textwrap.dedent(
        """
        import sys, dataclasses
        from typing import Annotated
        from mcpkit.server._signature import analyze_function
        @dataclasses.dataclass
        class P:
            x: int
        def tool(a: Annotated[int, "n"], p: P) -> P:
            return p
        sig = analyze_function(tool)
        sig.validate_arguments({"a": 1, "p": {"x": 1}})
        sig.serialize_output(P(1))
        print("pydantic" in sys.modules)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "False"
