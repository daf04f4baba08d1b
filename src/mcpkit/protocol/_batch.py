"""JSON-RPC batches: which revisions take them, and collecting a batch's answers.

2025-03-26 is the one revision whose transports carry JSON-RPC batches: an implementation MUST
accept them, and ``initialize`` MUST NOT be part of one. 2025-06-18 removed them again, and the
2026-07-28 revision has no batches either; there a JSON array stays -32600 Invalid Request.

A batch is answered with one JSON array holding the responses to its requests (JSON-RPC 2.0 §6),
in any order; notifications and responses inside it get nothing, and a batch that needs no
answer gets nothing at all (never an empty array). :class:`BatchAnswers` is that bookkeeping,
kept sans-IO so that stdio and HTTP collect answers the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from mcpkit.protocol._errors import InvalidRequest, MessageDecodeError
from mcpkit.types._jsonrpc import ErrorResponse, Message, Request, RequestId, Response

__all__ = ["BATCH_REVISIONS", "BatchAnswers", "accepts_batches", "check_batch"]

BATCH_REVISIONS: Final = frozenset({"2025-03-26"})
"""Revisions whose peers must accept JSON-RPC batches."""

Answer = Response | ErrorResponse


def accepts_batches(protocol_version: str | None) -> bool:
    """Whether a peer that negotiated ``protocol_version`` may send us a batch."""
    return protocol_version in BATCH_REVISIONS


def check_batch(
    items: Sequence[Message | MessageDecodeError], protocol_version: str | None
) -> None:
    """Raise the -32600 error that answers a batch this connection may not take.

    Refused: any batch before a revision that has them is negotiated (so also one carrying
    ``initialize``, which comes first), any batch in a revision without them, and an empty one
    (JSON-RPC 2.0 answers ``[]`` with a single Invalid Request).
    """
    if not accepts_batches(protocol_version):
        shown = protocol_version or "no revision negotiated yet"
        raise InvalidRequest(
            f"Invalid Request: JSON-RPC batches are only accepted in protocol revision "
            f"2025-03-26 ({shown}); send one message at a time"
        )
    if not items:
        raise InvalidRequest("Invalid Request: an empty batch")
    for item in items:
        if isinstance(item, Request) and item.method == "initialize":
            raise InvalidRequest("Invalid Request: initialize must not be part of a batch")


class BatchAnswers:
    """The answers a batch is waiting for.

    ``request_ids`` are the batch's requests that will be served; ``immediate`` holds the answers
    known at once (members that could not be read, duplicate ids). :meth:`answer` records one
    served request and returns the whole array once the last one is in.
    """

    __slots__ = ("_answers", "_methods", "_waiting")

    def __init__(
        self,
        request_ids: Sequence[RequestId],
        immediate: Sequence[Answer] = (),
        methods: Sequence[str] = (),
    ) -> None:
        self._waiting = {_key(request_id) for request_id in request_ids}
        self._answers: list[Answer] = list(immediate)
        pairs = zip(request_ids, methods, strict=False)  # no methods: shaped by none
        self._methods = {_key(rid): method for rid, method in pairs}
        """The method each served request named: its answer is shaped for the revision by it
        (a ``tools/list`` result of 2025-03-26 has no ``title``, ``outputSchema`` …)."""

    def method_of(self, answer: Answer) -> str | None:
        """The method of the request ``answer`` answers (``None`` for an immediate error)."""
        return None if answer.id is None else self._methods.get(_key(answer.id))

    @property
    def complete(self) -> bool:
        """True once every request has its answer (or needs none)."""
        return not self._waiting

    @property
    def answers(self) -> list[Answer]:
        """What to send back: possibly empty, and then nothing is sent."""
        return self._answers

    def answer(self, request_id: RequestId, response: Answer | None) -> list[Answer] | None:
        """Record the answer to one request of the batch (``None`` when none is due, e.g. it was
        cancelled). Returns every answer once the last one is in, otherwise ``None``."""
        key = _key(request_id)
        if key not in self._waiting:
            return None
        self._waiting.discard(key)
        if response is not None:
            self._answers.append(response)
        return None if self._waiting else self._answers


def _key(request_id: RequestId) -> tuple[type, RequestId]:
    return (str, request_id) if isinstance(request_id, str) else (int, request_id)
