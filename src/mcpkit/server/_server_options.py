"""The keyword options of :class:`~mcpkit.server.Server`, as one ``TypedDict``.

Functions that build a server for the caller (``mcpkit.contrib.openapi.from_openapi`` and its
siblings) pass their ``**server_options`` on to ``Server(...)``; typed as
``Unpack[ServerOptions]`` a misspelt option is a type error there, not a ``TypeError`` at run
time. The keys are ``Server.__init__``'s keyword-only parameters (a test holds them equal).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from mcpkit.types._jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.server._server import Server
    from mcpkit.server.tasks import TaskManager, TaskStore

__all__ = ["ServerOptions"]


class ServerOptions(TypedDict, total=False):
    """``Server(name, version, **options)``'s keywords; see :class:`~mcpkit.server.Server`."""

    title: str | None
    description: str | None
    instructions: str | None
    icons: Sequence[JSONObject] | None
    website_url: str | None
    page_size: int | None
    lifespan: Callable[[Server], contextlib.AbstractAsyncContextManager[Any]] | None
    state_keys: Sequence[bytes] | None
    cache_policy: dict[str, tuple[int, str]] | None
    extensions: dict[str, JSONObject] | None
    supported_versions: Sequence[str]
    ref_free_schemas: bool
    tasks: bool | TaskStore | TaskManager | None
    mask_errors: bool
