"""One error per meaning in both eras, for code that maps errors to values.

A tool that reports a missing resource sends -32002 to a handshake-era client but -32602 with
``data.uri`` to a 2026-07-28 client (that revision folded "not found" into invalid params).
``mcpkit.client`` turns both into :class:`ResourceNotFound` for ``resources/read``; here the same
is done for tool calls, so ``on_error={ResourceNotFound: default}`` works whatever the server's
era.
"""

from __future__ import annotations

from mcpkit.protocol.errors import InvalidParams, ResourceNotFound

__all__ = ["era_neutral"]


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
