# ruff: noqa: E501  (documents written inline read best one object per line)
"""Reading documents: $ref resolution, finite recursive schemas, the OpenAPI 3.0 dialect
translated to JSON Schema 2020-12, tool names, route maps, and malformed documents rejected
with the JSON pointer of the problem."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcpkit.contrib.openapi import OpenAPIError, RouteMap, convert, load_document
from mcpkit.contrib.openapi._naming import MAX_NAME_LENGTH


def doc(
    paths: dict[str, Any], schemas: dict[str, Any] | None = None, version: str = "3.0.3"
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "openapi": version,
        "info": {"title": "t", "version": "1"},
        "paths": paths,
    }
    if schemas is not None:
        out["components"] = {"schemas": schemas}
    return out


def returning(schema: Any, method: str = "get", **op: Any) -> dict[str, Any]:
    return {
        method: {
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": schema}}}
            },
            **op,
        }
    }


def output_of(document: dict[str, Any]) -> dict[str, Any]:
    (component,) = convert(document).components
    schema = component.output.output_schema
    assert schema is not None
    Draft202012Validator.check_schema(schema)
    return schema


def test_openapi_30_nullable_exclusive_bounds_and_example() -> None:
    schema = output_of(doc({"/x": returning({
        "type": "object",
        "properties": {
            "a": {"type": "string", "nullable": True, "example": "hi"},
            "b": {"type": "number", "minimum": 0, "exclusiveMinimum": True, "maximum": 9, "exclusiveMaximum": False},
            "c": {"type": "string", "enum": ["x"], "nullable": True},
            "d": {"allOf": [{"$ref": "#/components/schemas/T"}], "nullable": True},
            "e": {"$ref": "#/components/schemas/T", "description": "ignored in 3.0"},
        },
    })}, {"T": {"type": "object", "x-internal": True, "discriminator": {"propertyName": "k"}}}))  # fmt: skip
    props = schema["properties"]
    assert props["a"] == {"type": ["string", "null"], "examples": ["hi"]}
    assert props["b"] == {"type": "number", "exclusiveMinimum": 0, "maximum": 9}
    assert props["c"] == {"type": ["string", "null"], "enum": ["x", None]}
    assert props["d"] == {"anyOf": [{"allOf": [{"$ref": "#/$defs/T"}]}, {"type": "null"}]}
    assert props["e"] == {"$ref": "#/$defs/T"}
    assert schema["$defs"] == {"T": {"type": "object"}}
    validator = Draft202012Validator(schema)
    assert validator.is_valid({"a": None, "b": 0.5, "c": None, "d": None})
    assert not validator.is_valid({"b": 0})


def test_openapi_31_schemas_pass_through() -> None:
    schema = output_of(doc({"/x": returning({
        "type": "object",
        "properties": {"a": {"type": ["string", "null"], "exclusiveMinimum": 3, "examples": [1]}},
    })}, version="3.1.0"))  # fmt: skip
    assert schema["properties"]["a"] == {
        "type": ["string", "null"],
        "exclusiveMinimum": 3,
        "examples": [1],
    }


def test_recursive_and_mutually_recursive_schemas_stay_finite() -> None:
    schemas = {
        "Tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}, "owner": {"$ref": "#/components/schemas/Person"}}},
        "Person": {"type": "object", "properties": {"trees": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}},
        "Unused": {"type": "string"},
    }  # fmt: skip
    schema = output_of(doc({"/t": returning({"$ref": "#/components/schemas/Tree"})}, schemas))
    assert schema["type"] == "object"
    assert set(schema["$defs"]) == {"Tree", "Person"}
    assert schema["$defs"]["Person"]["properties"]["trees"]["items"] == {"$ref": "#/$defs/Tree"}
    deep = {"kids": [{"kids": [{"owner": {"trees": [{"kids": []}]}}]}]}
    assert Draft202012Validator(schema).is_valid(deep)
    assert not Draft202012Validator(schema).is_valid({"kids": [{"kids": "no"}]})


def test_non_object_outputs_are_wrapped() -> None:
    for inner in (
        {"type": "array", "items": {"type": "integer"}},
        {"type": "string"},
        {"type": "object", "nullable": True},
    ):
        schema = output_of(doc({"/x": returning(inner)}))
        assert schema["required"] == ["result"] and schema["type"] == "object"
    (component,) = convert(doc({"/x": returning({"type": "integer"})})).components
    assert component.output.wrap(3) == {"result": 3}


def test_names_are_valid_short_unique_and_predictable() -> None:
    long_id = "a" * 50 + ".list.every.single.thing.in.the.catalog"
    paths = {
        "/a": returning({}, operationId="search.products"),
        "/b": returning({}, operationId="search products"),
        "/c": returning({}, operationId=long_id),
        "/d": returning({}, operationId=long_id + "!"),
        "/users/{id}/posts": {"get": {"parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}], "responses": {}}},
    }  # fmt: skip
    names = [c.name for c in convert(doc(paths)).components]
    assert names[:2] == ["search_products", "search_products_2"]
    assert names[4] == "get_users_id_posts"
    for name in names:
        assert len(name) <= MAX_NAME_LENGTH and name.replace("_", "").replace("-", "").isalnum()
    assert len(set(names)) == len(names)
    assert names == [c.name for c in convert(doc(paths)).components]  # stable
    custom = convert(doc(paths), names={"search.products": "find"}).components
    assert custom[0].name == "find" and custom[1].name == "search_products"


def test_route_maps_by_method_pattern_and_tag() -> None:
    item = {
        "parameters": [
            {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
        ]
    }
    paths = {
        "/items": {**returning({}), **returning({}, method="post")},
        "/items/{id}": {**item, **returning({}, tags=["public"]), **returning({}, method="delete")},
        "/admin/stats": returning({}),
        "/search": returning({}, parameters=[{"name": "q", "in": "query", "required": True, "schema": {"type": "string"}}]),
    }  # fmt: skip
    maps = [
        RouteMap(kind="exclude", pattern=r"^/admin/"),
        RouteMap(kind="resource_template", tags=["public"]),
        RouteMap(kind="resource", methods=["GET"]),
        RouteMap(kind="exclude", methods=["DELETE"]),
    ]
    kinds = {
        (c.operation.method, c.operation.path): (c.kind, c.name)
        for c in convert(doc(paths), route_maps=maps).components
    }
    assert kinds == {
        ("GET", "/items"): ("resource", "openapi://items"),
        ("POST", "/items"): ("tool", "post_items"),
        ("GET", "/items/{id}"): ("resource_template", "openapi://items/{id}"),
        ("GET", "/search"): ("tool", "get_search"),  # a required query argument: not readable
    }


MALFORMED = [
    ({"swagger": "2.0", "paths": {}}, "/swagger", "Swagger 2.0"),
    ({"openapi": "4.0.0", "paths": {}}, "/openapi", "not supported"),
    (doc({"/x": returning({"$ref": "#/components/schemas/Nope"})}), "/paths/~1x/get/responses/200/content/application~1json/schema/$ref", "points to nothing"),
    (doc({"/x": returning({"$ref": "other.yaml#/Thing"})}), "/paths/~1x/get/responses/200/content/application~1json/schema/$ref", "outside the document"),
    (doc({"/x": returning({"$ref": "#/components/schemas/A"})}, {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}), "/components/schemas/A", "cycle"),
    (doc({"/x": {"get": {"parameters": [{"$ref": "#/components/parameters/P"}], "responses": {}}}}) | {"components": {"parameters": {"P": {"$ref": "#/components/parameters/P"}}}}, "/paths/~1x/get/parameters/0", "cycle"),
    (doc({"/x": {"get": {"parameters": [{"name": "a", "in": "body"}], "responses": {}}}}), "/paths/~1x/get/parameters/0/in", "'in' must be one of"),
    (doc({"/x/{id}": returning({})}), "/paths/~1x~1{id}/get", "declares no such parameter"),
    (doc({"/x": returning({"type": "object", "properties": {"a": "string"}})}), "/paths/~1x/get/responses/200/content/application~1json/schema/properties/a", "must be an object"),
    (doc({"/x": returning({"type": ["string", "null"]})}), "/paths/~1x/get/responses/200/content/application~1json/schema/type", "must be a string"),
    (doc({"/x": {"post": {"requestBody": {"content": {}}, "responses": {}}}}), "/paths/~1x/post/requestBody/content", "at least one media type"),
]  # fmt: skip


@pytest.mark.parametrize(("document", "pointer", "words"), MALFORMED)
def test_malformed_documents_name_the_place(
    document: dict[str, Any], pointer: str, words: str
) -> None:
    with pytest.raises(OpenAPIError) as caught:
        convert(copy.deepcopy(document))
    assert caught.value.pointer == pointer
    assert words in str(caught.value) and pointer in str(caught.value)


def test_yaml_and_json_files(tmp_path: Any) -> None:
    yaml_file = tmp_path / "api.yaml"
    yaml_file.write_text("openapi: 3.1.0\ninfo: {title: y, version: '1'}\npaths: {}\n")
    assert load_document(yaml_file).title == "y"
    broken = tmp_path / "broken.json"
    broken.write_text('{"openapi": ')
    with pytest.raises(OpenAPIError, match="not valid JSON"):
        load_document(broken)
    with pytest.raises(OpenAPIError, match="could not read"):
        load_document(tmp_path / "missing.yaml")


def test_yaml_is_read_with_libyaml_when_pyyaml_has_it(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pure-Python loader takes seconds on a large document: with libyaml it is not used."""
    import yaml

    assert yaml.__with_libyaml__, "this environment's PyYAML was built without libyaml"

    class PurePython(yaml.SafeLoader):
        def __init__(self, stream: Any) -> None:
            raise AssertionError("the pure-Python YAML loader was used")

    monkeypatch.setattr(yaml, "SafeLoader", PurePython)
    yaml_file = tmp_path / "api.yaml"
    yaml_file.write_text("openapi: 3.1.0\ninfo: {title: fast, version: '1'}\npaths: {}\n")
    assert load_document(yaml_file).title == "fast"
    monkeypatch.delattr(yaml, "CSafeLoader")  # a PyYAML without libyaml: the Python loader
    with pytest.raises(AssertionError, match="pure-Python"):
        load_document(yaml_file)
