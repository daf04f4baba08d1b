"""Coverage-guided fuzzing with atheris (libFuzzer): ``scripts/fuzz <target> [seconds]``.

Targets are the byte-level entry points of ``_fuzz_targets.TARGETS`` plus ``asgi`` (the HTTP
app, one request per input: the first bytes pick the method, path and headers, the rest is the
body). A crash (an exception other than the target's documented error, or a broken invariant)
stops the run, prints the input and writes it as ``crash-<sha1>`` in the working directory; turn
it into a regression test in ``tests/fuzz``. A corpus of interesting inputs is kept under
``.fuzz-corpus/<target>`` (ignored by git) so later runs start where earlier ones stopped.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import atheris  # noqa: E402  (after the path setup, and only in this on-demand script)

with atheris.instrument_imports(include=["mcpkit"]):
    import _fuzz_targets
    from _fuzz_asgi import HOST, AsgiTarget

_METHODS = [b"GET", b"POST", b"DELETE", b"PUT", b"OPTIONS"]
_PATHS = [b"/mcp", b"/mcp/", b"/healthz", b"/", b"/x"]
_HEADERS = [
    (b"host", HOST.encode()),
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
    (b"mcp-protocol-version", b"2026-07-28"),
    (b"mcp-protocol-version", b"2025-11-25"),
    (b"mcp-method", b"tools/call"),
    (b"mcp-name", b"add"),
    (b"origin", b"http://evil.example"),
    (b"mcp-session-id", b"x"),
]


def _asgi_target() -> object:
    runner = asyncio.Runner()
    target = AsgiTarget()
    runner.run(target.__aenter__())

    def one(data: bytes) -> None:
        if len(data) < 2:
            return
        method = _METHODS[data[0] % len(_METHODS)].decode()
        path = _PATHS[(data[0] >> 4) % len(_PATHS)].decode()
        headers = [h for i, h in enumerate(_HEADERS) if data[1] >> (i % 8) & 1 or i == 0]
        body = data[2:]
        runner.run(
            target.check(method, path, headers, [body[: len(body) // 2], body[len(body) // 2 :]])
        )

    return one


_RPC = [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"add","arguments":{"a":1}}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":1,"result":{}}',
    b'{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"x","data":[1]}}',
]
_META = [
    b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
    b'"io.modelcontextprotocol/clientCapabilities":{},"progressToken":1,'
    b'"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/clientInfo":'
    b'{"name":"a","version":"1"}}',
]
SEEDS: dict[str, list[bytes]] = {
    "codec": _RPC,
    "framer": [b"\x00\x05\x09\x10" + b"\n".join(_RPC) + b"\r\n \n"],
    "sse": [b"\x40\x03\x07\x0b: hi\n\nid: 1\nevent: message\ndata: {}\nretry: 5\n\r\n"],
    "uri-template": [b"file:///{+path}{?a,b}\x00file:///x/y?a=1", b"{/x*}{.a}\x00/p/q.r"],
    "header-value": [b"=?base64?w6k=?=", b"plain value"],
    "headers": [
        b"Mcp-Method:tools/call\nMcp-Name:region\nMcp-Param-Region:eu\x00\x00"
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"region",'
        b'"arguments":{"region":"eu","count":1}}}'
    ],
    "meta": _META,
    "asgi": [b"\x01\xff" + seed for seed in _RPC],
}


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in [*_fuzz_targets.TARGETS, "asgi"]:
        names = ", ".join([*_fuzz_targets.TARGETS, "asgi"])
        sys.exit(f"usage: scripts/fuzz <target> [seconds]   (targets: {names})")
    name = sys.argv[1]
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    target = _asgi_target() if name == "asgi" else _fuzz_targets.TARGETS[name]
    corpus = Path(os.environ.get("MCPKIT_FUZZ_CORPUS", ".fuzz-corpus")) / name
    if not corpus.is_dir():
        corpus.mkdir(parents=True)
        for i, seed in enumerate(SEEDS.get(name, [])):
            (corpus / f"seed-{i}").write_bytes(seed)
    argv = [sys.argv[0], str(corpus), f"-max_total_time={seconds}", "-print_final_stats=1"]
    argv += ["-max_len=4096", "-rss_limit_mb=2048", *sys.argv[3:]]
    atheris.Setup(argv, target)  # type: ignore[arg-type]
    atheris.Fuzz()


if __name__ == "__main__":
    main()
