"""JSON-RPC batches: only 2025-03-26 takes them, and a batch is answered with one array."""

from __future__ import annotations

import pytest

from mcpkit.protocol._batch import BATCH_REVISIONS, BatchAnswers, accepts_batches, check_batch
from mcpkit.protocol._codec import decode_message
from mcpkit.protocol._errors import INVALID_REQUEST, InvalidRequest, MessageDecodeError
from mcpkit.types._jsonrpc import ErrorObject, ErrorResponse, Notification, Request, Response
from mcpkit.types._versions import ALL_VERSIONS


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_only_2025_03_26_accepts_batches(version: str) -> None:
    assert accepts_batches(version) is (version == "2025-03-26")
    assert set(BATCH_REVISIONS) == {"2025-03-26"}


def test_no_batches_before_a_revision_is_known() -> None:
    assert not accepts_batches(None)
    with pytest.raises(InvalidRequest, match="no revision negotiated"):
        check_batch([Request(1, "ping")], None)


@pytest.mark.parametrize("version", ["2024-11-05", "2025-06-18", "2025-11-25", "2026-07-28"])
def test_other_revisions_refuse_with_32600(version: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        check_batch([Request(1, "ping")], version)
    assert info.value.code == INVALID_REQUEST and version in info.value.message


def test_an_empty_batch_and_initialize_in_a_batch_are_refused() -> None:
    with pytest.raises(InvalidRequest, match="empty"):
        check_batch([], "2025-03-26")
    with pytest.raises(InvalidRequest, match="initialize"):
        check_batch([Request(1, "initialize", {})], "2025-03-26")
    check_batch([Request(1, "ping"), Notification("notifications/x")], "2025-03-26")


def test_the_codec_hands_over_a_batch_member_by_member() -> None:
    data = (
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"},'
        b'{"jsonrpc":"2.0","method":"notifications/initialized"},'
        b'{"jsonrpc":"1.0","id":3,"method":"ping"}, 7, [1]]'
    )
    with pytest.raises(MessageDecodeError) as info:
        decode_message(data)
    error = info.value
    assert error.error.code == INVALID_REQUEST  # still an error for anyone not taking batches
    assert error.batch is not None
    first, second, third, fourth, fifth = error.batch
    assert first == Request(1, "ping")
    assert second == Notification("notifications/initialized")
    assert isinstance(third, MessageDecodeError) and third.request_id == 3
    assert isinstance(fourth, MessageDecodeError) and "object" in fourth.error.message
    assert isinstance(fifth, MessageDecodeError) and "inside a batch" in fifth.error.message


def test_a_single_message_has_no_batch() -> None:
    with pytest.raises(MessageDecodeError) as info:
        decode_message(b'{"jsonrpc":"2.0","id":1}')
    assert info.value.batch is None


class TestBatchAnswers:
    def test_the_array_comes_once_every_request_is_answered(self) -> None:
        answers = BatchAnswers([1, "a"])
        assert not answers.complete
        assert answers.answer(1, Response(1, {})) is None
        done = answers.answer("a", Response("a", {"x": 1}))
        assert done == [Response(1, {}), Response("a", {"x": 1})]
        assert answers.complete

    def test_immediate_answers_come_first_and_a_cancelled_request_adds_none(self) -> None:
        bad = ErrorResponse(None, ErrorObject(-32600, "bad member"))
        answers = BatchAnswers([2], [bad])
        assert answers.answer(2, None) == [bad]

    def test_a_batch_needing_no_answer_is_complete_at_once(self) -> None:
        answers = BatchAnswers([])
        assert answers.complete and answers.answers == []

    def test_ids_are_exact_and_answered_once(self) -> None:
        answers = BatchAnswers([1])
        assert answers.answer("1", Response("1", {})) is None  # not a member
        assert not answers.complete
        assert answers.answer(1, Response(1, {})) == [Response(1, {})]
        assert answers.answer(1, Response(1, {})) is None  # already answered
        assert answers.answers == [Response(1, {})]
