"""Version negotiation in both eras."""

from __future__ import annotations

import pytest

from mcpkit.protocol._errors import (
    UNSUPPORTED_PROTOCOL_VERSION,
    RemoteProtocolError,
    UnsupportedProtocolVersion,
    UsageError,
)
from mcpkit.protocol._versions import (
    accept_legacy_offer,
    check_modern_version,
    choose_client_version,
    negotiate_legacy,
    unsupported_version_error,
)
from mcpkit.types._versions import ALL_VERSIONS, LEGACY_VERSIONS, MODERN_VERSIONS


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_legacy_supported_version_is_echoed(version: str) -> None:
    assert negotiate_legacy(version, ALL_VERSIONS) == version


@pytest.mark.parametrize("requested", ["1900-01-01", "2099-01-01", "", "garbage", "2026-07-28"])
def test_legacy_unknown_version_gets_a_counter_offer_not_an_error(requested: str) -> None:
    assert negotiate_legacy(requested, ALL_VERSIONS) == "2025-11-25"


def test_legacy_counter_offer_is_the_latest_we_support_in_any_order() -> None:
    assert (
        negotiate_legacy("2099-01-01", ["2025-03-26", "2024-11-05", "2025-06-18"]) == "2025-06-18"
    )
    assert negotiate_legacy("2025-11-25", ["2024-11-05"]) == "2024-11-05"


def test_modern_only_server_names_its_versions_on_initialize() -> None:
    with pytest.raises(UnsupportedProtocolVersion) as info:
        negotiate_legacy("2025-11-25", MODERN_VERSIONS)
    assert info.value.supported == ["2026-07-28"]
    assert info.value.requested == "2025-11-25"
    assert "2026-07-28" in info.value.message


def test_modern_supported_version_passes() -> None:
    check_modern_version("2026-07-28", ALL_VERSIONS)


@pytest.mark.parametrize("requested", ["1900-01-01", "2025-11-25", "draft", ""])
def test_modern_unsupported_version_is_32022_with_data(requested: str) -> None:
    with pytest.raises(UnsupportedProtocolVersion) as info:
        check_modern_version(requested, ["2026-07-28", "2025-11-25"])
    err = info.value
    assert err.code == UNSUPPORTED_PROTOCOL_VERSION == -32022
    assert err.data == {"supported": ["2026-07-28", "2025-11-25"], "requested": requested}
    wire = err.to_error_object()
    assert wire.code == -32022 and wire.data["requested"] == requested


def test_modern_version_the_server_chose_not_to_support() -> None:
    with pytest.raises(UnsupportedProtocolVersion):
        check_modern_version("2026-07-28", LEGACY_VERSIONS)


def test_choose_client_version() -> None:
    assert choose_client_version(["2026-07-28", "2025-11-25"], ALL_VERSIONS) == "2026-07-28"
    assert choose_client_version(["2025-06-18", "2099-01-01"], ALL_VERSIONS) == "2025-06-18"
    assert choose_client_version(["2099-01-01"], ALL_VERSIONS) is None
    assert choose_client_version(ALL_VERSIONS, ALL_VERSIONS, era="legacy") == "2025-11-25"
    assert choose_client_version(LEGACY_VERSIONS, ALL_VERSIONS, era="modern") is None


def test_client_accepts_a_supported_offer_and_rejects_others() -> None:
    assert accept_legacy_offer("2025-06-18", LEGACY_VERSIONS) == "2025-06-18"
    for offered in ("2099-01-01", None, 5, "2026-07-28"):
        with pytest.raises(RemoteProtocolError) as info:
            accept_legacy_offer(offered, ALL_VERSIONS)
        assert "does not support" in str(info.value)
    with pytest.raises(UsageError):
        accept_legacy_offer("2025-06-18", [])


def test_revisions_are_ordered_by_release_not_by_text() -> None:
    from mcpkit.types._versions import at_least, newest, release_key, revision_rank

    assert [revision_rank(v) for v in ALL_VERSIONS] == list(range(len(ALL_VERSIONS)))
    assert at_least("2025-06-18", "2025-06-18") and at_least("2026-07-28", "2024-11-05")
    assert not at_least("2025-03-26", "2025-06-18")
    assert newest(["2025-03-26", "2026-07-28", "2024-11-05"]) == "2026-07-28"
    with pytest.raises(ValueError, match="unknown protocol revision"):
        revision_rank("2099-01-01")  # a string comparison would call this "newest"
    with pytest.raises(ValueError):
        at_least("v2", "2024-11-05")
    # a name we do not know (a newer revision a peer offers) sorts after every known one
    assert newest(["2026-07-28", "2027-01-01", "2024-11-05"]) == "2027-01-01"
    assert sorted(["2027-01-01", "2026-07-28"], key=release_key) == ["2026-07-28", "2027-01-01"]


def test_the_32022_listing_puts_a_name_we_do_not_know_first() -> None:
    error = unsupported_version_error("x", ["2026-07-28", "2024-11-05", "custom"])
    assert error.data["supported"] == ["custom", "2026-07-28", "2024-11-05"]
