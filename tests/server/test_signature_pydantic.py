"""Signatures that use pydantic models and ``pydantic.Field`` (the ``pydantic`` extra)."""

import dataclasses
import enum
import json
from typing import Annotated, Any

import annotated_types as at
import jsonschema
import pytest

from mcpkit.server._signature import (
    ArgumentError,
    InvalidToolOutput,
    ToolSignature,
    analyze_function,
)

pydantic = pytest.importorskip("pydantic")


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Point:
    x: int


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


class Address(pydantic.BaseModel):
    """Where."""

    city: str
    zip_code: str = pydantic.Field(pattern=r"^\d{5}$")


class Person(pydantic.BaseModel):
    name: str
    age: int = pydantic.Field(ge=0, description="Years")
    address: Address | None = None


def test_pydantic_model_parameters() -> None:
    def tool(person: Person, note: str = "") -> Person:
        return person

    sig = analyze(tool)
    person = props(sig)["person"]
    assert person["type"] == "object" and person["required"] == ["name", "age"]
    assert person["properties"]["age"]["minimum"] == 0
    assert person["properties"]["address"]["anyOf"][0] == {"$ref": "#/$defs/Address"}
    assert "Address" in sig.input_schema["$defs"]
    got = sig.validate_arguments({"person": {"name": "Ann", "age": 3}})
    assert isinstance(got["person"], Person) and got["person"].age == 3
    err = error_of(sig, {"person": {"name": "Ann", "age": -1}})
    assert err.path == "person.age"
    assert err.message.startswith("Invalid arguments: `person.age`: input should be greater")
    bad_zip = {"name": "A", "age": 1, "address": {"city": "c", "zip_code": "x"}}
    err = error_of(sig, {"person": bad_zip})
    assert err.path == "person.address.zip_code"
    assert error_of(sig, {"note": ""}).path == "person"  # missing is still msgspec's check


def test_pydantic_output_is_validated_and_dumped() -> None:
    def tool() -> Person:
        return Person(name="a", age=1)

    sig = analyze(tool)
    assert sig.output_schema is not None and not sig.output_wrapped
    structured, text = sig.serialize_output(Person(name="a", age=1))
    assert structured == {"name": "a", "age": 1, "address": None}
    assert json.loads(text) == structured
    with pytest.raises(InvalidToolOutput):
        sig.serialize_output({"name": "a", "age": -5})


def test_pydantic_field_in_annotated_and_as_default() -> None:
    from pydantic import Field

    def tool(
        a: Annotated[int, Field(ge=1, le=3, description="one to three")],
        b: str = Field("zz", max_length=2, description="short"),
        c: list[int] = Field(default_factory=list),
    ) -> None: ...

    sig = analyze(tool)
    p = props(sig)
    assert p["a"] == {"type": "integer", "minimum": 1, "maximum": 3, "description": "one to three"}
    assert p["b"] == {"type": "string", "maxLength": 2, "description": "short", "default": "zz"}
    assert sig.validate_arguments({"a": 2}) == {"a": 2, "b": "zz", "c": []}
    assert error_of(sig, {"a": 4}).path == "a"
    assert error_of(sig, {"a": 1, "b": "long"}).path == "b"


def test_list_of_pydantic_models_output_is_wrapped() -> None:
    def tool() -> list[Address]:
        return []

    sig = analyze(tool)
    assert sig.output_wrapped
    structured, _ = sig.serialize_output([Address(city="c", zip_code="12345")])
    assert structured == {"result": [{"city": "c", "zip_code": "12345"}]}


def test_valid_arguments_satisfy_the_published_schema() -> None:
    def tool(
        count: Annotated[int, at.Ge(1)],
        color: Color = Color.RED,
        p: Point | None = None,
        person: Person | None = None,
    ) -> None: ...

    sig = analyze(tool)
    validator = jsonschema.Draft202012Validator(sig.input_schema)
    good = {"count": 2, "color": "blue", "p": {"x": 1}, "person": {"name": "a", "age": 2}}
    validator.validate(good)
    sig.validate_arguments(good)
    for bad in ({"count": 0}, {"count": 1, "extra": 1}, {}, {"count": 1, "color": "green"}):
        assert not validator.is_valid(bad)
        with pytest.raises(ArgumentError):
            sig.validate_arguments(bad)
