"""Contract-first servers: an OpenAPI document is the contract, Python functions implement it.

>>> contract = Contract("openapi.yaml")
>>> @contract.implement("search.products")
... def search(q: str, page: int = 1) -> dict: ...
>>> server = contract.server()        # MCP tools, one per operation
>>> app = contract.rest_app()         # the REST API the document describes (ASGI)

The contract is enforced at three points:

* **registration** — the function's parameters must be the operation's arguments: every
  required argument has a parameter (or ``**kwargs``), every parameter is an argument, a
  parameter without a default is required (or defaulted) by the contract, and a simple type
  annotation (``int``, ``str``, ``list`` ...) agrees with the schema's type;
* **every request** — the arguments are validated against the operation's merged input schema
  (MCP: before the function runs; REST: after the path, query, header, cookie and body values
  have been read and typed by their schemas), schema defaults filled in;
* **every response** — what the function returns is checked against the documented success
  response, and an :class:`OperationError` it raises must use a status the operation documents,
  with a body matching that response's schema. A broken promise is the implementation's bug:
  ``validate_responses="strict"`` turns it into an error answer (and a log line), ``"warn"`` only
  logs it. Only ``"strict"`` advertises the success response as the MCP tool's ``outputSchema``
  (clients reject results that break an advertised schema, so ``"warn"``/``"off"`` would never
  deliver the data they let through).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar, Unpack

from mcpkit.contrib.openapi._provider import Component, DocumentSource, convert
from mcpkit.contrib.openapi._responses import (
    VALIDATION_MODES,
    ValidationMode,
    binding_output_schema,
    problem_text,
)
from mcpkit.contrib.openapi._tool import make_tool
from mcpkit.protocol import UsageError
from mcpkit.server import RegisteredTool, ToolResult

if TYPE_CHECKING:
    from mcpkit.server import Server, ServerOptions

__all__ = [
    "Contract",
    "ContractError",
    "ContractViolation",
    "OperationError",
    "OperationImplementation",
]

logger = logging.getLogger("mcpkit.contrib.openapi")

F = TypeVar("F", bound=Callable[..., Any])

_PY_TO_JSON: Final[dict[Any, str]] = {
    int: "integer",
    float: "number",
    str: "string",
    bool: "boolean",
    list: "array",
    dict: "object",
}
_COMPATIBLE: Final[dict[str, frozenset[str]]] = {
    "integer": frozenset({"integer"}),
    "number": frozenset({"number", "integer"}),
    "string": frozenset({"string"}),
    "boolean": frozenset({"boolean"}),
    "array": frozenset({"array"}),
    "object": frozenset({"object"}),
}
_REASONS: Final = {400: "Bad Request", 404: "Not Found", 409: "Conflict", 422: "Unprocessable"}


class ContractError(UsageError):
    """A function does not fit the operation it claims to implement (found at registration)."""


class ContractViolation(Exception):
    """An implementation answered something its contract does not allow (found per call)."""


class OperationError(Exception):
    """Raise from an implementation to answer with a documented error response.

    ``status`` must be one the operation documents and ``body`` must match its schema; the REST
    app answers with exactly that, MCP with an ``isError`` result carrying it.
    """

    def __init__(self, status: int, body: Any = None) -> None:
        super().__init__(f"HTTP {status}: {body!r}")
        self.status = status
        self.body = body


@dataclass(slots=True)
class OperationImplementation:
    component: Component
    fn: Callable[..., Any]
    is_async: bool
    defaults: dict[str, Any]
    success_status: int


class Contract:
    """An OpenAPI document plus the Python functions that implement its operations."""

    def __init__(
        self,
        source: DocumentSource,
        *,
        validate_responses: ValidationMode = "strict",
        names: Mapping[str, str] | None = None,
    ) -> None:
        if validate_responses not in VALIDATION_MODES:
            raise UsageError(f"validate_responses must be one of {', '.join(VALIDATION_MODES)}")
        self.conversion = convert(source, names=names)
        self.document = self.conversion.document
        self.validate_responses: ValidationMode = validate_responses
        self._components: dict[str, Component] = {}
        for component in self.conversion.components:
            op = component.operation
            if op.operation_id:
                self._components[op.operation_id] = component
            self._components[op.label] = component
        self.implementations: dict[str, OperationImplementation] = {}
        for component in self.conversion.components:
            op = component.operation
            if component.inputs.arguments and op.response_for(400) is None:
                logger.warning(
                    "contract: %s takes arguments but documents no 400 response; its REST "
                    "side will answer invalid requests with an undocumented 400",
                    op.operation_id or op.label,
                )

    # -- registration --------------------------------------------------------------------------

    def implement(self, operation: str) -> Callable[[F], F]:
        """Implement ``operation`` (an ``operationId``, or ``"GET /path"``) with a function."""
        component = self._components.get(operation)
        if component is None:
            known = sorted(c.operation.operation_id or c.operation.label for c in self.components)
            raise ContractError(
                f"the contract has no operation {operation!r}; it has: {', '.join(known)}"
            )

        def register(fn: F) -> F:
            key = component.operation.label
            if key in self.implementations:
                raise ContractError(f"operation {operation!r} is already implemented")
            defaults = _check_signature(fn, component)
            success = component.operation.success_responses()
            status = int(success[0].status) if success and success[0].status.isdigit() else 200
            self.implementations[key] = OperationImplementation(
                component,
                fn,
                inspect.iscoroutinefunction(inspect.unwrap(fn)),
                defaults,
                status,
            )
            return fn

        return register

    @property
    def components(self) -> list[Component]:
        return self.conversion.components

    def missing(self) -> list[str]:
        """The operations nobody implemented yet."""
        return [
            c.operation.operation_id or c.operation.label
            for c in self.components
            if c.operation.label not in self.implementations
        ]

    def _require_complete(self, require_all: bool) -> None:
        missing = self.missing()
        if require_all and missing:
            raise ContractError(
                f"operations without an implementation: {', '.join(missing)} "
                "(pass require_all=False to serve the others)"
            )

    # -- calling -------------------------------------------------------------------------------

    async def invoke(
        self, implementation: OperationImplementation, arguments: dict[str, Any]
    ) -> tuple[int, Any]:
        """Run an implementation on validated arguments; (status, body) it answers."""
        values = {**implementation.defaults, **arguments}
        fn = implementation.fn
        op = implementation.component.operation
        try:
            if implementation.is_async:
                value = await fn(**values)
            else:
                value = await asyncio.to_thread(functools.partial(fn, **values))
        except OperationError as exc:
            status, body = exc.status, _jsonable(exc.body)
            if op.response_for(status) is None or status < 400:
                self._violated(
                    f"{op.label} raised OperationError({status}), "
                    "a status it does not document as an error"
                )
            self._check(implementation, status, body)
            return status, body
        body = _jsonable(value)
        self._check(implementation, implementation.success_status, body)
        return implementation.success_status, body

    def _check(self, implementation: OperationImplementation, status: int, body: Any) -> None:
        if self.validate_responses == "off":
            return
        problem = implementation.component.output.problem(status, body, formats=True)
        if problem is not None:
            op = implementation.component.operation
            self._violated(
                f"the {status} answer of {op.label} does not match the contract {problem}"
            )

    def _violated(self, message: str) -> None:
        logger.error("contract violation: %s", message)
        if self.validate_responses == "strict":
            raise ContractViolation(message)

    # -- serving -------------------------------------------------------------------------------

    def server(
        self,
        name: str | None = None,
        *,
        require_all: bool = True,
        **options: Unpack[ServerOptions],
    ) -> Server:
        """An MCP server with one tool per implemented operation."""
        from mcpkit.server import Server

        self._require_complete(require_all)
        server = Server(
            name or self.document.title,
            str(self.document.info.get("version") or "0.1.0"),
            **options,
        )
        for implementation in self.implementations.values():
            server.add_tool(self._tool(implementation))
        return server

    def _tool(self, implementation: OperationImplementation) -> RegisteredTool:
        from mcpkit.contrib.openapi._provider import _ANNOTATIONS

        component = implementation.component
        op = component.operation
        output = component.output

        async def call(**arguments: Any) -> ToolResult:
            import json

            try:
                status, body = await self.invoke(implementation, arguments)
            except ContractViolation as exc:
                return ToolResult(
                    content=[{"type": "text", "text": f"contract violation: {exc}"}], is_error=True
                )
            if status >= 400:
                line, problem = problem_text(status, _REASONS.get(status, "Error"), op.label, body)
                return ToolResult(
                    content=[{"type": "text", "text": line}],
                    structured_content=problem,
                    is_error=True,
                )
            text = json.dumps(body, ensure_ascii=False)
            if output.output_schema is None:
                return ToolResult(content=[{"type": "text", "text": text}])
            return ToolResult(
                content=[{"type": "text", "text": text}], structured_content=output.wrap(body)
            )

        call.__name__ = component.name
        return make_tool(
            call,
            name=component.name,
            title=op.summary,
            description=component.description or op.label,
            annotations=dict(_ANNOTATIONS.get(op.method, {})),
            input_schema=component.inputs.schema,
            output_schema=binding_output_schema(output, self.validate_responses),
        )

    def rest_app(self, *, require_all: bool = True) -> Any:
        """An ASGI app serving the REST API the document describes, backed by the functions."""
        from mcpkit.contrib.openapi._rest_router import ContractApp

        self._require_complete(require_all)
        return ContractApp(self)


def _jsonable(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    import msgspec

    return msgspec.to_builtins(value)


def _json_type(annotation: Any) -> str | None:
    """The JSON type a simple annotation promises (``int | None`` → integer), else None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(args[0]) if len(args) == 1 else None
    if origin is typing.Annotated:
        return _json_type(typing.get_args(annotation)[0])
    return _PY_TO_JSON.get(origin or annotation)


