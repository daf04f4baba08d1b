"""The cross-transport fixture: ``kit_connect`` opens a client connected to the kit's feature
server over every transport in both eras (``memory``, ``stdio``, ``http-json``, ``http-sse``
by ``legacy``, ``2026-07-28``); ``stream_connect`` and ``ask_connect`` over the pairs that can
carry messages during a request and questions to the client. HTTP servers run once per test
module; stdio starts one process per test (a stdio connection is its process)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kit.transports import (
    ERAS,
    HTTP_TRANSPORTS,
    QUESTION_ROUTES,
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


@pytest.fixture(params=QUESTION_ROUTES, ids=lambda p: f"{p[0]}-{p[1]}")
def ask_connect(
    request: pytest.FixtureRequest, http_urls: Callable[[str], str]
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    """Like ``kit_connect``, over the pairs where a tool can ask the client (elicitation,
    sampling, roots): the streaming transports in both eras, and ``http-json`` in 2026-07-28,
    whose questions travel as ``input_required`` results (a legacy server asks inside the open
    request, which a single JSON answer cannot carry)."""
    transport, era = request.param
    return _connector(transport, era, http_urls)


@pytest.fixture(params=TRANSPORTS)
def auto_connect(
    request: pytest.FixtureRequest, http_urls: Callable[[str], str]
) -> Callable[..., contextlib.AbstractAsyncContextManager[Any]]:
    """Like ``kit_connect`` with the client's default ``mode="auto"`` (it probes, then picks the
    era), over every transport."""
    return _connector(request.param, "auto", http_urls)
