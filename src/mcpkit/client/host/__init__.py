"""The multi-server host: configuration files, supervised connections, one aggregated catalogue.

See :mod:`mcpkit.client.host.host` for naming and filtering, and
:mod:`mcpkit.client.host.supervisor` for restarts.
"""

from mcpkit.client.host.config import InputProvider, ServerEntry, load_servers, parse_servers
from mcpkit.client.host.host import (
    DEFAULT_CONNECT_TIMEOUT,
    Host,
    HostPrompt,
    HostResource,
    HostTool,
    ToolCollision,
    ToolFilter,
)
from mcpkit.client.host.supervisor import ServerState, ServerSupervisor

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "Host",
    "HostPrompt",
    "HostResource",
    "HostTool",
    "InputProvider",
    "ServerEntry",
    "ServerState",
    "ServerSupervisor",
    "ToolCollision",
    "ToolFilter",
    "load_servers",
    "parse_servers",
]
