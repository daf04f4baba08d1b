"""Who a request comes from, as one comparable string: the rule every binding uses.

A sealed ``requestState`` and a legacy HTTP session are both bound to the caller that created
them, so another caller cannot replay the one or use (or end) the other. The caller is the whole
verified identity — issuer, subject and client id together — so two tokens without a subject
(client-credentials tokens) are not the same caller, nor is the same subject name from another
issuer. Pure: ``auth`` is whatever the server saw as the caller (a verified ``AccessToken``, or a
mapping with the same keys; ``iss``/``sub``/``azp`` claim names are accepted too).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["principal_of"]


def principal_of(auth: Any) -> str | None:
    """``None`` without authentication; otherwise a string naming issuer, subject and client id
    (an authenticated caller with none of the three is still "authenticated", never anonymous)."""
    if auth is None:
        return None

    def read(*keys: str) -> str | None:
        for key in keys:
            value = auth.get(key) if isinstance(auth, Mapping) else getattr(auth, key, None)
            if isinstance(value, str):
                return value
        return None

    parts = [read("issuer", "iss"), read("subject", "sub"), read("client_id", "azp")]
    return json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
