"""The operations of a document, with parameters, bodies and responses resolved and converted.

This is the one pass over ``paths`` that everything else (tools, resources, contracts, the REST
router) builds on. Path-level parameters are merged with the operation's own (the operation's
win, keyed by name and location, as OpenAPI says); ``Accept``, ``Content-Type`` and
``Authorization`` header parameters are ignored, as OpenAPI says they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from mcpkit.contrib.openapi._document import HTTP_METHODS, Document, escape_pointer
from mcpkit.contrib.openapi._errors import OpenAPIError
from mcpkit.contrib.openapi._schemas import SchemaConverter

__all__ = ["Operation", "Parameter", "RequestBody", "OperationResponse", "read_operations"]

LOCATIONS: Final = ("path", "query", "header", "cookie")
_IGNORED_HEADERS: Final = frozenset({"accept", "content-type", "authorization"})
_FORBIDDEN_HEADERS: Final = frozenset(
    {
        "host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te",
        "trailer", "upgrade", "content-length", "expect", "proxy-authorization",
        "proxy-authenticate", "cookie", "forwarded", "x-forwarded-for", "x-forwarded-host",
        "x-forwarded-proto",
    }
)  # fmt: skip
"""Header parameters a document may not declare: a model-chosen value would pick the virtual
host or the proxy route, or break the request's framing (request smuggling). ``Cookie``
parameters are declared ``in: cookie`` instead."""
_DEFAULT_STYLE: Final = {"path": "simple", "query": "form", "header": "simple", "cookie": "form"}


@dataclass(slots=True)
class Parameter:
    name: str
    location: str
    required: bool
    schema: Any
    style: str
    explode: bool
    description: str | None = None
    json_content: bool = False
    """The parameter is declared with ``content`` (a JSON-encoded value), not ``schema``."""


@dataclass(slots=True)
class RequestBody:
    media_type: str
    schema: Any
    required: bool
    description: str | None = None


@dataclass(slots=True)
class OperationResponse:
    status: str
    """``"200"``, ``"2XX"`` or ``"default"``, as the document keys it."""
    description: str | None
    media_type: str | None
    schema: Any
    """The converted schema of its JSON (or first) content, or ``None``."""
    refs: set[str] = field(default_factory=set)
    """``$defs`` names its schema uses."""


@dataclass(slots=True)
class Operation:
    method: str
    path: str
    operation_id: str | None
    summary: str | None
    description: str | None
    tags: list[str]
    deprecated: bool
    parameters: list[Parameter]
    body: RequestBody | None
    responses: dict[str, OperationResponse]
    pointer: str
    refs: set[str] = field(default_factory=set)
    """``$defs`` names the request side uses."""

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    def success_responses(self) -> list[OperationResponse]:
        return [r for code, r in sorted(self.responses.items()) if code.startswith("2")]

    def response_for(self, status: int) -> OperationResponse | None:
        """The documented response for an actual status (exact, then ``4XX``, then default)."""
        return (
            self.responses.get(str(status))
            or self.responses.get(f"{str(status)[0]}XX")
            or self.responses.get("default")
        )


def _json_media(content: dict[str, Any]) -> str | None:
    for media in content:
        base = media.split(";")[0].strip().lower()
        if base == "application/json" or base.endswith("+json"):
            return media
    return None


def read_operations(document: Document, converter: SchemaConverter) -> list[Operation]:
    """Every operation in document order (paths, then methods in the order written)."""
    operations: list[Operation] = []
    for path, item_raw in document.paths.items():
        at = f"/paths/{escape_pointer(path)}"
        if not path.startswith("/"):
            raise OpenAPIError(at, f"path {path!r} must start with '/'")
        item, item_at = document.resolve(item_raw, at)
        if not isinstance(item, dict):
            raise OpenAPIError(item_at, "a path item must be an object")
        shared = _parameters(document, converter, item.get("parameters", []), item_at, set())
        for method, op in item.items():
            if method not in HTTP_METHODS:
                continue
            op_at = f"{item_at}/{method}"
            if not isinstance(op, dict):
                raise OpenAPIError(op_at, "an operation must be an object")
            operations.append(_operation(document, converter, path, method, op, op_at, shared))
    return operations


def _operation(
    document: Document,
    converter: SchemaConverter,
    path: str,
    method: str,
    op: dict[str, Any],
    at: str,
    shared: list[tuple[Parameter, set[str]]],
) -> Operation:
    own = _parameters(document, converter, op.get("parameters", []), at, set())
    merged: dict[tuple[str, str], tuple[Parameter, set[str]]] = {
        (p.name, p.location): (p, r) for p, r in shared
    }
    merged.update({(p.name, p.location): (p, r) for p, r in own})
    refs: set[str] = set()
    parameters: list[Parameter] = []
    for param, param_refs in merged.values():
        parameters.append(param)
        refs |= param_refs
    for name in _template_names(path):
        if not any(p.location == "path" and p.name == name for p in parameters):
            raise OpenAPIError(at, f"path {path!r} uses {{{name}}} but declares no such parameter")
    body = None
    if "requestBody" in op:
        body = _body(document, converter, op["requestBody"], f"{at}/requestBody", refs)
    responses: dict[str, OperationResponse] = {}
    raw_responses = op.get("responses", {})
    if not isinstance(raw_responses, dict):
        raise OpenAPIError(f"{at}/responses", "must be an object keyed by status code")
    for status, raw in raw_responses.items():
        where = f"{at}/responses/{escape_pointer(str(status))}"
        responses[str(status).upper()] = _response(
            document, converter, str(status).upper(), raw, where
        )
    tags = op.get("tags", [])
    operation_id = op.get("operationId")
    if operation_id is not None and not isinstance(operation_id, str):
        raise OpenAPIError(f"{at}/operationId", "must be a string")
    return Operation(
        method=method.upper(),
        path=path,
        operation_id=operation_id,
        summary=_text(op.get("summary")),
        description=_text(op.get("description")),
        tags=[t for t in tags if isinstance(t, str)] if isinstance(tags, list) else [],
        deprecated=op.get("deprecated") is True,
        parameters=parameters,
        body=body,
        responses=responses,
        pointer=at,
        refs=refs,
    )


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _template_names(path: str) -> list[str]:
    import re

    return re.findall(r"\{([^}/]+)\}", path)


def _parameters(
    document: Document,
    converter: SchemaConverter,
    raw: Any,
    at: str,
    seen: set[str],
) -> list[tuple[Parameter, set[str]]]:
    if not isinstance(raw, list):
        raise OpenAPIError(f"{at}/parameters", "must be a list")
    out: list[tuple[Parameter, set[str]]] = []
    for index, entry in enumerate(raw):
        param, where = document.resolve(entry, f"{at}/parameters/{index}")
        if not isinstance(param, dict):
            raise OpenAPIError(where, "a parameter must be an object")
        name, location = param.get("name"), param.get("in")
        if not isinstance(name, str) or not name:
            raise OpenAPIError(where, "a parameter needs a name")
        if location not in LOCATIONS:
            raise OpenAPIError(
                f"{where}/in", f"parameter {name!r}: 'in' must be one of {', '.join(LOCATIONS)}"
            )
        if location == "header" and name.lower() in _IGNORED_HEADERS:
            continue
        if location == "header" and name.lower() in _FORBIDDEN_HEADERS:
            raise OpenAPIError(
                f"{where}/name",
                f"header parameter {name!r} is refused: it would let a tool's caller choose how "
                "the request is routed or framed (Host, hop-by-hop and framing headers)",
            )
        refs: set[str] = set()
        json_content = False
        if "schema" in param:
            schema = converter.convert_into(param["schema"], f"{where}/schema", refs)
        elif isinstance(param.get("content"), dict) and param["content"]:
            media, entry_content = next(iter(param["content"].items()))
            raw_schema = entry_content.get("schema", {}) if isinstance(entry_content, dict) else {}
            schema = converter.convert_into(
                raw_schema, f"{where}/content/{escape_pointer(media)}/schema", refs
            )
            json_content = True
        else:
            schema = {}
        required = param.get("required") is True or location == "path"
        style = param.get("style", _DEFAULT_STYLE[location])
        explode = param.get("explode", style == "form")
        description = _text(param.get("description"))
        if description and isinstance(schema, dict) and "description" not in schema:
            schema = {**schema, "description": description}
        out.append(
            (
                Parameter(
                    name=name,
                    location=location,
                    required=required,
                    schema=schema,
                    style=str(style),
                    explode=bool(explode),
                    description=description,
                    json_content=json_content,
                ),
                refs,
            )
        )
    return out


def _body(
    document: Document, converter: SchemaConverter, raw: Any, at: str, refs: set[str]
) -> RequestBody | None:
    body, where = document.resolve(raw, at)
    if not isinstance(body, dict):
        raise OpenAPIError(where, "a request body must be an object")
    content = body.get("content")
    if not isinstance(content, dict) or not content:
        raise OpenAPIError(f"{where}/content", "a request body needs at least one media type")
    media = _json_media(content) or next(iter(content))
    entry = content[media] if isinstance(content[media], dict) else {}
    raw_schema = entry.get("schema", {})
    if media.startswith("application/json") or media.endswith("+json") or "form" in media:
        schema_at = f"{where}/content/{escape_pointer(media)}/schema"
        schema = converter.convert_into(raw_schema, schema_at, refs)
    else:
        schema = {"type": "string"}  # raw bodies (text, binary as text) travel as a string
    return RequestBody(
        media_type=media,
        schema=schema,
        required=body.get("required") is True,
        description=_text(body.get("description")),
    )


def _response(
    document: Document,
    converter: SchemaConverter,
    status: str,
    raw: Any,
    at: str,
) -> OperationResponse:
    response, where = document.resolve(raw, at)
    if not isinstance(response, dict):
        raise OpenAPIError(where, "a response must be an object")
    content = response.get("content")
    media: str | None = None
    schema: Any = None
    refs: set[str] = set()
    if isinstance(content, dict) and content:
        media = _json_media(content) or next(iter(content))
        entry = content[media] if isinstance(content[media], dict) else {}
        if "schema" in entry and _json_media({media: None}):
            schema_at = f"{where}/content/{escape_pointer(media)}/schema"
            schema = converter.convert_into(entry["schema"], schema_at, refs)
    return OperationResponse(
        status=status,
        description=_text(response.get("description")),
        media_type=media,
        schema=schema,
        refs=refs,
    )
