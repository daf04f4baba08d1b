"""The product-search contract (examples/product_search/openapi.yaml), served from one
implementation as MCP (stdio, the default) or as the REST API it describes (``--rest PORT``).

    python examples/product_search_server.py
    python examples/product_search_server.py --rest 8000     # 0: any free port
    curl 'http://127.0.0.1:8000/products/search?q=coffee&page_size=2'

With ``--rest`` the address is printed on stderr once the API is listening.

The SQLite catalog lives at ``$MCPKIT_EXAMPLES_DATA/products.db`` (default: in memory).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from product_search.catalog import Catalog
from product_search.service import build_contract


def _catalog() -> Catalog:
    data = os.environ.get("MCPKIT_EXAMPLES_DATA")
    return Catalog(Path(data) / "products.db" if data else ":memory:")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rest", type=int, metavar="PORT", help="serve REST on this port")
    args = parser.parse_args()
    contract = build_contract(_catalog())
    if args.rest is None:
        contract.server("product-search").run()
        return
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", args.rest))
    sock.listen(128)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    print(f"product search REST API at {url} ({url}/openapi.json)", file=sys.stderr, flush=True)
    config = uvicorn.Config(contract.rest_app(), log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
