"""Modern per-request _meta validation."""

from __future__ import annotations

from typing import Any

import pytest

from mcpkit.protocol._errors import INVALID_PARAMS, InvalidParams
from mcpkit.protocol._meta import (
    CLIENT_CAPABILITIES_KEY,
    CLIENT_INFO_KEY,
    LOG_LEVEL_KEY,
    LOG_LEVELS,
    PROTOCOL_VERSION_KEY,
    is_modern_request,
    log_allowed,
    log_level_enabled,
    parse_request_meta,
    progress_token_of,
    request_era,
)


def params(**meta: Any) -> dict[str, Any]:
    base: dict[str, Any] = {PROTOCOL_VERSION_KEY: "2026-07-28", CLIENT_CAPABILITIES_KEY: {}}
    base.update(meta)
    return {"name": "t", "_meta": base}


def test_full_meta() -> None:
    p = params(
        **{
            CLIENT_INFO_KEY: {"name": "c", "version": "1.0"},
            LOG_LEVEL_KEY: "warning",
            "progressToken": "tok",
            "traceparent": "00-abc-def-01",
            "tracestate": "k=v",
            "baggage": "a=b",
            "com.example/custom": 1,
        }
    )
    p["_meta"][CLIENT_CAPABILITIES_KEY] = {"elicitation": {}}
    meta = parse_request_meta(p)
    assert meta.protocol_version == "2026-07-28"
    assert meta.client_capabilities == {"elicitation": {}}
    assert meta.client_info == {"name": "c", "version": "1.0"}
    assert meta.log_level == "warning"
    assert meta.progress_token == "tok"
    assert (meta.traceparent, meta.tracestate, meta.baggage) == ("00-abc-def-01", "k=v", "a=b")
    assert meta.raw["com.example/custom"] == 1


def test_minimal_meta() -> None:
    meta = parse_request_meta(params())
    assert meta.client_info is None and meta.log_level is None and meta.progress_token is None
    assert meta.client_capabilities == {}


def expect_invalid(p: Any, *fragments: str) -> None:
    with pytest.raises(InvalidParams) as info:
        parse_request_meta(p)
    assert info.value.code == INVALID_PARAMS
    for fragment in fragments:
        assert fragment in info.value.message


def test_missing_meta() -> None:
    expect_invalid({"name": "t"}, '"_meta"', PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY)
    expect_invalid(None, '"_meta"')


def test_params_not_an_object() -> None:
    expect_invalid([1], '"params"')


def test_meta_not_an_object() -> None:
    expect_invalid({"_meta": "x"}, '"_meta" must be an object')


def test_missing_protocol_version_names_it() -> None:
    p = params()
    del p["_meta"][PROTOCOL_VERSION_KEY]
    expect_invalid(p, f"_meta.{PROTOCOL_VERSION_KEY}", "Missing")


def test_missing_client_capabilities_names_it() -> None:
    p = params()
    del p["_meta"][CLIENT_CAPABILITIES_KEY]
    expect_invalid(p, f"_meta.{CLIENT_CAPABILITIES_KEY}", "Missing")


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        (PROTOCOL_VERSION_KEY, 20260728, "must be a string"),
        (PROTOCOL_VERSION_KEY, None, "must be a string"),
        (CLIENT_CAPABILITIES_KEY, [], "must be an object"),
        (CLIENT_CAPABILITIES_KEY, None, "must be an object"),
        (CLIENT_INFO_KEY, "c", "name"),
        (CLIENT_INFO_KEY, {"name": "c"}, "version"),
        ("progressToken", 1.5, "progressToken"),
        ("progressToken", True, "progressToken"),
        ("progressToken", {"a": 1}, "progressToken"),
    ],
)
def test_wrong_types(key: str, value: Any, fragment: str) -> None:
    expect_invalid(params(**{key: value}), fragment)


@pytest.mark.parametrize("level", ["verbose", "INFO", "", 3, None.__class__.__name__])
def test_unknown_log_level(level: Any) -> None:
    expect_invalid(params(**{LOG_LEVEL_KEY: level}), "log level", "debug")


@pytest.mark.parametrize("level", LOG_LEVELS)
def test_known_log_levels(level: str) -> None:
    assert parse_request_meta(params(**{LOG_LEVEL_KEY: level})).log_level == level


def test_integer_progress_token() -> None:
    assert parse_request_meta(params(progressToken=7)).progress_token == 7


def test_bad_trace_fields_are_ignored_never_fatal() -> None:
    meta = parse_request_meta(params(traceparent=5, tracestate=["x"], baggage=None))
    assert meta.traceparent is None and meta.tracestate is None and meta.baggage is None


def test_is_modern_request() -> None:
    assert is_modern_request(params())
    assert is_modern_request({"_meta": {PROTOCOL_VERSION_KEY: 5}})  # present, even if bad
    assert not is_modern_request(None)
    assert not is_modern_request([])
    assert not is_modern_request({})
    assert not is_modern_request({"_meta": {"progressToken": 1}})
    assert not is_modern_request({"_meta": "x"})


