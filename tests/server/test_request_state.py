"""Sealed requestState: integrity, expiry, rotation, binding, bounded size, env keys."""

import base64
import subprocess
import sys

import pytest

from mcpkit.protocol._errors import INVALID_PARAMS, InvalidParams, UsageError
from mcpkit.server._request_state import (
    MAX_STATE_TOKEN_LENGTH,
    InvalidRequestState,
    KeyRing,
    RequestStateSealer,
    keys_from_env,
    request_binding,
)

KEY_A = b"A" * 32
KEY_B = b"B" * 32
NOW = 1_700_000_000.0
BIND = request_binding("tools/call", "book", {"city": "Paris", "n": 2})


def reason_of(sealer: RequestStateSealer, token: str, **kw: object) -> str:
    kw.setdefault("bind", BIND)
    kw.setdefault("now", NOW)
    with pytest.raises(InvalidRequestState) as info:
        sealer.unseal(token, **kw)  # type: ignore[arg-type]
    assert info.value.code == INVALID_PARAMS
    assert isinstance(info.value, InvalidParams)
    assert info.value.message == f"Invalid requestState: {info.value.reason}"
    return info.value.reason


def test_roundtrip_and_url_safe() -> None:
    sealer = RequestStateSealer([KEY_A])
    payload = {"answers": {"q1": {"action": "accept", "content": {"x": 1}}}, "step": 2}
    token = sealer.seal(payload, bind=BIND, now=NOW)
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert sealer.unseal(token, bind=BIND, now=NOW + 1) == payload


def test_str_bind_works_like_bytes() -> None:
    sealer = RequestStateSealer([KEY_A])
    token = sealer.seal([1, 2], bind="tools/call:x", now=NOW)
    assert sealer.unseal(token, bind="tools/call:x", now=NOW) == [1, 2]
    assert reason_of(sealer, token, bind="tools/call:y") == "bound to another request"


def test_every_flipped_byte_is_detected() -> None:
    sealer = RequestStateSealer([KEY_A])
    token = sealer.seal({"a": 1}, bind=BIND, now=NOW)
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    reasons = set()
    for i in range(len(raw)):
        bad = bytearray(raw)
        bad[i] ^= 0x01
        forged = base64.urlsafe_b64encode(bytes(bad)).rstrip(b"=").decode()
        reasons.add(reason_of(sealer, forged))
    # the version byte reads as malformed, the key id as unknown, everything else as tampered
    assert reasons == {"malformed", "unknown key", "tampered"}


def test_expiry() -> None:
    sealer = RequestStateSealer([KEY_A], ttl_seconds=60)
    token = sealer.seal("s", bind=BIND, now=NOW)
    assert sealer.unseal(token, bind=BIND, now=NOW + 59) == "s"
    assert reason_of(sealer, token, now=NOW + 60) == "expired"
    short = sealer.seal("s", bind=BIND, now=NOW, ttl_seconds=5)
    assert reason_of(sealer, short, now=NOW + 6) == "expired"


def test_binding_to_the_originating_request() -> None:
    sealer = RequestStateSealer([KEY_A])
    token = sealer.seal("s", bind=BIND, now=NOW)
    other_args = request_binding("tools/call", "book", {"city": "Rome", "n": 2})
    other_tool = request_binding("tools/call", "cancel", {"city": "Paris", "n": 2})
    other_user = request_binding("tools/call", "book", {"city": "Paris", "n": 2}, "mallory")
    for bind in (other_args, other_tool, other_user):
        assert reason_of(sealer, token, bind=bind) == "bound to another request"


def test_request_binding_ignores_key_order() -> None:
    assert request_binding("m", "n", {"a": 1, "b": {"c": 1, "d": 2}}) == request_binding(
        "m", "n", {"b": {"d": 2, "c": 1}, "a": 1}
    )


def test_key_rotation() -> None:
    old = RequestStateSealer([KEY_A])
    rotated = RequestStateSealer([KEY_B, KEY_A])
    new_only = RequestStateSealer([KEY_B])
    old_token = old.seal("old", bind=BIND, now=NOW)
    new_token = rotated.seal("new", bind=BIND, now=NOW)
    assert rotated.unseal(old_token, bind=BIND, now=NOW) == "old"
    assert new_only.unseal(new_token, bind=BIND, now=NOW) == "new"
    assert reason_of(new_only, old_token) == "unknown key"
    assert reason_of(old, new_token) == "unknown key"


def test_wrong_key_with_same_id_is_tampered() -> None:
    """A forged token that names a real key id but was signed with another key."""
    sealer = RequestStateSealer([KEY_A])
    token = sealer.seal("x", bind=BIND, now=NOW)
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[-32:] = bytes(32)
    forged = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    assert reason_of(sealer, forged) == "tampered"


@pytest.mark.parametrize("token", ["", "!!!", "abc", "A" * 10, "x" * (MAX_STATE_TOKEN_LENGTH + 1)])
def test_garbage_is_malformed(token: str) -> None:
    assert reason_of(RequestStateSealer([KEY_A]), token) == "malformed"


def test_non_string_token_is_malformed() -> None:
    assert reason_of(RequestStateSealer([KEY_A]), 123) == "malformed"  # type: ignore[arg-type]


def test_oversized_payload_is_refused_when_sealing() -> None:
    sealer = RequestStateSealer([KEY_A])
    with pytest.raises(UsageError, match="limit"):
        sealer.seal("x" * MAX_STATE_TOKEN_LENGTH, bind=BIND)
    with pytest.raises(UsageError, match="JSON"):
        sealer.seal(object(), bind=BIND)


def test_keys_must_be_long_enough() -> None:
    with pytest.raises(UsageError):
        KeyRing([b"short"])
    with pytest.raises(UsageError):
        KeyRing([])
    with pytest.raises(UsageError):
        RequestStateSealer([KEY_A], ttl_seconds=0)


def test_keys_from_env() -> None:
    a = base64.b64encode(KEY_A).decode()
    b = base64.urlsafe_b64encode(KEY_B).decode().rstrip("=")
    ring = keys_from_env("K", {"K": f" {b} , {a} "})
    assert ring is not None and len(ring) == 2
    signed_by_b = RequestStateSealer(ring).seal(1, bind=BIND, now=NOW)
    assert RequestStateSealer([KEY_B]).unseal(signed_by_b, bind=BIND, now=NOW) == 1
    assert keys_from_env("K", {}) is None
    assert keys_from_env("K", {"K": "  "}) is None
    with pytest.raises(UsageError, match="key #2"):
        keys_from_env("K", {"K": f"{a},not base64!"})


def test_workers_sharing_env_keys_accept_each_others_tokens() -> None:
    key = base64.b64encode(KEY_A).decode()
    code = (
        "from mcpkit.server._request_state import RequestStateSealer\n"
        "print(RequestStateSealer().seal({'w': 1}, bind='b', now=1e9))"
    )
    env = {"MCPKIT_STATE_KEYS": key, "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert RequestStateSealer([KEY_A]).unseal(out.stdout.strip(), bind="b", now=1e9) == {"w": 1}


def test_default_sealer_uses_one_key_per_process() -> None:
    token = RequestStateSealer().seal("p", bind=BIND, now=NOW)
    assert RequestStateSealer().unseal(token, bind=BIND, now=NOW) == "p"
