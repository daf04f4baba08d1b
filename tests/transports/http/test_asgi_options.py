"""Contradictory HTTP options are refused where they are given, not at the first request."""

from __future__ import annotations

import pytest

from mcpkit.protocol._errors import UsageError
from mcpkit.server import Server
from mcpkit.transports.http._server.asgi import HttpOptions


def test_legacy_sse_with_stateless_is_refused_at_construction() -> None:
    with pytest.raises(UsageError, match="legacy_sse=True and stateless=True contradict"):
        HttpOptions(legacy_sse=True, stateless=True)


def test_the_server_entry_point_refuses_it_too() -> None:
    with pytest.raises(UsageError, match="drop one of them"):
        Server("x").http_app(legacy_sse=True, stateless=True)


def test_each_alone_is_fine() -> None:
    assert HttpOptions(legacy_sse=True).legacy_sse
    assert HttpOptions(stateless=True).stateless
