"""What a stdio server imports on its way to the first answer.

Start-up is measured in instructions (benchmarks/startup.py, docs/performance.md "Issue #34"):
most of what mcpkit adds to a bare asyncio + msgspec server is import work, and the biggest
items were modules that building a class pulls in or that run generated code at import
(``dataclasses``, a ``TypedDict`` per option set, the HTTP header rules). These tests start a
real server process the normal way (``Server.run()`` on stdin/stdout), answer ``initialize``
over the pipe, and read the modules it had loaded when stdin closed: a module listed here that
comes back is a start-up regression, caught without timing anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "start-imports", "version": "0"},
    },
}

SERVER = textwrap.dedent(
    """
    import json, sys
    from mcpkit.server import Server

    app = Server("start")

    @app.tool
    async def echo(text: str) -> str:
        '''Return the text.'''
        return text

    @app.tool
    def add(a: int, b: int = 2) -> int:
        return a + b

    app.run()
    print(json.dumps(sorted(sys.modules)), file=sys.stderr)
    """
)

NOT_AT_START = [
    # generated __init__/__repr__/__eq__ source, compiled at class creation (2-4 M instructions
    # per dataclass) — and ``copy``, which it imports
    "dataclasses",
    "copy",
    # the HTTP transport's header rules (three dataclasses, three regular expressions)
    "mcpkit.protocol._http_headers",
    # option TypedDicts, for type checkers only (a ForwardRef compiled per key)
    "mcpkit.server._http_options",
    "mcpkit.server._server_options",
    "mcpkit.server._sampling_options",
    # re-exports a plain server never touches (each module costs ~0.5 M instructions to find,
    # load and run, before anything in it is used)
    "mcpkit.server.content",
    "mcpkit.server.middleware",
    "mcpkit.server._memo",
    "mcpkit.server._auth_hooks",
    "mcpkit.protocol._sampling_rules",
    # MCPKIT_WIRE_LOG's writer, unless the variable is set
    "mcpkit._runtime.wire_log",
]


@pytest.fixture(scope="module")
def loaded_at_start() -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", SERVER],
        env={k: v for k, v in os.environ.items() if k != "MCPKIT_WIRE_LOG"},
        input=json.dumps(INITIALIZE) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["id"] == 0 and answer["result"]["serverInfo"]["name"] == "start"
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("module", NOT_AT_START)
def test_a_stdio_server_answers_without_importing(module: str, loaded_at_start: set[str]) -> None:
    assert module not in loaded_at_start


def test_the_lazy_names_still_resolve() -> None:
    from mcpkit.server import HttpAppOptions, HttpRunOptions, SamplingOptions, ServerOptions
    from mcpkit.server._http_options import HttpAppOptions as app_options
    from mcpkit.server._sampling_options import SamplingOptions as sampling
    from mcpkit.server._server_options import ServerOptions as server

    assert HttpAppOptions is app_options and SamplingOptions is sampling
    assert ServerOptions is server
    assert "host" in HttpRunOptions.__optional_keys__


def test_the_lazy_re_exports_are_the_modules_objects() -> None:
    import mcpkit.server as server
    from mcpkit.server import _auth_hooks, _memo, _request, content, middleware

    assert server.content is content and server.content.text is content.text
    assert server.Middleware is middleware.Middleware
    assert server.RequestView is middleware.RequestView
    assert server.InputRequested is middleware.InputRequested is _request.InputRequested
    assert server.ScopeRequired is _auth_hooks.ScopeRequired
    assert server.MemoTooLarge is _memo.MemoTooLarge
    assert server.MAX_MEMO_BYTES == _memo.MAX_MEMO_BYTES
