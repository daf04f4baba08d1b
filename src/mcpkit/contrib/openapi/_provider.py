"""A REST API described by OpenAPI, served as MCP tools, resources and resource templates.

``from_openapi(document, client)`` reads the document once (every ``$ref`` resolved, every
schema converted, every name chosen) and registers one tool per operation, or a resource /
template where a route map says so. A call validates its arguments against the tool's input
schema, sends one request through the caller's ``httpx.AsyncClient`` (its base URL, auth,
timeouts and transport are used as they are), checks the answer against the document
(``validate_responses``: strict, warn or off) and returns:

* a 2xx JSON answer as ``structuredContent`` (wrapped as ``{"result": ...}`` when not an
  object) plus its JSON text;
* a 4xx/5xx answer as an ``isError`` result whose text names the status and whose
  ``structuredContent`` is the problem details (RFC 9457 fields, ``status`` always set);
* a timeout or a connection failure as an ``isError`` result that says which.

Only ``validate_responses="strict"`` advertises the document's output schema: it guarantees it.
With ``"warn"`` or ``"off"`` an answer may break it, and MCP clients check ``structuredContent``
against ``outputSchema`` and reject the call — the data would never arrive.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Unpack

from mcpkit.contrib.openapi._arguments import InputPlan, plan_inputs
from mcpkit.contrib.openapi._document import Document, load_document
from mcpkit.contrib.openapi._errors import OpenAPIError
from mcpkit.contrib.openapi._naming import NameAllocator, operation_base_name
from mcpkit.contrib.openapi._operations import Operation, read_operations
from mcpkit.contrib.openapi._responses import (
    VALIDATION_MODES,
    OutputPlan,
    ValidationMode,
    binding_output_schema,
    plan_output,
    problem_text,
)
from mcpkit.contrib.openapi._routes import Kind, RouteMap, choose_kind
from mcpkit.contrib.openapi._schemas import SchemaConverter
from mcpkit.contrib.openapi._tool import make_tool
from mcpkit.protocol import InternalError, InvalidParams, UsageError
from mcpkit.server import RegisteredResource, RegisteredTool, ToolResult

if TYPE_CHECKING:
    import httpx

    from mcpkit.server import Server, ServerOptions

__all__ = ["Component", "Conversion", "add_openapi", "convert", "from_openapi"]

logger = logging.getLogger("mcpkit.contrib.openapi")

DocumentSource = Mapping[str, Any] | str | Path | Document
_ANNOTATIONS: Final[dict[str, dict[str, bool]]] = {
    "GET": {"readOnlyHint": True, "idempotentHint": True},
    "HEAD": {"readOnlyHint": True, "idempotentHint": True},
    "OPTIONS": {"readOnlyHint": True, "idempotentHint": True},
    "TRACE": {"readOnlyHint": True, "idempotentHint": True},
    "POST": {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False},
    "PUT": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
    "PATCH": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False},
    "DELETE": {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True},
}
_VARIABLE: Final = re.compile(r"[^A-Za-z0-9_]")


@dataclass(slots=True)
class Component:
    """One operation and what it became."""

    kind: Kind
    name: str
    """Tool name, or resource URI / URI template."""
    operation: Operation
    inputs: InputPlan
    output: OutputPlan
    description: str | None = None


@dataclass(slots=True)
class Conversion:
    """The result of reading a document: every operation and what it becomes."""

    document: Document
    components: list[Component] = field(default_factory=list)

    @property
    def tools(self) -> list[Component]:
        return [c for c in self.components if c.kind == "tool"]

    def by_kind(self, kind: Kind) -> list[Component]:
        return [c for c in self.components if c.kind == kind]


def _as_document(source: DocumentSource) -> Document:
    return source if isinstance(source, Document) else load_document(source)


def convert(
    source: DocumentSource,
    *,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    uri_prefix: str = "openapi://",
    taken: Iterable[str] = (),
) -> Conversion:
    """Read ``source`` and decide every operation's kind, name, input and output schema.

    ``names`` maps an ``operationId`` (or ``"GET /path"``) to the tool name to use.
    """
    document = _as_document(source)
    converter = SchemaConverter(document)
    operations = read_operations(document, converter)
    allocator = NameAllocator(set(taken))
    overrides = dict(names or {})
    maps = list(route_maps)
    conversion = Conversion(document)
    for op in operations:
        kind = choose_kind(op, maps)
        if kind == "exclude":
            continue
        inputs = plan_inputs(op, converter.defs_for(op.refs))
        output = plan_output(op, converter)
        if kind == "tool":
            wanted = overrides.get(op.operation_id or "") or overrides.get(op.label)
            if wanted is not None:
                from mcpkit.contrib.openapi._naming import clean_name

                if clean_name(wanted) != wanted:
                    raise UsageError(f"names: {wanted!r} is not a valid tool name")
                if wanted in allocator.taken:
                    raise UsageError(f"names: {wanted!r} is given to two operations")
                allocator.taken.add(wanted)
                name = wanted
            else:
                name = allocator.allocate(operation_base_name(op.operation_id, op.method, op.path))
        else:
            name = uri_prefix + (_uri_path(op.path) or "root")
        conversion.components.append(Component(kind, name, op, inputs, output, _description(op)))
    return conversion


def _uri_path(path: str) -> str:
    """``/products/{product-id}`` → ``products/{product_id}`` (RFC 6570 variable names)."""
    return re.sub(r"\{([^}]+)\}", lambda m: "{" + _VARIABLE.sub("_", m.group(1)) + "}", path)[1:]


def _description(op: Operation) -> str | None:
    parts = [p for p in (op.summary, op.description) if p]
    if len(parts) == 2 and parts[1].startswith(parts[0]):
        parts = parts[1:]
    text = "\n\n".join(parts)
    if op.deprecated:
        text = f"Deprecated. {text}".strip()
    return text or None


def from_openapi(
    source: DocumentSource,
    client: httpx.AsyncClient,
    *,
    name: str | None = None,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    validate_responses: ValidationMode = "strict",
    uri_prefix: str = "openapi://",
    **server_options: Unpack[ServerOptions],
) -> Server:
    """A new :class:`~mcpkit.server.Server` serving the API ``source`` describes via ``client``."""
    from mcpkit.server import Server

    document = _as_document(source)
    server = Server(
        name or document.title,
        str(document.info.get("version") or "0.1.0"),
        **server_options,
    )
    add_openapi(
        server,
        document,
        client,
        route_maps=route_maps,
        names=names,
        validate_responses=validate_responses,
        uri_prefix=uri_prefix,
    )
    return server


def add_openapi(
    server: Server,
    source: DocumentSource,
    client: httpx.AsyncClient,
    *,
    route_maps: Iterable[RouteMap] = (),
    names: Mapping[str, str] | None = None,
    validate_responses: ValidationMode = "strict",
    uri_prefix: str = "openapi://",
) -> Conversion:
    """Register the API's operations on an existing server; returns what was registered."""
    if validate_responses not in VALIDATION_MODES:
        raise UsageError(f"validate_responses must be one of {', '.join(VALIDATION_MODES)}")
    conversion = convert(
        source,
        route_maps=route_maps,
        names=names,
        uri_prefix=uri_prefix,
        taken=server.tool_names,
    )
    prefix, templated = _base_prefix(conversion.document, client)
    # over the network only: a client with a transport of its own (in process, mocked, a
    # proxy's) decides itself where its requests go
    import httpx

    networked = isinstance(getattr(client, "_transport", None), httpx.AsyncHTTPTransport)
    check = _ServerCheck(prefix) if templated and networked else None
    for component in conversion.components:
        caller = _Caller(component, client, prefix, validate_responses, check)
        if component.kind == "tool":
            server.add_tool(caller.tool())
        else:
            server.add_resource(caller.resource())
    return conversion


