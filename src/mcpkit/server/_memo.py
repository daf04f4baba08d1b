"""``ctx.memo``: a tool's own partial results, carried across 2026-07-28 rounds.

In 2026-07-28 a tool that asks a question (``ctx.elicit``, ``ctx.sample`` …) ends the round; the
client answers and retries, and the body runs again *from the top*. Work done before the
question would run once per round. ``await ctx.memo(key, compute)`` runs ``compute`` the first
time and returns the stored value on every later round, so expensive work before a question
runs once::

    quote = await ctx.memo("quote", lambda: price_everything(cart))   # runs once
    answer = await ctx.elicit(f"Pay {quote['total']}?", Confirm)       # ends round 1

Where the value lives:

* a 2026 MRTR round: sealed in ``requestState`` next to the answers (signed, bound to this exact
  request and caller, expiring with it), so any worker can serve the retry;
* a 2026 task: kept by the task's job while the body re-runs after ``tasks/update``;
* a legacy session: the body runs once anyway; ``memo`` simply calls ``compute``.

Values are JSON (dicts, lists, strings, numbers, booleans, ``None``): the first round returns the
same JSON a later round decodes, so both rounds see equal values; ``as_type=`` converts it back
(a dataclass, ``msgspec.Struct``, ``TypedDict`` …). The state is signed, not encrypted: never memo
secrets. All entries of one request together may take :data:`MAX_MEMO_BYTES` of JSON; past that
:class:`MemoTooLarge` says what to do instead (keep the data server-side, memo a handle).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar

import msgspec

from mcpkit.protocol._errors import UsageError

__all__ = ["MAX_MEMO_BYTES", "MemoTooLarge", "remember"]

MAX_MEMO_BYTES: Final = 16 * 1024
"""JSON bytes all memo entries of one request may take (they travel in every 2026 retry)."""

T = TypeVar("T")


class MemoTooLarge(UsageError):
    """The memo entries of one request would exceed :data:`MAX_MEMO_BYTES`."""


async def remember(
    memo: dict[str, Any],
    key: str,
    compute: Callable[[], Any],
    as_type: type[T] | None = None,
) -> Any:
    """The value stored under ``key`` in ``memo``, computing and storing it the first time."""
    if not isinstance(key, str) or not key:
        raise UsageError("ctx.memo needs a non-empty string key")
    if key not in memo:
        value = compute()
        if inspect.isawaitable(value):
            value = await value
        try:
            encoded = msgspec.json.encode(value)
        except (TypeError, msgspec.EncodeError) as exc:
            raise UsageError(
                f"ctx.memo({key!r}): the value must be JSON-encodable (it is sent in "
                f"requestState): {exc}"
            ) from None
        size = len(msgspec.json.encode({**memo, key: msgspec.Raw(encoded)}))
        if size > MAX_MEMO_BYTES:
            raise MemoTooLarge(
                f"ctx.memo({key!r}): the memo would take {size} bytes of JSON, over the "
                f"{MAX_MEMO_BYTES}-byte bound (it travels in requestState on every 2026 round); "
                "keep large data server-side (a cache, a file, a database) and memo its key"
            )
        memo[key] = msgspec.json.decode(encoded)
    stored = memo[key]
    if as_type is None:
        return stored
    try:
        return msgspec.convert(stored, as_type, strict=False)
    except msgspec.ValidationError as exc:
        raise UsageError(f"ctx.memo({key!r}): the stored value is not {as_type!r}: {exc}") from None
