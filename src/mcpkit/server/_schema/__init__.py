"""Schemas and validators from Python type hints (the engine behind tool/prompt signatures).

Public entry point: :func:`analyze_function` → :class:`ToolSignature`. See
:mod:`mcpkit.server._schema.signature` for the decisions (numbers, defaults, output wrapping).
"""

from mcpkit.server._schema.docstrings import ParsedDocstring, parse_docstring
from mcpkit.server._schema.errors import ArgumentError, InvalidToolOutput
from mcpkit.server._schema.jsonschema import inline_refs
from mcpkit.server._schema.signature import WRAPPED_RESULT_KEY, ToolSignature, analyze_function

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