def _base_prefix(document: Document, client: httpx.AsyncClient) -> tuple[str, bool]:
    """Where requests go: the client's ``base_url``, else the document's first absolute server;
    and whether that URL was built from the document's server variables."""
    if str(client.base_url):
        return "", False
    servers = document.raw.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], dict):
        url = str(servers[0].get("url", ""))
        variables = servers[0].get("variables")
        templated = False
        for var, spec in (variables if isinstance(variables, dict) else {}).items():
            if isinstance(spec, dict) and "default" in spec:
                templated = templated or "{" + var + "}" in url
                url = url.replace("{" + var + "}", str(spec["default"]))
        if url.startswith(("http://", "https://")):
            return url.rstrip("/"), templated
    raise OpenAPIError(
        "/servers",
        "no absolute server URL to send requests to: give the httpx client a base_url",
    )


class _ServerCheck:
    """The address policy, once, for a server URL built from the document's server variables:
    a document (perhaps fetched from elsewhere) must not pick an internal address through a
    variable's default. Give the client a ``base_url`` to choose the server yourself."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._verdict: str | None = None
        self._judged = False
        self._lock = asyncio.Lock()

    async def problem(self) -> str | None:
        """The verdict, judged once: concurrent first calls wait for one judgement, made by the
        caller that holds the lock (no task of its own; a cancelled judge leaves it to the
        next caller)."""
        if not self._judged:
            async with self._lock:
                if not self._judged:
                    self._verdict = await self._judge()
                    self._judged = True
        return self._verdict

    async def _judge(self) -> str | None:
        from mcpkit.contrib.auth import InsecureURLError, OAuthFlowError, UrlPolicy, check_url

        try:
            await check_url(self.url + "/", UrlPolicy())
        except (InsecureURLError, OAuthFlowError) as exc:
            return (
                f"the document's server URL {self.url} (servers[0] with its variables) is "
                f"refused by the address policy: {exc}; give the httpx client a base_url to "
                "choose the server yourself"
            )
        return None


class _Caller:
    """Sends one operation's requests and turns the answers into MCP results."""

    def __init__(
        self,
        component: Component,
        client: httpx.AsyncClient,
        prefix: str,
        mode: ValidationMode,
        server_check: _ServerCheck | None = None,
    ) -> None:
        self.component = component
        self.client = client
        self.prefix = prefix
        self.mode = mode
        self.server_check = server_check
        self.label = component.operation.label

    def tool(self) -> RegisteredTool:
        component = self.component
        op = component.operation

        async def call_operation(**arguments: Any) -> ToolResult:
            return await self.call(arguments)

        call_operation.__name__ = component.name
        annotations: dict[str, Any] = {**_ANNOTATIONS.get(op.method, {}), "openWorldHint": True}
        return make_tool(
            call_operation,
            name=component.name,
            title=op.summary,
            description=component.description or f"{op.method} {op.path}",
            annotations=annotations,
            input_schema=component.inputs.schema,
            output_schema=binding_output_schema(component.output, self.mode),
        )

    def resource(self) -> RegisteredResource:
        component = self.component
        op = component.operation
        variables = {
            _VARIABLE.sub("_", p.name): p.name for p in op.parameters if p.location == "path"
        }

        async def read(**values: Any) -> Any:
            arguments = self._template_arguments(
                {variables.get(k, k): v for k, v in values.items()}
            )
            response = await self._send(arguments)
            if isinstance(response, str):
                raise InternalError(response)
            if response.status_code == 404:
                raise LookupError(component.name)
            if response.status_code >= 400:
                body = _body(response)
                line, _ = problem_text(
                    response.status_code, response.reason_phrase, self.label, body
                )
                raise InternalError(line)
            return _resource_value(response)

        read.__name__ = op.operation_id or component.name
        media = next(
            (r.media_type for r in op.success_responses() if r.media_type), "application/json"
        )
        return RegisteredResource(
            component.name,
            read,
            name=read.__name__,
            title=op.summary,
            description=component.description,
            mime_type=media,
        )

    def _template_arguments(self, values: dict[str, Any]) -> dict[str, Any]:
        """A template's URI values typed by their parameters' schemas and checked against
        them: an ill-typed value (``abc`` for an integer id) is the reader's invalid params,
        refused before any request is sent."""
        from mcpkit.contrib.openapi._coerce import coerce_text
        from mcpkit.contrib.openapi._validate import Validator

        schema = self.component.inputs.schema
        properties = schema.get("properties") or {}
        defs = schema.get("$defs") or {}
        typed: dict[str, Any] = {}
        problems: list[str] = []
        for key, value in values.items():
            prop = properties.get(key, {})
            typed[key] = coerce_text(value, prop, defs) if isinstance(value, str) else value
            check = {**prop, "$defs": defs} if defs and isinstance(prop, dict) else prop
            for error in Validator(check).iter_errors(typed[key]):
                problems.append(f"{key}: {error.message}")
        if problems:
            raise InvalidParams(
                f"{self.label}: invalid URI values: {'; '.join(problems)}",
                {"errors": problems},
            )
        return typed

    async def _send(self, arguments: dict[str, Any]) -> httpx.Response | str:
        """The answer, or the text of an ``isError`` for a request that got none."""
        import httpx

        if self.server_check is not None:
            problem = await self.server_check.problem()
            if problem is not None:
                return f"{self.label}: {problem}"
        request = self.component.inputs.build(arguments)
        url = self.prefix + request.path
        headers = dict(request.headers)
        kwargs: dict[str, Any] = {}
        if request.has_json_body:
            kwargs["content"] = json.dumps(request.json_body).encode()
            headers["content-type"] = request.content_type or "application/json"
        elif request.form is not None:
            kwargs["data"] = request.form
        elif request.multipart is not None:  # one text part per field (no file uploads)
            kwargs["files"] = {k: (None, v) for k, v in request.multipart.items()}
        elif request.raw_body is not None:
            kwargs["content"] = request.raw_body.encode()
            headers["content-type"] = request.content_type or "text/plain"
        try:
            return await self.client.request(
                request.method, url, params=list(request.query) or None, headers=headers, **kwargs
            )
        except httpx.TimeoutException as exc:
            kind = type(exc).__name__
            return (
                f"{self.label} timed out ({kind}): the API at {self._where()} did not answer "
                "within the client's timeout"
            )
        except httpx.ConnectError as exc:
            return f"{self.label}: could not connect to the API at {self._where()}: {exc}"
        except httpx.HTTPError as exc:
            return f"{self.label} failed: {type(exc).__name__}: {exc}"

    def _where(self) -> str:
        return self.prefix or str(self.client.base_url)

    async def call(self, arguments: dict[str, Any]) -> ToolResult:
        response = await self._send(arguments)
        if isinstance(response, str):
            return _error(response)
        status = response.status_code
        body = _body(response)
        if status >= 400:
            line, problem = problem_text(status, response.reason_phrase, self.label, body)
            return ToolResult(
                content=[{"type": "text", "text": line}],
                structured_content=problem,
                is_error=True,
            )
        output = self.component.output
        is_json = _is_json(response)
        if is_json and self.mode != "off":
            if isinstance(body, _BadJSON):
                return _error(f"{self.label} answered invalid JSON: {body.reason}")
            mismatch = output.problem(status, body)
            if mismatch is not None:
                message = (
                    f"the API's {status} answer to {self.label} does not match the document "
                    f"{mismatch}"
                )
                if self.mode == "strict":
                    return _error(message)
                logger.warning("%s", message)
        if not is_json:
            return ToolResult(content=[_content_block(response)])
        if isinstance(body, _BadJSON):
            return ToolResult(content=[{"type": "text", "text": response.text}])
        text = json.dumps(body, ensure_ascii=False)
        if output.output_schema is None:
            return ToolResult(content=[{"type": "text", "text": text}])
        return ToolResult(
            content=[{"type": "text", "text": text}], structured_content=output.wrap(body)
        )


