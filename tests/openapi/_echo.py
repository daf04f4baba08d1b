"""A tiny ASGI API that answers what it was sent, and a document describing it (OpenAPI 3.0)."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import parse_qsl


class EchoApp:
    """``/echo/...`` answers the request it got; ``/lie`` breaks its documented schema;
    ``/slow`` waits until ``release`` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path = scope["path"]
        status, payload = 200, None
        if path == "/slow":
            await self.release.wait()
            payload = {"ok": True}
        elif path == "/lie":
            payload = {"count": "not a number"}
        elif path == "/text":
            await _send(send, 200, b"plain words", b"text/plain")
            return
        else:
            headers = {k.decode(): v.decode() for k, v in scope["headers"]}
            payload = {
                "method": scope["method"],
                "path": path,
                "query": parse_qsl(scope["query_string"].decode(), keep_blank_values=True),
                "headers": {
                    k: headers[k] for k in ("x-trace", "cookie", "content-type") if k in headers
                },
                "body": body.decode() or None,
            }
        await _send(send, status, json.dumps(payload).encode(), b"application/json")


async def _send(send: Any, status: int, data: bytes, media: bytes) -> None:
    await send(
        {"type": "http.response.start", "status": status, "headers": [(b"content-type", media)]}
    )
    await send({"type": "http.response.body", "body": data})


ANY_OBJECT: dict[str, Any] = {"type": "object"}


def echo_document() -> dict[str, Any]:
    ok = {"200": {"description": "echo", "content": {"application/json": {"schema": ANY_OBJECT}}}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "echo", "version": "1"},
        "paths": {
            "/echo/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "post": {
                    "operationId": "echo.post",
                    "parameters": [
                        {"name": "id", "in": "query", "schema": {"type": "string"}},
                        {
                            "name": "tags",
                            "in": "query",
                            "explode": False,
                            "schema": {"type": "array", "items": {"type": "string"}},
                        },
                        {
                            "name": "filter",
                            "in": "query",
                            "style": "deepObject",
                            "schema": {"type": "object"},
                        },
                        {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                        {"name": "session", "in": "cookie", "schema": {"type": "string"}},
                        {"name": "Accept", "in": "header", "schema": {"type": "string"}},
                    ],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}
                        },
                    },
                    "responses": ok,
                },
                "put": {
                    "operationId": "echo.put",
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"type": "integer"}}
                            }
                        }
                    },
                    "responses": ok,
                },
                "delete": {
                    "operationId": "echo.multipart",
                    "requestBody": {
                        "content": {
                            "multipart/form-data": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "title": {"type": "string"},
                                        "n": {"type": "integer"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": ok,
                },
                "patch": {
                    "operationId": "echo.form",
                    "requestBody": {
                        "content": {
                            "application/x-www-form-urlencoded": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "a": {"type": "string"},
                                        "n": {"type": "integer"},
                                    },
                                }
                            }
                        }
                    },
                    "responses": ok,
                },
            },
            "/lie": {
                "get": {
                    "operationId": "lie",
                    "responses": {
                        "200": {
                            "description": "count",
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"count": {"type": "integer"}},
                                    }
                                }
                            },
                        }
                    },
                }
            },
            "/slow": {"get": {"operationId": "slow", "responses": ok}},
            "/text": {
                "get": {
                    "operationId": "text",
                    "responses": {
                        "200": {
                            "description": "text",
                            "content": {"text/plain": {"schema": {"type": "string"}}},
                        }
                    },
                }
            },
        },
        "components": {
            "schemas": {
                "Thing": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}, "id": {"type": "integer"}},
                }
            }
        },
    }
