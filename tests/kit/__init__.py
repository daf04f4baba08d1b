"""The transport kit: one feature server, one way to reach it over every transport, and a
conformance check any transport must pass.

* :mod:`kit.feature_server` — a server exercising every server feature (run it as a script to
  serve it on stdio or HTTP);
* :mod:`kit.transports` — ``TRANSPORTS`` by ``ERAS`` (``STREAMING_TRANSPORTS`` and
  ``QUESTION_ROUTES`` say which pairs carry messages during a request, and questions to the
  client) and :func:`kit.transports.open_client`,
  a connected :class:`~mcpkit.client.Client` to that server over memory, a real stdio
  subprocess, or a real loopback HTTP server (JSON or SSE answers);
* :mod:`kit.conformance` — :func:`kit.conformance.check_core_rules`, the rules every transport
  must keep, written against a connected client so a new transport (e.g. a Redis-backed
  multi-worker HTTP deployment) only has to provide the connection.
"""
