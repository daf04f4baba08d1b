"""The keyword options of :class:`~mcpkit.gateway.Gateway` and of ``gateway.run("http")``.

``Gateway.from_file(path, **overrides)`` and ``Gateway.from_settings(...)`` pass their
overrides on to ``Gateway(...)``; typed as ``Unpack[GatewayOptions]`` a misspelt one is a type
error, not a ``TypeError`` at start-up. The keys are ``Gateway.__init__``'s keyword parameters
(a test holds them equal).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypedDict

from mcpkit.server import HttpAppOptions

if TYPE_CHECKING:
    from mcpkit.contrib.auth import ProtectedResource
    from mcpkit.gateway._audit import AuditSink
    from mcpkit.gateway._config import ClientRule
    from mcpkit.gateway._policy import Policy
    from mcpkit.gateway._ratelimit import RateLimit

__all__ = ["GatewayOptions", "GatewayRunOptions"]


class GatewayOptions(TypedDict, total=False):
    """``Gateway(backends, **options)``'s keywords; see :class:`~mcpkit.gateway.Gateway`."""

    name: str
    clients: Mapping[str, ClientRule] | None
    anonymous: Policy | None
    anonymous_rate_limit: RateLimit | None
    tokens: Mapping[str, str] | None
    resource: ProtectedResource | None
    audit: AuditSink | str | os.PathLike[str] | None
    namespacing: str
    separator: str
    call_timeout: float
    backend_timeouts: Mapping[str, float] | None
    list_timeout: float
    host_options: Mapping[str, Any] | None


class GatewayRunOptions(HttpAppOptions, total=False):
    """What ``gateway.run("http", **options)`` takes: where it listens and the HTTP app's
    options (:class:`~mcpkit.server.HttpAppOptions`)."""

    host: str
    port: int
