"""The sans-IO protocol core: pure, synchronous rules of MCP for both eras.

Nothing here does I/O, owns a task or reads a clock (time comes in as ``now`` arguments), so
every rule is tested with plain synchronous tests and reused by every transport and runtime.
"""

from typing import TYPE_CHECKING

from mcpkit.protocol.batch import BATCH_REVISIONS, BatchAnswers, accepts_batches, check_batch
from mcpkit.protocol.cancellation import (
    cancel_outbound,
    cancel_params,
    cancelled_request_id,
    receive_cancel,
    subscription_ended,
)
from mcpkit.protocol.capabilities import (
    CLIENT_CAPABILITY_FOR_METHOD,
    LISTEN_FILTER_CAPABILITY,
    SERVER_CAPABILITY_FOR_METHOD,
    agree_listen_filter,
    elicitation_modes,
    has_capability,
    refuse_undeclared_question,
    require_client_capability,
    require_elicitation_mode,
    require_sampling,
    require_server_capability,
    server_supports,
)
from mcpkit.protocol.codec import (
    decode_json,
    decode_message,
    encode_batch,
    encode_json,
    encode_message,
    message_from_obj,
)
from mcpkit.protocol.connection import (
    CancelReceived,
    ClientConnection,
    Connection,
    Event,
    Ignored,
    NotificationReceived,
    ProgressReceived,
    Rejected,
    RequestReceived,
    ResponseReceived,
    ServerConnection,
    SubscriptionEnded,
)
from mcpkit.protocol.elicitation_schema import STRING_FORMATS, check_form_schema
from mcpkit.protocol.errors import (
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    PARSE_ERROR,
    RESOURCE_NOT_FOUND,
    UNSUPPORTED_PROTOCOL_VERSION,
    URL_ELICITATION_REQUIRED,
    USER_REJECTED,
    AuthorizationError,
    ConnectionBroken,
    ConnectionClosed,
    HeaderMismatch,
    InternalError,
    InvalidParams,
    InvalidRequest,
    JSONRPCError,
    LocalProtocolError,
    MCPError,
    MessageDecodeError,
    MethodNotFound,
    MissingRequiredClientCapability,
    MissingServerCapability,
    ParseError,
    RemoteProtocolError,
    RequestCancelled,
    RequestTimeout,
    ResourceNotFound,
    SSEProtocolError,
    TooManyInFlight,
    TransportError,
    UnsupportedProtocolVersion,
    URLElicitationRequired,
    UsageError,
)
from mcpkit.protocol.framing import (
    HEAD_BYTES,
    MAX_LINE_BYTES,
    FrameTooLarge,
    LineFramer,
    frame,
    peek_envelope,
)
from mcpkit.protocol.inflight import (
    MAX_IN_FLIGHT,
    MAX_INBOUND_IN_FLIGHT,
    InboundRequest,
    InboundRequests,
    OutboundRequest,
    OutboundRequests,
)
from mcpkit.protocol.lifecycle import ClientLifecycle, ClientState, ServerLifecycle, ServerState
from mcpkit.protocol.meta import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    LOG_LEVELS,
    PROTOCOL_VERSION_KEY,
    RequestMeta,
    declared_version,
    is_modern_request,
    log_allowed,
    log_level_enabled,
    parse_request_meta,
    progress_token_of,
    request_era,
    request_meta,
)
from mcpkit.protocol.observe import (
    OutboundObserver,
    add_outbound_observer,
    notify_outbound,
    remove_outbound_observer,
)
from mcpkit.protocol.progress import (
    MAX_PROGRESS_TOKENS,
    ProgressSender,
    ProgressTracker,
    ProgressUpdate,
)
from mcpkit.protocol.sampling_rules import sampling_messages_problem
from mcpkit.protocol.schema_dialects import (
    DEFAULT_DIALECT,
    CompiledSchema,
    SchemaProblem,
    compile_schema,
    external_refs,
    json_path,
)
from mcpkit.protocol.shape import (
    convert_content,
    prepare_outbound,
    request_unsupported,
    shape_for,
    shape_result,
)
from mcpkit.protocol.sse import (
    MAX_SSE_EVENT_BYTES,
    SSEDecoder,
    SSEEvent,
    encode_comment,
    encode_event,
)
from mcpkit.protocol.versions import (
    accept_legacy_offer,
    check_modern_version,
    choose_client_version,
    negotiate_legacy,
    unsupported_version_error,
)

