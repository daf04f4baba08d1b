"""``OAuthClient``: MCP authorization as an ``httpx.Auth`` for the Streamable HTTP client.

Give it to an ``httpx.AsyncClient`` (``auth=OAuthClient(...)``). Each request carries the
current access token; the answers drive the protocol:

* **401** -> read the Bearer challenge, discover (resource metadata, then AS metadata, every
  time, so a server that moved to another authorization server is noticed), then use a stored
  token, else refresh, else run a new grant (authorization code + PKCE, client credentials
  or a JWT bearer assertion), and retry once per stage. A full grant runs at most once per request.
* **403 ``insufficient_scope``** -> step-up: re-authorize with the union of the scopes asked for
  so far and the challenged ones, at most ``max_step_up`` times per scope set, and not at all
  when the token already holds them (the server will not change its mind).
* Before sending, a token that expires within ``refresh_margin`` is refreshed; if refreshing
  fails, a new authorization runs.

Only the async flow exists: discovery, the callback wait and the token exchange are network
and user interactions that must not block an event loop.

Tokens are attached only to requests for the MCP server's own origin. Nothing here logs a
token, a code, a secret or a verifier.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, Callable, Generator, Sequence
from dataclasses import dataclass
from typing import Final

import httpx
import msgspec

from mcpkit.contrib.auth import _grants as grants
from mcpkit.contrib.auth._challenge import parse_bearer_challenge
from mcpkit.contrib.auth._discovery import Discovered, discover
from mcpkit.contrib.auth._errors import OAuthFlowError
from mcpkit.contrib.auth._flow import select_scopes, union
from mcpkit.contrib.auth._grants import AssertionProvider, Grant
from mcpkit.contrib.auth._handlers import CallbackHandler, RedirectHandler
from mcpkit.contrib.auth._http import SafeHttp, UrlPolicy
from mcpkit.contrib.auth._models import ClientInfo, IssuerRecord, TokenSet
from mcpkit.contrib.auth._registration import ClientProfile, PreRegistration
from mcpkit.contrib.auth._storage import MemoryTokenStorage, TokenStorage
from mcpkit.contrib.auth._urls import origin_of
from mcpkit.protocol import UsageError

__all__ = ["MAX_STEP_UP_ATTEMPTS", "REFRESH_MARGIN", "OAuthClient"]

logger = logging.getLogger("mcpkit.contrib.auth")

MAX_STEP_UP_ATTEMPTS: Final = 2
"""Re-authorizations for one scope set after 403 insufficient_scope."""
MAX_UNAUTHORIZED_ROUNDS: Final = 3
"""401 answers handled for one request (stored token, refresh, new grant)."""
REFRESH_MARGIN: Final = 60.0
"""Seconds before expiry at which a token is refreshed proactively."""


@dataclass(slots=True)
class _Current:
    """What the client is using right now for its MCP server."""

    found: Discovered
    client: ClientInfo
    tokens: TokenSet | None
    requested: list[str]


@dataclass(slots=True)
class _RequestRounds:
    unauthorized: int = 0
    step_ups: int = 0
    granted: bool = False


class OAuthClient(httpx.Auth):
    """An MCP-compliant OAuth 2.1 client as an ``httpx.Auth`` (async clients only).

    Registration: ``client`` (pre-registered, optionally bound to an issuer) wins, then
    ``client_metadata_url`` (a CIMD URL) when the server supports CIMD, then Dynamic Client
    Registration. ``grant="client_credentials"`` needs ``client`` (a secret or a private key);
    ``grant="jwt_bearer"`` (RFC 7523: workload identity, enterprise ID-JAG) needs
    ``assertion``, a JWT or an async provider called with the issuer and resource.
    ``redirect_handler``/``callback_handler`` default to a :class:`BrowserAuthorizer`;
    pass a :class:`HeadlessAuthorizer` for servers that approve without a user.
    """

    requires_request_body = True

    def __init__(
        self,
        server_url: str | None = None,
        *,
        grant: Grant = "authorization_code",
        client: PreRegistration | None = None,
        assertion: str | AssertionProvider | None = None,
        client_metadata_url: str | None = None,
        profile: ClientProfile | None = None,
        redirect_handler: RedirectHandler | None = None,
        callback_handler: CallbackHandler | None = None,
        storage: TokenStorage | None = None,
        url_policy: UrlPolicy | None = None,
        scopes: Sequence[str] | None = None,
        request_offline_access: bool = True,
        max_step_up: int = MAX_STEP_UP_ATTEMPTS,
        refresh_margin: float = REFRESH_MARGIN,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if grant == "client_credentials" and client is None:
            raise UsageError("grant='client_credentials' needs client=PreRegistration(...)")
        if grant == "jwt_bearer" and assertion is None:
            raise UsageError("grant='jwt_bearer' needs assertion= (a JWT or a provider)")
        if client_metadata_url is not None and not client_metadata_url.startswith("https://"):
            raise UsageError("client_metadata_url must be an https URL with a path (CIMD)")
        self.server_url = server_url
        self.grant: Grant = grant
        self.client = client
        self.assertion = assertion
        self.client_metadata_url = client_metadata_url
        self.profile = profile or ClientProfile()
        self.url_policy = url_policy or UrlPolicy()
        self.storage: TokenStorage = storage or MemoryTokenStorage()
        self.scopes = list(scopes) if scopes is not None else None
        self.request_offline_access = request_offline_access
        self.max_step_up = max_step_up
        self.refresh_margin = refresh_margin
        self.clock = clock
        if redirect_handler is None and callback_handler is None:
            from mcpkit.contrib.auth._browser import BrowserAuthorizer

            browser = BrowserAuthorizer(
                allow_insecure_loopback=self.url_policy.allow_insecure_loopback
            )
            redirect_handler, callback_handler = browser, browser
        if callback_handler is None and isinstance(redirect_handler, CallbackHandler):
            callback_handler = redirect_handler
        if redirect_handler is None and isinstance(callback_handler, RedirectHandler):
            redirect_handler = callback_handler
        self.redirect_handler = redirect_handler
        self.callback_handler = callback_handler
        self._lock = asyncio.Lock()
        self._current: _Current | None = None
        self._step_up_counts: dict[frozenset[str], int] = {}

    # -- httpx.Auth -----------------------------------------------------------------------

    def sync_auth_flow(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, None]:
        raise UsageError(
            "OAuthClient needs an httpx.AsyncClient (the flow waits on network and user)"
        )
        yield request  # pragma: no cover  (makes this a generator)

    async def async_auth_flow(
        self, request: httpx.Request
    ) -> AsyncGenerator[httpx.Request, httpx.Response]:
        await self._refresh_if_due()
        rounds = _RequestRounds()
        sent = self._attach(request)
        response = yield request
        while True:
            if response.status_code == 401 and rounds.unauthorized < MAX_UNAUTHORIZED_ROUNDS:
                rounds.unauthorized += 1
                if not await self._on_unauthorized(request, response, sent, rounds):
                    return
            elif response.status_code == 403 and rounds.step_ups < self.max_step_up:
                rounds.step_ups += 1
                if not await self._on_forbidden(request, response, sent):
                    return
            else:
                return
            sent = self._attach(request)
            response = yield request

    # -- helpers --------------------------------------------------------------------------

    @property
    def tokens(self) -> TokenSet | None:
        """The tokens in use (``repr`` redacts them)."""
        return None if self._current is None else self._current.tokens

    def _server_url_for(self, request: httpx.Request) -> str:
        if self.server_url is not None:
            return self.server_url
        return str(request.url.copy_with(query=None, fragment=None))

    def _attach(self, request: httpx.Request) -> str | None:
        current = self._current
        if current is None or current.tokens is None:
            return None
        if origin_of(str(request.url)) != origin_of(self._server_url_for(request)):
            return None  # never hand the token to another origin
        request.headers["Authorization"] = f"Bearer {current.tokens.access_token}"
        return current.tokens.access_token

    def _token_changed(self, sent: str | None) -> bool:
        current = self._current
        return (
            current is not None
            and current.tokens is not None
            and current.tokens.access_token != sent
        )

    def _rehydrate(self, info: ClientInfo | None) -> ClientInfo | None:
        """A stored client made usable again, or ``None`` if the configuration moved on."""
        if info is None:
            return None
        if info.kind == "pre-registered":
            pre = self.client
            if pre is None or pre.client_id != info.client_id:
                return None
            return msgspec.structs.replace(info, client_secret=pre.client_secret)
        if info.kind == "cimd" and info.client_id != self.client_metadata_url:
            return None
        return info

    async def _store(self, current: _Current) -> None:
        record = await self.storage.load(current.found.issuer) or IssuerRecord()
        if current.client.kind == "pre-registered":
            # configuration holds the secret; the token file does not need a copy
            record.client = msgspec.structs.replace(current.client, client_secret=None)
        else:
            record.client = current.client
        if current.tokens is not None:
            record.tokens[current.found.resource] = current.tokens
        else:
            record.tokens.pop(current.found.resource, None)
        await self.storage.save(current.found.issuer, record)

    # -- 401 ------------------------------------------------------------------------------

    async def _on_unauthorized(
        self,
        request: httpx.Request,
        response: httpx.Response,
        sent: str | None,
        rounds: _RequestRounds,
    ) -> bool:
        challenge = parse_bearer_challenge(response.headers.get_list("www-authenticate"))
        async with self._lock:
            if self._token_changed(sent):
                return True  # another request already obtained a new token
            now = self.clock()
            async with SafeHttp(self.url_policy) as http:
                preferred = (self.client.issuer,) if self.client and self.client.issuer else ()
                if self._current is not None:
                    preferred = (self._current.found.issuer, *preferred)
                found = await discover(
                    http, self._server_url_for(request), challenge, preferred_issuers=preferred
                )
                previous = self._current
                if previous is not None and previous.found.issuer != found.issuer:
                    logger.info(
                        "the MCP server moved from %s to %s; re-registering",
                        previous.found.issuer,
                        found.issuer,
                    )
                    previous = None
                record = await self.storage.load(found.issuer) or IssuerRecord()
                stored = record.tokens.get(found.resource)
                stored_client = self._rehydrate(record.client)
                if (
                    stored is not None
                    and stored.access_token != sent
                    and not stored.expires_within(0, now)
                    and stored_client is not None
                ):
                    requested = previous.requested if previous else stored.scopes
                    self._current = _Current(found, stored_client, stored, requested)
                    return True
                requested_before = previous.requested if previous else []
                scopes = select_scopes(
                    challenge,
                    found.protected_resource,
                    found.metadata,
                    previous=requested_before,
                    configured=self.scopes,
                    offline_access=self.request_offline_access
                    and self.grant == "authorization_code",
                )
                tokens = stored if stored is not None else (previous.tokens if previous else None)
                client = stored_client or (previous.client if previous else None)
                if tokens is not None and tokens.refresh_token and client is not None:
                    current = _Current(found, client, tokens, requested_before or tokens.scopes)
                    if await self._try_refresh(http, current, now):
                        return True
                if rounds.granted:
                    return False  # a fresh grant was already rejected: give up, surface the 401
                rounds.granted = True
                await self._grant(http, found, stored_client, scopes, now)
        return True

    # -- 403 ------------------------------------------------------------------------------

    async def _on_forbidden(
        self, request: httpx.Request, response: httpx.Response, sent: str | None
    ) -> bool:
        challenge = parse_bearer_challenge(response.headers.get_list("www-authenticate"))
        if challenge is None or challenge.error != "insufficient_scope":
            return False
        async with self._lock:
            if self._token_changed(sent):
                return True
            current = self._current
            if current is None or current.tokens is None:
                return False
            wanted = union(current.requested, challenge.scopes)
            key = frozenset(wanted)
            if key <= frozenset(current.tokens.scopes):
                logger.info(
                    "server still demands scopes the token holds (%s); not re-authorizing",
                    " ".join(wanted),
                )
                return False
            if self._step_up_counts.get(key, 0) >= self.max_step_up:
                return False
            self._step_up_counts[key] = self._step_up_counts.get(key, 0) + 1
            scopes = select_scopes(
                challenge,
                current.found.protected_resource,
                current.found.metadata,
                previous=current.requested,
                offline_access=self.request_offline_access and self.grant == "authorization_code",
            )
            async with SafeHttp(self.url_policy) as http:
                await self._grant(http, current.found, current.client, scopes, self.clock())
        return True

    # -- refresh --------------------------------------------------------------------------

    async def _refresh_if_due(self) -> None:
        current = self._current
        now = self.clock()
        if (
            current is None
            or current.tokens is None
            or not current.tokens.expires_within(self.refresh_margin, now)
        ):
            return
        async with self._lock:
            current = self._current
            now = self.clock()
            if (
                current is None
                or current.tokens is None
                or not current.tokens.expires_within(self.refresh_margin, now)
            ):
                return
            async with SafeHttp(self.url_policy) as http:
                if current.tokens.refresh_token and await self._try_refresh(http, current, now):
                    return
                if self.grant != "authorization_code" or current.tokens.expires_within(0, now):
                    await self._grant(http, current.found, current.client, current.requested, now)

    async def _try_refresh(self, http: SafeHttp, current: _Current, now: float) -> bool:
        assert current.tokens is not None and current.tokens.refresh_token is not None
        endpoint = grants.endpoint_for(self, http, current.found, current.client, now)
        try:
            data = await endpoint.refresh(
                refresh_token=current.tokens.refresh_token, resource=current.found.resource
            )
            tokens = TokenSet.from_response(
                data, now=now, requested=current.tokens.scopes, previous=current.tokens
            )
        except OAuthFlowError as exc:
            logger.info(
                "refreshing the access token failed (%s); a new authorization is needed", exc
            )
            self._current = _Current(current.found, current.client, None, current.requested)
            await self._store(self._current)
            return False
        self._current = _Current(current.found, current.client, tokens, current.requested)
        await self._store(self._current)
        logger.debug("access token refreshed for %s", current.found.resource)
        return True

    # -- grants ---------------------------------------------------------------------------

    async def _grant(
        self,
        http: SafeHttp,
        found: Discovered,
        stored: ClientInfo | None,
        scopes: list[str],
        now: float,
    ) -> None:
        if self.grant == "authorization_code":
            client, data = await grants.authorization_code(self, http, found, stored, scopes, now)
        else:
            client, data = await grants.machine_grant(self, http, found, scopes, now)
        tokens = TokenSet.from_response(data, now=self.clock(), requested=scopes)
        self._current = _Current(found, client, tokens, scopes)
        await self._store(self._current)
