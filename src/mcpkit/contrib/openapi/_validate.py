"""JSON Schema validation on the hot path: a compiled fast check, Python's messages on failure.

Every call validates its arguments and (for OpenAPI-backed tools) the API's answer. The
``jsonschema`` package spends ~100 µs+ on a small object; ``jsonschema-rs`` (part of the
``[openapi]`` extra) answers "valid?" in a few µs. Valid values — nearly all of them — take only
the fast check; an invalid one is re-validated by ``jsonschema`` for its usual messages and
paths, which also keeps the two libraries' verdicts from ever disagreeing in what callers see
(a value is refused only if ``jsonschema`` finds an error). Without ``jsonschema-rs``, or for a
schema it cannot compile, ``jsonschema`` does everything.

``formats=True`` asserts ``format`` too (``date``, ``date-time``, ``time``, ``email``, ``uuid``,
``ipv4`` …; JSON Schema only annotates it by default): what a contract promises about its
answers includes their formats. ``date-time`` and ``time`` are checked as RFC 3339 here, with no
optional package needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any, Final

__all__ = ["Validator"]


_TIME: Final = re.compile(
    r"(?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d+)?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
)
_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}")


def _rfc3339_time(value: object) -> bool:
    return not isinstance(value, str) or _TIME.fullmatch(value) is not None


def _rfc3339_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    date, sep, time = value.partition("T") if "T" in value else value.partition("t")
    if not sep or not _DATE.fullmatch(date) or not _TIME.fullmatch(time):
        return False
    try:
        datetime.fromisoformat(date)
    except ValueError:
        return False
    return True


def _format_checker() -> Any:
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(list(Draft202012Validator.FORMAT_CHECKER.checkers))
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("date-time")(_rfc3339_date_time)
    checker.checks("time")(_rfc3339_time)
    return checker


class Validator:
    """Draft 2020-12 validation of one schema, compiled on first use."""

    __slots__ = ("_fast", "_formats", "_python", "schema")

    def __init__(self, schema: Any, *, formats: bool = False) -> None:
        self.schema = schema
        self._formats = formats
        self._fast: Any = None
        self._python: Any = None

    def _compile(self) -> None:
        from jsonschema import Draft202012Validator

        checker = _format_checker() if self._formats else None
        self._python = Draft202012Validator(self.schema, format_checker=checker)
        try:
            import jsonschema_rs

            self._fast = jsonschema_rs.Draft202012Validator(
                self.schema, validate_formats=self._formats
            )
        except Exception:  # not installed, or a schema it cannot compile: Python alone
            self._fast = False

    def iter_errors(self, instance: Any) -> Iterator[Any]:
        """``jsonschema`` errors (``message``, ``absolute_path`` ...), none for a valid value."""
        if self._python is None:
            self._compile()
        if self._fast:
            try:
                if self._fast.is_valid(instance):
                    return iter(())
            except Exception:  # a value it cannot take (e.g. an int past 64 bits): ask Python
                pass
        return iter(self._python.iter_errors(instance))
