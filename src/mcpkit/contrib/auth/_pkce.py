"""PKCE (RFC 7636, S256 only) and the ``state`` value: the per-authorization secrets."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Final

__all__ = ["new_state", "new_verifier", "s256_challenge"]

VERIFIER_BYTES: Final = 48
"""48 random bytes -> a 64-character verifier (RFC 7636 allows 43..128)."""
STATE_BYTES: Final = 32


def new_verifier() -> str:
    """A fresh high-entropy code verifier (unreserved characters only)."""
    return secrets.token_urlsafe(VERIFIER_BYTES)


def s256_challenge(verifier: str) -> str:
    """``BASE64URL(SHA256(verifier))`` without padding."""
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def new_state() -> str:
    """An unguessable ``state`` value binding the callback to this authorization request."""
    return secrets.token_urlsafe(STATE_BYTES)
