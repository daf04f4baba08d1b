"""Progress rules for both sides."""

from __future__ import annotations

import pytest

from mcpkit.protocol._errors import InvalidParams, LocalProtocolError, UsageError
from mcpkit.protocol._progress import ProgressSender, ProgressTracker, ProgressUpdate


def test_tracker_delivers_increasing_progress_for_active_tokens() -> None:
    tracker = ProgressTracker()
    tracker.start("tok", request_id=5)
    assert tracker.is_active("tok")
    update = tracker.receive({"progressToken": "tok", "progress": 1, "total": 10, "message": "m"})
    assert update == ProgressUpdate("tok", 5, 1, 10, "m")
    assert tracker.receive({"progressToken": "tok", "progress": 2.5}) == ProgressUpdate(
        "tok", 5, 2.5
    )


def test_non_increasing_progress_is_dropped() -> None:
    tracker = ProgressTracker()
    tracker.start(1)
    assert tracker.receive({"progressToken": 1, "progress": 5}) is not None
    assert tracker.receive({"progressToken": 1, "progress": 5}) is None
    assert tracker.receive({"progressToken": 1, "progress": 4}) is None
    assert tracker.receive({"progressToken": 1, "progress": 6}) is not None


def test_unknown_and_finished_tokens_are_dropped() -> None:
    tracker = ProgressTracker()
    assert tracker.receive({"progressToken": "nope", "progress": 1}) is None
    tracker.start("t")
    tracker.finish("t")
    assert not tracker.is_active("t")
    assert tracker.receive({"progressToken": "t", "progress": 1}) is None
    tracker.finish("t")  # idempotent


def test_string_and_integer_tokens_are_distinct() -> None:
    tracker = ProgressTracker()
    tracker.start(1)
    assert tracker.receive({"progressToken": "1", "progress": 1}) is None


def test_token_uniqueness_among_active_requests() -> None:
    tracker = ProgressTracker(limit=2)
    tracker.start("a")
    with pytest.raises(LocalProtocolError, match="already in use"):
        tracker.start("a")
    tracker.start("b")
    with pytest.raises(LocalProtocolError, match="limit"):
        tracker.start("c")
    tracker.finish("a")
    tracker.start("a")  # reusable once finished
    with pytest.raises(UsageError):
        tracker.start(1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "params",
    [
        None,
        {"progress": 1},
        {"progressToken": None, "progress": 1},
        {"progressToken": True, "progress": 1},
        {"progressToken": "t"},
        {"progressToken": "t", "progress": "1"},
        {"progressToken": "t", "progress": True},
        {"progressToken": "t", "progress": 1, "total": "10"},
        {"progressToken": "t", "progress": 1, "message": 5},
    ],
)
def test_malformed_progress_raises_for_logging(params: dict[str, object] | None) -> None:
    tracker = ProgressTracker()
    tracker.start("t")
    with pytest.raises(InvalidParams):
        tracker.receive(params)


def test_sender_enforces_increase_and_stop_after_completion() -> None:
    sender = ProgressSender("tok")
    assert sender.params(0, 100) == {"progressToken": "tok", "progress": 0, "total": 100}
    assert sender.params(50, 100, "half") == {
        "progressToken": "tok",
        "progress": 50,
        "total": 100,
        "message": "half",
    }
    with pytest.raises(LocalProtocolError, match="increase"):
        sender.params(50)
    with pytest.raises(LocalProtocolError):
        sender.params(10)
    sender.params(100, 100)
    sender.finish()
    assert sender.finished
    with pytest.raises(LocalProtocolError, match="completed"):
        sender.params(101)


def test_sender_validates_inputs() -> None:
    with pytest.raises(UsageError):
        ProgressSender(None)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        ProgressSender("t").params("1")  # type: ignore[arg-type]
