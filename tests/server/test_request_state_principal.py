"""A sealed ``requestState`` is bound to the whole caller (issuer, subject, client id): another
token — even one without a subject, like a client-credentials token — cannot replay it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcpkit.contrib.auth._verifier import AccessToken
from mcpkit.protocol._errors import InvalidParams
from mcpkit.server import Context, Server
from mcpkit.server._request_state import principal_binding
from mcpkit.types._jsonrpc import JSONObject, Request

CAPS = {"elicitation": {"form": {}}}


class _Outbound:
    protocol_version: str | None = None

    async def send_notification(self, method: str, params: JSONObject | None = None) -> None:
        pass

    async def send_request(
        self, method: str, params: JSONObject | None = None, *, timeout: float | None = None
    ) -> JSONObject:
        raise AssertionError("no server→client requests in 2026")


def _request(request_id: int, params: JSONObject) -> Request:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": CAPS,
        "io.modelcontextprotocol/clientInfo": {"name": "direct", "version": "1"},
    }
    return Request(request_id, "tools/call", {**params, "_meta": meta})


def _token(subject: str | None, client_id: str | None, issuer: str | None) -> AccessToken:
    return AccessToken(
        subject=subject,
        scopes=frozenset(),
        audience=("r",),
        expires_at=int(time.time()) + 60,
        client_id=client_id,
        issuer=issuer,
    )


def _server() -> Server:
    server = Server("principal")

    @server.tool
    async def greet(ctx: Context) -> str:
        """Ask a name, then greet."""
        answer = await ctx.elicit(
            "Name?", {"type": "object", "properties": {"name": {"type": "string"}}}
        )
        return f"hello {(answer.content or {}).get('name')}"

    return server


async def _replay(first: Any, second: Any) -> Any:
    """Start the call as ``first``, retry with its requestState as ``second``."""
    server = _server()
    async with server.running():
        started = await server.handle_request(
            _request(1, {"name": "greet", "arguments": {}}), _Outbound(), auth=first
        )
        assert started["resultType"] == "input_required"
        (key,) = started["inputRequests"]
        retry = {
            "name": "greet",
            "arguments": {},
            "requestState": started["requestState"],
            "inputResponses": {key: {"action": "accept", "content": {"name": "Ada"}}},
        }
        return await server.handle_request(_request(2, retry), _Outbound(), auth=second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (_token(None, "app-a", "https://idp"), _token(None, "app-b", "https://idp")),
        (_token("alice", "app", "https://idp-a"), _token("alice", "app", "https://idp-b")),
        (_token("alice", "app-a", "https://idp"), _token("alice", "app-b", "https://idp")),
        (_token(None, None, None), None),  # authenticated (no claims) → anonymous
        ({"client_id": "app-a"}, {"client_id": "app-b"}),  # mapping-shaped auth
    ],
    ids=["no-subject-other-client", "other-issuer", "other-client", "to-anonymous", "mapping"],
)
async def test_state_sealed_for_one_caller_is_refused_for_another(first: Any, second: Any) -> None:
    with pytest.raises(InvalidParams, match="bound to another request"):
        await _replay(first, second)


async def test_the_same_caller_completes_the_round_trip() -> None:
    token = _token(None, "app-a", "https://idp")
    same = _token(None, "app-a", "https://idp")  # a refreshed token of the same client
    result = await _replay(token, same)
    assert result["content"][0]["text"] == "hello Ada"


def test_principal_binding_reads_claim_names_too() -> None:
    assert principal_binding(None) is None
    assert principal_binding({"iss": "i", "sub": "s", "azp": "c"}) == principal_binding(
        _token("s", "c", "i")
    )
    assert principal_binding(_token(None, None, None)) is not None
