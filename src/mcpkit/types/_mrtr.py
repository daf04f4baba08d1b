"""Multi round-trip requests (2026-07-28, SEP-2322): the ``InputRequiredResult`` a server returns
to ``tools/call``, ``resources/read`` or ``prompts/get`` when it needs the client to elicit,
sample or list roots first, and the pieces the client sends back on the retry.
"""

from __future__ import annotations

import msgspec

from mcpkit.types._base import (
    RESULT_TYPE_INPUT_REQUIRED,
    RESULT_TYPE_KEY,
    InputResponses,
    Meta,
    WireModel,
)
from mcpkit.types._elicitation import ElicitRequest
from mcpkit.types._roots import ListRootsRequest
from mcpkit.types._sampling import CreateMessageRequest

__all__ = [
    "InputRequest",
    "InputRequests",
    "InputRequiredResult",
    "InputResponseRequestParams",
    "InputResponses",
]

InputRequest = CreateMessageRequest | ElicitRequest | ListRootsRequest
"""One thing the server asks of the client, a bare ``{method, params}`` (no id, no jsonrpc)."""

InputRequests = dict[str, InputRequest]
"""Server-chosen keys → input requests. Keys are echoed in ``inputResponses``."""


class InputRequiredResult(
    WireModel, tag_field=RESULT_TYPE_KEY, tag=RESULT_TYPE_INPUT_REQUIRED, kw_only=True
):
    """``resultType: "input_required"``: answer ``input_requests`` and retry the same request
    (with a new JSON-RPC id) carrying ``inputResponses`` and the unchanged ``requestState``."""

    input_requests: InputRequests | None = None
    request_state: str | None = None
    """Opaque to the client; mcpkit servers seal it (integrity-protected)."""
    meta: Meta | None = msgspec.field(default=None, name="_meta")


class InputResponseRequestParams(WireModel, kw_only=True):
    """The MRTR members every retry-capable request's params share."""

    input_responses: InputResponses | None = None
    request_state: str | None = None
    meta: Meta | None = msgspec.field(default=None, name="_meta")
