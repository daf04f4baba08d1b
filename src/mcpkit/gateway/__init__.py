"""The gateway: many MCP servers behind one endpoint, with per-client consent, rate limits,
era bridging and an audit log (``mcpkit gateway CONFIG --http``; see docs/gateway.md)."""

from mcpkit.gateway._audit import AuditRecord, AuditSink, JsonLinesAudit, arguments_digest
from mcpkit.gateway._config import (
    ClientRule,
    GatewaySettings,
    load_gateway_config,
    parse_gateway_config,
)
from mcpkit.gateway._gateway import BACKEND_UNAVAILABLE, BackendUnavailable, Gateway
from mcpkit.gateway._gateway_options import GatewayOptions, GatewayRunOptions
from mcpkit.gateway._identity import ANONYMOUS, StaticBearer, client_name
from mcpkit.gateway._policy import Policy
from mcpkit.gateway._ratelimit import RATE_LIMITED, RateLimit, RateLimited

__all__ = [
    "ANONYMOUS",
    "BACKEND_UNAVAILABLE",
    "RATE_LIMITED",
    "AuditRecord",
    "AuditSink",
    "BackendUnavailable",
    "ClientRule",
    "Gateway",
    "GatewayOptions",
    "GatewayRunOptions",
    "GatewaySettings",
    "JsonLinesAudit",
    "Policy",
    "RateLimit",
    "RateLimited",
    "StaticBearer",
    "arguments_digest",
    "client_name",
    "load_gateway_config",
    "parse_gateway_config",
]
