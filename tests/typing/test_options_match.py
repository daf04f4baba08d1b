"""The option ``TypedDict``\\ s say what the callables they describe take, no more, no less.

They are written out once by hand (generated types would be invisible to a type checker), so
these tests keep them from drifting when an option is added to, or removed from, the real
signature.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from mcpkit.client import Client, ClientOptions
from mcpkit.client.host import Host, HostOptions
from mcpkit.gateway import Gateway, GatewayOptions, GatewayRunOptions
from mcpkit.protocol import UsageError
from mcpkit.server import HttpAppOptions, HttpRunOptions, SamplingOptions, Server, ServerOptions
from mcpkit.server._context import _SAMPLING_OPTIONS
from mcpkit.server._http_entry import RUN_OPTIONS, run_http
from mcpkit.transports.http import HttpOptions


def _keywords(fn: Callable[..., Any]) -> set[str]:
    """The keyword-only parameters of ``fn``."""
    return {
        name
        for name, parameter in inspect.signature(fn).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not name.startswith("_")
    }


def _keys(typed_dict: Any) -> set[str]:
    keys: frozenset[str] = typed_dict.__optional_keys__ | typed_dict.__required_keys__
    assert not typed_dict.__required_keys__, "every option has a default"
    return set(keys)


def test_http_app_options_are_the_fields_of_http_options() -> None:
    assert _keys(HttpAppOptions) == {field.name for field in dataclasses.fields(HttpOptions)}


def test_http_run_options_are_the_app_options_plus_run_http_keywords() -> None:
    assert _keys(HttpRunOptions) - _keys(HttpAppOptions) == _keywords(run_http)
    assert set(RUN_OPTIONS) == _keywords(run_http)


def test_host_options_are_the_host_keywords() -> None:
    assert _keys(HostOptions) == _keywords(Host.__init__)


def test_client_options_are_the_client_keywords() -> None:
    assert _keys(ClientOptions) == _keywords(Client.__init__)


def test_server_options_are_the_server_keywords() -> None:
    assert _keys(ServerOptions) == _keywords(Server.__init__)


def test_sampling_options_are_the_ones_a_sampling_question_maps() -> None:
    assert _keys(SamplingOptions) == set(_SAMPLING_OPTIONS)


def test_gateway_options_are_the_gateway_keywords() -> None:
    assert _keys(GatewayOptions) == _keywords(Gateway.__init__)


def test_gateway_run_options_are_the_app_options_plus_where_it_listens() -> None:
    assert _keys(GatewayRunOptions) == _keys(HttpAppOptions) | {"host", "port"}


def test_run_http_lists_every_option_it_takes_when_one_is_misspelt() -> None:
    with pytest.raises(UsageError) as caught:
        Server("hello").run("http", max_connection_per_peer=3)  # type: ignore[call-overload]
    choices = set(str(caught.value).split("choose from ", 1)[1].split(", "))
    assert choices == _keys(HttpRunOptions)


def test_gateway_run_stdio_refuses_options_instead_of_ignoring_them() -> None:
    gateway = Gateway({})
    with pytest.raises(UsageError) as caught:
        gateway.run("stdio", port=8000)  # type: ignore[call-overload]
    message = str(caught.value)
    assert "gateway.run() serves stdio, which takes no options, but got port=8000" in message
    assert 'gateway.run("http", port=8000)' in message


def test_gateway_run_refuses_an_unknown_transport_instead_of_serving_http() -> None:
    with pytest.raises(UsageError, match="unknown transport 'sse'; use 'stdio' or 'http'"):
        Gateway({}).run("sse")  # type: ignore[call-overload]
