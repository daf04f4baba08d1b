"""The gateway leg of the conformance suite: mcpkit's gateway on HTTP, fronting the "everything"
fixture (``everything_server.py``) as its one backend, a stdio child.

Run: ``python tests/conformance/gateway_server.py --port N`` (serves ``/mcp`` on 127.0.0.1).
The backend's names are kept (``namespacing="never"``): the suite calls fixed tool names, and it
must pass through the gateway as it passes directly.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcpkit.gateway import Gateway

FIXTURE = Path(__file__).resolve().parent / "everything_server.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=3001)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()
    gateway = Gateway(
        {"everything": {"command": sys.executable, "args": [str(FIXTURE), "--stdio"]}},
        name="mcp-conformance-test-server",
        namespacing="never",
    )
    gateway.run("http", host=args.host, port=args.port)


if __name__ == "__main__":
    main()