class _BadJSON:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _is_json(response: httpx.Response) -> bool:
    media = str(response.headers.get("content-type", "")).split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _body(response: httpx.Response) -> Any:
    if not response.content:
        return None
    if _is_json(response):
        try:
            return json.loads(response.content)
        except ValueError as exc:
            return _BadJSON(str(exc))
    return response.text


def _error(text: str) -> ToolResult:
    return ToolResult(content=[{"type": "text", "text": text}], is_error=True)


def _content_block(response: httpx.Response) -> dict[str, Any]:
    media = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if media.startswith("image/"):
        data = base64.b64encode(response.content).decode()
        return {"type": "image", "data": data, "mimeType": media}
    if media.startswith("text/") or not media or media in ("application/xml",):
        return {"type": "text", "text": response.text}
    try:
        return {"type": "text", "text": response.content.decode("utf-8")}
    except UnicodeDecodeError:
        data = base64.b64encode(response.content).decode()
        return {
            "type": "resource",
            "resource": {"uri": str(response.url), "mimeType": media, "blob": data},
        }


def _resource_value(response: httpx.Response) -> Any:
    from mcpkit.server import ResourceData

    media = response.headers.get("content-type", "").split(";")[0].strip().lower() or None
    if _is_json(response) or (media or "").startswith("text/"):
        return ResourceData(text=response.text, mime_type=media)
    return ResourceData(blob=response.content, mime_type=media)
