"""The gateway's configuration file: an ``mcpServers`` file plus a ``gateway`` section.

::

    {"mcpServers": {
        "files": {"command": "python", "args": ["files_server.py"],
                  "env": {"FILES_KEY": "${env:FILES_KEY}"}, "timeout": 30},
        "crm": {"url": "https://crm.example.com/mcp", "bearer": "${env:CRM_TOKEN}"}},
     "gateway": {
        "namespacing": "always", "callTimeout": 60, "audit": "audit.jsonl",
        "clients": {
            "alice": {"tokenEnv": "ALICE_TOKEN", "allow": ["*"], "deny": ["files/delete_*"]},
            "bot": {"tokenEnv": "BOT_TOKEN", "allow": ["crm/search_*"],
                    "rateLimit": {"rate": 5, "burst": 10}}},
        "anonymous": {"allow": ["crm/search_*"], "rateLimit": {"rate": 1, "burst": 5}}}}

Backends are read exactly as :func:`~mcpkit.client.host._config.parse_servers` reads them (so
``${env:…}`` works in ``command``, ``args``, ``env``, ``url`` and ``headers``); a backend's
``bearer`` becomes its ``Authorization`` header and ``timeout`` its per-call deadline. These are
the *gateway's* credentials for that backend: a client's own token is never passed on.

``clients`` names each client's policy (:mod:`mcpkit.gateway._policy`), optional rate limit, and —
for the static-token mode — its token (``token``, or ``tokenEnv`` naming an environment
variable). ``anonymous`` is the policy of unauthenticated requests; it defaults to everything when
no client has a token (a local gateway, e.g. on stdio) and to nothing otherwise. Its optional
``rateLimit`` is one bucket shared by every unauthenticated caller.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from mcpkit.client.host import ServerEntry, parse_servers
from mcpkit.gateway._policy import ALLOW_ALL, DENY_ALL, Policy
from mcpkit.gateway._ratelimit import RateLimit
from mcpkit.protocol import UsageError

__all__ = ["ClientRule", "GatewaySettings", "load_gateway_config", "parse_gateway_config"]

DEFAULT_CALL_TIMEOUT: Final = 60.0
_GATEWAY_KEYS: Final = frozenset(
    {"name", "namespacing", "separator", "callTimeout", "audit", "clients", "anonymous"}
)
_CLIENT_KEYS: Final = frozenset({"token", "tokenEnv", "allow", "deny", "rateLimit"})


@dataclass(frozen=True, slots=True)
class ClientRule:
    """What one client may do."""

    policy: Policy
    rate_limit: RateLimit | None = None
    token: str | None = None
    """Its static bearer token (``None`` behind OAuth)."""


@dataclass(slots=True)
class GatewaySettings:
    """The ``gateway`` section, parsed."""

    name: str = "mcpkit-gateway"
    namespacing: str = "always"
    separator: str = "__"
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    audit: str | None = None
    clients: dict[str, ClientRule] = field(default_factory=dict)
    anonymous: Policy | None = None
    anonymous_rate_limit: RateLimit | None = None
    backend_timeouts: dict[str, float] = field(default_factory=dict)

    def tokens(self) -> dict[str, str]:
        """Static token → client name (empty when no client has one)."""
        return {rule.token: name for name, rule in self.clients.items() if rule.token}


def _rate_limit(name: str, raw: Any) -> RateLimit | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"rate", "burst"} or "rate" not in raw:
        raise UsageError(f'client {name!r}: rateLimit is {{"rate": calls/s, "burst": n}}')
    rate = float(raw["rate"])
    return RateLimit(rate=rate, burst=int(raw.get("burst", max(1, round(rate)))))


def _client(name: str, raw: Any, environ: Mapping[str, str]) -> ClientRule:
    if not isinstance(raw, Mapping):
        raise UsageError(f"client {name!r} must be an object")
    unknown = set(raw) - _CLIENT_KEYS
    if unknown:
        raise UsageError(f"client {name!r}: unknown keys {sorted(unknown)}")
    token = raw.get("token")
    variable = raw.get("tokenEnv")
    if variable is not None:
        if variable not in environ:
            raise UsageError(f"client {name!r}: environment variable {variable} is not set")
        token = environ[variable]
    if token is not None and not isinstance(token, str):
        raise UsageError(f"client {name!r}: token must be a string")
    policy = Policy.from_config({k: raw[k] for k in ("allow", "deny") if k in raw})
    return ClientRule(policy, _rate_limit(name, raw.get("rateLimit")), token)


def _backend_credentials(servers: Mapping[str, Any]) -> dict[str, Any]:
    """``bearer`` → ``headers.Authorization`` (before variables are substituted)."""
    out: dict[str, Any] = {}
    for name, raw in servers.items():
        if isinstance(raw, Mapping) and "bearer" in raw:
            entry = {k: v for k, v in raw.items() if k != "bearer"}
            headers = dict(entry.get("headers") or {})
            headers["Authorization"] = f"Bearer {raw['bearer']}"
            entry["headers"] = headers
            out[name] = entry
        else:
            out[name] = raw
    return out


def parse_gateway_config(
    config: Mapping[str, Any], *, environ: Mapping[str, str] | None = None
) -> tuple[list[ServerEntry], GatewaySettings]:
    """The backends and the gateway settings of a configuration ``dict``."""
    environ = os.environ if environ is None else environ
    servers = config.get("mcpServers", config.get("servers"))
    if not isinstance(servers, Mapping) or not servers:
        raise UsageError('a gateway configuration needs "mcpServers" with at least one backend')
    entries = parse_servers({"mcpServers": _backend_credentials(servers)}, environ=environ)
    raw = config.get("gateway", {})
    if not isinstance(raw, Mapping):
        raise UsageError('"gateway" must be an object')
    unknown = set(raw) - _GATEWAY_KEYS
    if unknown:
        raise UsageError(f'unknown "gateway" keys {sorted(unknown)}')
    settings = GatewaySettings()
    if "name" in raw:
        settings.name = str(raw["name"])
    if "namespacing" in raw:
        settings.namespacing = str(raw["namespacing"])
    if "separator" in raw:
        settings.separator = str(raw["separator"])
    if "callTimeout" in raw:
        settings.call_timeout = float(raw["callTimeout"])
    if raw.get("audit") is not None:
        settings.audit = str(raw["audit"])
    clients = raw.get("clients", {})
    if not isinstance(clients, Mapping):
        raise UsageError('"gateway.clients" must map client names to their rules')
    settings.clients = {name: _client(name, rule, environ) for name, rule in clients.items()}
    if "anonymous" in raw:
        anonymous = raw["anonymous"]
        if isinstance(anonymous, Mapping) and "rateLimit" in anonymous:
            settings.anonymous_rate_limit = _rate_limit("anonymous", anonymous["rateLimit"])
            anonymous = {k: v for k, v in anonymous.items() if k != "rateLimit"}
        settings.anonymous = Policy.from_config(anonymous)
    else:
        settings.anonymous = DENY_ALL if settings.tokens() else ALLOW_ALL
    for entry in entries:
        timeout = entry.options.pop("timeout", None)
        if timeout is not None:
            settings.backend_timeouts[entry.name] = float(timeout)
    return entries, settings


def load_gateway_config(
    path: str | os.PathLike[str], *, environ: Mapping[str, str] | None = None
) -> tuple[list[ServerEntry], GatewaySettings]:
    """Read a gateway configuration file (JSON)."""
    file = Path(path).expanduser()
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read gateway configuration {file}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{file} is not valid JSON: {exc}") from None
    if not isinstance(config, dict):
        raise UsageError(f"{file} must hold a JSON object")
    entries, settings = parse_gateway_config(config, environ=environ)
    if settings.audit is not None and not os.path.isabs(settings.audit):
        settings.audit = str(file.parent / settings.audit)  # relative to the config file
    return entries, settings
