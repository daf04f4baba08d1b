"""Protocol revisions mcpkit speaks, and which era each belongs to.

The two eras differ in how a conversation starts (``initialize`` handshake versus per-request
``_meta``), so almost every other layer asks "is this version modern?". Keeping the answer in one
table avoids string comparisons scattered through the code.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = [
    "ALL_VERSIONS",
    "DEFAULT_HTTP_LEGACY_VERSION",
    "LATEST_LEGACY_VERSION",
    "LATEST_MODERN_VERSION",
    "LATEST_VERSION",
    "LEGACY_VERSIONS",
    "MODERN_VERSIONS",
    "Era",
    "era_of",
    "is_legacy",
    "is_modern",
]

LEGACY_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Handshake-era revisions, oldest first."""

MODERN_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
"""Per-request-metadata revisions, oldest first."""

ALL_VERSIONS: Final[tuple[str, ...]] = LEGACY_VERSIONS + MODERN_VERSIONS

LATEST_LEGACY_VERSION: Final = "2025-11-25"
LATEST_MODERN_VERSION: Final = "2026-07-28"
LATEST_VERSION: Final = LATEST_MODERN_VERSION

DEFAULT_HTTP_LEGACY_VERSION: Final = "2025-03-26"
"""What a Streamable HTTP server assumes when a legacy request carries no version header."""

Era = Literal["legacy", "modern"]


def era_of(version: str) -> Era | None:
    """Return the era of a known revision, or ``None`` for a version we do not know."""
    if version in MODERN_VERSIONS:
        return "modern"
    if version in LEGACY_VERSIONS:
        return "legacy"
    return None


def is_modern(version: str) -> bool:
    return version in MODERN_VERSIONS


def is_legacy(version: str) -> bool:
    return version in LEGACY_VERSIONS
