"""Sealed ``requestState`` for multi-round-trip requests (MRTR, 2026-07-28).

A server that answers with an ``InputRequiredResult`` may hand the client an opaque
``requestState`` string that the client must echo, unchanged, on its retry. That string is
attacker-controlled input, so the spec says it must be integrity-protected when it influences
behaviour, and should carry an expiry and a digest of the originating request so it cannot be
replayed onto a different request. :class:`RequestStateSealer` does exactly that:

* **Format** (url-safe base64, no padding) of ``version | key id | expiry | binding | payload |
  tag``, where ``tag`` = HMAC-SHA256(key, everything before it). ``payload`` is compact JSON.
* **Not confidential.** The payload is only *signed*, not encrypted: anyone holding the token can
  decode and read it (the spec does not require state to be secret). Never put secrets in it.
* **Keys and rotation.** The first key of the ring signs; every key verifies; each token names
  its key by an 8-byte id derived from the key. Share keys across workers with
  ``MCPKIT_STATE_KEYS`` (see :func:`keys_from_env`); with none configured, a random key is made
  once per process (fine for one process; tokens do not survive a restart).
* **Binding.** ``bind`` is the originating request (see :func:`request_binding`: method, name,
  arguments, optional principal); a token presented with a different binding is refused. The
  principal is the *whole* verified identity — issuer, subject and client id
  (:func:`principal_binding`) — so two tokens without a subject (client-credentials tokens, say)
  cannot replay each other's state, nor can the same subject name from another issuer.
* **Failures** raise :class:`InvalidRequestState` (-32602) whose message gives a reason that is
  safe to show: ``malformed``, ``tampered``, ``expired``, ``unknown key``,
  ``bound to another request``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from mcpkit.protocol._errors import InvalidParams, UsageError
from mcpkit.protocol._principal import principal_of

__all__ = [
    "DEFAULT_STATE_TTL",
    "MAX_STATE_TOKEN_LENGTH",
    "MIN_KEY_BYTES",
    "STATE_KEYS_ENV",
    "InvalidRequestState",
    "KeyRing",
    "RequestStateSealer",
    "keys_from_env",
    "principal_binding",
    "process_key_ring",
    "request_binding",
]

DEFAULT_STATE_TTL: Final = 900.0
"""Seconds a sealed state stays valid: long enough for a person to answer an elicitation."""
MAX_STATE_TOKEN_LENGTH: Final = 64 * 1024
"""Tokens longer than this are neither issued nor decoded."""
MIN_KEY_BYTES: Final = 16
STATE_KEYS_ENV: Final = "MCPKIT_STATE_KEYS"

_VERSION: Final = 1
_KEY_ID_BYTES: Final = 8
_BIND_BYTES: Final = 16
_TAG_BYTES: Final = 32
_HEADER: Final = struct.Struct(f">B{_KEY_ID_BYTES}sQ{_BIND_BYTES}s")
_MIN_RAW: Final = _HEADER.size + _TAG_BYTES


class InvalidRequestState(InvalidParams):
    """A ``requestState`` failed verification (-32602). ``reason`` is safe to show."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"Invalid requestState: {reason}", {"reason": reason})
        self.reason = reason


def _key_id(key: bytes) -> bytes:
    return hashlib.sha256(b"mcpkit-state-key-id\x00" + key).digest()[:_KEY_ID_BYTES]


class KeyRing:
    """HMAC keys: the first signs, all verify. Each key must be at least 16 bytes."""

    __slots__ = ("_by_id", "signing_id", "signing_key")

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise UsageError("a KeyRing needs at least one key")
        for key in keys:
            if not isinstance(key, bytes) or len(key) < MIN_KEY_BYTES:
                raise UsageError(f"requestState keys must be bytes of at least {MIN_KEY_BYTES}")
        self._by_id = {_key_id(k): k for k in reversed(keys)}  # first key wins an id clash
        self.signing_key = keys[0]
        self.signing_id = _key_id(keys[0])

    def __len__(self) -> int:
        return len(self._by_id)

    def lookup(self, key_id: bytes) -> bytes | None:
        """The verification key with ``key_id``, if this ring has it."""
        return self._by_id.get(key_id)


def keys_from_env(
    name: str = STATE_KEYS_ENV, environ: Mapping[str, str] | None = None
) -> KeyRing | None:
    """A :class:`KeyRing` from a comma-separated list of base64 keys in ``environ[name]``.

    The first key signs (put the new key first when rotating, keep the old one while its tokens
    may still be in flight). Returns ``None`` when the variable is unset or empty. Generate a key
    with ``openssl rand -base64 32``.
    """
    value = (os.environ if environ is None else environ).get(name, "").strip()
    if not value:
        return None
    keys: list[bytes] = []
    for index, item in enumerate(p.strip() for p in value.split(",")):
        if not item:
            continue
        try:
            std = item.replace("-", "+").replace("_", "/")
            keys.append(base64.b64decode(std + "=" * (-len(std) % 4), validate=True))
        except (binascii.Error, ValueError):
            raise UsageError(f"{name}: key #{index + 1} is not valid base64") from None
    if not keys:
        return None
    return KeyRing(keys)


_process_ring: KeyRing | None = None
_process_ring_lock = threading.Lock()


