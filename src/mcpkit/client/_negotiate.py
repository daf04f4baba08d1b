"""Era detection and version negotiation (CHECKLIST §2C; stdio and HTTP alike).

``mode="auto"`` probes ``server/discover`` with the newest modern version:

* a ``DiscoverResult`` listing a modern version we speak → modern;
* a *recognised modern error* → modern, never a fallback: -32022 names the supported versions
  (retry once with a mutual one), -32021 / -32020 mean the server is modern but refuses us;
* anything else — another error code (legacy servers answer -32601, -32602 or -32600), an HTTP
  rejection without a JSON-RPC body, a result that is not a DiscoverResult, or silence until the
  bounded probe timeout → legacy ``initialize``. The fallback never keys on one error code.

A transport failure is never an era verdict: it propagates. And because a server that locks its
stdio connection to an era on the first message may have processed a probe we stopped waiting
for, an ``initialize`` answered with -32022 is itself modern evidence and triggers one re-probe.

``mode="legacy"`` sends ``initialize`` only; ``mode="2026-07-28"`` probes and never falls back.
A saved discover result (``Negotiated.discover_result``) skips the probe entirely.

This module is the *policy*: what to try, in which order, and how to read each outcome. The
protocol state is the channel's :class:`~mcpkit.protocol._connection.ClientConnection`: the
``initialize`` handshake runs through its lifecycle (which checks the offered revision and holds
it), and a modern verdict is recorded there with ``adopt_discover``. :class:`Negotiated` is the
report of what was agreed, built from what the connection recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from mcpkit.client._channel import Channel
from mcpkit.client._errors import IncompatibleServer
from mcpkit.protocol._connection import ClientConnection
from mcpkit.protocol._errors import (
    AuthorizationError,
    HeaderMismatch,
    JSONRPCError,
    MissingRequiredClientCapability,
    RemoteProtocolError,
    RequestTimeout,
    UnsupportedProtocolVersion,
)
from mcpkit.protocol._versions import choose_client_version
from mcpkit.types import meta as keys
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._method_names import INITIALIZED_NOTIFICATION
from mcpkit.types._versions import (
    LATEST_LEGACY_VERSION,
    LEGACY_VERSIONS,
    MODERN_VERSIONS,
    Era,
    newest,
)
from mcpkit.types._versions import ClientMode as Mode

__all__ = [
    "DEFAULT_INITIALIZE_TIMEOUT",
    "DEFAULT_PROBE_TIMEOUT",
    "Mode",
    "Negotiated",
    "NegotiationConfig",
    "adopt_discover",
    "adopt_saved",
    "handshake_verdict",
    "initialize",
    "negotiate",
    "probe",
]

logger = logging.getLogger("mcpkit.client")


DEFAULT_PROBE_TIMEOUT: Final = 10.0
"""Seconds to wait for the ``server/discover`` answer before deciding the server is legacy.

Generous on purpose: it includes the server's own start-up (a Python server importing a large SDK
takes seconds), and a too-short probe only costs a re-probe, never a wrong era."""
DEFAULT_INITIALIZE_TIMEOUT: Final = 30.0
SERVER_INFO_KEY: Final = keys.SERVER_INFO
MAX_PROBES: Final = 2
"""At most one retry of ``server/discover`` at a version named by -32022."""


@dataclass(slots=True)
class Negotiated:
    """The outcome of a negotiation: what era and version, and what the server declared."""

    era: Era
    protocol_version: str
    capabilities: JSONObject
    server_info: JSONObject
    instructions: str | None = None
    discover_result: JSONObject | None = None
    """The raw ``server/discover`` result (modern), reusable to skip the next probe."""
    initialize_result: JSONObject | None = None
    supported_versions: list[str] = field(default_factory=list)
    ttl_ms: int | None = None
    cache_scope: str | None = None
    session_id: str | None = None
    """Legacy Streamable HTTP: the ``Mcp-Session-Id`` the server issued."""

    @property
    def server_name(self) -> str:
        name = self.server_info.get("name")
        return name if isinstance(name, str) else "?"

    def describe(self) -> str:
        """One log line: server, era, version, session id, capabilities, TTL."""
        version = self.server_info.get("version", "?")
        caps = ",".join(
            f"{name}({'+'.join(k for k, v in value.items() if v)})"
            if isinstance(value, dict) and any(value.values())
            else name
            for name, value in sorted(self.capabilities.items())
        )
        ttl = f" ttl={self.ttl_ms}ms/{self.cache_scope}" if self.era == "modern" else ""
        session = f" session={self.session_id}" if self.session_id else ""
        return (
            f"server {self.server_name} {version}: era={self.era} "
            f"protocol={self.protocol_version}{session} capabilities=[{caps}]{ttl}"
        )


@dataclass(slots=True)
class NegotiationConfig:
    mode: Mode
    client_info: JSONObject
    capabilities_for: Callable[[Era], JSONObject]
    meta_for: Callable[[str], JSONObject]
    """Builds a modern request's ``_meta`` for a version."""
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT
    initialize_timeout: float = DEFAULT_INITIALIZE_TIMEOUT
    saved_discover: JSONObject | None = None
    legacy_versions: tuple[str, ...] = LEGACY_VERSIONS
    modern_versions: tuple[str, ...] = MODERN_VERSIONS


