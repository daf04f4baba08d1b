"""The product-search FastAPI service (examples/product_search) under uvicorn on a free loopback
port, for benchmarks/openapi_bench.py. Prints ``PORT <n>`` once it is listening.

``POST /floor`` bypasses FastAPI: a bare ASGI answer, the HTTP round trip's own cost on this
uvicorn (the floor the REST facade is compared with)."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import uvicorn
from product_search.catalog import Catalog
from product_search.fastapi_app import create_app


def with_floor(app: Any) -> Any:
    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/floor":
            while (await receive()).get("more_body"):
                pass
            headers = [(b"content-type", b"application/json"), (b"content-length", b"12")]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": b'{"result":3}'})
            return
        await app(scope, receive, send)

    return wrapped


def main() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(create_app(Catalog()), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
