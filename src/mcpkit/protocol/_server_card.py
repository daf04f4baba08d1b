"""MCP Server Cards and the MCP Catalog (experimental: the draft SEP-2127 extension).

A Server Card is a small JSON document describing one remote MCP server — its identity, the
URL to connect to, the protocol versions that URL serves — that a client can read *before*
connecting. The draft reserves ``GET <streamable-http-url>/server-card`` for it, served as
``application/mcp-server-card+json``; a domain lists its servers' cards in an MCP Catalog at
``/.well-known/mcp/catalog.json`` (a subset of the AI Catalog, ``/.well-known/ai-catalog.json``,
whose entries have the same shape).

The card's fields are advisory: a client verifies them against what the server says once
connected (``server/discover`` or ``initialize``), which is what :func:`card_mismatches` does.
The draft's card has no ``capabilities`` member; mcpkit puts the server's ``server/discover``
capabilities under the ``_meta`` key :data:`CAPABILITIES_META_KEY` so they can be checked too.

Everything here is pure data; the HTTP app serves it and the client fetches it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

__all__ = [
    "AI_CATALOG_PATH",
    "CAPABILITIES_META_KEY",
    "CARD_SUFFIX",
    "CATALOG_PATH",
    "SERVER_CARD_MEDIA_TYPE",
    "SERVER_CARD_SCHEMA",
    "build_catalog",
    "build_server_card",
    "card_mismatches",
    "card_name",
    "card_problems",
    "catalog_entry",
]

SERVER_CARD_MEDIA_TYPE: Final = "application/mcp-server-card+json"
SERVER_CARD_SCHEMA: Final = (
    "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
)
CARD_SUFFIX: Final = "/server-card"
"""Appended to the Streamable HTTP endpoint's URL: where the draft reserves the card."""
CATALOG_PATH: Final = "/.well-known/mcp/catalog.json"
AI_CATALOG_PATH: Final = "/.well-known/ai-catalog.json"
CATALOG_SPEC_VERSION: Final = "draft"
CAPABILITIES_META_KEY: Final = "dev.mcpkit/capabilities"
"""``_meta`` key of the server's ``server/discover`` capabilities in cards mcpkit writes."""

MAX_DESCRIPTION: Final = 100
"""The draft bounds ``description`` and ``title`` to 100 characters."""
_NAME_RE: Final = re.compile(r"^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$")
_UNSAFE: Final = re.compile(r"[^a-zA-Z0-9._-]+")


def card_name(server_name: str, host: str) -> str:
    """A reverse-DNS card ``name``: the host's labels reversed, ``/``, the server's name.

    ``card_name("weather", "mcp.example.com")`` is ``"com.example.mcp/weather"``. An explicit
    name (``server_card_name=``) is better for a server reachable under several host names.
    """
    hostname = (urlsplit(f"//{host}").hostname or "localhost").strip(".")
    namespace = ".".join(reversed(hostname.split("."))) if hostname else "localhost"
    namespace = re.sub(r"[^a-zA-Z0-9.-]", "-", namespace)
    suffix = _UNSAFE.sub("-", server_name).strip("-") or "server"
    return f"{namespace}/{suffix}"


def _clip(text: str) -> str:
    return (
        text
        if len(text) <= MAX_DESCRIPTION
        else text[: MAX_DESCRIPTION - 1] + "\N{HORIZONTAL ELLIPSIS}"
    )


