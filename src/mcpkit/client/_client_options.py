"""The keyword options of :class:`~mcpkit.client.Client`, as one ``TypedDict``.

Functions that make a client for the caller (``mcpkit.testing.connect``) pass their
``**client_options`` on to ``Client(...)``; typed as ``Unpack[ClientOptions]`` a misspelt option
is a type error there, not a ``TypeError`` at run time. The keys are ``Client.__init__``'s
keyword-only parameters (a test holds them equal).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from mcpkit.client._client import NotificationCallback, ServerLogHandler
    from mcpkit.client._questions import ElicitationHandler, RootsSource, SamplingHandler
    from mcpkit.client._renewal import SessionRenewedHandler
    from mcpkit.client._schemas import ValidationMode
    from mcpkit.transports._stdio_client import StderrSink
    from mcpkit.types._common import Implementation
    from mcpkit.types._versions import ClientMode

__all__ = ["ClientOptions"]


class ClientOptions(TypedDict, total=False):
    """``Client(target, **options)``'s keywords; see :class:`~mcpkit.client.Client`."""

    mode: ClientMode
    name: str | None
    client_info: Implementation | Mapping[str, Any] | None
    elicitation_handler: ElicitationHandler | None
    url_elicitation: bool
    sampling_handler: SamplingHandler | None
    sampling_tools: bool
    sampling_context: bool
    roots: RootsSource | None
    logging_handler: ServerLogHandler | None
    notification_handler: NotificationCallback | None
    elicitation_complete_handler: Callable[[str], Awaitable[None] | None] | None
    session_renewed_handler: SessionRenewedHandler | None
    log_level: str | None
    timeout: float | None
    max_timeout: float | None
    probe_timeout: float
    initialize_timeout: float
    output_validation: ValidationMode
    discover_result: Mapping[str, Any] | None
    cache: bool
    max_input_rounds: int
    experimental: Mapping[str, Any] | None
    extensions: Mapping[str, Any] | None
    server_stderr: StderrSink | None
