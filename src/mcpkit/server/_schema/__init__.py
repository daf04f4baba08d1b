"""Schemas and validators from Python type hints (the engine behind tool/prompt signatures).

Public entry point: :func:`analyze_function` → :class:`ToolSignature`. See
:mod:`mcpkit.server._schema.signature` for the decisions (numbers, defaults, output wrapping).

Names load on first use (PEP 562): a server whose tools all have plain signatures builds their
definitions at the first ``tools/list`` or call (see :mod:`mcpkit.server._tools`), so its start
imports none of these modules; importing :mod:`mcpkit.server._schema.errors` alone (for
:class:`ArgumentError`) does not load the rest either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from mcpkit.server._schema.docstrings import ParsedDocstring, parse_docstring
    from mcpkit.server._schema.errors import ArgumentError, InvalidToolOutput
    from mcpkit.server._schema.jsonschema import inline_refs
    from mcpkit.server._schema.signature import (
        WRAPPED_RESULT_KEY,
        ToolSignature,
        analyze_function,
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

_SOURCES: Final[dict[str, str]] = {
    "WRAPPED_RESULT_KEY": "signature",
    "ArgumentError": "errors",
    "InvalidToolOutput": "errors",
    "ParsedDocstring": "docstrings",
    "ToolSignature": "signature",
    "analyze_function": "signature",
    "inline_refs": "jsonschema",
    "parse_docstring": "docstrings",
}


def __getattr__(name: str) -> object:
    module_name = _SOURCES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(f"{__name__}.{module_name}")
    # Every name of that module at once (importing ``errors`` binds the submodule here too).
    for exported, source in _SOURCES.items():
        if source == module_name:
            globals()[exported] = getattr(module, exported)
    return globals()[name]
