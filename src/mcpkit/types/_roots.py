"""Roots: ``roots/list`` (a legacy server→client request; a deprecated MRTR input request in
2026-07-28)."""

from __future__ import annotations

import msgspec

from mcpkit.types._base import InputRequestModel, Meta, UnsetType, WireModel
from mcpkit.types._common import RequestParams

__all__ = ["ListRootsRequest", "ListRootsResult", "Root"]


class Root(WireModel, kw_only=True):
    uri: str
    """A ``file://`` URI."""
    name: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListRootsResult(WireModel, kw_only=True):
    roots: list[Root]
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class ListRootsRequest(InputRequestModel, tag="roots/list", kw_only=True):
    params: RequestParams | UnsetType = msgspec.UNSET
