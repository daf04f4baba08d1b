"""One flat argument object per operation: its JSON Schema, and how each argument travels.

The tool's arguments are the operation's path, query, header and cookie parameters plus its
JSON request body. An object body with declared properties is flattened into the arguments
(what a model finds easiest); any other body is one ``body`` argument. Names are kept as the
document writes them; when two would collide (``id`` in the path and ``id`` in the body), the
first in the order path, query, header, cookie, body keeps the plain name and the others get
``__<location>`` appended (``id__body``), which is documented in their description.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import quote

from mcpkit.contrib.openapi._operations import Operation, Parameter
from mcpkit.contrib.openapi._schemas import attach_defs

__all__ = ["Argument", "InputPlan", "OutgoingRequest", "plan_inputs"]

Location = Literal["path", "query", "header", "cookie", "body", "body_field"]
_ORDER: Final = ("path", "query", "header", "cookie")


@dataclass(slots=True, frozen=True)
class Argument:
    key: str
    """The argument's name in the tool's input."""
    location: Location
    wire_name: str
    """Its name on the wire (parameter name or body property)."""
    param: Parameter | None = None


@dataclass(slots=True)
class OutgoingRequest:
    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    json_body: Any = None
    has_json_body: bool = False
    form: dict[str, str] | None = None
    multipart: dict[str, str] | None = None
    raw_body: str | None = None
    content_type: str | None = None


@dataclass(slots=True)
class InputPlan:
    schema: dict[str, Any]
    arguments: list[Argument]
    operation: Operation

    def build(self, values: dict[str, Any]) -> OutgoingRequest:
        """The HTTP request for validated arguments."""
        op = self.operation
        path = op.path
        query: list[tuple[str, str]] = []
        headers: dict[str, str] = {}
        cookies: list[str] = []
        body_fields: dict[str, Any] = {}
        whole_body: Any = None
        has_body = False
        for arg in self.arguments:
            if arg.key not in values:
                continue
            value = values[arg.key]
            if arg.location == "body_field":
                body_fields[arg.wire_name] = value
                has_body = True
                continue
            if arg.location == "body":
                whole_body, has_body = value, True
                continue
            param = arg.param
            assert param is not None
            if value is None:
                continue
            if arg.location == "path":
                path = path.replace("{" + param.name + "}", _path_value(param, value))
            elif arg.location == "query":
                query.extend(_query_pairs(param, value))
            elif arg.location == "header":
                headers[param.name] = _joined(param, value)
            else:
                cookies.append(f"{param.name}={quote(_joined(param, value), safe='')}")
        if cookies:
            headers["cookie"] = "; ".join(cookies)
        request = OutgoingRequest(op.method, path, query, headers)
        body = op.body
        if body is not None and has_body:
            payload = body_fields if body_fields else whole_body
            media = body.media_type.split(";")[0].strip().lower()
            request.content_type = body.media_type
            if media == "application/x-www-form-urlencoded" and isinstance(payload, dict):
                request.form = {k: _scalar(v) for k, v in payload.items()}
            elif media == "multipart/form-data" and isinstance(payload, dict):
                request.multipart = {k: _scalar(v) for k, v in payload.items()}
            elif media.endswith("json") or isinstance(payload, dict | list):
                request.json_body, request.has_json_body = payload, True
            else:
                request.raw_body = payload if isinstance(payload, str) else json.dumps(payload)
        return request


def _scalar(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _joined(param: Parameter, value: Any) -> str:
    if param.json_content:
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, list):
        return ",".join(_scalar(v) for v in value)
    if isinstance(value, dict):
        sep = "=" if param.explode else ","
        return ",".join(f"{k}{sep}{_scalar(v)}" for k, v in value.items())
    return _scalar(value)


def _path_value(param: Parameter, value: Any) -> str:
    text = quote(_joined(param, value), safe=",=")
    if text in (".", ".."):
        # a dot segment would climb the request path (``/files/{name}`` with ``..`` reaches
        # ``/``): encoded, it is a name like any other, as RFC 3986 section 6.2.2.3 intends
        text = text.replace(".", "%2E")
    if param.style == "label":
        return "." + text
    if param.style == "matrix":
        return f";{param.name}={text}"
    return text


def _query_pairs(param: Parameter, value: Any) -> list[tuple[str, str]]:
    name = param.name
    if param.json_content:
        return [(name, _joined(param, value))]
    if isinstance(value, list):
        if param.explode and param.style == "form":
            return [(name, _scalar(v)) for v in value]
        sep = {"spaceDelimited": " ", "pipeDelimited": "|"}.get(param.style, ",")
        return [(name, sep.join(_scalar(v) for v in value))]
    if isinstance(value, dict):
        if param.style == "deepObject":
            return [(f"{name}[{k}]", _scalar(v)) for k, v in value.items()]
        if param.explode:
            return [(str(k), _scalar(v)) for k, v in value.items()]
        return [(name, _joined(param, value))]
    return [(name, _scalar(value))]


def plan_inputs(operation: Operation, defs: dict[str, Any]) -> InputPlan:
    """The merged input schema and argument routing of one operation."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    arguments: list[Argument] = []

    def add(name: str, location: Location, schema: Any, is_required: bool, **extra: Any) -> None:
        key = name
        if key in properties:
            suffix = "body" if location == "body_field" else location
            key = f"{name}__{suffix}"
            if isinstance(schema, dict):
                note = f"(the {suffix} value named {name!r})"
                schema = {**schema, "description": f"{schema.get('description', '')} {note}"}
                schema["description"] = schema["description"].strip()
        properties[key] = schema
        if is_required:
            required.append(key)
        arguments.append(Argument(key, location, name, extra.get("param")))

    for location in _ORDER:
        for param in operation.parameters:
            if param.location == location:
                add(param.name, location, param.schema, param.required, param=param)
    body = operation.body
    if body is not None:
        shape = _flat_body(body.schema, defs)
        if shape is not None:
            body_props, body_required = shape
            for name, field_schema in body_props.items():
                add(name, "body_field", field_schema, body.required and name in body_required)
        else:
            body_schema = body.schema
            if body.description and isinstance(body_schema, dict):
                body_schema = {"description": body.description, **body_schema}
            add("body", "body", body_schema, body.required)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = False
    return InputPlan(attach_defs(schema, defs), arguments, operation)


def _flat_body(schema: Any, defs: dict[str, Any]) -> tuple[dict[str, Any], list[str]] | None:
    """(properties, required) when the body is a plain object with declared properties."""
    seen: set[str] = set()
    while isinstance(schema, dict) and set(schema) == {"$ref"}:
        name = str(schema["$ref"]).removeprefix("#/$defs/")
        if name in seen:
            return None
        seen.add(name)
        schema = defs.get(name)
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return None
    props = schema.get("properties")
    if not isinstance(props, dict) or not props:
        return None
    if any(k in schema for k in ("allOf", "anyOf", "oneOf", "not", "if", "patternProperties")):
        return None
    if schema.get("additionalProperties") not in (None, False):
        return None
    required = schema.get("required", [])
    return props, [r for r in required if isinstance(r, str)]
