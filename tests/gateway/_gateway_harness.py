"""Three real backends and a gateway in front of them, for the gateway tests.

* ``notes``: mcpkit's server over stdio (a child of the gateway);
* ``weather``: the official SDK's server over Streamable HTTP, spoken to in the handshake era;
* ``crm``: mcpkit's server over Streamable HTTP, which demands the gateway's own bearer token.

The gateway is served on real uvicorn (loopback) with static tokens for the clients below.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from mcpkit.gateway import Gateway, parse_gateway_config
from transports.http_client._harness import PeerProcess, peer, running, sdk_python

SERVERS: Final = Path(__file__).resolve().parent / "servers"
NOTES: Final = SERVERS / "notes_server.py"
CRM: Final = SERVERS / "crm_server.py"
SDK_SERVER: Final = SERVERS / "sdk_server.py"
SDK_CLIENT: Final = SERVERS / "sdk_client.py"
CRM_TOKEN: Final = "crm-backend-credential-0123456789"
TOKENS: Final = {
    "alice": "alice-token-0123456789abcdef",
    "bob": "bob-token-0123456789abcdef",
    "carol": "carol-token-0123456789abcdef",
    "sdk": "sdk-token-0123456789abcdef",
}
CLIENTS: Final[dict[str, Any]] = {
    "alice": {"allow": ["*"], "deny": ["notes/delete_*", "resources:notes/notes://todo"]},
    "bob": {"allow": ["weather/*", "crm/search_*", "prompts:crm/*"]},
    "carol": {"allow": ["crm/*"], "rateLimit": {"rate": 0.01, "burst": 2}},
    "sdk": {"allow": ["weather/*", "crm/search_*"]},
}


@dataclass
class Stack:
    gateway: Gateway
    url: str
    audit: Path

    def target(self, client: str) -> dict[str, Any]:
        """An ``mcpServers`` entry for ``client`` (its bearer token in the headers)."""
        return {"url": self.url, "headers": {"Authorization": f"Bearer {TOKENS[client]}"}}


def config(weather_url: str, crm_url: str, audit: Path, **gateway: Any) -> dict[str, Any]:
    clients = {name: {**rule, "token": TOKENS[name]} for name, rule in CLIENTS.items()}
    return {
        "mcpServers": {
            "notes": {"command": sys.executable, "args": [str(NOTES)]},
            "weather": {"url": weather_url, "mode": "legacy"},
            "crm": {"url": crm_url, "bearer": CRM_TOKEN},
        },
        "gateway": {"audit": str(audit), "clients": clients, **gateway},
    }


@contextlib.asynccontextmanager
async def backends(tmp_path: Path) -> AsyncIterator[tuple[PeerProcess, PeerProcess]]:
    async with (
        peer([sdk_python(), str(SDK_SERVER)], tmp_path / "weather.log") as weather,
        peer([sys.executable, str(CRM), "--require-token", CRM_TOKEN], tmp_path / "crm.log") as crm,
    ):
        yield weather, crm


@contextlib.asynccontextmanager
async def stack(tmp_path: Path, **gateway: Any) -> AsyncIterator[Stack]:
    """The three backends and the gateway (HTTP, static tokens) in front of them."""
    audit = tmp_path / "audit.jsonl"
    async with backends(tmp_path) as (weather, crm):
        entries, settings = parse_gateway_config(config(weather.url(), crm.url(), audit, **gateway))
        gw = Gateway.from_settings(entries, settings)
        async with running(gw.http_app(), lifespan="on") as base:
            yield Stack(gw, f"{base}/mcp", audit)
