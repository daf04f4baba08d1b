"""JSON Schema validation on the hot path: a compiled fast check, Python's messages on failure.

Every call validates its arguments and (for OpenAPI-backed tools) the API's answer. The
``jsonschema`` package spends ~100 µs+ on a small object; ``jsonschema-rs`` (part of the
``[openapi]`` extra) answers "valid?" in a few µs. Valid values — nearly all of them — take only
the fast check; an invalid one is re-validated by ``jsonschema`` for its usual messages and
paths, which also keeps the two libraries' verdicts from ever disagreeing in what callers see
(a value is refused only if ``jsonschema`` finds an error). Without ``jsonschema-rs``, or for a
schema it cannot compile, ``jsonschema`` does everything.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["Validator"]


class Validator:
    """Draft 2020-12 validation of one schema, compiled on first use."""

    __slots__ = ("_fast", "_python", "schema")

    def __init__(self, schema: Any) -> None:
        self.schema = schema
        self._fast: Any = None
        self._python: Any = None

    def _compile(self) -> None:
        from jsonschema import Draft202012Validator

        self._python = Draft202012Validator(self.schema)
        try:
            import jsonschema_rs

            self._fast = jsonschema_rs.Draft202012Validator(self.schema)
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
