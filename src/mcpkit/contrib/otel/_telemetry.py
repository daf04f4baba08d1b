"""The hooks: one span, one duration and the in-flight count per request, on both sides.

:class:`Telemetry` holds the tracer, the meter's instruments and the propagator, and provides
the two hooks mcpkit's core calls when set: :meth:`Telemetry.serve` (``server.request_hook``)
and :meth:`Telemetry.send` (``client.request_hook``). Anything that serves requests its own way
(a gateway) calls :meth:`Telemetry.serve` around each request to get the same span and metrics.

Server spans take the parent carried in ``params._meta`` (the client's span) and link the
ambient context, when there is one, as the conventions ask; with no ``_meta`` context the
ambient context is the parent. Client spans inject their own context into ``params._meta``.
"""

from __future__ import annotations

import time
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Final

from opentelemetry import metrics, propagate, trace
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.propagators.textmap import TextMapPropagator
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

import mcpkit
from mcpkit.contrib.otel import _attributes as attr
from mcpkit.contrib.otel._propagation import extract_from_meta, inject_into_params
from mcpkit.protocol import JSONRPCError, declared_version, is_modern_request
from mcpkit.types import RESULT_TYPE_INPUT_REQUIRED, RESULT_TYPE_KEY, JSONObject, Request

__all__ = ["DURATION_BUCKETS", "INSTRUMENTATION_NAME", "Telemetry"]

INSTRUMENTATION_NAME: Final = "mcpkit"
DURATION_BUCKETS: Final = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.05,
    0.1,
    0.2,
    0.5,
    1.0,
    2.0,
    5.0,
    10.0,
    30.0,
    60.0,
    120.0,
    300.0,
)
"""Seconds: MCP calls range from sub-millisecond lookups to minutes-long tools."""

_METRIC_KEYS: Final = (
    attr.METHOD,
    attr.TOOL_NAME,
    attr.PROMPT_NAME,
    attr.PROTOCOL_VERSION,
    attr.ERROR_TYPE,
    attr.SERVER_NAME,
)
"""Span attributes that are also metric attributes (bounded cardinality: no URI, id, session)."""


