"""The mcpkit error tree.

Three families never blur into each other:

* :class:`JSONRPCError` and its subclasses are *wire* errors. Each carries the JSON-RPC code it is
  sent or received with. A handler raises one to answer with that error; a caller receives one
  when the peer answered with an error (then ``remote`` is true).
* :class:`LocalProtocolError` / :class:`RemoteProtocolError` say which side broke the protocol in a
  way that is not an error *reply* (h11's distinction): a malformed response from the peer, or our
  own attempt to send something the current state forbids.
* Local failures — :class:`RequestTimeout`, :class:`ConnectionClosed` (closed by us) and
  :class:`ConnectionBroken` (lost because of the peer) — are never JSON-RPC errors, so nobody can
  mistake a local timeout for a server's answer.

Programmer mistakes (registering a tool twice, an invalid tool name) raise :class:`UsageError`,
which is also a :class:`ValueError`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import msgspec

from mcpkit.types._jsonrpc import ErrorObject, RequestId

__all__ = [
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
    "AuthorizationError",
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
    "SessionReplaced",
    "TooManyInFlight",
    "TransportError",
    "URLElicitationRequired",
    "UnsupportedProtocolVersion",
    "UsageError",
]

# JSON-RPC 2.0 codes
PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
# MCP codes
RESOURCE_NOT_FOUND: Final = -32002
"""Legacy revisions only; 2026-07-28 uses -32602 with ``data.uri``."""
URL_ELICITATION_REQUIRED: Final = -32042
HEADER_MISMATCH: Final = -32020
MISSING_REQUIRED_CLIENT_CAPABILITY: Final = -32021
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
USER_REJECTED: Final = -1
"""What a client answers to a sampling request the user rejected (legacy)."""


class MCPError(Exception):
    """Base class of every error mcpkit raises on purpose."""


class UsageError(MCPError, ValueError):
    """The library was used in a way it does not support (a bug in the calling code)."""


class JSONRPCError(MCPError):
    """An error that travels as a JSON-RPC error response.

    Raise a subclass (or this class with an explicit ``code``) from a handler to answer with it.
    When the *peer* answered with an error, the caller gets the subclass matching the code, with
    ``remote`` set to true.
    """

    code: ClassVar[int] = INTERNAL_ERROR

    def __init__(
        self,
        message: str,
        data: Any = None,
        *,
        code: int | None = None,
        remote: bool = False,
    ) -> None:
        _check_arguments(type(self), message, data, code)
        super().__init__(message)
        self.message = message
        self.data = data
        self.remote = remote
        if code is not None:
            self.code = code  # type: ignore[misc]  # instance override of the class default

    def to_error_object(self) -> ErrorObject:
        return ErrorObject(
            code=self.code,
            message=self.message,
            data=msgspec.UNSET if self.data is None else self.data,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code}, message={self.message!r})"

    @staticmethod
    def from_error_object(error: ErrorObject, *, remote: bool = True) -> JSONRPCError:
        """Build the most specific subclass for ``error`` (unknown codes give the base class)."""
        data = None if error.data is msgspec.UNSET else error.data
        cls = _BY_CODE.get(error.code)
        if cls is None:
            return JSONRPCError(error.message, data, code=error.code, remote=remote)
        return cls(error.message, data, remote=remote)


def _check_arguments(cls: type, message: object, data: object, code: object) -> None:
    """Catch a misbuilt error where it is built, not as an unencodable answer later."""
    if not isinstance(message, str):
        raise TypeError(
            f"{cls.__name__}(message, data=None, *, code=None): message must be a str, got "
            f"{type(message).__name__} {message!r}"
            + (" (the code is a keyword argument: code=...)" if isinstance(message, int) else "")
        )
    if data is not None:
        try:
            msgspec.json.encode(data)
        except (TypeError, ValueError, msgspec.EncodeError) as exc:
            raise TypeError(
                f"{cls.__name__}(message, data=None, *, code=None): data must be JSON "
                f"(dicts, lists, str, numbers, bool, None): {exc}"
            ) from None
    if code is not None and (not isinstance(code, int) or isinstance(code, bool)):
        raise TypeError(
            f"{cls.__name__}(message, data=None, *, code=None): code must be an int, got "
            f"{type(code).__name__} {code!r}"
        )


class ParseError(JSONRPCError):
    code = PARSE_ERROR


class InvalidRequest(JSONRPCError):
    code = INVALID_REQUEST


class MethodNotFound(JSONRPCError):
    code = METHOD_NOT_FOUND


class InvalidParams(JSONRPCError):
    code = INVALID_PARAMS


class InternalError(JSONRPCError):
    code = INTERNAL_ERROR


class ResourceNotFound(JSONRPCError):
    """A resource does not exist. Sent as -32002 (legacy) or -32602 with ``data.uri`` (2026)."""

    code = RESOURCE_NOT_FOUND


class URLElicitationRequired(JSONRPCError):
    code = URL_ELICITATION_REQUIRED


class HeaderMismatch(JSONRPCError):
    code = HEADER_MISMATCH


class MissingRequiredClientCapability(JSONRPCError):
    code = MISSING_REQUIRED_CLIENT_CAPABILITY

    @property
    def required_capabilities(self) -> dict[str, Any]:
        data = self.data if isinstance(self.data, dict) else {}
        caps = data.get("requiredCapabilities")
        return caps if isinstance(caps, dict) else {}


class UnsupportedProtocolVersion(JSONRPCError):
    code = UNSUPPORTED_PROTOCOL_VERSION

    @property
    def supported(self) -> list[str]:
        data = self.data if isinstance(self.data, dict) else {}
        versions = data.get("supported")
        return [v for v in versions if isinstance(v, str)] if isinstance(versions, list) else []

    @property
    def requested(self) -> str | None:
        data = self.data if isinstance(self.data, dict) else {}
        requested = data.get("requested")
        return requested if isinstance(requested, str) else None


_BY_CODE: dict[int, type[JSONRPCError]] = {
    cls.code: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        ResourceNotFound,
        URLElicitationRequired,
        HeaderMismatch,
        MissingRequiredClientCapability,
        UnsupportedProtocolVersion,
    )
}


class MessageDecodeError(MCPError):
    """An inbound message could not be understood.

    ``error`` is the JSON-RPC error to answer with; ``request_id`` is the id when it could be read;
    ``answerable`` is false when the broken message was itself a response (answering a response
    with an error would start a ping-pong, so those are logged and dropped). ``batch`` holds the
    decoded members when the input was a JSON-RPC batch: an error unless the connection's
    revision takes batches (:mod:`mcpkit.protocol._batch`), which then serves the members.
    """

    def __init__(
        self,
        error: JSONRPCError,
        request_id: RequestId | None = None,
        *,
        answerable: bool = True,
        batch: tuple[Any, ...] | None = None,
    ) -> None:
        super().__init__(error.message)
        self.error = error
        self.request_id = request_id
        self.answerable = answerable
        self.batch = batch


class LocalProtocolError(MCPError):
    """We were about to break the protocol (for example, a request before ``initialize``)."""


class RemoteProtocolError(MCPError):
    """The peer broke the protocol in a way that is not an error reply (e.g. a malformed result)."""


class AuthorizationError(RemoteProtocolError):
    """The server refused the request's credentials (HTTP 401) or their scopes (HTTP 403).

    A subclass of :class:`RemoteProtocolError` for transports, but never a sign of the server's
    protocol era: era detection lets it through instead of falling back.
    """

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class TransportError(MCPError):
    """The connection to the peer failed; the subclass says whose doing it was."""


class ConnectionClosed(TransportError):
    """The connection was closed on our side (like anyio's ClosedResourceError)."""


class ConnectionBroken(TransportError):
    """The connection was lost because of the peer: it exited, hung up, or sent garbage framing."""


class SessionReplaced(TransportError):
    """The server forgot the session a request was sent in (a legacy Streamable HTTP session
    answered 404), and a new session replaced it: the request was not sent in the new one.

    :class:`~mcpkit.client.Client` sends it again on its own, checked against what the new
    session negotiated; code driving a session stream by hand may do the same.
    """


class RequestTimeout(MCPError, TimeoutError):
    """A request we sent got no response before its deadline. Never sent by the peer."""

    def __init__(self, method: str, timeout: float, *, total: bool = False) -> None:
        text = f"{method} got no response within {timeout:g} s"
        if total:
            text += (
                " in total (max_timeout: progress notifications extend a deadline only up to "
                "it; raise max_timeout for longer calls)"
            )
        super().__init__(text)
        self.method = method
        self.timeout = timeout
        self.total = total


class RequestCancelled(MCPError):
    """The request was cancelled (by us, or by the peer's ``notifications/cancelled``)."""


class SSEProtocolError(RemoteProtocolError):
    """The peer's Server-Sent Events stream broke the event-stream rules or mcpkit's size bound.

    The stream cannot be trusted after this (an event was lost or is unbounded), so the reader
    should drop the connection; a legacy client may reconnect with ``Last-Event-ID``.
    """


class MissingServerCapability(LocalProtocolError):
    """We were about to send a request the server did not declare the capability for.

    ``method`` is the request's method and ``capability`` the capability path it needs, for
    example ``("resources", "subscribe")``.
    """

    def __init__(self, method: str, capability: tuple[str, ...]) -> None:
        path = ".".join(capability)
        super().__init__(
            f"the server did not declare the {path!r} capability, so it cannot be sent {method}"
        )
        self.method = method
        self.capability = capability


class TooManyInFlight(LocalProtocolError):
    """Our table of requests awaiting a response is full; wait for some to finish first."""