__all__ = [
    "STRING_FORMATS",
    "check_form_schema",
    "sampling_messages_problem",
    "AuthorizationError",
    # batch
    "BATCH_REVISIONS",
    "BatchAnswers",
    "accepts_batches",
    "check_batch",
    # connection
    "CancelReceived",
    "ClientConnection",
    "Connection",
    "Event",
    "Ignored",
    "NotificationReceived",
    "ProgressReceived",
    "Rejected",
    "RequestReceived",
    "ResponseReceived",
    "ServerConnection",
    "SubscriptionEnded",
    # cancellation
    "cancel_outbound",
    "cancel_params",
    "cancelled_request_id",
    "receive_cancel",
    "subscription_ended",
    # capabilities
    "CLIENT_CAPABILITY_FOR_METHOD",
    "LISTEN_FILTER_CAPABILITY",
    "SERVER_CAPABILITY_FOR_METHOD",
    "agree_listen_filter",
    "elicitation_modes",
    "has_capability",
    "refuse_undeclared_question",
    "require_client_capability",
    "require_elicitation_mode",
    "require_sampling",
    "require_server_capability",
    "server_supports",
    # codec
    "decode_json",
    "decode_message",
    "encode_batch",
    "encode_json",
    "encode_message",
    "message_from_obj",
    # errors
    "HEADER_MISMATCH",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "PARSE_ERROR",
    "RESOURCE_NOT_FOUND",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "URL_ELICITATION_REQUIRED",
    "USER_REJECTED",
    "ConnectionBroken",
    "ConnectionClosed",
    "HeaderMismatch",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "JSONRPCError",
    "LocalProtocolError",
    "MCPError",
    "MessageDecodeError",
    "MethodNotFound",
    "MissingRequiredClientCapability",
    "MissingServerCapability",
    "ParseError",
    "RemoteProtocolError",
    "RequestCancelled",
    "RequestTimeout",
    "ResourceNotFound",
    "SSEProtocolError",
    "TooManyInFlight",
    "TransportError",
    "URLElicitationRequired",
    "UnsupportedProtocolVersion",
    "UsageError",
    # framing
    "HEAD_BYTES",
    "MAX_LINE_BYTES",
    "FrameTooLarge",
    "LineFramer",
    "frame",
    "peek_envelope",
    # inflight
    "MAX_INBOUND_IN_FLIGHT",
    "MAX_IN_FLIGHT",
    "InboundRequest",
    "InboundRequests",
    "OutboundRequest",
    "OutboundRequests",
    # lifecycle
    "ClientLifecycle",
    "ClientState",
    "ServerLifecycle",
    "ServerState",
    # meta
    "CLIENT_CAPABILITIES_KEY",
    "CLIENT_INFO_KEY",
    "LOG_LEVELS",
    "LOG_LEVEL_KEY",
    "PROTOCOL_VERSION_KEY",
    "RequestMeta",
    "is_modern_request",
    "log_allowed",
    "log_level_enabled",
    "declared_version",
    "parse_request_meta",
    "progress_token_of",
    "request_era",
    "request_meta",
    # observe
    "OutboundObserver",
    "add_outbound_observer",
    "notify_outbound",
    "remove_outbound_observer",
    # schema_dialects
    "DEFAULT_DIALECT",
    "CompiledSchema",
    "SchemaProblem",
    "compile_schema",
    "external_refs",
    "json_path",
    # shape
    "convert_content",
    "prepare_outbound",
    "request_unsupported",
    "shape_for",
    "shape_result",
    # progress
    "MAX_PROGRESS_TOKENS",
    "ProgressSender",
    "ProgressTracker",
    "ProgressUpdate",
    # sse
    "MAX_SSE_EVENT_BYTES",
    "SSEDecoder",
    "SSEEvent",
    "encode_comment",
    "encode_event",
    # versions
    "accept_legacy_offer",
    "check_modern_version",
    "choose_client_version",
    "negotiate_legacy",
    "unsupported_version_error",
]

