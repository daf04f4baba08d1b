"""The gateway's view of every backend's tools, prompts, resources and templates.

Built from the :class:`~mcpkit.client.host.Host` (which names tools and prompts per its
namespacing) plus each backend's resource templates, as wire dictionaries ready to send; rebuilt
only when a backend's lists change or a backend comes or goes. Resource URIs are not renamed (they
appear inside contents and links); a URI is routed to the backend that lists it, else to the
first whose template matches it, else to the only backend that offers resources at all.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from mcpkit.client import ServerUnavailable
from mcpkit.protocol import MCPError, has_capability
from mcpkit.server import UriTemplate
from mcpkit.types import JSONObject

if TYPE_CHECKING:
    from mcpkit.client.host import Host

__all__ = ["Catalog", "Route", "build_catalog"]

logger = logging.getLogger("mcpkit.gateway")


@dataclass(frozen=True, slots=True)
class Route:
    backend: str
    own: str
    """The name (or URI / template) on the backend."""
    definition: JSONObject
    """As the gateway lists it (the name replaced by the exposed one)."""


@dataclass(slots=True)
class Catalog:
    tools: dict[str, Route] = field(default_factory=dict)
    prompts: dict[str, Route] = field(default_factory=dict)
    resources: dict[str, Route] = field(default_factory=dict)
    templates: list[tuple[Route, UriTemplate]] = field(default_factory=list)
    resource_backends: list[str] = field(default_factory=list)
    """Backends that offer resources, in configuration order."""

    def resource_backend(self, uri: str) -> tuple[str, Route | None] | None:
        """The backend serving ``uri`` and the route it was found by (template or listing)."""
        route = self.resources.get(uri)
        if route is not None:
            return route.backend, route
        for template_route, template in self.templates:
            if template.match(uri) is not None:
                return template_route.backend, template_route
        if len(self.resource_backends) == 1:
            return self.resource_backends[0], None
        return None


def _wire(item: Any, name: str | None = None) -> JSONObject:
    out: JSONObject = msgspec.to_builtins(item)
    if name is not None:
        out["name"] = name
    return out


async def _templates(host: Host, backend: str, timeout: float) -> list[Any]:
    try:
        client = host.client(backend)
        if not has_capability(client.server_capabilities, ("resources",)):
            return []
        return await asyncio.wait_for(client.list_resource_templates(), timeout)
    except (ServerUnavailable, MCPError, TimeoutError) as exc:
        logger.debug("backend %r: no resource templates: %s", backend, exc)
        return []


async def build_catalog(host: Host, list_timeout: float, previous: Catalog | None) -> Catalog:
    """Everything every reachable backend offers, routed and ready to list.

    A backend that is down keeps its entries from ``previous``: its tools stay listed and
    answer "backend unavailable" rather than vanishing into "unknown tool" while it restarts.
    """
    tools, prompts, resources = await asyncio.gather(
        host.list_tools(), host.list_prompts(), host.list_resources()
    )
    names = list(host.servers)
    templates = await asyncio.gather(*(_templates(host, n, list_timeout) for n in names))
    catalog = Catalog()
    for tool in tools:
        catalog.tools[tool.name] = Route(tool.server, tool.tool.name, _wire(tool.tool, tool.name))
    for prompt in prompts:
        catalog.prompts[prompt.name] = Route(
            prompt.server, prompt.prompt.name, _wire(prompt.prompt, prompt.name)
        )
    for resource in resources:
        uri = resource.resource.uri
        if uri not in catalog.resources:
            catalog.resources[uri] = Route(resource.server, uri, _wire(resource.resource))
    for backend, found in zip(names, templates, strict=True):
        for template in found:
            try:
                compiled = UriTemplate(template.uri_template)
            except (ValueError, MCPError) as exc:
                logger.warning("backend %r: unusable template %r: %s", backend, template, exc)
                continue
            route = Route(backend, template.uri_template, _wire(template))
            catalog.templates.append((route, compiled))
    if previous is not None:
        _keep_unreachable(host, previous, catalog)
    for backend in names:
        supervisor = host.servers[backend]
        if supervisor.state == "ready" and has_capability(
            supervisor.client.server_capabilities, ("resources",)
        ):
            catalog.resource_backends.append(backend)
    return catalog


def _keep_unreachable(host: Host, previous: Catalog, catalog: Catalog) -> None:
    down = {name for name, s in host.servers.items() if s.state != "ready"}
    for table, old in (
        (catalog.tools, previous.tools),
        (catalog.prompts, previous.prompts),
        (catalog.resources, previous.resources),
    ):
        for key, route in old.items():
            if route.backend in down:
                table.setdefault(key, route)
    catalog.templates.extend(t for t in previous.templates if t[0].backend in down)
    catalog.resource_backends.extend(
        b for b in previous.resource_backends if b in down and b not in catalog.resource_backends
    )
