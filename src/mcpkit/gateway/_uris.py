"""Resource URIs as the gateway judges them: one spelling per resource, before any policy match.

A policy like ``resources:kb/kb://public/*`` is a glob over the URI *text*. A backend that
resolves paths sees ``kb://public/../private/x`` (or ``%2e%2e``, ``./..``) as
``kb://private/x``: matching the raw text would let the client through to what the policy denies.
So before matching, the gateway decodes the percent-encodings of unreserved characters (RFC 3986
section 6.2.2.2: ``%70ublic`` is ``public``) and forwards that form, never the original; and it
refuses a URI with a ``.`` or ``..`` segment anywhere after its scheme, however it is spelt
(``%2e%2e``, ``./..``, ``..%2F``, ``%5C..``). Removing them instead (RFC 3986 section 5.2.4)
is not enough: ``kb://public/../x`` normalises to ``kb://public/x`` under the RFC (``public``
is the authority) while a backend that resolves the text after ``kb://`` as a path reaches
``x``. Legitimate resource URIs do not need dot segments; refusing them costs nothing.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import unquote

__all__ = ["UnsafeUri", "normalize_uri"]

_UNRESERVED: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PERCENT: Final = re.compile(r"%([0-9A-Fa-f]{2})")
_SPLIT: Final = re.compile(r"^(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$", re.S)
_SEPARATORS: Final = re.compile(r"[/\\]")
_DECODE_ROUNDS: Final = 4


class UnsafeUri(ValueError):
    """A URI whose path hides a dot segment behind an encoded separator."""


def _decode_unreserved(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else f"%{match.group(1).upper()}"

    return _PERCENT.sub(one, text)


def normalize_uri(uri: str) -> str:
    """``uri`` in normal form (see the module docstring); :class:`UnsafeUri` if it has a dot
    segment anywhere in its authority or path, however it is encoded."""
    normal = _decode_unreserved(uri)
    match = _SPLIT.match(normal)
    if match is None:  # pragma: no cover - the pattern matches every string
        raise UnsafeUri(uri)
    _, authority, path, _, _ = match.groups()
    located = f"{authority or ''}/{path}"
    for _ in range(_DECODE_ROUNDS):  # a backend may decode more than once (%252e%252e)
        if any(part in (".", "..") for part in _SEPARATORS.split(located)):
            raise UnsafeUri(uri)
        decoded = unquote(located)
        if decoded == located:
            return normal
        located = decoded
    raise UnsafeUri(uri)  # still encoded after that many rounds: no honest URI looks like it