class Telemetry:
    """Tracer, instruments and propagator for mcpkit's request hooks.

    ``tracer_provider``, ``meter_provider`` and ``propagator`` default to OpenTelemetry's
    global ones (looked up when the :class:`Telemetry` is made).
    """

    def __init__(
        self,
        *,
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
        propagator: TextMapPropagator | None = None,
    ) -> None:
        self.tracer = trace.get_tracer(
            INSTRUMENTATION_NAME, mcpkit.__version__, tracer_provider=tracer_provider
        )
        meter = metrics.get_meter(
            INSTRUMENTATION_NAME, mcpkit.__version__, meter_provider=meter_provider
        )
        self.propagator = propagator or propagate.get_global_textmap()
        self._fields = frozenset(self.propagator.fields)
        self.server_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="Time to serve an MCP request, from receipt to its result or error; "
            "its count is the number of requests",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        self.client_duration = meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="Time from sending an MCP request to its result or error",
            explicit_bucket_boundaries_advisory=list(DURATION_BUCKETS),
        )
        # In flight: plain counters read when metrics are collected, rather than two SDK
        # measurements per request (each costs as much as a histogram record).
        self.server_active: Counter[str] = Counter()
        self.client_active: Counter[str] = Counter()
        meter.create_observable_up_down_counter(
            "mcpkit.server.active_requests",
            callbacks=[lambda _options: _in_flight(self.server_active)],
            unit="{request}",
            description="MCP requests being served now",
        )
        meter.create_observable_up_down_counter(
            "mcpkit.client.active_requests",
            callbacks=[lambda _options: _in_flight(self.client_active)],
            unit="{request}",
            description="MCP requests sent and not answered yet",
        )
        self._servers: weakref.WeakSet[Any] = weakref.WeakSet()
        """Servers that started a legacy session (their sessions are what the gauge counts)."""
        meter.create_observable_up_down_counter(
            "mcpkit.server.active_sessions",
            callbacks=[self._observe_sessions],
            unit="{session}",
            description="Open legacy (handshake-era) Streamable HTTP sessions",
        )

    def watch_sessions(self, server: Any) -> None:
        """Count ``server``'s open sessions in the session gauge (``instrument`` does this)."""
        self._servers.add(server)

    def _observe_sessions(self, options: CallbackOptions) -> Iterable[Observation]:
        for server in list(self._servers):
            count = getattr(server, "open_sessions", None)
            if isinstance(count, int):
                name = getattr(server, "name", None)
                yield Observation(count, {"mcpkit.server.name": str(name)})

    # -- the server side -----------------------------------------------------------------------

    async def serve(
        self,
        server: Any,
        request: Request,
        connection: Any,
        serve: Callable[[], Awaitable[JSONObject]],
    ) -> JSONObject:
        """The server hook: a ``SERVER`` span around ``serve()``, its duration, in flight."""
        method = request.method
        params = request.params
        meta = params.get("_meta") if params else None
        attributes = attr.request_attributes(method, params)
        modern = is_modern_request(params)
        if modern:
            attributes[attr.ERA] = "modern"
            version = declared_version(params)
            if version is not None:
                attributes[attr.PROTOCOL_VERSION] = version
        else:
            attributes[attr.ERA] = "legacy"
            if connection is not None:
                session_id = getattr(connection, "session_id", None)
                if isinstance(session_id, str):
                    attributes[attr.SESSION_ID] = session_id
                if method == "initialize":
                    self._servers.add(server)
        if request.id is not None:
            attributes[attr.REQUEST_ID] = str(request.id)
        parent = extract_from_meta(self.propagator, meta, self._fields)
        links: list[Link] = []
        if parent is not None:
            ambient = trace.get_current_span().get_span_context()
            if ambient.is_valid:
                links.append(Link(ambient))
        started = time.perf_counter()
        self.server_active[method] += 1
        error: str | None = None
        try:
            with self.tracer.start_as_current_span(
                attr.span_name(method, params),
                context=parent,
                kind=SpanKind.SERVER,
                attributes=attributes,
                links=links,
                record_exception=False,
                set_status_on_exception=False,
            ) as span:
                try:
                    result = await serve()
                except BaseException as exc:
                    error = attr.error_type(exc)
                    _fail(span, exc, error)
                    raise
                if not modern and attr.PROTOCOL_VERSION not in attributes:
                    version = getattr(connection, "protocol_version", None)
                    if isinstance(version, str):  # known once initialize has been answered
                        attributes[attr.PROTOCOL_VERSION] = version
                        span.set_attribute(attr.PROTOCOL_VERSION, version)
                error = _finish(span, method, result)
                return result
        finally:
            self.server_active[method] -= 1
            if error is not None:
                attributes[attr.ERROR_TYPE] = error
            self.server_duration.record(time.perf_counter() - started, _metric(attributes))

    # -- the client side -----------------------------------------------------------------------

    async def send(
        self,
        client: Any,
        method: str,
        params: JSONObject | None,
        send: Callable[[JSONObject | None], Awaitable[JSONObject]],
    ) -> JSONObject:
        """The client hook: a ``CLIENT`` span whose context goes out in ``params._meta``."""
        attributes = attr.request_attributes(method, params)
        negotiated = _negotiated(client)
        if negotiated is not None:
            attributes[attr.ERA] = negotiated.era
            attributes[attr.PROTOCOL_VERSION] = negotiated.protocol_version
            if negotiated.session_id:
                attributes[attr.SESSION_ID] = negotiated.session_id
        name = getattr(client, "name", None)
        if isinstance(name, str):
            attributes[attr.SERVER_NAME] = name
        started = time.perf_counter()
        self.client_active[method] += 1
        error: str | None = None
        try:
            with self.tracer.start_as_current_span(
                attr.span_name(method, params),
                kind=SpanKind.CLIENT,
                attributes=attributes,
                record_exception=False,
                set_status_on_exception=False,
            ) as span:
                try:
                    result = await send(inject_into_params(self.propagator, params))
                except BaseException as exc:
                    error = attr.error_type(exc)
                    _fail(span, exc, error)
                    raise
                error = _finish(span, method, result)
                return result
        finally:
            self.client_active[method] -= 1
            if error is not None:
                attributes[attr.ERROR_TYPE] = error
            self.client_duration.record(time.perf_counter() - started, _metric(attributes))


def _fail(span: trace.Span, exc: BaseException, error: str) -> None:
    span.set_attribute(attr.ERROR_TYPE, error)
    if isinstance(exc, JSONRPCError):
        span.set_attribute(attr.STATUS_CODE, str(exc.code))
        span.set_status(Status(StatusCode.ERROR, exc.message))
        return
    if isinstance(exc, Exception):
        span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, str(exc) or type(exc).__name__))


def _finish(span: trace.Span, method: str, result: JSONObject) -> str | None:
    """Mark a result that reports a failure (``isError``) or asks for input; the error type."""
    if result.get(RESULT_TYPE_KEY) == RESULT_TYPE_INPUT_REQUIRED:
        span.set_attribute(attr.RESULT_TYPE, "input_required")
    error = attr.result_error_type(method, result)
    if error is not None:
        span.set_attribute(attr.ERROR_TYPE, error)
        span.set_status(Status(StatusCode.ERROR, "the tool reported an error (isError)"))
    return error


def _in_flight(counts: Counter[str]) -> Iterable[Observation]:
    return [Observation(count, {attr.METHOD: method}) for method, count in list(counts.items())]


def _metric(attributes: dict[str, Any]) -> dict[str, Any]:
    return {key: attributes[key] for key in _METRIC_KEYS if key in attributes}


def _negotiated(client: Any) -> Any:
    try:
        return client.negotiated
    except Exception:  # not connected (the send will say so)
        return None
