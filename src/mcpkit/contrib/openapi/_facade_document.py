"""The OpenAPI 3.1 document of a REST facade: one operation per tool, resources and prompts.

Tool schemas are JSON Schema 2020-12, which OpenAPI 3.1 speaks natively, so they are used as
they are — except that a schema's local ``$defs`` move to ``components/schemas`` (named
``<tool>.<def>``) and its ``#/$defs/...`` references are rewritten to point there: inside an
OpenAPI document a ``#`` reference is resolved against the document, not the schema.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["CONTENT_RESULT", "PROBLEM", "build_document", "problem_responses"]

PROBLEM_JSON: Final = "application/problem+json"
PROBLEM: Final[dict[str, Any]] = {
    "type": "object",
    "description": "RFC 9457 problem details.",
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "detail": {"type": "string"},
    },
    "required": ["title", "status"],
}
_BLOCK: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"type": {"type": "string"}},
    "required": ["type"],
}
CONTENT_RESULT: Final[dict[str, Any]] = {
    "type": "object",
    "description": "The tool's content blocks (it declares no output schema).",
    "properties": {"content": {"type": "array", "items": _BLOCK}},
    "required": ["content"],
}
TOOL_ERROR: Final[dict[str, Any]] = {
    "allOf": [{"$ref": "#/components/schemas/Problem"}],
    "type": "object",
    "properties": {"content": {"type": "array", "items": _BLOCK}},
}
_OBJECTS: Final[dict[str, Any]] = {"type": "array", "items": {"type": "object"}}
_COMPONENT_NAME: Final = re.compile(r"[^A-Za-z0-9._-]")
_STATUS_TEXT: Final = {
    400: "The arguments do not match the input schema (or the body is not JSON).",
    404: "No such tool, prompt or resource.",
    405: "Method not allowed.",
    413: "The body is too large.",
    502: "The MCP server failed or is unreachable.",
    504: "The MCP server did not answer in time.",
}


def problem_responses(*statuses: int) -> dict[str, Any]:
    return {
        str(status): {
            "description": _STATUS_TEXT[status],
            "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }


def _hoist(schema: Any, prefix: str, components: dict[str, Any]) -> Any:
    """Move ``$defs`` into ``components`` and rewrite the references to them."""
    if not isinstance(schema, dict):
        return schema
    defs = schema.get("$defs")
    names: dict[str, str] = {}
    if isinstance(defs, dict):
        for name in defs:
            names[name] = _COMPONENT_NAME.sub("_", f"{prefix}.{name}")

    def rewrite(node: Any) -> Any:
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$defs" and node is schema:
                    continue
                if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                    target = value.removeprefix("#/$defs/")
                    out[key] = f"#/components/schemas/{names.get(target, target)}"
                else:
                    out[key] = rewrite(value)
            return out
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        return node

    if isinstance(defs, dict):
        for name, sub in defs.items():
            components[names[name]] = rewrite(sub)
    return rewrite(schema)


def build_document(
    info: dict[str, Any],
    tools: list[dict[str, Any]],
    prompts: list[dict[str, Any]],
    *,
    has_resources: bool,
) -> dict[str, Any]:
    components: dict[str, Any] = {"Problem": PROBLEM, "ToolError": TOOL_ERROR}
    paths: dict[str, Any] = {}
    for tool in tools:
        name = tool["name"]
        input_schema = _hoist(tool.get("inputSchema") or {"type": "object"}, name, components)
        output = tool.get("outputSchema")
        result = _hoist(output, name, components) if output else CONTENT_RESULT
        body_required = bool((tool.get("inputSchema") or {}).get("required"))
        annotations = tool.get("annotations") or {}
        description = tool.get("description") or ""
        paths[f"/tools/{name}"] = {
            "post": {
                "operationId": f"tool.{name}",
                "summary": tool.get("title") or annotations.get("title") or name,
                "description": description,
                "tags": ["tools"],
                "requestBody": {
                    "required": body_required,
                    "description": "The tool's arguments.",
                    "content": {"application/json": {"schema": input_schema}},
                },
                "responses": {
                    "200": {
                        "description": "The tool's structured result (or its content blocks).",
                        "content": {"application/json": {"schema": result}},
                    },
                    "422": {
                        "description": "The tool ran and reported an error (isError).",
                        "content": {
                            PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/ToolError"}}
                        },
                    },
                    **problem_responses(400, 404, 413, 502, 504),
                },
            }
        }
    for prompt in prompts:
        name = prompt["name"]
        arguments = prompt.get("arguments") or []
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {
                a["name"]: {
                    "type": "string",
                    **({"description": a["description"]} if a.get("description") else {}),
                }
                for a in arguments
            },
            "additionalProperties": False,
        }
        required = [a["name"] for a in arguments if a.get("required")]
        if required:
            schema["required"] = required
        paths[f"/prompts/{name}"] = {
            "post": {
                "operationId": f"prompt.{name}",
                "summary": prompt.get("title") or name,
                "description": prompt.get("description") or "",
                "tags": ["prompts"],
                "requestBody": {
                    "required": bool(required),
                    "content": {"application/json": {"schema": schema}},
                },
                "responses": {
                    "200": {
                        "description": "The rendered prompt.",
                        "content": {"application/json": {"schema": {
                            "type": "object",
                            "properties": {"messages": _OBJECTS},
                            "required": ["messages"],
                        }}},
                    },
                    **problem_responses(400, 404, 413, 502, 504),
                },
            }
        }  # fmt: skip
    listing = {"type": "array", "items": {"type": "object"}}
    paths["/tools"] = _listing("tools.list", "The tools.", "tools", listing)
    paths["/prompts"] = _listing("prompts.list", "The prompts.", "prompts", listing)
    if has_resources:
        paths["/resources"] = _listing("resources.list", "Resources and templates.", "resources", {
            "type": "object",
            "properties": {"resources": listing, "resourceTemplates": listing},
            "required": ["resources", "resourceTemplates"],
        })  # fmt: skip
        paths["/resources/read"] = {
            "get": {
                "operationId": "resources.read",
                "summary": "Read a resource",
                "tags": ["resources"],
                "parameters": [
                    {
                        "name": "uri",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string", "minLength": 1},
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The resource's contents.",
                        "content": {"application/json": {"schema": {
                            "type": "object",
                            "properties": {"contents": _OBJECTS},
                            "required": ["contents"],
                        }}},
                    },
                    **problem_responses(400, 404, 502, 504),
                },
            }
        }  # fmt: skip
    return {
        "openapi": "3.1.0",
        "info": {
            "title": str(info.get("title") or info.get("name") or "MCP server"),
            "version": str(info.get("version") or "0"),
            "description": "An MCP server as a REST API (generated by mcpkit).",
        },
        "paths": paths,
        "components": {"schemas": components},
    }


def _listing(operation_id: str, summary: str, tag: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "get": {
            "operationId": operation_id,
            "summary": summary,
            "tags": [tag],
            "responses": {
                "200": {
                    "description": summary,
                    "content": {"application/json": {"schema": schema}},
                },
                **problem_responses(502, 504),
            },
        }
    }
