"""Protocol revisions mcpkit speaks, and which era each belongs to.

The two eras differ in how a conversation starts (``initialize`` handshake versus per-request
``_meta``), so almost every other layer asks "is this version modern?". Keeping the answer in one
table avoids string comparisons scattered through the code.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, get_args

__all__ = [
    "ALL_VERSIONS",
    "CLIENT_MODES",
    "CORE_TASKS_VERSION",
    "DEFAULT_HTTP_LEGACY_VERSION",
    "LATEST_LEGACY_VERSION",
    "LATEST_MODERN_VERSION",
    "LATEST_VERSION",
    "LEGACY_VERSIONS",
    "MODERN_VERSIONS",
    "ClientMode",
    "Era",
    "at_least",
    "era_of",
    "is_legacy",
    "is_modern",
    "newest",
    "release_key",
    "revision_rank",
]

LEGACY_VERSIONS: Final[tuple[str, ...]] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Handshake-era revisions, oldest first."""

MODERN_VERSIONS: Final[tuple[str, ...]] = ("2026-07-28",)
"""Per-request-metadata revisions, oldest first."""

ALL_VERSIONS: Final[tuple[str, ...]] = LEGACY_VERSIONS + MODERN_VERSIONS

LATEST_LEGACY_VERSION: Final = "2025-11-25"
LATEST_MODERN_VERSION: Final = "2026-07-28"
LATEST_VERSION: Final = LATEST_MODERN_VERSION

CORE_TASKS_VERSION: Final = "2025-11-25"
"""The one handshake-era revision with core tasks (``tasks/*``, ``execution.taskSupport``); the
2026-07-28 revision has tasks as an extension (``TASKS_EXTENSION_ID``) instead."""

DEFAULT_HTTP_LEGACY_VERSION: Final = "2025-03-26"
"""What a Streamable HTTP server assumes when a legacy request carries no version header."""

Era = Literal["legacy", "modern"]

ClientMode = Literal["auto", "legacy", "2026-07-28"]
"""How a client picks the era (``Client(mode=...)``, the command line's ``--era``): detect it,
the legacy handshake only, or 2026-07-28 only."""
CLIENT_MODES: Final[tuple[ClientMode, ...]] = get_args(ClientMode)


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


_RANK: Final = {version: rank for rank, version in enumerate(ALL_VERSIONS)}


def revision_rank(version: str) -> int:
    """The position of a known revision in release order (oldest is 0).

    Revisions are ordered values, not strings: comparing them as text happens to work for ISO
    dates, but says nothing about a name we do not know. An unknown revision raises ``ValueError``.
    """
    rank = _RANK.get(version)
    if rank is None:
        raise ValueError(f"unknown protocol revision {version!r}")
    return rank


def at_least(version: str, minimum: str) -> bool:
    """Whether ``version`` is ``minimum`` or a later revision (both must be known revisions)."""
    return revision_rank(version) >= revision_rank(minimum)


def release_key(version: str) -> tuple[int, str]:
    """Sort key in release order. A name we do not know (a revision newer than this code, as a
    peer or a test may offer) sorts after every known one; unknown names among themselves by
    their text, the only order they have."""
    rank = _RANK.get(version)
    return (rank, "") if rank is not None else (len(ALL_VERSIONS), version)


def newest(versions: Iterable[str]) -> str:
    """The latest of ``versions`` in release order (see :func:`release_key`); ``ValueError`` if
    there are none."""
    return max(versions, key=release_key)
