"""Progress rules, for the side that receives progress and the side that sends it.

The spec (both eras): a requestor puts ``_meta.progressToken`` in a request, unique among its
active requests; the receiver MAY send ``notifications/progress`` for it; ``progress`` MUST increase
every time (even with no ``total``); notifications MUST stop once the request completes.

* :class:`ProgressTracker` is the requestor's side: it knows the active tokens and turns inbound
  notifications into :class:`ProgressUpdate` values, dropping (returning ``None`` for) the ones
  the rules say not to trust: an unknown or finished token, or a value that did not increase.
* :class:`ProgressSender` is the receiver's side: it refuses to let us break the same rules
  (:class:`~mcpkit.protocol._errors.LocalProtocolError`).

For a task-augmented request (legacy Tasks) the token stays active until the task is terminal:
the caller simply finishes it then instead of at the first response.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from mcpkit.protocol._errors import InvalidParams, LocalProtocolError, UsageError
from mcpkit.types._jsonrpc import JSONObject, RequestId
from mcpkit.types.meta import PROGRESS_TOKEN

__all__ = ["MAX_PROGRESS_TOKENS", "ProgressSender", "ProgressTracker", "ProgressUpdate"]

MAX_PROGRESS_TOKENS: Final = 10_000
"""Active tokens per connection (at most one per in-flight request)."""


class ProgressUpdate(msgspec.Struct, frozen=True):
    """A valid progress notification, tied to the request it reports on."""

    token: RequestId
    request_id: RequestId | None
    progress: float
    total: float | None = None
    message: str | None = None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _valid_token(token: Any) -> bool:
    return isinstance(token, str | int) and not isinstance(token, bool)


def _token_key(token: RequestId) -> tuple[type, RequestId]:
    return (str, token) if isinstance(token, str) else (int, token)


class ProgressTracker:
    """The requestor's view: which tokens are active and the last progress seen for each."""

    __slots__ = ("_active", "limit")

    def __init__(self, limit: int = MAX_PROGRESS_TOKENS) -> None:
        self.limit = limit
        self._active: dict[tuple[type, RequestId], tuple[RequestId | None, float | None]] = {}

    def start(self, token: RequestId, request_id: RequestId | None = None) -> None:
        """Activate ``token`` for a request we are sending; tokens must be unique while active."""
        if not _valid_token(token):
            raise UsageError(f"a progress token must be a string or an integer, not {token!r}")
        key = _token_key(token)
        if key in self._active:
            raise LocalProtocolError(
                f"progress token {token!r} is already in use by another request"
            )
        if len(self._active) >= self.limit:
            raise LocalProtocolError(f"too many active progress tokens (limit {self.limit})")
        self._active[key] = (request_id, None)

    def finish(self, token: RequestId) -> None:
        """The request completed (or its task is terminal): later notifications are dropped."""
        if self._active:  # (every request ends here; most never had a token)
            self._active.pop(_token_key(token), None)

    def is_active(self, token: RequestId) -> bool:
        return _valid_token(token) and _token_key(token) in self._active

    def receive(self, params: JSONObject | None) -> ProgressUpdate | None:
        """Check a ``notifications/progress`` from the peer.

        Returns the update to deliver, or ``None`` to drop it (unknown or finished token,
        ``progress`` not greater than the last one). Malformed params raise
        :class:`~mcpkit.protocol._errors.InvalidParams` for the caller to log; a notification is
        never answered.
        """
        params = params or {}
        token: Any = params.get(PROGRESS_TOKEN)
        progress: Any = params.get("progress")
        total: Any = params.get("total")
        message: Any = params.get("message")
        if not _valid_token(token):
            raise InvalidParams(
                'notifications/progress: "progressToken" must be a string or integer'
            )
        if not _is_number(progress):
            raise InvalidParams('notifications/progress: "progress" must be a number')
        if total is not None and not _is_number(total):
            raise InvalidParams('notifications/progress: "total" must be a number')
        if message is not None and not isinstance(message, str):
            raise InvalidParams('notifications/progress: "message" must be a string')
        key = _token_key(token)
        state = self._active.get(key)
        if state is None:
            return None
        request_id, last = state
        if last is not None and progress <= last:
            return None
        self._active[key] = (request_id, progress)
        return ProgressUpdate(token, request_id, progress, total, message)


class ProgressSender:
    """The receiver's side for one request's token: builds params and enforces the rules."""

    __slots__ = ("_finished", "_last", "token")

    def __init__(self, token: RequestId) -> None:
        if not _valid_token(token):
            raise UsageError(f"a progress token must be a string or an integer, not {token!r}")
        self.token = token
        self._last: float | None = None
        self._finished = False

    def params(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> JSONObject:
        """The params of the next ``notifications/progress``; raises if it would break a rule."""
        if self._finished:
            raise LocalProtocolError("progress cannot be reported after the request completed")
        if not _is_number(progress) or (total is not None and not _is_number(total)):
            raise UsageError("progress and total must be numbers")
        if self._last is not None and progress <= self._last:
            raise LocalProtocolError(
                f"progress must increase with every notification ({progress} after {self._last})"
            )
        self._last = progress
        out: JSONObject = {PROGRESS_TOKEN: self.token, "progress": progress}
        if total is not None:
            out["total"] = total
        if message is not None:
            out["message"] = message
        return out

    def finish(self) -> None:
        """The request completed; any further progress is refused."""
        self._finished = True

    @property
    def finished(self) -> bool:
        return self._finished
