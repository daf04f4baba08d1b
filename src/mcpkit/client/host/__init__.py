"""The multi-server host: configuration files, supervised connections, one aggregated catalogue.

See :mod:`mcpkit.client.host._host` for naming and filtering, and
:mod:`mcpkit.client.host._supervisor` for restarts.
"""

from mcpkit.client.host._config import InputProvider, ServerEntry, load_servers, parse_servers
from mcpkit.client.host._host import (
    DEFAULT_CONNECT_TIMEOUT,
    Host,
    HostPrompt,
    HostResource,
    HostTool,
    ToolCollision,
    ToolFilter,
)
from mcpkit.client.host._host_options import HostOptions
from mcpkit.client.host._supervisor import ServerState, ServerSupervisor

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT",
    "Host",
    "HostOptions",
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
