"""RequireBearer + ProtectedResource + verifiers, over real HTTP (uvicorn on loopback)."""

from __future__ import annotations

import time

import httpx
import pytest

from mcpkit.contrib.auth import (
    AccessToken,
    InsufficientScope,
    IntrospectionVerifier,
    InvalidToken,
    JWTVerifier,
    check_scopes,
    parse_bearer_challenge,
)

from ._issuer import new_rsa_key
from .conftest import Stack, StartIssuer, StartStack


def _challenge(response: httpx.Response) -> dict[str, str]:
    challenge = parse_bearer_challenge(response.headers.get_list("www-authenticate"))
    assert challenge is not None, response.headers
    return dict(challenge.params)


async def _get(stack: Stack, token: str | None, path: str = "/mcp") -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient() as http:
        return await http.get(stack.rs_url + path, headers=headers)


async def test_missing_token_gets_401_with_metadata_and_scope(start_stack: StartStack) -> None:
    stack = await start_stack()
    response = await _get(stack, None)
    assert response.status_code == 401
    assert _challenge(response) == {
        "resource_metadata": stack.rs_url + "/.well-known/oauth-protected-resource/mcp",
        "scope": "mcp:read",
    }


async def test_valid_token_reaches_the_app_with_its_claims(start_stack: StartStack) -> None:
    stack = await start_stack()
    token = stack.issuer.mint(aud=stack.mcp_url, scope="mcp:read extra", sub="bob")
    response = await _get(stack, token)
    assert response.status_code == 200
    assert response.json() == {
        "sub": "bob",
        "scopes": ["extra", "mcp:read"],
        "aud": [stack.mcp_url],
    }


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("expired", "expired"),
        ("malformed", "well-formed"),
        ("wrong_audience", "not issued for this resource"),
        ("wrong_issuer", "untrusted issuer"),
        ("foreign_key", "signature"),
    ],
)
async def test_bad_tokens_get_401_invalid_token(
    start_stack: StartStack, case: str, reason: str
) -> None:
    stack = await start_stack()
    iss = stack.issuer
    tokens = {
        "expired": lambda: iss.mint(aud=stack.mcp_url, scope="mcp:read", lifetime=-3600),
        "malformed": lambda: "not.a.jwt",
        "wrong_audience": lambda: iss.mint(aud="https://other.example/mcp", scope="mcp:read"),
        "wrong_issuer": lambda: iss.mint(aud=stack.mcp_url, scope="mcp:read", iss="https://evil"),
        "foreign_key": lambda: iss.mint(aud=stack.mcp_url, scope="mcp:read", key=new_rsa_key()[0]),
    }
    response = await _get(stack, tokens[case]())
    assert response.status_code == 401
    params = _challenge(response)
    assert params["error"] == "invalid_token"
    assert reason in params["error_description"]
    assert params["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
    assert response.json()["error"] == "invalid_token"


async def test_insufficient_scope_gets_403_naming_all_needed_scopes(
    start_stack: StartStack,
) -> None:
    stack = await start_stack()
    token = stack.issuer.mint(aud=stack.mcp_url, scope="other")
    response = await _get(stack, token)
    assert response.status_code == 403
    params = _challenge(response)
    assert params["error"] == "insufficient_scope"
    assert params["scope"] == "mcp:read"
    assert "resource_metadata" in params and "error_description" in params
    # per-operation scopes, checked by the app through ProtectedResource.check
    token = stack.issuer.mint(aud=stack.mcp_url, scope="mcp:read")
    response = await _get(stack, token, "/mcp/admin")
    assert response.status_code == 403
    assert _challenge(response)["scope"] == "mcp:read admin"


async def test_token_in_query_and_duplicate_headers_are_400(start_stack: StartStack) -> None:
    stack = await start_stack()
    token = stack.issuer.mint(aud=stack.mcp_url, scope="mcp:read")
    async with httpx.AsyncClient() as http:
        response = await http.get(stack.mcp_url, params={"access_token": token})
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_request"
        dup = [("authorization", f"Bearer {token}"), ("authorization", f"Bearer {token}")]
        response = await http.get(stack.mcp_url, headers=dup)
        assert response.status_code == 400


async def test_non_bearer_scheme_is_a_missing_token(start_stack: StartStack) -> None:
    stack = await start_stack()
    async with httpx.AsyncClient() as http:
        response = await http.get(stack.mcp_url, headers={"authorization": "Basic dTpw"})
    assert response.status_code == 401
    assert "error" not in _challenge(response)


async def test_prm_served_at_both_locations_with_cors(start_stack: StartStack) -> None:
    stack = await start_stack()
    async with httpx.AsyncClient() as http:
        for path in (
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource",
        ):
            response = await http.get(stack.rs_url + path)
            assert response.status_code == 200
            assert response.headers["access-control-allow-origin"] == "*"
            assert response.json() == {
                "resource": stack.mcp_url,
                "authorization_servers": [stack.issuer.issuer],
                "scopes_supported": ["mcp:read"],
                "bearer_methods_supported": ["header"],
            }
        preflight = await http.options(stack.rs_url + "/.well-known/oauth-protected-resource")
        assert preflight.status_code == 204
        assert (
            await http.post(stack.rs_url + "/.well-known/oauth-protected-resource")
        ).status_code == 405


async def test_jwks_rotation_refetches_for_an_unknown_kid(start_stack: StartStack) -> None:
    stack = await start_stack()
    assert (
        await _get(stack, stack.issuer.mint(aud=stack.mcp_url, scope="mcp:read"))
    ).status_code == 200
    stack.issuer.rotate_key()
    token = stack.issuer.mint(aud=stack.mcp_url, scope="mcp:read")
    assert (await _get(stack, token)).status_code == 200


async def test_unknown_kid_refetch_is_rate_limited(start_issuer: StartIssuer) -> None:
    issuer = await start_issuer()
    verifier = JWTVerifier(
        issuer=issuer.issuer, audience="https://r", jwks_uri=issuer.base_url + "/jwks"
    )
    fetches = 0
    original = verifier._fetch_keys

    async def counting() -> None:
        nonlocal fetches
        fetches += 1
        await original()

    verifier._fetch_keys = counting  # type: ignore[method-assign]
    await verifier.verify(issuer.mint(aud="https://r"))
    for _ in range(5):
        with pytest.raises(InvalidToken, match="unknown key"):
            await verifier.verify(issuer.mint(aud="https://r", kid="nope"))
    assert fetches == 2  # the initial fetch, then one refetch for the first unknown kid


def test_jwt_verifier_refuses_symmetric_and_none_algorithms() -> None:
    with pytest.raises(ValueError, match="asymmetric"):
        JWTVerifier(
            issuer="https://as", audience="https://r", keys={"keys": []}, algorithms=["HS256"]
        )
    with pytest.raises(ValueError, match="asymmetric"):
        JWTVerifier(
            issuer="https://as", audience="https://r", keys={"keys": []}, algorithms=["none"]
        )


async def test_static_pem_keys(start_issuer: StartIssuer) -> None:
    from ._issuer import public_pem

    issuer = await start_issuer()
    verifier = JWTVerifier(
        issuer=issuer.issuer, audience="https://r", keys=[public_pem(issuer.signing_key)]
    )
    token = await verifier.verify(issuer.mint(aud=["https://x", "https://r"], scope="a b"))
    assert (
        token.scopes == {"a", "b"} and token.client_id == "test" and token.issuer == issuer.issuer
    )


async def test_introspection_verifier(start_issuer: StartIssuer) -> None:
    issuer = await start_issuer()
    endpoint = issuer.issuer + "/introspect"
    verifier = IntrospectionVerifier(endpoint, audience="https://r", issuer=issuer.issuer)
    token = await verifier.verify(issuer.mint(aud="https://r", scope="mcp:read", sub="carol"))
    assert token.subject == "carol" and token.scopes == {"mcp:read"}
    with pytest.raises(InvalidToken, match="not issued for this resource"):
        await verifier.verify(issuer.mint(aud="https://elsewhere"))
    with pytest.raises(InvalidToken, match="not active"):
        await verifier.verify("garbage")


def test_check_scopes_with_hierarchy() -> None:
    token = AccessToken(
        subject="s", scopes=frozenset({"files"}), audience=("r",), expires_at=int(time.time()) + 60
    )
    hierarchy = {"files": ["files:read", "files:write"], "files:write": ["files:append"]}
    check_scopes(token, ["files:read", "files:append"], hierarchy=hierarchy)
    with pytest.raises(InsufficientScope) as info:
        check_scopes(token, ["files:read", "admin"], hierarchy=hierarchy)
    assert info.value.required == ("files:read", "admin")
    with pytest.raises(InsufficientScope):
        check_scopes(token, ["files:read"])
