"""The keyword options of :class:`~mcpkit.client.host.Host`, as one ``TypedDict``.

``Host.from_file(path, **options)`` and ``SyncHost(servers, **options)`` pass them on to
``Host(...)``; typed as ``Unpack[HostOptions]`` a misspelt option is a type error there too,
not only at run time. The keys are ``Host.__init__``'s keyword parameters (a test holds them
equal).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from mcpkit.client.host._host import Namespacing, ToolFilter

__all__ = ["HostOptions"]


class HostOptions(TypedDict, total=False):
    """``Host(servers, **options)``'s keywords; see :class:`~mcpkit.client.host.Host`."""

    filters: Mapping[str, ToolFilter] | None
    namespacing: Namespacing
    separator: str
    on_collision: Literal["first", "error"]
    connect_timeout: float
    list_timeout: float
    restart: bool
    client_options: Mapping[str, Any] | None
    server_options: Mapping[str, Mapping[str, Any]] | None
    on_change: Callable[[str], None] | None
