"""Route maps: which operations become tools, resources, resource templates, or nothing.

A list of :class:`RouteMap` is tried in order for each operation; the first that matches
decides. An operation no map matches becomes a tool. A ``resource`` map only matches operations
without path parameters and a ``resource_template`` map only those with some, so
``[RouteMap(methods=["GET"], kind="resource_template"), RouteMap(methods=["GET"],
kind="resource")]`` turns every GET into the one that fits. Operations with a required query,
header, cookie or body argument cannot be read from a URI and are never resources.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from mcpkit.contrib.openapi._operations import Operation
from mcpkit.protocol import UsageError

__all__ = ["GET_AS_RESOURCES", "Kind", "RouteMap", "choose_kind", "readable"]

Kind = Literal["tool", "resource", "resource_template", "exclude"]
_KINDS: Final = ("tool", "resource", "resource_template", "exclude")


@dataclass(frozen=True, slots=True)
class RouteMap:
    """Match operations by method, path pattern (a regex searched in the path template) and
    tags (any of them); ``kind`` says what a match becomes."""

    kind: Kind = "tool"
    methods: Iterable[str] | None = None
    pattern: str | None = None
    tags: Iterable[str] | None = None

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise UsageError(f"RouteMap kind must be one of {', '.join(_KINDS)}, not {self.kind!r}")
        if self.methods is not None:
            object.__setattr__(self, "methods", frozenset(m.upper() for m in self.methods))
        if self.tags is not None:
            object.__setattr__(self, "tags", frozenset(self.tags))
        if self.pattern is not None:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise UsageError(
                    f"RouteMap pattern {self.pattern!r} is not a regex: {exc}"
                ) from None

    def matches(self, operation: Operation) -> bool:
        if self.methods is not None and operation.method not in self.methods:
            return False
        if self.pattern is not None and not re.search(self.pattern, operation.path):
            return False
        if self.tags is not None and not (set(self.tags) & set(operation.tags)):
            return False
        has_path_params = any(p.location == "path" for p in operation.parameters)
        if self.kind == "resource":
            return not has_path_params and readable(operation)
        if self.kind == "resource_template":
            return has_path_params and readable(operation)
        return True


def readable(operation: Operation) -> bool:
    """Only path parameters are required: the operation can be read from a URI alone."""
    if operation.body is not None and operation.body.required:
        return False
    return all(p.location == "path" or not p.required for p in operation.parameters)


GET_AS_RESOURCES: Final = (
    RouteMap(kind="resource_template", methods=["GET"]),
    RouteMap(kind="resource", methods=["GET"]),
)
"""Every GET that can be read from a URI becomes a resource (or template); the rest are tools."""


def choose_kind(operation: Operation, maps: Iterable[RouteMap]) -> Kind:
    for route in maps:
        if route.matches(operation):
            return route.kind
    return "tool"
