"""The REST side of a :class:`~mcpkit.contrib.openapi._contract.Contract`: an ASGI app routing the
document's paths to the implementing functions.

Each request's path, query, header and cookie values are read as the parameters' schemas type
them (``"7"`` becomes ``7`` for an integer; repeated or comma-separated values become arrays),
the JSON body is parsed, and the whole is validated against the operation's input schema before
the function runs. Failures are RFC 9457 problem details: 400 (invalid), 404 (no such path), 405
(no such method, with ``Allow``), 413 (body too large), 415 (body not JSON), 500 (the function
broke the contract). ``GET /openapi.json`` answers with the document itself.
"""

from __future__ import annotations

import json
import logging
import re
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import parse_qsl, unquote

from mcpkit.contrib.openapi._arguments import Argument
from mcpkit.contrib.openapi._asgi import (
    BodyTooLarge,
    Receive,
    Scope,
    Send,
    header,
    read_body,
    send_json,
)
from mcpkit.contrib.openapi._coerce import coerce_text, schema_types

if TYPE_CHECKING:
    from mcpkit.contrib.openapi._contract import Contract, OperationImplementation

__all__ = ["ContractApp", "problem"]

logger = logging.getLogger("mcpkit.contrib.openapi")

PROBLEM_JSON: Final = "application/problem+json"
MAX_REPORTED: Final = 50
"""Violations listed in one 400 answer (all of them, up to this many)."""


def problem(status: int, title: str, detail: str, **extra: Any) -> dict[str, Any]:
    return {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}


class _Route:
    def __init__(self, implementation: OperationImplementation) -> None:
        from mcpkit.contrib.openapi._validate import Validator

        self.implementation = implementation
        component = implementation.component
        parts = re.split(r"\{([^}]+)\}", component.operation.path)
        self.names = parts[1::2]
        pattern = "".join(re.escape(p) if i % 2 == 0 else "([^/]+)" for i, p in enumerate(parts))
        self.regex = re.compile(f"^{pattern}$")
        self.method = component.operation.method
        self.validator = Validator(component.inputs.schema)
        self.defs = component.inputs.schema.get("$defs", {})
        body = component.operation.body
        self.closed_body = body is not None and _closed(body.schema, self.defs)
        """The body schema says ``additionalProperties: false``: unknown fields are refused."""

    async def problem(self, send: Send, status: int, title: str, detail: str, **extra: Any) -> None:
        """A problem answer, in the shape the operation documents for ``status`` if it does."""
        from mcpkit.contrib.openapi._error_shape import shaped_problem

        response = self.implementation.component.operation.response_for(status)
        defs = self.implementation.component.output.converter.defs_for(
            response.refs if response is not None else set()
        )
        body = shaped_problem(problem(status, title, detail, **extra), response, defs)
        await send_json(send, status, body, content_type=_media_for(self.implementation, status))


def _closed(schema: Any, defs: dict[str, Any]) -> bool:
    seen: set[str] = set()
    while isinstance(schema, dict) and "$ref" in schema and str(schema["$ref"]) not in seen:
        seen.add(str(schema["$ref"]))
        schema = defs.get(str(schema["$ref"]).removeprefix("#/$defs/"))
    return isinstance(schema, dict) and schema.get("additionalProperties") is False


