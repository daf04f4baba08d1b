"""``WWW-Authenticate`` challenges (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).

The client reads ``resource_metadata``, ``scope`` and ``error`` from a Bearer challenge; the
resource server writes one. Parsing follows the RFC grammar (several challenges per header,
quoted strings with escapes, ``token68``) and never raises: a garbled header simply yields no
challenge, and discovery falls back to the well-known locations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Final

__all__ = [
    "BearerChallenge",
    "format_bearer_challenge",
    "parse_bearer_challenge",
    "parse_challenges",
]

_TCHARS: Final = frozenset(
    "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
)
MAX_CHALLENGE_LENGTH: Final = 8192
"""Longer headers are ignored rather than parsed."""


@dataclass(frozen=True, slots=True)
class BearerChallenge:
    """The parameters of one ``Bearer`` challenge (names lowercased)."""

    params: Mapping[str, str] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def error_description(self) -> str | None:
        return self.params.get("error_description")

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata")

    @property
    def scopes(self) -> tuple[str, ...]:
        """The challenged scopes, in order, without duplicates."""
        return tuple(dict.fromkeys(self.params.get("scope", "").split()))


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def skip_ws_commas(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t,":
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def token(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in _TCHARS:
            self.pos += 1
        return self.text[start : self.pos]

    def quoted(self) -> str | None:
        # at the opening quote
        self.pos += 1
        out: list[str] = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
            elif ch == '"':
                self.pos += 1
                return "".join(out)
            else:
                out.append(ch)
                self.pos += 1
        return None  # unterminated


def parse_challenges(values: Iterable[str]) -> list[tuple[str, dict[str, str]]]:
    """Every challenge in the given header values as ``(scheme lowercased, params)``."""
    result: list[tuple[str, dict[str, str]]] = []
    for value in values:
        if len(value) > MAX_CHALLENGE_LENGTH:
            continue
        sc = _Scanner(value)
        sc.skip_ws_commas()
        while sc.peek():
            scheme = sc.token()
            if not scheme:
                break  # garbage: stop parsing this header value
            params: dict[str, str] = {}
            result.append((scheme.lower(), params))
            while True:
                sc.skip_ws_commas()
                mark = sc.pos
                name = sc.token()
                if not name:
                    break
                sc.skip_ws()
                if sc.peek() != "=":
                    sc.pos = mark  # the next challenge's scheme
                    break
                sc.pos += 1
                if sc.peek() == "=" or sc.peek() in ("", ","):
                    # token68 (e.g. "Basic abc=="): consume the padding, keep no parameter
                    while sc.peek() == "=":
                        sc.pos += 1
                    continue
                sc.skip_ws()
                value_: str | None = sc.quoted() if sc.peek() == '"' else sc.token()
                if value_ is None:
                    return result
                params.setdefault(name.lower(), value_)
            sc.skip_ws_commas()
    return result


def parse_bearer_challenge(values: Iterable[str]) -> BearerChallenge | None:
    """The first ``Bearer`` challenge among ``values`` (the ``WWW-Authenticate`` headers)."""
    for scheme, params in parse_challenges(values):
        if scheme == "bearer":
            return BearerChallenge(params)
    return None


def _quote(value: str) -> str:
    cleaned = "".join(ch for ch in value if ch >= " " and ch != "\x7f")
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_bearer_challenge(params: Mapping[str, str | None]) -> str:
    """``Bearer k="v", ...`` with every value quoted; ``None`` values are left out."""
    items = [f"{k}={_quote(v)}" for k, v in params.items() if v is not None]
    return "Bearer " + ", ".join(items) if items else "Bearer"
