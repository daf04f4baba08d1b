"""W3C trace context in ``params._meta``: injected by the client, extracted by the server.

MCP (SEP-414, in the 2026-07-28 revision) reserves the unprefixed ``_meta`` keys ``traceparent``,
``tracestate`` and ``baggage`` for this; earlier revisions allow any ``_meta`` key, so the same
keys are carried in both eras. The configured OpenTelemetry propagator does the formatting (W3C
Trace Context and Baggage by default), so a deployment that chose another one keeps it.

A value that is not a string is ignored rather than failing the request: a broken trace header
starts a new trace, it never breaks a call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from opentelemetry.context import Context
from opentelemetry.propagators.textmap import Getter, TextMapPropagator

__all__ = ["extract_from_meta", "inject_into_params"]


class _MetaGetter(Getter[Mapping[str, Any]]):
    """Reads string values only: ``_meta`` is JSON and may hold anything at any key."""

    def get(self, carrier: Mapping[str, Any], key: str) -> list[str] | None:
        value = carrier.get(key)
        return [value] if isinstance(value, str) else None

    def keys(self, carrier: Mapping[str, Any]) -> list[str]:
        return [key for key in carrier if isinstance(key, str)]


_GETTER = _MetaGetter()


def extract_from_meta(
    propagator: TextMapPropagator, meta: Any, fields: frozenset[str]
) -> Context | None:
    """The remote parent context carried in ``meta``, or ``None`` when it carries none.

    ``fields`` is ``propagator.fields``, computed once by the caller (a composite propagator
    builds that set anew on every access).
    """
    if not isinstance(meta, dict) or fields.isdisjoint(meta):
        return None
    return propagator.extract(meta, getter=_GETTER)


def inject_into_params(propagator: TextMapPropagator, params: Any) -> Any:
    """``params`` with the current context in ``_meta`` (a copy; the caller's dict is kept)."""
    carrier: dict[str, str] = {}
    propagator.inject(carrier)
    if not carrier:
        return params
    out = dict(params) if isinstance(params, dict) else {}
    meta = out.get("_meta")
    out["_meta"] = {**meta, **carrier} if isinstance(meta, dict) else carrier
    return out