def _info(result: JSONObject) -> JSONObject:
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
    return info if isinstance(info, dict) else {}


def adopt_discover(result: JSONObject, config: NegotiationConfig) -> Negotiated | None:
    """A :class:`Negotiated` from a DiscoverResult, or ``None`` if it shows no usable modern
    version (which callers treat as a legacy advertisement)."""
    supported = result.get("supportedVersions")
    capabilities = result.get("capabilities")
    if not isinstance(supported, list) or not isinstance(capabilities, dict):
        return None
    version = choose_client_version(
        [v for v in supported if isinstance(v, str)], config.modern_versions, era="modern"
    )
    if version is None:
        return None
    ttl = result.get("ttlMs")
    instructions = result.get("instructions")
    return Negotiated(
        era="modern",
        protocol_version=version,
        capabilities=capabilities,
        server_info=_info(result),
        instructions=instructions if isinstance(instructions, str) else None,
        discover_result=result,
        supported_versions=[v for v in supported if isinstance(v, str)],
        ttl_ms=ttl if isinstance(ttl, int) and not isinstance(ttl, bool) else None,
        cache_scope=result.get("cacheScope") if isinstance(result.get("cacheScope"), str) else None,
    )


def _record(channel: Channel, negotiated: Negotiated) -> Negotiated:
    """Record a modern verdict in the channel's connection (from then on it gates requests)."""
    channel.adopt_discover(negotiated.protocol_version, negotiated.capabilities)
    return negotiated


def adopt_saved(channel: Channel, config: NegotiationConfig) -> Negotiated | None:
    """The verdict of a saved discover result (recorded in the channel's connection), or
    ``None`` when there is none or it lists no usable modern version (probe again)."""
    if config.saved_discover is None:
        return None
    adopted = adopt_discover(config.saved_discover, config)
    if adopted is None:
        logger.info("the saved discover result lists no usable modern version; probing again")
        return None
    return _record(channel, adopted)


async def negotiate(channel: Channel, config: NegotiationConfig) -> Negotiated:
    """Decide the era and version over one channel (stdio, memory; see the module docstring)."""
    if config.mode == "legacy":
        return await initialize(channel, config)
    adopted = adopt_saved(channel, config)
    if adopted is not None:
        return adopted
    outcome = await probe(channel, config)
    if isinstance(outcome, Negotiated):
        return outcome
    logger.debug("falling back to initialize: %s", outcome)
    try:
        return await initialize(channel, config)
    except UnsupportedProtocolVersion as exc:
        # The probe we gave up on may have locked the connection to the modern era.
        mutual = choose_client_version(exc.supported, config.modern_versions, era="modern")
        if mutual is None:
            raise IncompatibleServer(
                f"the server refused initialize and supports {exc.supported}",
                supported=exc.supported,
            ) from exc
        result = await channel.request(
            "server/discover",
            {"_meta": config.meta_for(mutual)},
            protocol_version=mutual,
            timeout=config.initialize_timeout,
        )
        negotiated = adopt_discover(result, config)
        if negotiated is None:
            raise IncompatibleServer("the server's discover result is unusable") from exc
        return _record(channel, negotiated)


