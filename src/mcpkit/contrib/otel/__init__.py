"""OpenTelemetry tracing and metrics for mcpkit servers, clients and hosts (``mcpkit[otel]``).

    from mcpkit.contrib.otel import instrument

    instrument()          # every Server, Client and Host in this process
    instrument(server)    # or just this one (a Server, Client or Host)

Each request gets a span (``SERVER`` when served, ``CLIENT`` when sent) named and attributed
per the OpenTelemetry conventions for MCP; the client puts its span's W3C trace context in the
request's ``params._meta`` (``traceparent``, ``tracestate``, ``baggage``) and the server makes it
the parent of its own span, so one trace follows a call across processes, in both eras and over
every transport. Metrics: ``mcp.server.operation.duration`` and
``mcp.client.operation.duration`` (histograms, seconds, by method, tool or prompt, protocol
version and ``error.type``), in-flight requests, and open legacy HTTP sessions.

Nothing here runs until :func:`instrument` is called: mcpkit itself never imports
OpenTelemetry, and an uninstrumented server or client pays one attribute check per request.
Spans and metrics go to the global providers unless others are given.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import metrics, trace
from opentelemetry.propagators.textmap import TextMapPropagator

from mcpkit.client import Client
from mcpkit.client.host import Host
from mcpkit.contrib.otel._telemetry import Telemetry
from mcpkit.protocol import UsageError
from mcpkit.server import Server

__all__ = ["Telemetry", "instrument", "uninstrument"]

_made: dict[tuple[Any, Any, Any], Telemetry] = {}
"""The :class:`Telemetry` of each provider set ``instrument`` was given: a server and a client
instrumented with the same providers share one (an observable instrument registered twice
under one name would keep only the first one's callback)."""


def instrument(
    target: Server | Client | Host | None = None,
    *,
    tracer_provider: trace.TracerProvider | None = None,
    meter_provider: metrics.MeterProvider | None = None,
    propagator: TextMapPropagator | None = None,
) -> Telemetry:
    """Trace and measure ``target``'s requests, or every server's, client's and host's.

    Without a target the hooks are set on the classes, so objects made before and after are
    covered (an object's own hook wins). A :class:`Host` gives the hook to each client it makes,
    restarts included: a span per routed call. Returns the :class:`Telemetry`, whose
    :meth:`~Telemetry.serve` a custom request loop (a gateway) can call itself.
    """
    key = (tracer_provider, meter_provider, propagator)
    telemetry = _made.get(key)
    if telemetry is None:  # one per provider set: instruments are registered once per meter
        telemetry = _made[key] = Telemetry(
            tracer_provider=tracer_provider, meter_provider=meter_provider, propagator=propagator
        )
    if target is None:
        Server.request_hook = telemetry.serve
        Client.request_hook = telemetry.send
        Host.request_hook = telemetry.send
    elif isinstance(target, Server):
        target.request_hook = telemetry.serve
        telemetry.watch_sessions(target)
    elif isinstance(target, Client):
        target.request_hook = telemetry.send
    elif isinstance(target, Host):
        target.request_hook = telemetry.send
        for supervisor in target.servers.values():
            try:
                supervisor.client.request_hook = telemetry.send  # already connected
            except Exception:
                continue  # not up yet: the host gives the hook when it makes the client
    else:
        raise UsageError(f"instrument() takes a Server, Client or Host, not {type(target)!r}")
    return telemetry


def uninstrument(target: Server | Client | Host | None = None) -> None:
    """Remove the hooks :func:`instrument` set (from the classes when ``target`` is ``None``)."""
    owners: tuple[Any, ...] = (Server, Client, Host) if target is None else (target,)
    for owner in owners:
        if target is None:
            owner.request_hook = None
        else:
            owner.__dict__.pop("request_hook", None)
    if isinstance(target, Host):
        for supervisor in target.servers.values():
            try:
                supervisor.client.__dict__.pop("request_hook", None)
            except Exception:
                continue