def process_key_ring() -> KeyRing:
    """The keys from ``MCPKIT_STATE_KEYS``, else one random key made once for this process."""
    global _process_ring
    with _process_ring_lock:  # two racing threads must not end up with different keys
        if _process_ring is None:
            _process_ring = keys_from_env() or KeyRing([secrets.token_bytes(32)])
        return _process_ring


def principal_binding(auth: Any) -> str | None:
    """Who made a request, for :func:`request_binding`: issuer, subject and client id together.

    ``auth`` is what the server saw as the caller (``ctx.auth``: a verified ``AccessToken`` or
    a mapping with the same keys; ``sub``/``iss``/``azp`` claim names are accepted too).
    ``None`` without authentication; an authenticated caller with none of the three still binds
    to "authenticated", never to the anonymous binding.
    """
    return principal_of(auth)  # the one rule (also what binds legacy HTTP sessions)


def request_binding(
    method: str, name: str | None, arguments: Any = None, principal: str | None = None
) -> bytes:
    """A digest of the originating request, to pass as ``bind``.

    ``name`` is the tool/prompt name or resource URI; ``arguments`` the original arguments
    (without ``inputResponses``/``requestState``); ``principal`` the authenticated caller, if
    any (:func:`principal_binding`). Object keys are sorted, so equal requests give equal
    bindings.
    """
    canonical = msgspec.json.encode([method, name, arguments, principal], order="sorted")
    return hashlib.sha256(canonical).digest()


def _bind_digest(bind: bytes | str) -> bytes:
    data = bind.encode() if isinstance(bind, str) else bind
    return hashlib.sha256(b"mcpkit-state-bind\x00" + data).digest()[:_BIND_BYTES]


class RequestStateSealer:
    """Seals and unseals ``requestState`` tokens. See the module docstring for the format.

    ``keys`` may be raw keys (first signs), a :class:`KeyRing`, or ``None`` for
    :func:`process_key_ring` (``MCPKIT_STATE_KEYS`` or a random per-process key).
    """

    __slots__ = ("_ring", "ttl_seconds")

    def __init__(
        self,
        keys: Sequence[bytes] | KeyRing | None = None,
        *,
        ttl_seconds: float = DEFAULT_STATE_TTL,
    ) -> None:
        if ttl_seconds <= 0:
            raise UsageError(f"ttl_seconds must be positive, got {ttl_seconds}")
        if keys is None:
            self._ring = process_key_ring()
        elif isinstance(keys, KeyRing):
            self._ring = keys
        else:
            self._ring = KeyRing(list(keys))
        self.ttl_seconds = ttl_seconds

    def seal(
        self,
        payload: Any,
        *,
        bind: bytes | str,
        ttl_seconds: float | None = None,
        now: float | None = None,
    ) -> str:
        """A token carrying ``payload`` (any JSON-encodable value), bound to ``bind``."""
        issued = time.time() if now is None else now
        expiry = int(issued + (self.ttl_seconds if ttl_seconds is None else ttl_seconds))
        try:
            body = msgspec.json.encode(payload)
        except TypeError as exc:
            raise UsageError(f"requestState payload is not JSON-encodable: {exc}") from None
        head = _HEADER.pack(_VERSION, self._ring.signing_id, max(expiry, 0), _bind_digest(bind))
        signed = head + body
        tag = hmac.new(self._ring.signing_key, signed, hashlib.sha256).digest()
        token = base64.urlsafe_b64encode(signed + tag).rstrip(b"=").decode("ascii")
        if len(token) > MAX_STATE_TOKEN_LENGTH:
            raise UsageError(
                f"requestState would be {len(token)} characters, over the "
                f"{MAX_STATE_TOKEN_LENGTH} limit; keep large data server-side and seal a handle"
            )
        return token

    def unseal(self, token: str, *, bind: bytes | str, now: float | None = None) -> Any:
        """The payload of ``token``, after checking integrity, key, expiry and binding."""
        if not isinstance(token, str) or not token or len(token) > MAX_STATE_TOKEN_LENGTH:
            raise InvalidRequestState("malformed")
        try:
            raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        except (binascii.Error, ValueError):
            raise InvalidRequestState("malformed") from None
        if len(raw) < _MIN_RAW:
            raise InvalidRequestState("malformed")
        version, key_id, expiry, bound = _HEADER.unpack_from(raw)
        if version != _VERSION:
            raise InvalidRequestState("malformed")
        key = self._ring.lookup(key_id)
        if key is None:
            raise InvalidRequestState("unknown key")
        signed, tag = raw[:-_TAG_BYTES], raw[-_TAG_BYTES:]
        if not hmac.compare_digest(hmac.new(key, signed, hashlib.sha256).digest(), tag):
            raise InvalidRequestState("tampered")
        if (time.time() if now is None else now) >= expiry:
            raise InvalidRequestState("expired")
        if not hmac.compare_digest(bound, _bind_digest(bind)):
            raise InvalidRequestState("bound to another request")
        try:
            return msgspec.json.decode(signed[_HEADER.size :])
        except msgspec.DecodeError:  # pragma: no cover - only if a key leaked and was misused
            raise InvalidRequestState("malformed") from None