def _schema_types(schema: Any) -> set[str] | None:
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return None


def _check_signature(fn: Callable[..., Any], component: Component) -> dict[str, Any]:
    """Refuse a function that does not fit the operation; return the schema defaults to fill."""
    op = component.operation
    label = op.operation_id or op.label
    where = f"{getattr(fn, '__qualname__', fn)!s} implementing {label!r}"
    schema = component.inputs.schema
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:
        hints = {}
    params = inspect.signature(fn).parameters
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    names = []
    for name, param in params.items():
        if param.kind is param.VAR_KEYWORD:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.POSITIONAL_ONLY):
            raise ContractError(f"{where}: parameter {name!r} must be passable by keyword")
        annotation = hints.get(name)
        if annotation is not None and getattr(annotation, "__name__", "") == "Context":
            continue
        if name not in properties:
            raise ContractError(
                f"{where}: parameter {name!r} is not an argument of the operation; "
                f"its arguments are: {', '.join(properties) or '(none)'}"
            )
        names.append(name)
        prop = properties[name]
        if (
            param.default is param.empty
            and name not in required
            and not (isinstance(prop, dict) and "default" in prop)
        ):
            raise ContractError(
                f"{where}: parameter {name!r} has no default, but the contract makes it optional"
            )
        expected = _json_type(annotation) if annotation is not None else None
        declared = _schema_types(prop)
        if expected and declared and not (_COMPATIBLE[expected] & declared):
            raise ContractError(
                f"{where}: parameter {name!r} is annotated {annotation!r} ({expected}), "
                f"but the contract's schema says {' or '.join(sorted(declared))}"
            )
    if not var_kw:
        absent = sorted(required - set(names))
        if absent:
            raise ContractError(
                f"{where}: the contract requires argument(s) {', '.join(absent)}, "
                "which the function does not take"
            )
    defaults: dict[str, Any] = {}
    for name, prop in properties.items():
        if isinstance(prop, dict) and "default" in prop and (name in params or var_kw):
            defaults[name] = prop["default"]
    return defaults
