"""Tool signatures from type hints: the import path the server uses.

The implementation lives in the :mod:`mcpkit.server._schema` package (split by concern:
docstrings, hint normalisation, JSON Schema plumbing, the lazy pydantic bridge); this module is
the one place the rest of the server imports it from.
"""

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
