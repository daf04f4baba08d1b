"""The inspector as an MCP Apps host: what the page asks the backend for a rendered view.

The page renders a tool's view in a sandbox served from another origin
(:mod:`mcpkit.cli.inspector._sandbox`) and relays the view's requests here. This module holds the
host's rules that must not depend on the page: a view is read only from a ``ui://`` URI of the
connected server, and an app may call only the tools whose ``_meta.ui.visibility`` includes
``"app"`` (the spec: a host MUST reject the others), whatever the page sends.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpkit.client.apps import app_callable, fetch_view
from mcpkit.protocol import UsageError, sandbox_csp_domains
from mcpkit.types import UI_SCHEME

if TYPE_CHECKING:
    from mcpkit.cli.inspector._session import InspectorSession

__all__ = ["AppHost"]


class AppHost:
    """The backend half of the inspector's app host, bound to the inspector's session."""

    def __init__(self, session: InspectorSession) -> None:
        self.session = session
        self._ids = itertools.count(1)

    async def view(self, uri: str) -> dict[str, Any]:
        """A view's HTML and what the sandbox must enforce (logged: the spec's audit trail)."""
        from mcpkit.cli.inspector._session import InspectorError

        if not uri.startswith(UI_SCHEME):
            raise InspectorError(f"a view is a {UI_SCHEME} resource, not {uri!r}")
        try:
            view = await fetch_view(self.session.client, uri)
        except UsageError as exc:
            raise InspectorError(str(exc), status=502) from None
        csp = sandbox_csp_domains(view.csp)
        permissions = view.ui.get("permissions")
        granted = sorted(permissions) if isinstance(permissions, Mapping) else []
        self.session.hub.publish(
            "log",
            level="info",
            logger="apps",
            data=f"view {uri}: Content-Security-Policy {view.content_security_policy}"
            + (f"; permissions {', '.join(granted)}" if granted else ""),
        )
        return {
            "uri": uri,
            "html": view.html,
            "csp": csp,
            "permissions": {p: {} for p in granted},
            "prefersBorder": view.prefers_border,
        }

    async def call(self, name: str, arguments: Mapping[str, Any]) -> Any:
        """An app's ``tools/call``, forwarded only for a tool its server lets apps call."""
        from mcpkit.cli.inspector._session import InspectorError

        tools = await self.session.tool_definitions()
        tool = tools.get(name) or (await self.session.relist_tools()).get(name)
        if tool is None:
            raise InspectorError(f"the app called an unknown tool {name!r}", status=403)
        if not app_callable(tool):
            raise InspectorError(
                f"the app may not call {name!r}: its visibility leaves out apps", status=403
            )
        answer = await self.session.call_tool(name, arguments, f"app-{next(self._ids)}")
        return answer["result"]