# Streamable HTTP rules (headers, dual-era routing, Host/Origin checks) load on first use, so a
# stdio program never pays their import time.
__all__ += [
    # http_headers
    "BASE64_PREFIX",
    "BASE64_SUFFIX",
    "MAX_SAFE_INTEGER",
    "MCP_METHOD_HEADER",
    "MCP_NAME_HEADER",
    "MCP_PARAM_PREFIX",
    "MCP_PROTOCOL_VERSION_HEADER",
    "X_MCP_HEADER",
    "HeaderProblem",
    "InvalidHeaderValue",
    "ParamHeader",
    "ParamHeaders",
    "compile_header_params",
    "decode_header_value",
    "encode_header_value",
    "header_params",
    "lint_x_mcp_header",
    "name_source",
    "normalize_headers",
    "request_headers",
    "tool_header_problem",
    "validate_request_headers",
    # http_routing
    "LAST_EVENT_ID_HEADER",
    "MAX_SESSION_ID_LENGTH",
    "MCP_SESSION_ID_HEADER",
    "SESSION_ID_BYTES",
    "SSE_RESPONSE_HEADERS",
    "HttpRejection",
    "Route",
    "RouteKind",
    "check_media",
    "is_valid_session_id",
    "new_session_id",
    "route_request",
    "status_for_error",
    # http_security
    "ALLOWED_HOSTS_ENV",
    "ALLOWED_ORIGINS_ENV",
    "DEFAULT_ALLOWED_HOSTS",
    "HOST_REJECTED_STATUS",
    "ORIGIN_REJECTED_STATUS",
    "HostPolicy",
    # server_card (experimental)
    "AI_CATALOG_PATH",
    "CAPABILITIES_META_KEY",
    "CARD_SUFFIX",
    "CATALOG_PATH",
    "SERVER_CARD_MEDIA_TYPE",
    "SERVER_CARD_SCHEMA",
    "build_catalog",
    "build_server_card",
    "card_mismatches",
    "card_name",
    "card_problems",
    "catalog_entry",
]
_LAZY_MODULES = ("http_headers", "http_routing", "http_security", "server_card")


def __getattr__(name: str) -> object:
    if name in __all__:
        import importlib

        for module_name in _LAZY_MODULES:
            module = importlib.import_module(f"mcpkit.protocol.{module_name}")
            if name in module.__all__:
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module 'mcpkit.protocol' has no attribute {name!r}")


if TYPE_CHECKING:
    from mcpkit.protocol.http_headers import (
        BASE64_PREFIX,
        BASE64_SUFFIX,
        MAX_SAFE_INTEGER,
        MCP_METHOD_HEADER,
        MCP_NAME_HEADER,
        MCP_PARAM_PREFIX,
        MCP_PROTOCOL_VERSION_HEADER,
        X_MCP_HEADER,
        HeaderProblem,
        InvalidHeaderValue,
        ParamHeader,
        ParamHeaders,
        compile_header_params,
        decode_header_value,
        encode_header_value,
        header_params,
        lint_x_mcp_header,
        name_source,
        normalize_headers,
        request_headers,
        tool_header_problem,
        validate_request_headers,
    )
    from mcpkit.protocol.http_routing import (
        LAST_EVENT_ID_HEADER,
        MAX_SESSION_ID_LENGTH,
        MCP_SESSION_ID_HEADER,
        SESSION_ID_BYTES,
        SSE_RESPONSE_HEADERS,
        HttpRejection,
        Route,
        RouteKind,
        check_media,
        is_valid_session_id,
        new_session_id,
        route_request,
        status_for_error,
    )
    from mcpkit.protocol.http_security import (
        ALLOWED_HOSTS_ENV,
        ALLOWED_ORIGINS_ENV,
        DEFAULT_ALLOWED_HOSTS,
        HOST_REJECTED_STATUS,
        ORIGIN_REJECTED_STATUS,
        HostPolicy,
    )
    from mcpkit.protocol.server_card import (
        AI_CATALOG_PATH,
        CAPABILITIES_META_KEY,
        CARD_SUFFIX,
        CATALOG_PATH,
        SERVER_CARD_MEDIA_TYPE,
        SERVER_CARD_SCHEMA,
        build_catalog,
        build_server_card,
        card_mismatches,
        card_name,
        card_problems,
        catalog_entry,
    )
