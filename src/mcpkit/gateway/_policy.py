"""Consent: which backends' tools, resources and prompts one client may see and use.

A policy is a list of allow patterns and a list of deny patterns. Each pattern is a glob
(:func:`fnmatch.fnmatchcase`: ``*``, ``?``, ``[...]``) over ``<backend>/<item>``, where the item
is a tool or prompt name (the backend's own name, not the namespaced one) or a resource URI /
URI template. A pattern may start with ``tools:``, ``prompts:`` or ``resources:`` to apply to one
kind only::

    {"allow": ["files/*", "shop/search_*", "prompts:docs/*"], "deny": ["files/delete_*"]}

Deny wins over allow; nothing matches an empty allow list, so a client the configuration does not
name sees nothing (consent is given, never assumed). The same decision is made for listings and
for every call (``tools/call``, ``resources/read``, ``resources/subscribe``, ``prompts/get``,
``completion/complete``, ``subscriptions/listen``): a client cannot call what it cannot see, even
by guessing a name.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from mcpkit.protocol import UsageError

__all__ = ["ALLOW_ALL", "DENY_ALL", "Kind", "Policy"]

Kind = Literal["tools", "prompts", "resources"]
_KINDS: Final = ("tools", "prompts", "resources")


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str | None
    glob: str

    @classmethod
    def parse(cls, text: str) -> _Pattern:
        if not isinstance(text, str) or not text:
            raise UsageError(f"a policy pattern must be a non-empty string, not {text!r}")
        head, sep, rest = text.partition(":")
        if sep and head in _KINDS:
            if not rest:
                raise UsageError(f"policy pattern {text!r} has nothing after {head}:")
            return cls(head, rest)
        return cls(None, text)

    def matches(self, kind: str, subject: str) -> bool:
        return (self.kind is None or self.kind == kind) and fnmatch.fnmatchcase(subject, self.glob)


class Policy:
    """Allow and deny patterns for one client; see the module docstring."""

    __slots__ = ("_allow", "_deny", "_memo")

    def __init__(self, allow: Iterable[str] = (), deny: Iterable[str] = ()) -> None:
        self._allow = tuple(_Pattern.parse(p) for p in allow)
        self._deny = tuple(_Pattern.parse(p) for p in deny)
        self._memo: dict[tuple[str, str, str], bool] = {}

    @classmethod
    def from_config(cls, raw: Mapping[str, Any]) -> Policy:
        """``{"allow": [...], "deny": [...]}`` (a single string is a one-pattern list)."""
        unknown = set(raw) - {"allow", "deny"}
        if unknown:
            raise UsageError(f"unknown policy keys {sorted(unknown)}; use allow and deny")

        def patterns(key: str) -> list[str]:
            value = raw.get(key, [])
            if isinstance(value, str):
                return [value]
            if not isinstance(value, list):
                raise UsageError(f"policy {key} must be a list of patterns")
            return value

        return cls(patterns("allow"), patterns("deny"))

    def allows(self, kind: Kind, backend: str, item: str) -> bool:
        """May this client see and use ``item`` (a name or URI) of ``backend``?"""
        key = (kind, backend, item)
        known = self._memo.get(key)
        if known is not None:
            return known
        subject = f"{backend}/{item}"
        verdict = any(p.matches(kind, subject) for p in self._allow) and not any(
            p.matches(kind, subject) for p in self._deny
        )
        if len(self._memo) < 10_000:  # bounded: URIs of templates are unbounded in number
            self._memo[key] = verdict
        return verdict


ALLOW_ALL: Final = Policy(["*"])
"""Everything (a local gateway without authentication, e.g. over stdio)."""
DENY_ALL: Final = Policy()
"""Nothing (an authenticated client the configuration does not name)."""
