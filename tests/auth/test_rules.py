"""Pure rules: URLs, challenges, scope selection, PKCE, authorization-response validation."""

from __future__ import annotations

import pytest

from mcpkit.contrib.auth import (
    AuthorizationResponse,
    AuthorizationResponseError,
    AuthorizationServerMetadata,
    BearerChallenge,
    InsecureURLError,
    OAuthFlowError,
    ProtectedResourceMetadata,
    format_bearer_challenge,
    parse_bearer_challenge,
)
from mcpkit.contrib.auth._challenge import parse_challenges
from mcpkit.contrib.auth._flow import (
    authorization_url,
    require_pkce_s256,
    select_scopes,
    validate_authorization_response,
)
from mcpkit.contrib.auth._pkce import new_verifier, s256_challenge
from mcpkit.contrib.auth._urls import (
    as_metadata_urls,
    canonical_resource,
    check_browser_url,
    prm_urls,
    resource_covers,
)

ISSUER = "https://as.example.com"
META = AuthorizationServerMetadata(issuer=ISSUER, code_challenge_methods_supported=["S256"])


# -- URLs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTPS://MCP.Example.com/mcp", "https://mcp.example.com/mcp"),
        ("https://mcp.example.com/", "https://mcp.example.com"),
        ("https://mcp.example.com:8443", "https://mcp.example.com:8443"),
        ("https://mcp.example.com/server/mcp#frag", "https://mcp.example.com/server/mcp"),
    ],
)
def test_canonical_resource(url: str, canonical: str) -> None:
    assert canonical_resource(url) == canonical


def test_canonical_resource_refuses_credentials_and_non_http() -> None:
    with pytest.raises(InsecureURLError):
        canonical_resource("https://user:pw@mcp.example.com/mcp")
    with pytest.raises(InsecureURLError):
        canonical_resource("mcp.example.com")


def test_prm_urls_path_inserted_then_root() -> None:
    assert prm_urls("https://h.example/public/mcp") == [
        "https://h.example/.well-known/oauth-protected-resource/public/mcp",
        "https://h.example/.well-known/oauth-protected-resource",
    ]
    assert prm_urls("https://h.example/") == [
        "https://h.example/.well-known/oauth-protected-resource"
    ]


def test_as_metadata_urls_follow_the_spec_order() -> None:
    assert as_metadata_urls("https://as.example/tenant1") == [
        "https://as.example/.well-known/oauth-authorization-server/tenant1",
        "https://as.example/.well-known/openid-configuration/tenant1",
        "https://as.example/tenant1/.well-known/openid-configuration",
    ]
    assert as_metadata_urls("https://as.example") == [
        "https://as.example/.well-known/oauth-authorization-server",
        "https://as.example/.well-known/openid-configuration",
    ]


@pytest.mark.parametrize(
    ("resource", "server", "ok"),
    [
        ("https://h.example/mcp", "https://h.example/mcp", True),
        ("https://h.example", "https://h.example/mcp", True),
        ("https://H.EXAMPLE/mcp", "https://h.example/mcp", True),
        ("https://h.example/mc", "https://h.example/mcp", False),
        ("https://h.example/mcp/x", "https://h.example/mcp", False),
        ("https://evil.example.com/mcp", "https://h.example/mcp", False),
        ("http://h.example/mcp", "https://h.example/mcp", False),
        ("https://h.example:8443/mcp", "https://h.example/mcp", False),
        ("not a url", "https://h.example/mcp", False),
    ],
)
def test_resource_covers(resource: str, server: str, ok: bool) -> None:
    assert resource_covers(resource, server) is ok


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "vbscript:msgbox(1)",
        "http://as.example.com/authorize",
        "https://as.example.com/authorize?x=1\n",
        "//as.example.com/authorize",
    ],
)
def test_browser_url_refusals(url: str) -> None:
    with pytest.raises(InsecureURLError):
        check_browser_url(url)


def test_browser_url_acceptance() -> None:
    assert check_browser_url("https://as.example.com/authorize?a=b")
    assert check_browser_url("http://127.0.0.1:9000/authorize")
    assert check_browser_url("http://localhost:9000/authorize")
    with pytest.raises(InsecureURLError):
        check_browser_url("http://localhost:9000/authorize", allow_insecure_loopback=False)


# -- challenges ------------------------------------------------------------------------------


def test_parse_bearer_challenge_among_several() -> None:
    header = (
        'Basic realm="x", Bearer error="insufficient_scope", scope="files:read  files:write", '
        'resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
        'error_description="needs \\"write\\""'
    )
    challenge = parse_bearer_challenge([header])
    assert challenge is not None
    assert challenge.error == "insufficient_scope"
    assert challenge.scopes == ("files:read", "files:write")
    assert challenge.resource_metadata.endswith("/oauth-protected-resource")  # type: ignore[union-attr]
    assert challenge.error_description == 'needs "write"'


def test_parse_challenges_token68_and_separate_headers() -> None:
    parsed = parse_challenges(["Negotiate abc==, Bearer realm=api", "DPoP algs=ES256"])
    assert [s for s, _ in parsed] == ["negotiate", "bearer", "dpop"]
    assert parsed[1][1] == {"realm": "api"}


@pytest.mark.parametrize("garbage", ["", "Bearer", '"Bearer"', 'Bearer scope="unterminated', "=x"])
def test_garbled_challenges_never_raise(garbage: str) -> None:
    challenge = parse_bearer_challenge([garbage])
    assert challenge is None or isinstance(challenge, BearerChallenge)