def build_server_card(
    server_info: Mapping[str, Any],
    *,
    url: str,
    name: str,
    supported_versions: Sequence[str],
    capabilities: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The card of a server reachable at ``url`` (its Streamable HTTP endpoint).

    ``server_info`` is the server's ``Implementation`` (``name``, ``version``, optional
    ``title``, ``description``, ``icons``, ``websiteUrl``); ``supported_versions`` what it
    answers in ``server/discover``.
    """
    title = server_info.get("title")
    description = server_info.get("description")
    if not isinstance(description, str) or not description:
        description = f"The {title or server_info.get('name', 'MCP')} MCP server"
    card: dict[str, Any] = {
        "$schema": SERVER_CARD_SCHEMA,
        "name": name,
        "version": str(server_info.get("version", "0.0.0")),
        "description": _clip(description),
    }
    if isinstance(title, str) and title:
        card["title"] = _clip(title)
    website = server_info.get("websiteUrl")
    if isinstance(website, str):
        card["websiteUrl"] = website
    icons = server_info.get("icons")
    if isinstance(icons, list) and icons:
        card["icons"] = list(icons)
    card["remotes"] = [
        {
            "type": "streamable-http",
            "url": url,
            "supportedProtocolVersions": list(supported_versions),
        }
    ]
    if capabilities is not None:
        card["_meta"] = {CAPABILITIES_META_KEY: dict(capabilities)}
    return card


def card_problems(card: Any) -> list[str]:
    """What makes ``card`` not a Server Card (the draft's required members and their forms)."""
    if not isinstance(card, dict):
        return ["a Server Card is a JSON object"]
    problems: list[str] = []
    schema = card.get("$schema")
    if not isinstance(schema, str) or not schema.startswith("https://"):
        problems.append('"$schema" must be the Server Card schema URL')
    name = card.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        problems.append('"name" must be reverse-DNS with one "/" (like "com.example/weather")')
    for key in ("version", "description"):
        if not isinstance(card.get(key), str) or not card[key]:
            problems.append(f'"{key}" must be a non-empty string')
    remotes = card.get("remotes", [])
    if not isinstance(remotes, list) or not all(
        isinstance(r, dict)
        and isinstance(r.get("url"), str)
        and r.get("type") in ("streamable-http", "sse")
        for r in remotes
    ):
        problems.append('"remotes" must be a list of {"type", "url"} objects')
    return problems


def _name_of(card_name_value: str) -> str:
    return card_name_value.rpartition("/")[2]


def card_mismatches(
    card: Mapping[str, Any],
    *,
    server_info: Mapping[str, Any],
    protocol_version: str,
    supported_versions: Sequence[str] = (),
    capabilities: Mapping[str, Any] | None = None,
    url: str | None = None,
) -> list[str]:
    """Where ``card`` contradicts what the connected server said; empty when they agree.

    Compared: the server's name (the card's ``name`` or its part after ``/``) and version; the
    protocol versions (every version ``server/discover`` lists must be in the card's remote,
    and the negotiated one in any case); the capabilities, when the card carries them
    (:data:`CAPABILITIES_META_KEY`); and, given ``url``, that the card names that endpoint.
    """
    problems: list[str] = []
    runtime_name = server_info.get("name")
    declared = card.get("name")
    if isinstance(declared, str) and runtime_name not in (declared, _name_of(declared)):
        problems.append(f"name: the card says {declared!r}, the server says {runtime_name!r}")
    if card.get("version") != server_info.get("version"):
        problems.append(
            f"version: the card says {card.get('version')!r}, "
            f"the server says {server_info.get('version')!r}"
        )
    remotes = [r for r in card.get("remotes", []) if isinstance(r, dict)]
    if url is not None:
        wanted = url.rstrip("/")
        matching = [r for r in remotes if str(r.get("url", "")).rstrip("/") == wanted]
        if not matching:
            listed = [r.get("url") for r in remotes]
            problems.append(f"url: the card lists {listed}, not {url!r}")
        remotes = matching or remotes
    card_versions: set[str] = set()
    for remote in remotes:
        versions = remote.get("supportedProtocolVersions")
        if isinstance(versions, list):
            card_versions.update(v for v in versions if isinstance(v, str))
    if card_versions:
        runtime = set(supported_versions) | {protocol_version}
        missing = sorted(runtime - card_versions)
        extra = sorted(card_versions - runtime) if supported_versions else []
        if missing:
            problems.append(f"protocol versions: the server speaks {missing}, the card omits them")
        if extra:
            problems.append(
                f"protocol versions: the card claims {extra}, the server does not list them"
            )
    meta = card.get("_meta")
    declared_caps = meta.get(CAPABILITIES_META_KEY) if isinstance(meta, dict) else None
    if isinstance(declared_caps, dict) and capabilities is not None:
        differing = sorted(
            key
            for key in set(declared_caps) | set(capabilities)
            if declared_caps.get(key) != capabilities.get(key)
        )
        if differing:
            problems.append(f"capabilities: the card and the server differ on {differing}")
    return problems


def catalog_entry(card: Mapping[str, Any], card_url: str, publisher: str) -> dict[str, Any]:
    """One MCP Catalog entry for ``card`` served at ``card_url`` by ``publisher`` (a domain)."""
    name = str(card.get("name", "server"))
    domain = (urlsplit(f"//{publisher}").hostname or publisher).strip(".") or "localhost"
    return {
        "identifier": f"urn:air:{domain}:{_name_of(name)}",
        "displayName": str(card.get("title") or _name_of(name)),
        "type": SERVER_CARD_MEDIA_TYPE,
        "url": card_url,
    }


def build_catalog(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """An MCP Catalog document (also valid as the MCP part of an AI Catalog)."""
    return {"specVersion": CATALOG_SPEC_VERSION, "entries": [dict(e) for e in entries]}
