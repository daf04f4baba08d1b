"""OAuthClient against a real authorization server and a RequireBearer-protected endpoint."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import httpx
import pytest

from mcpkit.contrib.auth import (
    AssertionContext,
    AuthorizationResponseError,
    DiscoveryError,
    FileTokenStorage,
    InsecureURLError,
    MemoryTokenStorage,
    OAuthClient,
    OAuthFlowError,
    PreRegistration,
    RegistrationError,
    TokenRequestError,
)
from mcpkit.protocol._errors import UsageError

from ._issuer import new_rsa_key, public_pem
from .conftest import StartIssuer, StartStack, headless_client


class FakeClock:
    def __init__(self) -> None:
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def test_401_discovery_registration_token_then_200(start_stack: StartStack) -> None:
    stack = await start_stack()
    auth = headless_client()
    async with httpx.AsyncClient(auth=auth) as http:
        response = await http.post(
            stack.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}
        )
        assert response.status_code == 200, response.text
        assert response.json()["scopes"] == ["mcp:read"]
        assert response.json()["aud"] == [stack.mcp_url]
        # a second request reuses the token: no new authorization
        assert (await http.get(stack.mcp_url)).status_code == 200
    names = stack.issuer.names()
    assert names == ["register", "authorize", "token:authorization_code"]
    registration = stack.issuer.events[0][1]
    assert registration["application_type"] == "native"
    assert registration["redirect_uris"] == ["http://localhost:3000/callback"]
    assert "refresh_token" in registration["grant_types"]
    authorize = stack.issuer.events[1][1]
    assert authorize["resource"] == stack.mcp_url
    assert authorize["scope"] == "mcp:read"
    assert authorize["code_challenge_method"] == "S256"
    assert stack.issuer.events[2][1]["resource"] == stack.mcp_url


async def test_missing_scope_403_steps_up_with_the_union(start_stack: StartStack) -> None:
    stack = await start_stack()
    auth = headless_client()
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
        response = await http.get(stack.mcp_url + "/admin")
        assert response.status_code == 200, response.text
        assert response.json()["scopes"] == ["admin", "mcp:read"]
    scopes = [e["scope"] for name, e in stack.issuer.events if name == "authorize"]
    assert scopes == ["mcp:read", "mcp:read admin"]


async def test_step_up_is_bounded_when_the_server_never_relents(start_stack: StartStack) -> None:
    stack = await start_stack()
    # the AS grants nothing beyond mcp:read, whatever is asked for
    original = stack.issuer._tokens

    def stingy(client, resource, scope):  # type: ignore[no-untyped-def]
        return original(client, resource, "mcp:read")

    stack.issuer._tokens = stingy  # type: ignore[method-assign]
    auth = headless_client()
    async with httpx.AsyncClient(auth=auth) as http:
        response = await http.get(stack.mcp_url + "/admin")
    assert response.status_code == 403
    assert "insufficient_scope" in response.headers["www-authenticate"]
    authorizations = stack.issuer.names().count("authorize")
    assert 2 <= authorizations <= 3  # the initial one plus a bounded number of step-ups


async def test_refresh_before_expiry(start_stack: StartStack) -> None:
    stack = await start_stack(access_ttl=120)
    clock = FakeClock()
    auth = headless_client(clock=clock)
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
        first = auth.tokens
        clock.now += 100  # 20 s left: inside the refresh margin, still valid at the server
        assert (await http.get(stack.mcp_url)).status_code == 200
        second = auth.tokens
    assert stack.issuer.names().count("token:refresh_token") == 1
    assert stack.issuer.names().count("authorize") == 1
    assert first is not None and second is not None
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token  # rotated


async def test_failed_refresh_falls_back_to_a_new_authorization(start_stack: StartStack) -> None:
    stack = await start_stack(access_ttl=120)
    clock = FakeClock()
    auth = headless_client(clock=clock)
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
        stack.issuer.refresh_tokens.clear()  # the AS revoked every refresh token
        clock.now += 200  # past expiry
        assert (await http.get(stack.mcp_url)).status_code == 200
    names = stack.issuer.names()
    assert names.count("token:refresh_token") == 1
    assert names.count("authorize") == 2


async def test_metadata_lying_about_its_issuer_is_refused(start_stack: StartStack) -> None:
    stack = await start_stack(metadata_issuer="https://attacker.example.com")
    async with httpx.AsyncClient(auth=headless_client()) as http:
        with pytest.raises(DiscoveryError, match=r"attacker\.example\.com"):
            await http.get(stack.mcp_url)
    assert stack.issuer.names() == []  # neither registered nor authorized


@pytest.mark.parametrize("mode", ["wrong", "normalized", "omit"])
async def test_bad_iss_in_the_redirect_is_rejected_before_the_token_request(
    start_stack: StartStack, mode: str
) -> None:
    stack = await start_stack(iss_in_redirect=mode)
    async with httpx.AsyncClient(auth=headless_client()) as http:
        with pytest.raises(AuthorizationResponseError):
            await http.get(stack.mcp_url)
    assert "token:authorization_code" not in stack.issuer.names()


async def test_iss_absent_and_not_advertised_proceeds(start_stack: StartStack) -> None:
    stack = await start_stack(iss_in_redirect="omit", advertise_iss=False)
    async with httpx.AsyncClient(auth=headless_client()) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200


async def test_denied_authorization_surfaces_the_error(start_stack: StartStack) -> None:
    stack = await start_stack(deny=True)
    async with httpx.AsyncClient(auth=headless_client()) as http:
        with pytest.raises(AuthorizationResponseError) as info:
            await http.get(stack.mcp_url)
    assert info.value.error == "access_denied"


async def test_server_without_pkce_is_refused(start_stack: StartStack) -> None:
    stack = await start_stack(advertise_pkce=False)
    async with httpx.AsyncClient(auth=headless_client()) as http:
        with pytest.raises(OAuthFlowError, match="code_challenge_methods_supported"):
            await http.get(stack.mcp_url)
    assert "authorize" not in stack.issuer.names()


async def test_javascript_authorization_url_is_refused(start_stack: StartStack) -> None:
    stack = await start_stack(authorization_endpoint_override="javascript:alert(1)//")
    opened: list[str] = []

    class Recorder:
        async def open(self, url: str) -> None:
            opened.append(url)

    auth = headless_client()
    auth.redirect_handler = Recorder()
    async with httpx.AsyncClient(auth=auth) as http:
        with pytest.raises(InsecureURLError, match="javascript"):
            await http.get(stack.mcp_url)
    assert opened == []


async def test_cimd_is_used_when_supported(start_stack: StartStack) -> None:
    stack = await start_stack(cimd_supported=True)
    url = "https://client.example.com/mcp-client.json"
    async with httpx.AsyncClient(auth=headless_client(client_metadata_url=url)) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert "register" not in stack.issuer.names()
    assert stack.issuer.events[0][1]["client_id"] == url


async def test_cimd_falls_back_to_dcr_when_unsupported(start_stack: StartStack) -> None:
    stack = await start_stack(cimd_supported=False)
    url = "https://client.example.com/mcp-client.json"
    async with httpx.AsyncClient(auth=headless_client(client_metadata_url=url)) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert stack.issuer.names()[0] == "register"


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
async def test_pre_registered_client_wins_and_authenticates(
    start_stack: StartStack, method: str
) -> None:
    stack = await start_stack(cimd_supported=True, auth_methods=[method])
    stack.issuer.register(
        "pre-1",
        secret="s3cret",
        auth_method=method,
        redirect_uris=["http://localhost:3000/callback"],
    )
    pre = PreRegistration(client_id="pre-1", client_secret="s3cret", issuer=stack.issuer.issuer)
    auth = headless_client(client=pre, client_metadata_url="https://client.example.com/c.json")
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert stack.issuer.events[0][1]["client_id"] == "pre-1"
    assert "register" not in stack.issuer.names()


async def test_pre_registration_for_another_issuer_is_never_sent(start_stack: StartStack) -> None:
    stack = await start_stack(dcr_enabled=False)
    pre = PreRegistration(client_id="pre-1", client_secret="s3cret", issuer="https://other.example")
    async with httpx.AsyncClient(auth=headless_client(client=pre)) as http:
        with pytest.raises(RegistrationError, match=r"other\.example"):
            await http.get(stack.mcp_url)
    assert stack.issuer.names() == []


async def test_client_credentials_with_a_secret(start_stack: StartStack) -> None:
    stack = await start_stack()
    stack.issuer.register("robot", secret="r0bot", auth_method="client_secret_basic")
    pre = PreRegistration(client_id="robot", client_secret="r0bot")
    auth = OAuthClient(grant="client_credentials", client=pre)
    async with httpx.AsyncClient(auth=auth) as http:
        response = await http.get(stack.mcp_url)
    assert response.status_code == 200, response.text
    assert stack.issuer.names() == ["token:client_credentials"]
    form = stack.issuer.events[0][1]
    assert form["resource"] == stack.mcp_url and form["scope"] == "mcp:read"


async def test_client_credentials_with_private_key_jwt(start_stack: StartStack) -> None:
    stack = await start_stack()
    key, pem = new_rsa_key()
    stack.issuer.register(
        "robot-jwt", secret=None, auth_method="private_key_jwt", public_key_pem=public_pem(key)
    )
    pre = PreRegistration(client_id="robot-jwt", private_key_pem=pem, signing_algorithm="RS256")
    async with httpx.AsyncClient(auth=OAuthClient(grant="client_credentials", client=pre)) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    form = stack.issuer.events[0][1]
    assert form["client_assertion_type"].endswith("jwt-bearer")


async def test_file_storage_reuses_tokens_across_clients_with_0600(
    start_stack: StartStack, tmp_path: Path
) -> None:
    stack = await start_stack()
    path = tmp_path / "state" / "tokens.json"
    async with httpx.AsyncClient(auth=headless_client(storage=FileTokenStorage(path))) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["tokens.json"]  # no temp files left
    # a new process (new client) finds the token for this issuer and resource
    async with httpx.AsyncClient(auth=headless_client(storage=FileTokenStorage(path))) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert stack.issuer.names().count("authorize") == 1


async def test_authorization_server_migration_re_registers(
    start_stack: StartStack, start_issuer: StartIssuer
) -> None:
    stack = await start_stack()
    storage = MemoryTokenStorage()
    auth = headless_client(storage=storage)
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
        old_client = stack.issuer.clients[stack.issuer.events[1][1]["client_id"]].client_id
        new_issuer = await start_issuer()
        stack.protect(new_issuer)  # the server now trusts only the new AS
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert new_issuer.names() == ["register", "authorize", "token:authorization_code"]
    presented = [e.get("client_id") for _, e in new_issuer.events]
    assert old_client not in presented
    first = await storage.load(stack.issuer.issuer)
    second = await storage.load(new_issuer.issuer)
    assert first is not None and second is not None
    assert first.client is not None and second.client is not None
    assert first.client.client_id != second.client.client_id


async def test_tokens_and_secrets_never_reach_the_logs(
    start_stack: StartStack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    stack = await start_stack(access_ttl=120)
    clock = FakeClock()
    auth = headless_client(clock=clock)
    async with httpx.AsyncClient(auth=auth) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
        clock.now += 100
        assert (await http.get(stack.mcp_url + "/admin")).status_code == 200
        logging.getLogger("test").debug("tokens now: %r", auth.tokens)
    secrets = [*stack.issuer.issued, *(c.secret for c in stack.issuer.clients.values() if c.secret)]
    assert len(secrets) >= 5  # 2 access + 2 refresh tokens (one refresh, one step-up), a secret
    assert caplog.records, "the flow should have logged something at DEBUG"
    for secret in secrets:
        assert secret not in caplog.text  # every logger, httpcore's wire traces included
    # authorization codes: never in our logs nor httpx's (httpcore's DEBUG wire trace prints
    # response headers, so the redirect Location with its code shows up there by design)
    codes = [e["code"] for name, e in stack.issuer.events if "code" in e]
    assert len(codes) == 2
    ours = "\n".join(
        r.getMessage() for r in caplog.records if r.name.startswith(("mcpkit", "httpx", "test"))
    )
    for code in codes:
        assert code not in ours


async def test_jwt_bearer_grant_with_an_assertion_provider(start_stack: StartStack) -> None:
    import jwt

    key, pem = new_rsa_key()
    stack = await start_stack(assertion_key_pem=public_pem(key))
    stack.issuer.register("workload", secret=None, auth_method="none")
    seen: list[AssertionContext] = []

    async def provider(ctx: AssertionContext) -> str:
        seen.append(ctx)
        return jwt.encode({"sub": "svc", "aud": ctx.issuer, "exp": 2**31}, pem, algorithm="RS256")

    pre = PreRegistration(client_id="workload")
    async with httpx.AsyncClient(
        auth=OAuthClient(grant="jwt_bearer", client=pre, assertion=provider)
    ) as http:
        assert (await http.get(stack.mcp_url)).status_code == 200
    assert seen == [
        AssertionContext(
            stack.issuer.issuer, stack.issuer.issuer + "/token", stack.mcp_url, ("mcp:read",)
        )
    ]
    assert stack.issuer.names() == ["token:urn:ietf:params:oauth:grant-type:jwt-bearer"]


async def test_rejected_jwt_bearer_assertion_is_surfaced_without_retry(
    start_stack: StartStack,
) -> None:
    key, _ = new_rsa_key()
    stack = await start_stack(assertion_key_pem=public_pem(key))
    stack.issuer.register("workload", secret=None, auth_method="none")
    auth = OAuthClient(
        grant="jwt_bearer", client=PreRegistration(client_id="workload"), assertion="e.y.J"
    )
    async with httpx.AsyncClient(auth=auth) as http:
        with pytest.raises(TokenRequestError) as info:
            await http.get(stack.mcp_url)
    assert info.value.error == "invalid_grant"
    assert len(stack.issuer.names()) == 1


def test_sync_clients_are_refused_with_a_clear_message() -> None:
    with (
        httpx.Client(auth=headless_client()) as http,
        pytest.raises(UsageError, match="AsyncClient"),
    ):
        http.get("http://127.0.0.1:9/")
