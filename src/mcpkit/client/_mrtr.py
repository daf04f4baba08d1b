"""The 2026 multi-round-trip request loop (MRTR, basic/patterns/mrtr).

A ``tools/call``, ``resources/read`` or ``prompts/get`` may answer
``{"resultType": "input_required", "inputRequests": {...}, "requestState": "..."}``. The client
then answers every input request and sends the *original* params again with
``inputResponses`` and — byte for byte, only if one was given — ``requestState``. Each retry is
a new JSON-RPC request (a fresh id; the channel allocates one per send). The answers and state
of one round are used for the next retry only.

A result without ``resultType`` is complete (SEP-2322: servers that predate the field); any
value other than ``input_required`` is returned as is (``complete``, or an extension's such as
the Tasks extension's ``task``). Rounds are bounded so a server cannot keep a caller forever.

A retry whose ``requestState`` the server no longer accepts (-32602: it expired while a person
took their time to answer, or the server restarted with another key) is not a dead end: the call
is made again from the original params, once, and its questions are asked again
(:func:`is_stale_state`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from mcpkit.client._errors import InputRequiredLoopExceeded, ServerMisbehaved
from mcpkit.protocol._errors import InvalidParams
from mcpkit.types._base import (
    INPUT_REQUESTS_KEY,
    INPUT_RESPONSES_KEY,
    REQUEST_STATE_KEY,
    RESULT_TYPE_KEY,
)
from mcpkit.types._base import RESULT_TYPE_INPUT_REQUIRED as INPUT_REQUIRED
from mcpkit.types._jsonrpc import JSONObject

__all__ = [
    "DEFAULT_MAX_INPUT_ROUNDS",
    "INPUT_REQUIRED",
    "MRTR_METHODS",
    "InputRequired",
    "check_input_required",
    "is_stale_state",
    "run_input_rounds",
    "strip_round_keys",
]

DEFAULT_MAX_INPUT_ROUNDS: Final = 16
"""Input-required answers followed before giving up on a request."""
MRTR_METHODS: Final = frozenset({"tools/call", "resources/read", "prompts/get"})
"""The only methods a server may answer with ``input_required``."""

logger = logging.getLogger("mcpkit.client")

Send = Callable[[JSONObject], Awaitable[JSONObject]]
Answer = Callable[[str, Any], Awaitable[JSONObject]]
"""``answer(key, input_request) -> result`` for one entry of ``inputRequests``."""


@dataclass(frozen=True, slots=True)
class InputRequired:
    """One 2026 ``input_required`` answer, handed to the caller instead of being followed.

    Plain JSON data, so a caller can keep it anywhere (a LangGraph checkpoint, a database) and
    continue later — even from another process — with ``call_tool_round(...,
    input_responses=..., request_state=self.request_state)``.
    """

    input_requests: dict[str, Any] = field(default_factory=dict)
    """The questions, by key: ``{"method": "elicitation/create", "params": {...}}`` ..."""
    request_state: str | None = None
    """The server's opaque state for the retry; echo it exactly."""


def check_input_required(method: str, result: JSONObject) -> InputRequired:
    """Validate an ``input_required`` result's shape; :class:`ServerMisbehaved` if it is wrong."""
    if method not in MRTR_METHODS:
        raise ServerMisbehaved(
            f"{method} answered input_required, which only tools/call, "
            "resources/read and prompts/get may do"
        )
    requests = result.get(INPUT_REQUESTS_KEY)
    state = result.get(REQUEST_STATE_KEY)
    if requests is None and state is None:
        raise ServerMisbehaved(
            f"{method}: an input_required result must carry inputRequests or requestState"
        )
    if requests is not None and not isinstance(requests, dict):
        raise ServerMisbehaved(f"{method}: inputRequests must be an object keyed by name")
    if state is not None and not isinstance(state, str):
        raise ServerMisbehaved(f"{method}: requestState must be a string")
    return InputRequired(dict(requests or {}), state)


def is_stale_state(exc: InvalidParams, sent: JSONObject) -> bool:
    """Whether ``exc`` answers a retry because of its ``requestState`` (expired, signed by a
    key the server no longer has, …) rather than its arguments.

    Only a retry carrying a state qualifies (the same arguments were accepted by the first
    round). Any -32602 to such a retry counts unless it names an argument: servers word the
    refusal differently (mcpkit says ``Invalid requestState: expired`` with ``data.reason``).
    """
    if REQUEST_STATE_KEY not in sent:
        return False
    data = exc.data if isinstance(exc.data, dict) else {}
    return "uri" not in data and "field" not in data and "path" not in data


def strip_round_keys(params: JSONObject) -> JSONObject:
    """``params`` without the keys of a retry (``inputResponses``, ``requestState``): what a
    call's first round sends."""
    return {k: v for k, v in params.items() if k not in (INPUT_RESPONSES_KEY, REQUEST_STATE_KEY)}


async def run_input_rounds(
    method: str,
    params: JSONObject,
    send: Send,
    answer: Answer,
    *,
    max_rounds: int = DEFAULT_MAX_INPUT_ROUNDS,
    first: JSONObject | None = None,
) -> tuple[JSONObject, int]:
    """Send ``params`` and follow ``input_required`` answers; return (final result, rounds).

    ``rounds`` is how many retries were needed (0 when the first answer was final): callers must
    not cache a result that came from a retry. ``first`` is the answer to ``params`` when the
    caller already sent them (without the round keys, see :func:`strip_round_keys`).
    """
    base = strip_round_keys(params)
    current = base
    restarted = False
    for rounds in range(max_rounds + 1):
        if first is not None:
            result, first = first, None
        else:
            try:
                result = await send(current)
            except InvalidParams as exc:
                if restarted or not is_stale_state(exc, current):
                    raise
                logger.warning(
                    "%s: the server refused the retry's requestState (%s); calling again from "
                    "the start, so its questions are asked again",
                    method,
                    exc.message,
                )
                restarted = True
                result = await send(base)
        if result.get(RESULT_TYPE_KEY) != INPUT_REQUIRED:
            return result, rounds
        pending = check_input_required(method, result)
        requests, state = pending.input_requests, pending.request_state
        current = dict(base)
        if requests:
            current[INPUT_RESPONSES_KEY] = {
                key: await answer(key, request) for key, request in requests.items()
            }
        if state is not None:
            current[REQUEST_STATE_KEY] = state
    raise InputRequiredLoopExceeded(method, max_rounds)
