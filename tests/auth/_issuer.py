"""A small but honest OAuth 2.1 authorization server for the auth tests (ASGI, served by uvicorn).

It issues RS256 JWT access tokens signed with a key it generates, serves JWKS and RFC 8414
metadata, auto-approves authorization requests (redirecting with code, state and iss), and at
the token endpoint really checks what a real server checks: client authentication (basic,
post, none, private_key_jwt), PKCE S256, redirect URI, single-use codes, the resource
indicator, refresh-token rotation. Knobs let tests make it misbehave (lie about its issuer,
send a wrong ``iss``, hide PKCE support, ...). Every request is recorded in ``events``.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote_plus, urlencode

import jwt
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

SERVER_STOP_TIMEOUT = 10.0


class ServerPool:
    """uvicorn servers on fresh loopback ports, stopped together (uvicorn notices its exit flag
    only on a 0.1 s tick, so stopping them one after the other adds up).

    Each socket is bound and listening before uvicorn starts, so clients can connect at once
    (the kernel queues them) and nothing has to poll for readiness.
    """

    def __init__(self) -> None:
        self._running: list[tuple[uvicorn.Server, asyncio.Task[None], socket.socket]] = []

    async def start(self, app: App) -> str:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        port = sock.getsockname()[1]
        config = uvicorn.Config(
            app, log_config=None, access_log=False, lifespan="off", log_level="warning"
        )
        server = uvicorn.Server(config)
        self._running.append((server, asyncio.create_task(server.serve(sockets=[sock])), sock))
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        running, self._running = self._running, []
        for server, _, _ in running:
            server.should_exit = True
        try:
            async with asyncio.timeout(SERVER_STOP_TIMEOUT):
                await asyncio.gather(*(task for _, task, _ in running))
        finally:
            for _, _, sock in running:
                sock.close()


@contextlib.asynccontextmanager
async def serve(app: App) -> AsyncIterator[str]:
    """Serve ``app`` on a fresh loopback port for the duration of the block."""
    pool = ServerPool()
    try:
        yield await pool.start(app)
    finally:
        await pool.close()


def _b64url_sha256(value: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(value.encode()).digest()).rstrip(b"=").decode()


def new_rsa_key() -> tuple[rsa.RSAPrivateKey, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    return key, pem


def public_pem(key: rsa.RSAPrivateKey) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


@dataclass
class Client:
    client_id: str
    secret: str | None
    auth_method: str
    redirect_uris: list[str]
    public_key_pem: str | None = None
    registration: dict[str, Any] = field(default_factory=dict)


@dataclass
class LocalIssuer:
    """Configuration knobs (all optional) and recorded state of the test AS."""

    issuer_path: str = ""
    access_ttl: int = 3600
    issue_refresh_tokens: bool = True
    iss_in_redirect: str = "correct"  # correct | omit | wrong | normalized
    advertise_iss: bool = True
    metadata_issuer: str | None = None  # lie about the issuer when set
    advertise_pkce: bool = True
    cimd_supported: bool = False
    dcr_enabled: bool = True
    auth_methods: list[str] = field(
        default_factory=lambda: [
            "none",
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ]
    )
    scopes_supported: list[str] | None = None
    authorization_endpoint_override: str | None = None
    assertion_key_pem: str | None = None  # trusted signer of JWT-bearer assertions
    deny: bool = False

    base_url: str = ""
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    clients: dict[str, Client] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    refresh_tokens: dict[str, dict[str, Any]] = field(default_factory=dict)
    issued: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.signing_key, _ = new_rsa_key()
        self.kid = "key-1"
        self.retired: list[tuple[str, rsa.RSAPrivateKey]] = []

    # -- helpers for tests ----------------------------------------------------------------

    @property
    def issuer(self) -> str:
        return self.base_url + self.issuer_path

    def rotate_key(self) -> None:
        self.retired.append((self.kid, self.signing_key))
        self.signing_key, _ = new_rsa_key()
        self.kid = f"key-{len(self.retired) + 1}"

    def register(
        self,
        client_id: str,
        *,
        secret: str | None,
        auth_method: str,
        redirect_uris: list[str] | None = None,
        public_key_pem: str | None = None,
    ) -> Client:
        client = Client(client_id, secret, auth_method, redirect_uris or [], public_key_pem)
        self.clients[client_id] = client
        return client

    def mint(
        self,
        *,
        aud: str | list[str],
        scope: str = "",
        lifetime: int | None = None,
        iss: str | None = None,
        sub: str = "alice",
        client_id: str = "test",
        key: rsa.RSAPrivateKey | None = None,
        kid: str | None = None,
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": iss if iss is not None else self.issuer,
            "sub": sub,
            "aud": aud,
            "iat": now,
            "exp": now + (self.access_ttl if lifetime is None else lifetime),
            "scope": scope,
            "client_id": client_id,
            "jti": secrets.token_hex(8),
        }
        token = jwt.encode(
            claims, key or self.signing_key, algorithm="RS256", headers={"kid": kid or self.kid}
        )
        self.issued.append(token)
        return token

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in [(self.kid, self.signing_key), *self.retired]:
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            jwk.update({"kid": kid, "use": "sig", "alg": "RS256"})
            keys.append(jwk)
        return {"keys": keys}

    def names(self) -> list[str]:
        return [name for name, _ in self.events]

    def metadata(self) -> dict[str, Any]:
        base = self.base_url + self.issuer_path
        doc: dict[str, Any] = {
            "issuer": self.metadata_issuer or self.issuer,
            "authorization_endpoint": self.authorization_endpoint_override or base + "/authorize",
            "token_endpoint": base + "/token",
            "jwks_uri": self.base_url + "/jwks",
            "introspection_endpoint": base + "/introspect",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": self.auth_methods,
            "token_endpoint_auth_signing_alg_values_supported": ["RS256", "ES256"],
            "authorization_response_iss_parameter_supported": self.advertise_iss,
            "client_id_metadata_document_supported": self.cimd_supported,
        }
        if self.dcr_enabled:
            doc["registration_endpoint"] = base + "/register"
        if self.advertise_pkce:
            doc["code_challenge_methods_supported"] = ["S256"]
        if self.scopes_supported is not None:
            doc["scopes_supported"] = self.scopes_supported
        return doc

    # -- ASGI -----------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        query = dict(parse_qsl(scope["query_string"].decode(), keep_blank_values=True))
        path, method = scope["path"], scope["method"]
        p = self.issuer_path
        if method == "GET" and path == "/.well-known/oauth-authorization-server" + p:
            status, out, extra = 200, self.metadata(), {}
        elif method == "GET" and path == "/jwks":
            status, out, extra = 200, self.jwks(), {}
        elif method == "GET" and path == p + "/authorize":
            status, out, extra = self._authorize(query)
        elif method == "POST" and path == p + "/token":
            status, out, extra = self._token(dict(parse_qsl(body.decode())), headers)
        elif method == "POST" and path == p + "/register" and self.dcr_enabled:
            status, out, extra = self._register(json.loads(body or b"{}"))
        elif method == "POST" and path == p + "/introspect":
            status, out, extra = self._introspect(dict(parse_qsl(body.decode())))
        else:
            status, out, extra = 404, {"error": "not_found"}, {}
        payload = b"" if out is None else json.dumps(out).encode()
        hdrs = [(b"content-type", b"application/json")] + [
            (k.encode(), v.encode()) for k, v in extra.items()
        ]
        await send({"type": "http.response.start", "status": status, "headers": hdrs})
        await send({"type": "http.response.body", "body": payload})

    def _authorize(self, q: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        self.events.append(("authorize", dict(q)))
        client_id = q.get("client_id", "")
        redirect_uri = q.get("redirect_uri", "")
        client = self.clients.get(client_id)
        if client is None and self.cimd_supported and client_id.startswith("https://"):
            client = self.register(
                client_id, secret=None, auth_method="none", redirect_uris=[redirect_uri]
            )
        if client is None or redirect_uri not in client.redirect_uris:
            return (
                400,
                {"error": "invalid_request", "error_description": "unknown client/redirect"},
                {},
            )
        if q.get("code_challenge_method") != "S256" or not q.get("code_challenge"):
            return 400, {"error": "invalid_request", "error_description": "PKCE S256 required"}, {}
        params: dict[str, str] = {}
        if self.deny:
            params["error"] = "access_denied"
            params["error_description"] = "the user said no"
        else:
            code = secrets.token_urlsafe(16)
            self.codes[code] = {
                "client_id": client_id,
                "redirect_uri": redirect_uri,
                "challenge": q["code_challenge"],
                "resource": q.get("resource"),
                "scope": q.get("scope", ""),
            }
            params["code"] = code
        if "state" in q:
            params["state"] = q["state"]
        iss = {
            "correct": self.issuer,
            "wrong": "https://evil.example.com",
            "normalized": self.issuer + "/",
            "omit": None,
        }[self.iss_in_redirect]
        if iss is not None:
            params["iss"] = iss
        sep = "&" if "?" in redirect_uri else "?"
        return 302, None, {"location": redirect_uri + sep + urlencode(params)}

    def _authenticate(self, form: dict[str, str], headers: dict[str, str]) -> Client | None:
        auth = headers.get("authorization", "")
        if auth.startswith("Basic "):
            raw = base64.b64decode(auth[6:]).decode()
            cid, _, secret = raw.partition(":")
            client = self.clients.get(unquote_plus(cid))
            if (
                client
                and client.auth_method == "client_secret_basic"
                and client.secret == unquote_plus(secret)
            ):
                return client
            return None
        client = self.clients.get(form.get("client_id", ""))
        if client is None:
            return None
        if client.auth_method == "client_secret_post":
            return client if form.get("client_secret") == client.secret else None
        if client.auth_method == "private_key_jwt":
            assertion = form.get("client_assertion", "")
            if (
                form.get("client_assertion_type")
                != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
            ):
                return None
            try:
                claims = jwt.decode(
                    assertion,
                    client.public_key_pem,
                    algorithms=["RS256", "ES256"],
                    audience=self.issuer,
                )
            except jwt.PyJWTError:
                return None
            ok = claims.get("iss") == claims.get("sub") == client.client_id and claims.get("jti")
            return client if ok else None
        if client.auth_method == "none":
            return client if "client_secret" not in form else None
        return None

    def _tokens(self, client: Client, resource: str | None, scope: str) -> dict[str, Any]:
        token = self.mint(aud=resource or self.issuer, scope=scope, client_id=client.client_id)
        out: dict[str, Any] = {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": self.access_ttl,
        }
        if scope:
            out["scope"] = scope
        if self.issue_refresh_tokens:
            rt = secrets.token_urlsafe(24)
            self.refresh_tokens[rt] = {
                "client_id": client.client_id,
                "resource": resource,
                "scope": scope,
            }
            out["refresh_token"] = rt
            self.issued.append(rt)
        return out

    def _token(
        self, form: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, Any, dict[str, str]]:
        grant = form.get("grant_type", "")
        self.events.append(
            (
                f"token:{grant}",
                {k: v for k, v in form.items() if k not in ("client_secret", "client_assertion")},
            )
        )
        client = self._authenticate(form, headers)
        if client is None:
            return 401, {"error": "invalid_client"}, {}
        if grant == "authorization_code":
            grant_data = self.codes.pop(form.get("code", ""), None)
            if grant_data is None or grant_data["client_id"] != client.client_id:
                return 400, {"error": "invalid_grant", "error_description": "bad code"}, {}
            if grant_data["redirect_uri"] != form.get("redirect_uri"):
                return (
                    400,
                    {"error": "invalid_grant", "error_description": "redirect_uri mismatch"},
                    {},
                )
            if _b64url_sha256(form.get("code_verifier", "")) != grant_data["challenge"]:
                return 400, {"error": "invalid_grant", "error_description": "PKCE failed"}, {}
            if form.get("resource") != grant_data["resource"]:
                return (
                    400,
                    {"error": "invalid_target", "error_description": "resource mismatch"},
                    {},
                )
            return 200, self._tokens(client, grant_data["resource"], grant_data["scope"]), {}
        if grant == "refresh_token":
            data = self.refresh_tokens.pop(form.get("refresh_token", ""), None)  # rotation
            if data is None or data["client_id"] != client.client_id:
                return 400, {"error": "invalid_grant", "error_description": "bad refresh token"}, {}
            if form.get("resource", data["resource"]) != data["resource"]:
                return 400, {"error": "invalid_target"}, {}
            return 200, self._tokens(client, data["resource"], data["scope"]), {}
        if grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            try:
                claims = jwt.decode(
                    form.get("assertion", ""),
                    self.assertion_key_pem,
                    algorithms=["RS256"],
                    audience=self.issuer,
                )
            except (jwt.PyJWTError, ValueError):
                return 400, {"error": "invalid_grant", "error_description": "bad assertion"}, {}
            token = self._tokens(client, form.get("resource"), form.get("scope", ""))
            token["sub"] = claims.get("sub")
            return 200, token, {}
        if grant == "client_credentials":
            if client.auth_method == "none":
                return 400, {"error": "unauthorized_client"}, {}
            return 200, self._tokens(client, form.get("resource"), form.get("scope", "")), {}
        return 400, {"error": "unsupported_grant_type"}, {}

    def _register(self, body: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        self.events.append(("register", body))
        uris = body.get("redirect_uris")
        if not isinstance(uris, list) or not uris:
            return 400, {"error": "invalid_redirect_uri"}, {}
        method = body.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in self.auth_methods:
            method = "client_secret_basic"
        client_id = "dyn-" + secrets.token_hex(6)
        secret = None if method == "none" else secrets.token_urlsafe(18)
        client = self.register(client_id, secret=secret, auth_method=method, redirect_uris=uris)
        client.registration = body
        out = {**body, "client_id": client_id, "token_endpoint_auth_method": method}
        if secret:
            out["client_secret"] = secret
            out["client_secret_expires_at"] = 0
        return 201, out, {}

    def _introspect(self, form: dict[str, str]) -> tuple[int, Any, dict[str, str]]:
        token = form.get("token", "")
        try:
            claims = jwt.decode(
                token,
                self.signing_key.public_key(),
                algorithms=["RS256"],
                options={"verify_aud": False},
            )
        except jwt.PyJWTError:
            return 200, {"active": False}, {}
        return 200, {"active": True, **claims}, {}
