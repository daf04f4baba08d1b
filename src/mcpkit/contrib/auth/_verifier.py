"""Resource-server token verification: JWT access tokens (RFC 9068 style) and RFC 7662.

A verifier turns a bearer token into an :class:`AccessToken` or raises :class:`InvalidToken`
with a reason that is safe to send back (it never quotes the token). Both verifiers enforce
the MCP rules: the token must come from the expected issuer, must be meant for *this*
resource (audience, RFC 8707) and must not be expired (small leeway for clock skew).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, runtime_checkable

from mcpkit.concurrency import TaskSet
from mcpkit.contrib.auth._errors import InvalidToken, OAuthFlowError
from mcpkit.contrib.auth._http import SafeHttp, UrlPolicy
from mcpkit.contrib.auth._models import ClientInfo

__all__ = [
    "DEFAULT_ALGORITHMS",
    "DEFAULT_LEEWAY",
    "AccessToken",
    "IntrospectionVerifier",
    "JWTVerifier",
    "TokenVerifier",
]

logger = logging.getLogger("mcpkit.contrib.auth")

DEFAULT_ALGORITHMS: Final = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA")
"""Asymmetric algorithms only: never ``none``, never HMAC with a public key."""
DEFAULT_LEEWAY: Final = 30.0
"""Seconds of clock skew tolerated on ``exp``/``nbf``/``iat``."""
JWKS_MIN_REFETCH_INTERVAL: Final = 30.0
"""An unknown ``kid`` triggers at most one JWKS fetch per this many seconds."""
JWKS_CACHE_TTL: Final = 3600.0
"""A fetched key set is reused this long before being fetched again."""
MAX_TOKEN_LENGTH: Final = 8192
"""Longer bearer tokens are refused unparsed."""
_JWT_SHAPE: Final = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$")


@dataclass(frozen=True, slots=True)
class AccessToken:
    """A verified access token, as the server sees it (the raw token is not kept)."""

    subject: str | None
    scopes: frozenset[str]
    audience: tuple[str, ...]
    expires_at: int | None
    claims: Mapping[str, Any] = field(default_factory=dict)
    client_id: str | None = None
    issuer: str | None = None


@runtime_checkable
class TokenVerifier(Protocol):
    """Checks a bearer token; raises :class:`InvalidToken` when it must be refused."""

    async def verify(self, token: str) -> AccessToken: ...


def _scopes(claims: Mapping[str, Any]) -> frozenset[str]:
    raw = claims.get("scope", claims.get("scp"))
    if isinstance(raw, str):
        return frozenset(raw.split())
    if isinstance(raw, list):
        return frozenset(s for s in raw if isinstance(s, str))
    return frozenset()


def _audience(claims: Mapping[str, Any]) -> tuple[str, ...]:
    aud = claims.get("aud")
    if isinstance(aud, str):
        return (aud,)
    if isinstance(aud, list):
        return tuple(a for a in aud if isinstance(a, str))
    return ()


def _token_from_claims(claims: Mapping[str, Any]) -> AccessToken:
    exp = claims.get("exp")
    client_id = claims.get("client_id", claims.get("azp"))
    sub, iss = claims.get("sub"), claims.get("iss")
    return AccessToken(
        subject=sub if isinstance(sub, str) else None,
        scopes=_scopes(claims),
        audience=_audience(claims),
        expires_at=int(exp) if isinstance(exp, int | float) else None,
        claims=dict(claims),
        client_id=client_id if isinstance(client_id, str) else None,
        issuer=iss if isinstance(iss, str) else None,
    )


class JWTVerifier:
    """Verifies signed JWT access tokens against a JWKS URL or fixed keys.

    ``keys`` is a JWKS document (``{"keys": [...]}``) or a list of PEM public keys. With
    ``jwks_uri`` the key set is cached for ``cache_ttl`` seconds (:data:`JWKS_CACHE_TTL`).

    Key refreshes never stall tokens the cache can already check. A refresh runs as one shared
    background fetch (single-flight: concurrent callers join it rather than start another),
    outside any lock, bounded by the URL policy's total deadline:

    * a token whose ``kid`` is cached verifies at once, even while a refresh is in flight;
    * when the cache has expired, the cached keys keep serving while a refresh runs behind;
    * a token with an unknown ``kid`` (key rotation) waits for a refresh, but such refreshes
      start at most once per ``min_refetch_interval`` seconds
      (:data:`JWKS_MIN_REFETCH_INTERVAL`), so a flood of garbage ``kid`` values costs the
      issuer one fetch per interval and the flood's own tokens are refused at once meanwhile;
    * after a failed fetch, the next one waits the same interval (a dead issuer is not
      hammered by every incoming request).
    """

    def __init__(
        self,
        *,
        issuer: str,
        audience: str | Sequence[str],
        jwks_uri: str | None = None,
        keys: Mapping[str, Any] | Sequence[str] | None = None,
        algorithms: Sequence[str] = DEFAULT_ALGORITHMS,
        leeway: float = DEFAULT_LEEWAY,
        url_policy: UrlPolicy | None = None,
        cache_ttl: float = JWKS_CACHE_TTL,
        min_refetch_interval: float = JWKS_MIN_REFETCH_INTERVAL,
    ) -> None:
        if (jwks_uri is None) == (keys is None):
            raise ValueError("give exactly one of jwks_uri or keys")
        bad = [a for a in algorithms if a.lower() == "none" or a.upper().startswith("HS")]
        if bad:
            raise ValueError(f"refusing algorithms {bad}: only asymmetric signatures are verified")
        self.issuer = issuer
        self.audience = [audience] if isinstance(audience, str) else list(audience)
        self.jwks_uri = jwks_uri
        self.algorithms = list(algorithms)
        self.leeway = leeway
        self.url_policy = url_policy or UrlPolicy()
        self.cache_ttl = cache_ttl
        self.min_refetch_interval = min_refetch_interval
        self._keys: list[tuple[str | None, Any]] = []
        self._fetched_at: float | None = None
        self._unknown_kid_fetch_at: float | None = None
        self._failed_at: float | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._refreshes: TaskSet | None = None
        """Owns the refresh task (made on the loop of the first refresh)."""
        if keys is not None:
            self._keys = self._parse_keys(keys)

    @staticmethod
    def _parse_keys(keys: Mapping[str, Any] | Sequence[str]) -> list[tuple[str | None, Any]]:
        import jwt

        if isinstance(keys, str):
            keys = [keys]
        if isinstance(keys, Mapping):
            parsed: list[tuple[str | None, Any]] = []
            for jwk in keys.get("keys", []):
                if not isinstance(jwk, dict) or jwk.get("use", "sig") != "sig":
                    continue
                try:
                    parsed.append((jwk.get("kid"), jwt.PyJWK(jwk).key))
                except (jwt.PyJWTError, ValueError, TypeError):
                    logger.debug("skipping an unusable JWK (kid %s)", jwk.get("kid"))
            return parsed
        return [(None, pem) for pem in keys]

    async def _fetch_keys(self) -> None:
        assert self.jwks_uri is not None
        async with SafeHttp(self.url_policy) as http:
            reply = await http.get(self.jwks_uri)
        if reply.status_code != 200:
            raise OAuthFlowError(f"JWKS fetch from {self.jwks_uri} answered {reply.status_code}")
        data = reply.json()
        if not isinstance(data, dict):
            raise OAuthFlowError(f"JWKS at {self.jwks_uri} is not a JSON object")
        self._keys = self._parse_keys(data)
        self._fetched_at = time.monotonic()

    async def _run_refresh(self) -> None:
        try:
            await self._fetch_keys()
        except Exception as exc:  # a background task: report, never leave it unretrieved
            self._failed_at = time.monotonic()
            logger.warning("could not refresh the JWKS from %s: %s", self.jwks_uri, exc)
        else:
            self._failed_at = None
        finally:
            self._refresh = None

    def _start_refresh(self) -> asyncio.Task[None]:
        """The in-flight refresh, started if none runs (single-flight).

        A task rather than a call in the requester's own task: a waiter that is cancelled
        (its client went away) must not cancel the fetch the other waiters share. The task
        ends by itself within the URL policy's total deadline.
        """
        if self._inflight() is None:
            loop = asyncio.get_running_loop()
            owner = self._refreshes
            if owner is None or owner.loop is not loop:
                owner = self._refreshes = TaskSet(loop, "JWKS refresh", logger)
            self._refresh = owner.spawn(self._run_refresh(), name="mcpkit-jwks-refresh")
        assert self._refresh is not None
        return self._refresh

    def _inflight(self) -> asyncio.Task[None] | None:
        task = self._refresh
        if task is not None and task.get_loop() is not asyncio.get_running_loop():
            self._refresh = task = None  # left behind by an event loop that has since closed
        return task

    async def aclose(self) -> None:
        """Cancel a key refresh still in flight and wait for it (the owner is shutting down)."""
        owner, self._refreshes = self._refreshes, None
        if owner is not None and owner.loop is asyncio.get_running_loop():
            await owner.aclose()

    def _backing_off(self, now: float) -> bool:
        failed = self._failed_at
        return failed is not None and now - failed < self.min_refetch_interval

    async def _candidates(self, kid: str | None) -> list[Any]:
        def matching() -> list[Any]:
            if kid is None:
                return [k for _, k in self._keys]
            return [k for key_id, k in self._keys if key_id == kid or key_id is None]

        if self.jwks_uri is None:
            return matching()
        now = time.monotonic()
        fetched = self._fetched_at
        stale = fetched is None or now - fetched > self.cache_ttl
        found = matching()
        if found:
            if stale and self._inflight() is None and not self._backing_off(now):
                self._start_refresh()  # serve the cached keys; refresh behind them
            return found
        refresh = self._inflight()
        if refresh is None:
            if self._backing_off(now):
                return []
            if not stale:  # keys are fresh but this kid is unknown: rotation, or garbage
                last = self._unknown_kid_fetch_at
                if last is not None and now - last < self.min_refetch_interval:
                    return []
                self._unknown_kid_fetch_at = now
            refresh = self._start_refresh()
        try:
            await asyncio.shield(refresh)
        except asyncio.CancelledError:
            caller = asyncio.current_task()
            if caller is not None and caller.cancelling():
                raise  # this caller was cancelled: the shared fetch goes on for the others
            # the fetch itself was cancelled (aclose: the server is shutting down); the caller
            # gets the keys there are, so an unknown key is refused rather than an odd cancel
        return matching()

    async def verify(self, token: str) -> AccessToken:
        import jwt

        if len(token) > MAX_TOKEN_LENGTH or not _JWT_SHAPE.match(token):
            raise InvalidToken("the access token is not a well-formed JWT")
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise InvalidToken("the access token is not a well-formed JWT") from None
        alg, kid = header.get("alg"), header.get("kid")
        if alg not in self.algorithms:
            raise InvalidToken(f"the token algorithm {alg!r} is not accepted")
        keys = await self._candidates(kid if isinstance(kid, str) else None)
        if not keys:
            raise InvalidToken("the token was signed with an unknown key")
        last: Exception | None = None
        for key in keys:
            try:
                claims = jwt.decode(
                    token,
                    key=key,
                    algorithms=[alg],
                    audience=self.audience,
                    issuer=self.issuer,
                    leeway=self.leeway,
                    options={"require": ["exp", "iss", "aud"]},
                )
            except jwt.InvalidSignatureError as exc:
                last = exc
                continue
            except jwt.ExpiredSignatureError:
                raise InvalidToken("the access token has expired") from None
            except jwt.InvalidAudienceError:
                raise InvalidToken("the access token was not issued for this resource") from None
            except jwt.InvalidIssuerError:
                raise InvalidToken("the access token comes from an untrusted issuer") from None
            except jwt.ImmatureSignatureError:
                raise InvalidToken("the access token is not valid yet") from None
            except jwt.MissingRequiredClaimError as exc:
                raise InvalidToken(f"the access token lacks the {exc.claim!r} claim") from None
            except (jwt.PyJWTError, ValueError, TypeError) as exc:
                last = exc
                continue
            return _token_from_claims(claims)
        logger.debug("token signature check failed: %s", type(last).__name__)
        raise InvalidToken("the access token signature is invalid")


class IntrospectionVerifier:
    """Asks the authorization server about each token (RFC 7662).

    The resource authenticates to the introspection endpoint as a client (``client``, any
    method of :class:`mcpkit.contrib.auth._token_endpoint.TokenEndpoint` except
    ``private_key_jwt``). ``audience`` must appear in the response's ``aud`` unless
    ``require_audience=False`` (only for servers that never return ``aud``; weaker).
    """

    def __init__(
        self,
        endpoint: str,
        *,
        audience: str | Sequence[str],
        client: ClientInfo | None = None,
        issuer: str | None = None,
        require_audience: bool = True,
        leeway: float = DEFAULT_LEEWAY,
        url_policy: UrlPolicy | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.endpoint = endpoint
        self.audience = [audience] if isinstance(audience, str) else list(audience)
        self.client = client
        self.issuer = issuer
        self.require_audience = require_audience
        self.leeway = leeway
        self.url_policy = url_policy or UrlPolicy()
        self.clock = clock

    async def verify(self, token: str) -> AccessToken:
        from mcpkit.contrib.auth._metadata import AuthorizationServerMetadata
        from mcpkit.contrib.auth._token_endpoint import TokenEndpoint

        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise InvalidToken("the access token is malformed")
        form = {"token": token, "token_type_hint": "access_token"}
        try:
            async with SafeHttp(self.url_policy) as http:
                if self.client is None:
                    reply = await http.post_form(self.endpoint, form)
                    if reply.status_code != 200:
                        raise OAuthFlowError(f"introspection answered HTTP {reply.status_code}")
                    data = reply.json()
                else:
                    meta = AuthorizationServerMetadata(
                        issuer=self.issuer or "", token_endpoint=self.endpoint
                    )
                    endpoint = TokenEndpoint(http, meta, self.client, now=self.clock())
                    data = await endpoint.request(form)
        except OAuthFlowError as exc:
            logger.warning("token introspection failed: %s", exc)
            raise InvalidToken("the access token could not be checked") from None
        if not isinstance(data, dict) or data.get("active") is not True:
            raise InvalidToken("the access token is not active")
        exp = data.get("exp")
        if isinstance(exp, int | float) and exp + self.leeway < self.clock():
            raise InvalidToken("the access token has expired")
        if self.issuer is not None and data.get("iss", self.issuer) != self.issuer:
            raise InvalidToken("the access token comes from an untrusted issuer")
        aud = _audience(data)
        if (aud or self.require_audience) and not set(aud) & set(self.audience):
            raise InvalidToken("the access token was not issued for this resource")
        return _token_from_claims(data)
