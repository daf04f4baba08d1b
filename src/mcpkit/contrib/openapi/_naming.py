"""Tool names from operations: valid everywhere a model may see them, and predictable.

MCP allows 1-128 characters of ``[A-Za-z0-9_.-]``; the major LLM providers accept tool names of
at most 64 characters matching ``^[a-zA-Z0-9_-]+$`` (no dots). Names here satisfy both: every
other character becomes ``_``, and a name over 64 characters is cut and given a short hash of
the whole, so two long names that share a prefix stay distinct. Collisions (two operations whose
names clean up to the same string) are resolved in document order: the first keeps the name,
the next get ``_2``, ``_3`` ...
"""

from __future__ import annotations

import hashlib
import re
from typing import Final

__all__ = ["MAX_NAME_LENGTH", "NameAllocator", "clean_name", "operation_base_name"]

MAX_NAME_LENGTH: Final = 64
_INVALID: Final = re.compile(r"[^A-Za-z0-9_-]+")
_HASH_LENGTH: Final = 8


def clean_name(raw: str, limit: int = MAX_NAME_LENGTH) -> str:
    name = _INVALID.sub("_", raw).strip("_") or "operation"
    if len(name) <= limit:
        return name
    digest = hashlib.sha1(raw.encode(), usedforsecurity=False).hexdigest()[:_HASH_LENGTH]
    return f"{name[: limit - _HASH_LENGTH - 1].rstrip('_')}_{digest}"


def operation_base_name(operation_id: str | None, method: str, path: str) -> str:
    """From ``operationId`` when there is one, else from the method and the path."""
    if operation_id:
        return clean_name(operation_id)
    return clean_name(f"{method.lower()} {path.replace('{', '').replace('}', '')}")


class NameAllocator:
    """Hands out unique names in call order (``x``, ``x_2``, ``x_3`` ...)."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken: set[str] = set(taken or ())

    def allocate(self, base: str) -> str:
        name, n = base, 2
        while name in self.taken:
            suffix = f"_{n}"
            name = base[: MAX_NAME_LENGTH - len(suffix)] + suffix
            n += 1
        self.taken.add(name)
        return name
