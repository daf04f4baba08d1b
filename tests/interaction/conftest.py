"""The cross-transport fixture: ``kit_connect`` opens a client connected to the kit's feature
server over every transport in both eras (``memory``, ``stdio``, ``http-json``, ``http-sse``
by ``legacy``, ``2026-07-28``). HTTP servers run once per test module; stdio starts one process
per test (a stdio connection is its process)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kit.transports import (
    ERAS,
    HTTP_TRANSPORTS,
    STREAMING_TRANSPORTS,
    TRANSPORTS,
    open_client,
    serve_http,
)


@pytest.fixture(scope="module")
def http_urls() -> Iterator[Callable[[str], str]]:
    """``http_urls(transport)``: the URL of this module's HTTP server for that mode (started on
    first use, stopped with the module)."""
    with contextlib.ExitStack() as stack:
        urls: dict[str, str] = {}

        def url(transport: str) -> str:
            if transport not in urls:
                urls[transport] = stack.enter_context(serve_http(transport))
            return urls[transport]

        yield url


def _connector(
    transport: str, era: str, http_urls: Callable[[str], str]
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    url = http_urls(transport) if transport in HTTP_TRANSPORTS else None

    def connect(**options: Any) -> contextlib.AbstractAsyncContextManager[Any]:
        return open_client(transport, era, url=url, **options)

    return connect


@pytest.fixture(params=[(t, e) for t in TRANSPORTS for e in ERAS], ids=lambda p: f"{p[0]}-{p[1]}")
def kit_connect(
    request: pytest.FixtureRequest, http_urls: Callable[[str], str]
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    """``kit_connect(**client_options)``: an ``async with`` opening a client over every
    transport and era in turn."""
    transport, era = request.param
    return _connector(transport, era, http_urls)


@pytest.fixture(
    params=[(t, e) for t in STREAMING_TRANSPORTS for e in ERAS], ids=lambda p: f"{p[0]}-{p[1]}"
)
def stream_connect(
    request: pytest.FixtureRequest, http_urls: Callable[[str], str]
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    """Like ``kit_connect``, over the transports that deliver messages *during* a request
    (progress, log messages, questions, change notifications): all but ``http-json``, where
    a POST gets one JSON answer and nothing else (the spec's JSON response mode)."""
    transport, era = request.param
    return _connector(transport, era, http_urls)