class ContractApp:
    """ASGI app: the contract's REST API."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        self.routes = [_Route(i) for i in contract.implementations.values()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        method: str = scope["method"]
        if path == "/openapi.json" and method == "GET":
            await send_json(send, 200, self.contract.document.raw)
            return
        allowed: list[str] = []
        for route in self.routes:
            match = route.regex.match(path)
            if match is None:
                continue
            if route.method != method:
                allowed.append(route.method)
                continue
            values = {route.names[i]: unquote(v) for i, v in enumerate(match.groups())}
            await self._handle(route, values, scope, receive, send)
            return
        if allowed:
            await send_json(
                send,
                405,
                problem(405, "Method Not Allowed", f"{method} is not allowed on {path}"),
                content_type=PROBLEM_JSON,
                headers=[(b"allow", ", ".join(sorted(allowed)).encode())],
            )
            return
        await send_json(
            send,
            404,
            problem(404, "Not Found", f"no operation at {path}"),
            content_type=PROBLEM_JSON,
        )

    async def _handle(
        self, route: _Route, path_values: dict[str, str], scope: Scope, receive: Receive, send: Send
    ) -> None:
        from mcpkit.contrib.openapi._contract import ContractViolation

        implementation = route.implementation
        try:
            raw = await read_body(receive)
        except BodyTooLarge:
            await route.problem(send, 413, "Content Too Large", "the body is too large")
            return
        body: Any = None
        has_body = bool(raw.strip())
        if has_body:
            try:
                body = json.loads(raw)
            except ValueError as exc:
                await route.problem(send, 400, "Bad Request", f"the body is not valid JSON: {exc}")
                return
        arguments = _arguments(route, path_values, scope, body, has_body)
        errors = sorted(
            route.validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.path]
        )
        if errors:
            details = [
                {"field": ".".join(str(p) for p in e.absolute_path) or None, "message": e.message}
                for e in errors[:MAX_REPORTED]
            ]
            lines = [
                f"{d['field']}: {d['message']}" if d["field"] else d["message"] for d in details
            ]
            await route.problem(send, 400, "Bad Request", "; ".join(lines), errors=details)
            return
        try:
            status, answer = await self.contract.invoke(implementation, arguments)
        except ContractViolation as exc:
            await route.problem(send, 500, "Contract Violation", str(exc))
            return
        except Exception as exc:  # the implementation's own bug: a well-formed 500, logged
            logger.exception("%s failed", implementation.component.operation.label)
            await route.problem(send, 500, "Internal Server Error", f"{type(exc).__name__}: {exc}")
            return
        response = implementation.component.operation.response_for(status)
        media = (response.media_type if response else None) or "application/json"
        if answer is None and status == 204:
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await send_json(send, status, answer, content_type=media)


def _media_for(implementation: OperationImplementation, status: int) -> str:
    """An error's media type: what the operation documents for that status, else problem+json."""
    response = implementation.component.operation.response_for(status)
    return (response.media_type if response else None) or PROBLEM_JSON


def _item_schema(schema: Any, defs: dict[str, Any]) -> Any:
    if isinstance(schema, dict) and "$ref" in schema:
        schema = defs.get(str(schema["$ref"]).removeprefix("#/$defs/"))
    if isinstance(schema, dict):
        if "items" in schema:
            return schema["items"]
        for key in ("anyOf", "oneOf"):
            for sub in schema.get(key, []):
                if isinstance(sub, dict) and "items" in sub:
                    return sub["items"]
    return {}


def _multi(values: list[str], argument: Argument, schema: Any, defs: dict[str, Any]) -> Any:
    if "array" in schema_types(schema, defs):
        param = argument.param
        items: list[str] = []
        for value in values:
            if param is not None and (not param.explode or len(values) == 1) and "," in value:
                items.extend(value.split(","))
            else:
                items.append(value)
        item_schema = _item_schema(schema, defs)
        return [coerce_text(v, item_schema, defs) for v in items]
    return coerce_text(values[-1], schema, defs)


def _arguments(
    route: _Route, path_values: dict[str, str], scope: Scope, body: Any, has_body: bool
) -> dict[str, Any]:
    component = route.implementation.component
    properties = component.inputs.schema.get("properties", {})
    defs = route.defs
    query: dict[str, list[str]] = {}
    for key, value in parse_qsl(scope.get("query_string", b"").decode("latin-1"), True):
        query.setdefault(key, []).append(value)
    cookies: dict[str, str] = {}
    cookie_header = header(scope, b"cookie")
    if cookie_header:
        jar: SimpleCookie = SimpleCookie()
        jar.load(cookie_header)
        cookies = {k: m.value for k, m in jar.items()}
    arguments: dict[str, Any] = {}
    for argument in component.inputs.arguments:
        schema = properties.get(argument.key, {})
        if argument.location == "path" and argument.wire_name in path_values:
            arguments[argument.key] = coerce_text(path_values[argument.wire_name], schema, defs)
        elif argument.location == "query" and argument.wire_name in query:
            arguments[argument.key] = _multi(query[argument.wire_name], argument, schema, defs)
        elif argument.location == "header":
            value = header(scope, argument.wire_name.lower().encode())
            if value is not None:
                arguments[argument.key] = _multi([value], argument, schema, defs)
        elif argument.location == "cookie" and argument.wire_name in cookies:
            arguments[argument.key] = coerce_text(cookies[argument.wire_name], schema, defs)
        elif argument.location == "body" and has_body:
            arguments[argument.key] = body
        elif (
            argument.location == "body_field"
            and isinstance(body, dict)
            and argument.wire_name in body
        ):
            arguments[argument.key] = body[argument.wire_name]
    if route.closed_body and isinstance(body, dict):  # unknown fields: refused by validation
        known = {a.wire_name for a in component.inputs.arguments if a.location == "body_field"}
        for name in body:
            if name not in known:
                arguments[name if name not in properties else f"{name}__body"] = body[name]
    if (
        has_body
        and not isinstance(body, dict)
        and any(a.location == "body_field" for a in component.inputs.arguments)
    ):
        arguments["__body__"] = body  # rejected by additionalProperties: the body must be an object
    return arguments
