"""OpenAPI and MCP, both ways (``pip install mcpkit[openapi]``).

* :func:`from_openapi` / :func:`add_openapi` — a REST API described by an OpenAPI 3.0 or 3.1
  document becomes MCP tools (and resources, by :class:`RouteMap`), called through your
  ``httpx.AsyncClient``.
* :func:`from_fastapi` — a FastAPI app as an MCP server, in process.
* :class:`Contract` — contract-first: implement a document's operations as Python functions,
  checked against it at registration and on every call; served as MCP and, if asked, as the
  REST API the document describes.
* :func:`rest_app` — any MCP server as a plain REST API with a generated OpenAPI 3.1 document
  (``mcpkit rest TARGET --port N``).

Nothing here is imported by ``import mcpkit``; names load on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # the real types for type checkers; at run time names load on first use
    from mcpkit.contrib.openapi._contract import Contract, ContractError, OperationError
    from mcpkit.contrib.openapi._document import Document, fetch_document, load_document
    from mcpkit.contrib.openapi._errors import OpenAPIError
    from mcpkit.contrib.openapi._facade import RestFacade, rest_app
    from mcpkit.contrib.openapi._fastapi import from_asgi, from_fastapi
    from mcpkit.contrib.openapi._provider import (
        Component,
        Conversion,
        add_openapi,
        convert,
        from_openapi,
    )
    from mcpkit.contrib.openapi._routes import GET_AS_RESOURCES, RouteMap

__all__ = [
    "GET_AS_RESOURCES",
    "Component",
    "Contract",
    "ContractError",
    "Conversion",
    "Document",
    "OpenAPIError",
    "OperationError",
    "RestFacade",
    "RouteMap",
    "add_openapi",
    "convert",
    "fetch_document",
    "from_asgi",
    "from_fastapi",
    "from_openapi",
    "load_document",
    "rest_app",
]

_WHERE: Final = {
    "GET_AS_RESOURCES": "_routes",
    "RouteMap": "_routes",
    "Component": "_provider",
    "Conversion": "_provider",
    "add_openapi": "_provider",
    "convert": "_provider",
    "from_openapi": "_provider",
    "from_asgi": "_fastapi",
    "from_fastapi": "_fastapi",
    "Document": "_document",
    "load_document": "_document",
    "fetch_document": "_document",
    "OpenAPIError": "_errors",
    "Contract": "_contract",
    "ContractError": "_contract",
    "OperationError": "_contract",
    "RestFacade": "_facade",
    "rest_app": "_facade",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
