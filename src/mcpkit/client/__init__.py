"""The MCP client and the multi-server host.

* :class:`Client` — one connection to one server, any era (``async with Client(target)``).
* :class:`Host` — many servers at once, aggregated, supervised, filtered (see ``host``).
* :class:`SyncClient` — a blocking facade for scripts and notebooks (``invoke``).

**Transports plug in through connectors** (:mod:`mcpkit.client._connectors`): a
:class:`StreamConnector` opens one :class:`~mcpkit._runtime.stream.MessageStream` (stdio,
in-memory, any byte stream); an :class:`HttpConnector` opens an :class:`ExchangeTransport` —
the Streamable HTTP client — whose ``exchange()`` carries one stateless 2026 request per POST
and whose ``open_legacy_stream()`` gives a legacy session stream when era detection falls back.
URLs resolve to :class:`UrlConnector`, which loads ``mcpkit.transports.http`` and calls its
``connect_http_client(url, headers=...)``. Anything implementing either protocol can be passed as
a ``Client`` target directly.
"""

from mcpkit._runtime.pending import DEFAULT_MAX_TOTAL_TIMEOUT
from mcpkit.client._client import DEFAULT_REQUEST_TIMEOUT, Client, notifying_server
from mcpkit.client._client_options import ClientOptions
from mcpkit.client._connectors import (
    CommandConnector,
    ExchangeTransport,
    HttpConnector,
    InMemoryConnector,
    OpenStreamConnector,
    StreamConnector,
    UrlConnector,
    resolve_target,
)
from mcpkit.client._discovery import (
    ServerCardError,
    ServerCardMismatch,
    fetch_server_card,
    verify_server_card,
)
from mcpkit.client._errors import (
    ClientError,
    IncompatibleServer,
    InputRequiredLoopExceeded,
    InputValidationError,
    OutputValidationError,
    ServerMisbehaved,
    ServerUnavailable,
    UnknownTool,
    UnsupportedInEra,
)
from mcpkit.client._mrtr import InputRequired, is_stale_state
from mcpkit.client._negotiate import Negotiated
from mcpkit.client._questions import QuestionContext, form_defaults
from mcpkit.client._renewal import SessionRenewed, SessionRenewedHandler
from mcpkit.client._subscriptions import Subscription
from mcpkit.client._sync import SyncClient, SyncHost
from mcpkit.client._tasks import TaskCancelled, TaskInfo, TasksUnsupported, ToolTask
from mcpkit.client.host import Host, HostPrompt, HostResource, HostTool, ToolCollision, ToolFilter

__all__ = [
    "DEFAULT_MAX_TOTAL_TIMEOUT",
    "DEFAULT_REQUEST_TIMEOUT",
    "Client",
    "ClientOptions",
    "ClientError",
    "CommandConnector",
    "ExchangeTransport",
    "Host",
    "HostPrompt",
    "HostResource",
    "HostTool",
    "HttpConnector",
    "InMemoryConnector",
    "IncompatibleServer",
    "InputRequired",
    "InputRequiredLoopExceeded",
    "InputValidationError",
    "Negotiated",
    "OpenStreamConnector",
    "OutputValidationError",
    "QuestionContext",
    "ServerCardError",
    "ServerCardMismatch",
    "ServerMisbehaved",
    "ServerUnavailable",
    "SessionRenewed",
    "SessionRenewedHandler",
    "StreamConnector",
    "Subscription",
    "SyncClient",
    "SyncHost",
    "TaskCancelled",
    "TaskInfo",
    "TasksUnsupported",
    "ToolCollision",
    "ToolFilter",
    "fetch_server_card",
    "verify_server_card",
    "ToolTask",
    "UnknownTool",
    "UnsupportedInEra",
    "UrlConnector",
    "form_defaults",
    "is_stale_state",
    "notifying_server",
    "resolve_target",
]