async def probe(channel: Channel, config: NegotiationConfig) -> Negotiated | str:
    """Probe with ``server/discover``: the modern outcome, or why the server looks legacy.

    Raises :class:`IncompatibleServer` for a modern server we cannot talk to, and when
    ``config.mode`` is modern-only and the server looks legacy.
    """
    version = newest(config.modern_versions)
    reason = ""
    for attempt in range(MAX_PROBES):
        try:
            result = await channel.request(
                "server/discover",
                {"_meta": config.meta_for(version)},
                protocol_version=version,
                timeout=config.probe_timeout,
            )
        except UnsupportedProtocolVersion as exc:
            mutual = choose_client_version(exc.supported, config.modern_versions, era="modern")
            if mutual is not None and attempt + 1 < MAX_PROBES:
                # Retry once even when the server lists the very version it refused: the
                # refusal may concern this one request, and -32022 asks the client to retry.
                version = mutual
                continue
            legacy_ok = choose_client_version(exc.supported, config.legacy_versions, era="legacy")
            if legacy_ok is not None and mutual is None:
                reason = f"server/discover listed only legacy versions {exc.supported}"
                break
            raise IncompatibleServer(
                f"the server supports protocol versions {exc.supported or '(none listed)'}; "
                f"this client speaks {', '.join(config.modern_versions + config.legacy_versions)}",
                supported=exc.supported,
            ) from exc
        except (MissingRequiredClientCapability, HeaderMismatch) as exc:
            raise IncompatibleServer(
                f"the server is a 2026 server but refused server/discover: {exc.message} "
                f"(code {exc.code}, data {exc.data!r})"
            ) from exc
        except JSONRPCError as exc:
            reason = f"server/discover failed with {exc.code} {exc.message!r}"
            break
        except RequestTimeout:
            reason = f"no answer to server/discover within {config.probe_timeout:g} s"
            break
        except AuthorizationError:
            raise  # the server wants credentials: that says nothing about its era
        except RemoteProtocolError as exc:
            # HTTP: a 4xx without a JSON-RPC body (a legacy server rejecting a modern POST).
            reason = f"server/discover was rejected without a JSON-RPC error ({exc})"
            break
        negotiated = adopt_discover(result, config)
        if negotiated is not None:
            return _record(channel, negotiated)
        reason = "the server/discover result lists no modern version this client speaks"
        break
    if config.mode != "auto":
        raise IncompatibleServer(f"mode={config.mode!r} needs a 2026-07-28 server, but {reason}")
    return reason


async def initialize(channel: Channel, config: NegotiationConfig) -> Negotiated:
    """The legacy handshake: ``initialize`` → its result → ``notifications/initialized``.

    The connection's lifecycle checks each step (nothing but ``ping`` may be sent before the
    result) and reads the result: the revision the server offered, refused when this client does
    not speak it (the error the lifecycle recorded is raised here)."""
    preferred = newest(config.legacy_versions) if config.legacy_versions else LATEST_LEGACY_VERSION
    await channel.request(
        "initialize",
        {
            "protocolVersion": preferred,
            "capabilities": config.capabilities_for("legacy"),
            "clientInfo": config.client_info,
        },
        protocol_version=preferred,
        timeout=config.initialize_timeout,
    )
    version = channel.initialized_version()
    await channel.notify(INITIALIZED_NOTIFICATION, None, protocol_version=version)
    return handshake_verdict(channel.connection)


def handshake_verdict(
    connection: ClientConnection[Any, Any], *, session_id: str | None = None
) -> Negotiated:
    """The report of what the connection's current ``initialize`` handshake agreed: the first
    one, or the one of a session that replaced an expired one (the same fields either way)."""
    version = connection.initialize_outcome()
    return Negotiated(
        era="legacy",
        protocol_version=version,
        capabilities=connection.server_capabilities,
        server_info=connection.server_info,
        instructions=connection.instructions,
        initialize_result=connection.initialize_result,
        supported_versions=[version],
        session_id=session_id,
    )
