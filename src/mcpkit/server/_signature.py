"""Tool signatures from type hints: the import path the server uses.

The implementation lives in the :mod:`mcpkit.server._schema` package (split by concern:
docstrings, hint normalisation, JSON Schema plumbing, the lazy pydantic bridge); this module is
the one place the rest of the server imports it from. Names resolve on first use (PEP 562), like
the package's own: ``ArgumentError`` does not load the schema engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpkit.server._schema import (
        WRAPPED_RESULT_KEY,
        ArgumentError,
        InvalidToolOutput,
        ParsedDocstring,
        ToolSignature,
        analyze_function,
        inline_refs,
        parse_docstring,
    )

__all__ = [
    "WRAPPED_RESULT_KEY",
    "ArgumentError",
    "InvalidToolOutput",
    "ParsedDocstring",
    "ToolSignature",
    "analyze_function",
    "inline_refs",
    "parse_docstring",
]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from mcpkit.server import _schema

    value = getattr(_schema, name)
    globals()[name] = value
    return value
