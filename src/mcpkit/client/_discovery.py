"""Discovery before connecting (experimental): fetch a server's card, verify it once connected.

    card = await fetch_server_card("https://mcp.example.com/mcp")   # or the card's own URL
    async with Client(card["remotes"][0]["url"]) as client:
        verify_server_card(card, client)          # ServerCardMismatch if they disagree

A Server Card (draft SEP-2127) is advisory metadata anyone can publish: the draft asks clients
not to trust it for security decisions and to check it against the live connection. That check
is :func:`verify_server_card`: the name and version in ``serverInfo``, the protocol versions of
``server/discover`` (or the version ``initialize`` agreed), the capabilities when the card
carries them, and that the card lists the URL the client connected to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from mcpkit.client._errors import ClientError
from mcpkit.protocol._server_card import (
    CARD_SUFFIX,
    SERVER_CARD_MEDIA_TYPE,
    card_mismatches,
    card_problems,
)

if TYPE_CHECKING:
    from mcpkit.client._client import Client

__all__ = [
    "DEFAULT_CARD_TIMEOUT",
    "ServerCardError",
    "ServerCardMismatch",
    "fetch_server_card",
    "server_card_url",
    "verify_server_card",
]

DEFAULT_CARD_TIMEOUT: Final = 10.0
MAX_CARD_BYTES: Final = 256 * 1024
"""A card is a few hundred bytes; anything this large is not one."""


class ServerCardError(ClientError):
    """The Server Card could not be fetched, or what came back is not a Server Card."""


class ServerCardMismatch(ServerCardError):
    """The card contradicts what the connected server says (``problems`` lists each point)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the Server Card disagrees with the server: " + "; ".join(problems))
        self.problems = problems


def server_card_url(url: str) -> str:
    """The card's URL for an MCP endpoint URL (``.../mcp`` → ``.../mcp/server-card``); a URL
    that already ends in ``/server-card`` is returned as is."""
    base = url.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    return base if base.endswith(CARD_SUFFIX) else base + CARD_SUFFIX


async def fetch_server_card(
    url: str, *, timeout: float = DEFAULT_CARD_TIMEOUT, http: Any = None
) -> dict[str, Any]:
    """GET the Server Card of the MCP endpoint at ``url`` (or at the card URL itself).

    Asks for ``application/mcp-server-card+json``; raises :class:`ServerCardError` for an HTTP
    error, another content type, a body that is not JSON, or one that lacks what the draft
    requires (``$schema``, a reverse-DNS ``name``, ``version``, ``description``). ``http`` is an
    ``httpx.AsyncClient`` to reuse (its auth, proxies, TLS settings).
    """
    import httpx  # the http extra; only discovery needs it here

    target = server_card_url(url)
    owned = http is None
    client: httpx.AsyncClient = http or httpx.AsyncClient(timeout=timeout)
    try:
        try:
            response = await client.get(
                target, headers={"accept": f"{SERVER_CARD_MEDIA_TYPE}, application/json;q=0.9"}
            )
        except httpx.HTTPError as exc:
            raise ServerCardError(f"could not fetch the Server Card at {target}: {exc}") from exc
    finally:
        if owned:
            await client.aclose()
    if response.status_code != 200:
        raise ServerCardError(
            f"{target} answered HTTP {response.status_code}, not a Server Card"
            + (" (the server publishes none here)" if response.status_code == 404 else "")
        )
    media = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media not in (SERVER_CARD_MEDIA_TYPE, "application/json"):
        raise ServerCardError(
            f"{target} answered {media or 'no content type'}, not {SERVER_CARD_MEDIA_TYPE}"
        )
    if len(response.content) > MAX_CARD_BYTES:
        raise ServerCardError(f"{target} answered {len(response.content)} bytes: not a card")
    try:
        card = response.json()
    except ValueError as exc:
        raise ServerCardError(f"{target} answered a body that is not JSON: {exc}") from exc
    problems = card_problems(card)
    if problems:
        raise ServerCardError(f"{target} is not a valid Server Card: " + "; ".join(problems))
    assert isinstance(card, dict)
    return card


def verify_server_card(card: Mapping[str, Any], client: Client, *, url: str | None = None) -> None:
    """Raise :class:`ServerCardMismatch` where ``card`` contradicts ``client``'s server.

    ``url`` (the endpoint the client connected to) is checked against the card's ``remotes``
    when given.
    """
    negotiated = client.negotiated
    problems = card_mismatches(
        card,
        server_info=negotiated.server_info,
        protocol_version=negotiated.protocol_version,
        supported_versions=negotiated.supported_versions if negotiated.era == "modern" else (),
        capabilities=negotiated.capabilities if negotiated.era == "modern" else None,
        url=url,
    )
    if problems:
        raise ServerCardMismatch(problems)