def test_format_round_trips_and_escapes() -> None:
    header = format_bearer_challenge(
        {
            "resource_metadata": "https://h/x",
            "scope": "a b",
            "error": None,
            "error_description": 'q"\\',
        }
    )
    assert "error=" not in header.replace("error_description=", "")
    challenge = parse_bearer_challenge([header])
    assert challenge is not None
    assert challenge.params == {
        "resource_metadata": "https://h/x",
        "scope": "a b",
        "error_description": 'q"\\',
    }


# -- scope selection -------------------------------------------------------------------------


def _prm(scopes: list[str] | None) -> ProtectedResourceMetadata:
    return ProtectedResourceMetadata(
        resource="https://h/mcp", authorization_servers=[ISSUER], scopes_supported=scopes
    )


def test_challenge_scope_wins() -> None:
    challenge = BearerChallenge({"scope": "mcp:basic"})
    assert select_scopes(challenge, _prm(["a", "b"]), META) == ["mcp:basic"]


def test_scopes_supported_when_the_challenge_has_none() -> None:
    assert select_scopes(BearerChallenge({}), _prm(["a", "b"]), META) == ["a", "b"]


def test_scope_omitted_when_nothing_is_defined() -> None:
    assert select_scopes(None, _prm(None), META) == []


def test_step_up_keeps_previous_scopes() -> None:
    challenge = BearerChallenge({"scope": "mcp:write"})
    assert select_scopes(challenge, _prm(None), META, previous=["mcp:basic"]) == [
        "mcp:basic",
        "mcp:write",
    ]


def test_offline_access_only_when_listed_and_something_is_requested() -> None:
    listed = AuthorizationServerMetadata(issuer=ISSUER, scopes_supported=["a", "offline_access"])
    assert select_scopes(None, _prm(["a"]), listed, offline_access=True) == ["a", "offline_access"]
    assert select_scopes(None, _prm(["a"]), META, offline_access=True) == ["a"]
    assert select_scopes(None, _prm(None), listed, offline_access=True) == []


# -- PKCE and the authorization request ------------------------------------------------------


def test_pkce_rfc7636_appendix_b_vector() -> None:
    verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    assert s256_challenge(verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
    fresh = new_verifier()
    assert 43 <= len(fresh) <= 128 and fresh != new_verifier()


def test_pkce_is_required_in_metadata() -> None:
    require_pkce_s256(META)
    with pytest.raises(OAuthFlowError, match="code_challenge_methods_supported"):
        require_pkce_s256(AuthorizationServerMetadata(issuer=ISSUER))
    with pytest.raises(OAuthFlowError, match="S256"):
        require_pkce_s256(
            AuthorizationServerMetadata(issuer=ISSUER, code_challenge_methods_supported=["plain"])
        )


def test_authorization_url_keeps_existing_query() -> None:
    url = authorization_url(
        "https://as/authorize?tenant=7&state=old", {"state": "s", "scope": "a b"}
    )
    assert url == "https://as/authorize?tenant=7&state=s&scope=a+b"


# -- RFC 9207 --------------------------------------------------------------------------------


def _check(resp: AuthorizationResponse, advertised: bool) -> str:
    return validate_authorization_response(
        resp, expected_issuer=ISSUER, iss_advertised=advertised, state="st"
    )


@pytest.mark.parametrize("advertised", [True, False])
def test_matching_iss_is_accepted(advertised: bool) -> None:
    assert _check(AuthorizationResponse(code="c", state="st", iss=ISSUER), advertised) == "c"


def test_absent_iss_rejected_only_when_advertised() -> None:
    assert _check(AuthorizationResponse(code="c", state="st"), False) == "c"
    with pytest.raises(AuthorizationResponseError, match="carries no iss"):
        _check(AuthorizationResponse(code="c", state="st"), True)


@pytest.mark.parametrize("iss", [ISSUER + "/", "HTTPS://as.example.com", "https://evil.example"])
@pytest.mark.parametrize("advertised", [True, False])
def test_iss_compared_without_normalisation(iss: str, advertised: bool) -> None:
    with pytest.raises(AuthorizationResponseError, match="mix-up"):
        _check(AuthorizationResponse(code="c", state="st", iss=iss), advertised)


def test_error_responses_are_checked_and_not_echoed_on_mismatch() -> None:
    forged = AuthorizationResponse(
        state="st", iss="https://evil.example", error="access_denied", error_description="PHISH"
    )
    with pytest.raises(AuthorizationResponseError) as info:
        _check(forged, True)
    assert "PHISH" not in str(info.value) and info.value.error is None
    genuine = AuthorizationResponse(state="st", iss=ISSUER, error="access_denied")
    with pytest.raises(AuthorizationResponseError) as info2:
        _check(genuine, True)
    assert info2.value.error == "access_denied"


def test_state_must_match() -> None:
    with pytest.raises(AuthorizationResponseError, match="state"):
        _check(AuthorizationResponse(code="c", state="other", iss=ISSUER), True)
    with pytest.raises(AuthorizationResponseError, match="state"):
        _check(AuthorizationResponse(code="c", iss=ISSUER), True)


def test_repeated_parameters_are_refused() -> None:
    with pytest.raises(AuthorizationResponseError, match="repeats"):
        AuthorizationResponse.from_query("code=a&code=b&state=s")
    parsed = AuthorizationResponse.from_query("code=C0DE&state=ST8&iss=https%3A%2F%2Fas")
    assert (parsed.code, parsed.state, parsed.iss) == ("C0DE", "ST8", "https://as")
    assert "C0DE" not in repr(parsed) and "ST8" not in repr(parsed)
