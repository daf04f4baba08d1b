"""Host and Origin validation against DNS rebinding."""

from __future__ import annotations

import pytest

from mcpkit.protocol._errors import INVALID_REQUEST, UsageError
from mcpkit.protocol._http_security import HostPolicy


def status(policy: HostPolicy, host: str | None, origin: str | None = None) -> int:
    rejection = policy.check(host, origin)
    return 200 if rejection is None else rejection.status


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "localhost:8000",
        "LOCALHOST:1",
        "127.0.0.1:65535",
        "[::1]",
        "[::1]:3000",
        "localhost.",
    ],
)
def test_default_policy_allows_loopback_on_any_port(host: str) -> None:
    assert status(HostPolicy(), host) == 200


@pytest.mark.parametrize(
    "host",
    [
        "evil.example.com",
        "evil.example.com:8000",
        "localhost.evil.com",
        "127.0.0.2",
        "0.0.0.0",
        "[::2]",
        "localhost:0",
        "localhost:99999",
        "localhost:*",
        "localhost:80x",
        "user@localhost",
        "local host",
        "",
        "[::1",
        "[::1]x",
    ],
)
def test_default_policy_rejects_other_hosts_with_421(host: str) -> None:
    assert status(HostPolicy(), host) == 421


def test_missing_host_is_refused() -> None:
    rejection = HostPolicy().check(None, None)
    assert rejection is not None and rejection.status == 421
    assert "no Host header" in rejection.error.message


def test_host_rejection_says_how_to_allow_it() -> None:
    rejection = HostPolicy().check("mcp.internal:9000", None)
    assert rejection is not None
    message = rejection.error.message
    assert rejection.error.code == INVALID_REQUEST
    assert "allowed_hosts=['127.0.0.1', 'localhost', '[::1]', 'mcp.internal:9000']" in message
    assert "MCPKIT_ALLOWED_HOSTS=mcp.internal:9000" in message
    assert rejection.response().id is None


def test_ports_exact_and_wildcard() -> None:
    policy = HostPolicy(allowed_hosts=("api.example.com:8443", "dev.example.com:*", "[fe80::1]:80"))
    assert status(policy, "api.example.com:8443") == 200
    assert status(policy, "api.example.com:8444") == 421
    assert status(policy, "api.example.com") == 421
    assert status(policy, "dev.example.com:1234") == 200
    assert status(policy, "dev.example.com") == 200
    assert status(policy, "[FE80::1]:80") == 200
    assert status(policy, "localhost") == 421


def test_star_disables_the_host_check_only() -> None:
    policy = HostPolicy(allowed_hosts=("*",))
    assert status(policy, "anything.example") == 200
    assert status(policy, None) == 200
    # Origins are not opened up by a wildcard host.
    assert status(policy, "anything.example", "https://anything.example") == 403


def test_missing_origin_is_allowed_and_bad_origin_is_403() -> None:
    policy = HostPolicy()
    assert status(policy, "localhost:8000", None) == 200
    assert status(policy, "localhost:8000", "http://localhost:5173") == 200
    assert status(policy, "localhost:8000", "https://127.0.0.1") == 200
    assert status(policy, "localhost:8000", "http://[::1]:3000") == 200
    for origin in (
        "http://evil.example.com",
        "https://localhost.evil.com",
        "null",
        "file://",
        "localhost",
        "http://localhost/path",
        "http://user@localhost",
        "ftp://localhost",
        "",
    ):
        assert status(policy, "localhost:8000", origin) == 403, origin


def test_origin_rejection_says_how_to_allow_it() -> None:
    rejection = HostPolicy().check("localhost", "https://app.example.com")
    assert rejection is not None and rejection.status == 403
    assert "allowed_origins=[" in rejection.error.message
    assert "'https://app.example.com']" in rejection.error.message
    assert "MCPKIT_ALLOWED_ORIGINS=https://app.example.com" in rejection.error.message


def test_explicit_origins() -> None:
    policy = HostPolicy(
        allowed_origins=("https://app.example.com", "http://localhost:*", "null"),
    )
    assert status(policy, "localhost", "https://app.example.com") == 200
    assert status(policy, "localhost", "https://app.example.com:443") == 200
    assert status(policy, "localhost", "https://app.example.com:8443") == 403
    assert status(policy, "localhost", "http://app.example.com") == 403
    assert status(policy, "localhost", "http://localhost:1234") == 200
    assert status(policy, "localhost", "https://localhost") == 403  # only listed origins now
    assert status(policy, "localhost", "null") == 200
    assert status(HostPolicy(allowed_origins=("*",)), "localhost", "https://x.example") == 200


def test_from_env_adds_to_the_lists() -> None:
    environ = {
        "MCPKIT_ALLOWED_HOSTS": " mcp.internal:9000 , other.example ",
        "MCPKIT_ALLOWED_ORIGINS": "https://app.example.com",
    }
    policy = HostPolicy.from_env(environ)
    assert policy.allowed_hosts == (
        "127.0.0.1",
        "localhost",
        "[::1]",
        "mcp.internal:9000",
        "other.example",
    )
    assert status(policy, "mcp.internal:9000") == 200
    assert status(policy, "other.example:1") == 200
    assert status(policy, "localhost", "https://app.example.com") == 200
    # The derived origins of the allowed hosts stay allowed.
    assert status(policy, "localhost", "http://localhost:5173") == 200
    assert status(policy, "localhost", "https://evil.example") == 403
    assert HostPolicy.from_env({}) == HostPolicy()


def test_invalid_entries_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="allowed_hosts"):
        HostPolicy(allowed_hosts=("bad host",))
    with pytest.raises(UsageError, match="allowed_origins"):
        HostPolicy(allowed_origins=("app.example.com",))
    with pytest.raises(UsageError, match="allowed_origins"):
        HostPolicy(allowed_origins=("https://app.example.com/path",))


def test_rejections_do_not_echo_unbounded_input() -> None:
    rejection = HostPolicy().check("a" * 10_000, None)
    assert rejection is not None and len(rejection.error.message) < 1_000
