"""The keyword options of ``server.http_app()`` and ``server.run("http")``, as types.

They are ``TypedDict``\\ s so that ``**options: Unpack[...]`` lets a type checker catch a
misspelt option (``server.http_app(stateles=True)``) where ``**options: Any`` accepted anything
until run time. :class:`HttpAppOptions` has exactly the fields of
:class:`~mcpkit.transports.http.HttpOptions` (a test holds them equal, so they cannot drift);
the one difference is that ``event_store`` may also be a path (a SQLite file the app opens).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from mcpkit.protocol import HostPolicy
    from mcpkit.transports.http import EventStore, SessionStore, SharedState

__all__ = ["HttpAppOptions", "HttpRunOptions"]


class HttpAppOptions(TypedDict, total=False):
    """What ``server.http_app(**options)`` takes: the fields of ``HttpOptions`` (see there)."""

    path: str
    health_path: str | None
    stateless: bool
    json_response: bool
    event_store: EventStore | str | os.PathLike[str] | None
    session_store: SessionStore | None
    max_sessions: int
    max_sessions_per_peer: int
    session_idle_timeout: float
    reap_interval: float
    allowed_hosts: Sequence[str]
    allowed_origins: Sequence[str] | None
    host_policy: HostPolicy | None
    max_body_bytes: int
    body_timeout: float
    retry_ms: int
    keepalive_interval: float
    sse_after: float
    legacy_sse: bool
    sse_path: str
    messages_path: str
    server_card: bool
    server_card_name: str | None
    public_url: str | None
    state: SharedState | None


class HttpRunOptions(HttpAppOptions, total=False):
    """What ``server.run("http", **options)`` takes: the app's options plus where and how
    uvicorn listens (``forwarded_allow_ips`` and ``max_connections_per_peer``: see
    ``docs/deploy.md``; ``uvicorn_options`` go to ``uvicorn.Config`` as they are)."""

    host: str
    port: int
    log_level: str
    forwarded_allow_ips: str | list[str] | None
    max_connections_per_peer: int | None
    uvicorn_options: dict[str, Any] | None
