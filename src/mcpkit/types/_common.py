"""Small objects shared by many messages: icons, annotations, implementation info, and the
generic params/result shapes that carry nothing but ``_meta`` (and a cursor, for lists)."""

from __future__ import annotations

from typing import Literal

import msgspec

from mcpkit.types._base import Cursor, Meta, Role, WireModel

__all__ = [
    "Annotations",
    "EmptyResult",
    "Icon",
    "Implementation",
    "NotificationParams",
    "PaginatedRequestParams",
    "RequestParams",
]


class Icon(WireModel, kw_only=True):
    """An icon for an implementation, tool, prompt or resource (2025-11-25+).

    ``src`` is an ``https:`` or ``data:`` URI; consumers must treat it as untrusted.
    """

    src: str
    mime_type: str | None = None
    sizes: list[str] | None = None
    theme: Literal["light", "dark"] | None = None


class Annotations(WireModel, kw_only=True):
    """Hints about how content, resources and templates are meant to be used or shown."""

    audience: list[Role] | None = None
    priority: float | None = None
    """0 (least important) to 1 (most important)."""
    last_modified: str | None = None
    """ISO 8601 timestamp (2025-06-18+)."""


class Implementation(WireModel, kw_only=True):
    """``clientInfo`` / ``serverInfo``: self-reported, for display and logs only."""

    name: str
    version: str
    title: str | None = None
    description: str | None = None
    icons: list[Icon] | None = None
    website_url: str | None = None


class RequestParams(WireModel, kw_only=True):
    """Params of a request that takes nothing but ``_meta`` (``ping``, ``server/discover``,
    ``roots/list``). In 2026-07-28 ``_meta`` is required on every request; that rule is enforced
    by the protocol layer, not here, so one model serves every revision."""

    meta: Meta | None = msgspec.field(default=None, name="_meta")


class PaginatedRequestParams(WireModel, kw_only=True):
    """Params of the ``*/list`` requests. An empty-string cursor is a valid cursor (2026)."""

    cursor: Cursor | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class NotificationParams(WireModel, kw_only=True):
    """Params of a notification that carries only ``_meta`` (the ``list_changed`` family,
    ``notifications/initialized``); in 2026 the ``_meta`` holds the ``subscriptionId``."""

    meta: Meta | None = msgspec.field(default=None, name="_meta")


class EmptyResult(WireModel, kw_only=True):
    """A result with no payload (``ping``, ``resources/subscribe``, ``logging/setLevel``, and the
    Tasks extension's ``tasks/update`` / ``tasks/cancel``). ``result_type`` is set in 2026."""

    result_type: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")
