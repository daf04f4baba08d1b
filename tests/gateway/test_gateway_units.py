"""The gateway's small parts: policies, argument digests, rate limits, configuration, tokens."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from mcpkit.errors import UsageError
from mcpkit.gateway import (
    JsonLinesAudit,
    Policy,
    RateLimit,
    RateLimited,
    StaticBearer,
    arguments_digest,
    client_name,
    load_gateway_config,
    parse_gateway_config,
)
from mcpkit.gateway._audit import AuditRecord
from mcpkit.gateway._policy import ALLOW_ALL, DENY_ALL
from mcpkit.gateway._ratelimit import RateLimiter


def test_deny_wins_and_kinds_narrow_a_pattern() -> None:
    policy = Policy(
        allow=["files/*", "prompts:docs/*", "resources:docs/docs://public/*"],
        deny=["files/delete_*"],
    )
    assert policy.allows("tools", "files", "read_file")
    assert not policy.allows("tools", "files", "delete_file")
    assert policy.allows("prompts", "docs", "summary")
    assert not policy.allows("tools", "docs", "summary")  # the prompts: pattern only
    assert policy.allows("resources", "docs", "docs://public/a.md")
    assert not policy.allows("resources", "docs", "docs://private/a.md")
    assert not policy.allows("tools", "crm", "search")  # nothing allowed it


def test_an_empty_policy_allows_nothing_and_star_everything() -> None:
    assert not DENY_ALL.allows("tools", "files", "read")
    assert ALLOW_ALL.allows("resources", "files", "file:///etc/hosts")


@pytest.mark.parametrize(
    "raw",
    [{"allow": "x/*", "deny": 3}, {"allow": [""]}, {"allow": ["tools:"]}, {"permit": ["*"]}],
)
def test_malformed_policies_are_refused(raw: dict[str, Any]) -> None:
    with pytest.raises(UsageError):
        Policy.from_config(raw)


def test_the_digest_is_sha256_of_canonical_json() -> None:
    a = arguments_digest({"b": 1, "a": "é"})
    b = arguments_digest({"a": "é", "b": 1})
    assert a == b  # key order does not matter
    expected = hashlib.sha256('{"a":"é","b":1}'.encode()).hexdigest()
    assert a == f"sha256:{expected}"
    assert arguments_digest(None) is None
    assert arguments_digest({"a": 2}) != a


def test_json_lines_audit_appends_one_object_per_record(tmp_path: Path) -> None:
    sink = JsonLinesAudit(tmp_path / "audit.jsonl")
    for outcome in ("ok", "denied"):
        sink(
            AuditRecord(
                time=1.0, client="alice", method="tools/call", backend="files", target="read",
                arguments_digest=None, outcome=outcome, duration_ms=1.5, era="2025-11-25",
            )
        )  # fmt: skip
    sink.close()
    lines = (tmp_path / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["outcome"] for line in lines] == ["ok", "denied"]


def test_a_token_bucket_per_client() -> None:
    now = [100.0]
    limiter = RateLimiter(clock=lambda: now[0])
    limit = RateLimit(rate=2.0, burst=2)
    limiter.check("a", limit)
    limiter.check("a", limit)
    with pytest.raises(RateLimited) as refused:
        limiter.check("a", limit)
    assert refused.value.code == -32029
    assert refused.value.data == {"retryAfterMs": 501}
    limiter.check("b", limit)  # another client has its own bucket
    now[0] += 0.5  # one token back at 2/s
    limiter.check("a", limit)
    with pytest.raises(RateLimited):
        limiter.check("a", limit)
    limiter.check("a", None)  # no limit configured


def test_the_configuration_file(tmp_path: Path) -> None:
    config = {
        "mcpServers": {
            "files": {"command": "python", "args": ["files.py"], "timeout": 5},
            "crm": {"url": "https://crm.example/mcp", "bearer": "${env:CRM_TOKEN}"},
        },
        "gateway": {
            "audit": "audit.jsonl",
            "clients": {
                "alice": {"tokenEnv": "ALICE", "allow": ["*"], "rateLimit": {"rate": 5}},
                "bob": {"token": "b" * 20, "allow": ["crm/*"]},
            },
        },
    }
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps(config))
    environ = {"CRM_TOKEN": "secret-crm", "ALICE": "a" * 20}
    entries, settings = load_gateway_config(path, environ=environ)
    crm = next(e for e in entries if e.name == "crm")
    assert crm.target["headers"] == {"Authorization": "Bearer secret-crm"}
    assert settings.backend_timeouts == {"files": 5.0}
    assert settings.audit == str(tmp_path / "audit.jsonl")
    assert settings.tokens() == {"a" * 20: "alice", "b" * 20: "bob"}
    assert settings.clients["alice"].rate_limit == RateLimit(rate=5.0, burst=5)
    assert settings.anonymous is DENY_ALL  # tokens are configured: strangers get nothing


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"mcpServers": {}}, "at least one backend"),
        ({"mcpServers": {"a": "x"}, "gateway": {"colour": 1}}, "unknown"),
        ({"mcpServers": {"a": "x"}, "gateway": {"clients": {"c": {"tokenEnv": "NOPE"}}}}, "NOPE"),
        ({"mcpServers": {"a": "x"}, "gateway": {"clients": {"c": {"rateLimit": 3}}}}, "rateLimit"),
    ],
)
def test_configuration_mistakes_are_named(config: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_gateway_config(config, environ={})


def test_without_tokens_anonymous_may_use_everything() -> None:
    _, settings = parse_gateway_config({"mcpServers": {"a": "python a.py"}}, environ={})
    assert settings.anonymous is ALLOW_ALL


class _Token:
    def __init__(self, client_id: str | None, subject: str | None) -> None:
        self.client_id = client_id
        self.subject = subject


def test_client_names_come_from_the_token() -> None:
    assert client_name(None) == "anonymous"
    assert client_name(_Token("app-1", "user-9")) == "app-1"
    assert client_name(_Token(None, "user-9")) == "user-9"


def test_static_tokens_must_be_long_enough() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("not reached")

    with pytest.raises(UsageError):
        StaticBearer(app, {"short": "alice"})
    with pytest.raises(UsageError):
        StaticBearer(app, {})


async def test_listings_are_never_marked_shareable_between_clients() -> None:
    """Each client's lists depend on its policy: 2026 cache hints say ``private``."""
    from mcpkit.client import Client
    from mcpkit.gateway import Gateway

    gateway = Gateway({"none": {"command": "true"}}, host_options={"restart": False})
    async with gateway, Client(gateway.server.connect_in_memory(), mode="2026-07-28") as client:
        listed = await client._request("tools/list", {})
    assert listed["cacheScope"] == "private"
