"""One error per meaning in both eras, for code that maps errors to values.

A tool that reports a missing resource sends -32002 to a handshake-era client but -32602 with
``data.uri`` to a 2026-07-28 client (that revision folded "not found" into invalid params).
``mcpkit.client`` turns both into :class:`ResourceNotFound` for ``resources/read``; here the same
is done for tool calls, so ``on_error={ResourceNotFound: default}`` works whatever the server's
era.
"""

from __future__ import annotations

from mcpkit.client import InputValidationError, OutputValidationError
from mcpkit.protocol import InvalidParams, ResourceNotFound

__all__ = ["MODEL_ERRORS", "era_neutral"]

MODEL_ERRORS: tuple[type[Exception], ...] = (
    InputValidationError,
    OutputValidationError,
    InvalidParams,
    ResourceNotFound,
)
"""Errors a model can act on (fix its arguments, try another id, report the tool's bad
answer): in an agent loop they reach the model as error tool messages, like a tool's own
``isError`` result, instead of ending the run (``load_tools(errors_to_model=False)`` raises)."""


def era_neutral(exc: BaseException) -> BaseException:
    """``exc``, or the :class:`ResourceNotFound` it stands for (-32602 with ``data.uri``)."""
    if (
        isinstance(exc, InvalidParams)
        and not isinstance(exc, ResourceNotFound)
        and isinstance(exc.data, dict)
        and "uri" in exc.data
    ):
        return ResourceNotFound(exc.message, exc.data, code=exc.code, remote=exc.remote)
    return exc