def test_log_level_enabled() -> None:
    assert not log_level_enabled("emergency", None)
    assert log_level_enabled("error", "warning")
    assert log_level_enabled("warning", "warning")
    assert not log_level_enabled("info", "warning")
    assert log_level_enabled("debug", "debug")


@pytest.mark.parametrize(
    ("params", "era"),
    [
        (None, "legacy"),
        ({}, "legacy"),
        ([], "legacy"),
        ({"_meta": {}}, "legacy"),
        ({"_meta": "x"}, "legacy"),
        ({"_meta": {"progressToken": 1}}, "legacy"),
        ({"protocolVersion": "2026-07-28"}, "legacy"),  # initialize's field, not _meta
        ({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}}, "modern"),
        ({"_meta": {PROTOCOL_VERSION_KEY: "1999-01-01"}}, "modern"),  # modern, then -32022
        ({"_meta": {PROTOCOL_VERSION_KEY: None}}, "modern"),  # modern, then -32602
    ],
)
def test_request_era_is_decided_by_the_meta_version_key_alone(params: Any, era: str) -> None:
    assert request_era(params) == era
    assert is_modern_request(params) is (era == "modern")


@pytest.mark.parametrize(
    ("params", "token"),
    [
        (None, None),
        ({"_meta": {"progressToken": 3}}, 3),
        ({"_meta": {"progressToken": "t"}}, "t"),
        ({"_meta": {"progressToken": True}}, None),
        ({"_meta": {"progressToken": 1.5}}, None),
        ({"_meta": "x"}, None),
    ],
)
def test_progress_token_of(params: Any, token: Any) -> None:
    assert progress_token_of(params) == token


def test_log_allowed_differs_per_era_only_without_a_threshold() -> None:
    assert log_allowed("debug", None, "legacy")
    assert not log_allowed("emergency", None, "modern")
    for era in ("legacy", "modern"):
        assert log_allowed("error", "warning", era)  # type: ignore[arg-type]
        assert not log_allowed("info", "warning", era)  # type: ignore[arg-type]


class _Dict(dict[str, Any]):
    """A dict subclass (not what JSON decodes to): the exact-type shortcut leaves it alone."""


INFO = {"name": "c", "version": "1"}
V, CAPS = PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY
META_SHAPES: list[Any] = [
    {"_meta": {V: "2026-07-28", CAPS: {}}},
    {"_meta": {V: "2026-07-28", CAPS: {"x": {}}, CLIENT_INFO_KEY: INFO, "ext/k": 1}},
    {"_meta": {V: "2026-07-28", CAPS: {}, CLIENT_INFO_KEY: None}},
    {"_meta": {V: "2026-07-28", CAPS: {}, CLIENT_INFO_KEY: {"name": "c"}}},
    {"_meta": {V: "2026-07-28", CAPS: {}, CLIENT_INFO_KEY: {"name": 1, "version": "1"}}},
    {"_meta": {V: "2026-07-28", CAPS: {}, CLIENT_INFO_KEY: _Dict(INFO)}},
    {"_meta": {V: "2026-07-28", CAPS: {}, CLIENT_INFO_KEY: []}},
    {"_meta": {V: "2026-07-28", CAPS: {}, LOG_LEVEL_KEY: "info", "traceparent": "t"}},
    {"_meta": {V: "2026-07-28", CAPS: {}, LOG_LEVEL_KEY: "loud"}},
    {"_meta": {V: "2026-07-28", CAPS: {}, "progressToken": 3, "baggage": 1}},
    {"_meta": {V: "2026-07-28", CAPS: {}, "progressToken": True}},
    {"_meta": {V: "2026-07-28", CAPS: _Dict()}},
    {"_meta": {V: "2026-07-28", CAPS: []}},
    {"_meta": {V: "2026-07-28"}},
    {"_meta": {V: 20260728, CAPS: {}}},
    {"_meta": {V: None, CAPS: {}}},
    {"_meta": {CAPS: {}}},
    {"_meta": _Dict({V: "2026-07-28", CAPS: {}})},
    {"_meta": []},
    {"_meta": None},
    {},
    _Dict({"_meta": {V: "2026-07-28", CAPS: {}}}),
    None,
    [],
]


@pytest.mark.parametrize("raw", META_SHAPES)
def test_the_fast_path_parses_as_the_full_checks_do(raw: Any) -> None:
    """``parse_request_meta`` takes the usual ``_meta`` by exact type before the full checks
    (``_parse_request_meta``); both must agree on every input, errors included."""
    from mcpkit.protocol._meta import _parse_request_meta

    def outcome(parse: Any) -> Any:
        try:
            meta = parse(raw)
        except InvalidParams as exc:
            return ("error", exc.message)
        return (meta, meta.raw)

    assert outcome(parse_request_meta) == outcome(_parse_request_meta)
