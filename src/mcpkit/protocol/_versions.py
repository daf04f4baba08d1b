"""Protocol version negotiation for both eras.

The two eras disagree on what an unsupported version means, and mixing them up breaks peers:

* **legacy** (``initialize``): the server never errors on an unknown version; it counter-offers a
  version it supports (its latest) and the *client* decides whether to carry on.
* **modern** (per-request ``_meta``): the server answers an unsupported version with
  ``UnsupportedProtocolVersion`` (-32022) listing what it supports, and the client retries.

Revisions are compared as ordered values (:func:`~mcpkit.types._versions.revision_rank`), never as
strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from mcpkit.protocol._errors import RemoteProtocolError, UnsupportedProtocolVersion, UsageError
from mcpkit.types._versions import (
    MODERN_VERSIONS,
    Era,
    era_of,
    is_legacy,
    is_modern,
    newest,
    release_key,
)

__all__ = [
    "accept_legacy_offer",
    "check_modern_version",
    "choose_client_version",
    "negotiate_legacy",
    "unsupported_version_error",
]


def unsupported_version_error(
    requested: object, supported: Sequence[str]
) -> UnsupportedProtocolVersion:
    """The -32022 error with ``data={"supported": [...], "requested": ...}``, newest first."""
    listed = sorted(supported, key=release_key, reverse=True)
    shown = requested if isinstance(requested, str) else repr(requested)
    return UnsupportedProtocolVersion(
        f"Unsupported protocol version {shown!r}; this server supports {', '.join(listed)}",
        {"supported": listed, "requested": requested if isinstance(requested, str) else shown},
    )


def negotiate_legacy(requested: str, supported: Sequence[str]) -> str:
    """The version a server answers ``initialize`` with.

    ``requested`` itself if it is a legacy version we support, otherwise our latest supported legacy
    version (a counter-offer, never an error, as the legacy spec requires). A server that supports
    no legacy version at all has nothing to offer: it raises
    :class:`~mcpkit.protocol._errors.UnsupportedProtocolVersion` naming the versions it does
    support,
    which the modern spec asks modern-only servers to do for ``initialize``.
    """
    legacy = [v for v in supported if is_legacy(v)]
    if requested in legacy:
        return requested
    if not legacy:
        raise unsupported_version_error(requested, supported)
    return newest(legacy)


def check_modern_version(requested: object, supported: Sequence[str]) -> None:
    """Accept a modern request's version or raise -32022 (``UnsupportedProtocolVersion``).

    ``supported`` is everything the server speaks (the spec's own example lists legacy versions
    too, so a dual-era client learns it may fall back). A legacy version is not acceptable here:
    those need an ``initialize`` handshake, not per-request metadata.
    """
    if requested in MODERN_VERSIONS and requested in supported:  # only strings are in there
        return
    raise unsupported_version_error(requested, supported)


def choose_client_version(
    server_supported: Iterable[str],
    client_supported: Iterable[str],
    *,
    era: Era | None = None,
) -> str | None:
    """The newest version both sides support (optionally only of one ``era``), or ``None``.

    A client uses it after ``server/discover`` or an ``UnsupportedProtocolVersion`` error; ``None``
    means there is no common version and the user must be told.
    """
    common = set(server_supported) & set(client_supported)
    if era is not None:
        common = {v for v in common if era_of(v) == era}
    return newest(common) if common else None


def accept_legacy_offer(offered: object, client_supported: Sequence[str]) -> str:
    """Check the version in a server's ``initialize`` result from the client's side.

    Returns it when the client supports it; otherwise raises
    :class:`~mcpkit.protocol._errors.RemoteProtocolError` (the spec says the client SHOULD then
    disconnect), with a message naming both sides' versions.
    """
    if not client_supported:
        raise UsageError("a client must support at least one protocol version")
    if isinstance(offered, str) and offered in client_supported and not is_modern(offered):
        return offered
    ours = ", ".join(sorted(client_supported, key=release_key, reverse=True))
    raise RemoteProtocolError(
        f"the server offered protocol version {offered!r}, which this client does not support "
        f"(it supports {ours}); disconnecting"
    )
