"""Request params, decoded in one pass into the method's model from :mod:`mcpkit.types`.

The handlers never pick keys out of ``params`` by hand: ``msgspec.convert`` checks the whole
shape against the wire model the method table names for the method (``CallToolRequestParams``
for ``tools/call`` …) and either hands back a typed value or names the first thing wrong, which
becomes the -32602 answer. The models are looked up on a method's first request (the table
names them, and importing every wire model would slow every server's start).
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from mcpkit.protocol._errors import InvalidParams
from mcpkit.types._jsonrpc import JSONObject
from mcpkit.types._methods import LEGACY_METHODS, MODERN_METHODS

__all__ = ["decode_params", "invalid_params_message"]

_MISSING: Final = r"^Object missing required field `([^`]*)`$"
"""(Compiled by ``re`` on first use, i.e. on the first error: not at every server's start.)"""
_models: dict[str, Any] = {}
"""Params model per method, resolved on first use."""


def decode_params(method: str, params: JSONObject | None) -> Any:
    """``params`` (absent: ``{}``) as the method's params model; -32602 saying what is wrong
    otherwise. Both eras share the model of every method a server serves."""
    model = _models.get(method)
    if model is None:
        spec = MODERN_METHODS.get(method) or LEGACY_METHODS[method]
        model = _models[method] = spec.params
    try:
        return msgspec.convert(params if params is not None else {}, model)
    except msgspec.ValidationError as exc:
        raise InvalidParams(invalid_params_message(method, str(exc), model)) from None


def invalid_params_message(method: str, problem: str, model: Any = None) -> str:
    """msgspec's ``"Expected `str`, got `int` - at `$.name`"`` as a sentence about ``params``:
    ``"Invalid params for tools/call: params.name: expected `str`, got `int`"``. An invalid
    enum value also lists the values ``model`` allows there."""
    detail, _, where = problem.partition(" - at `")
    where = where.rstrip("`")
    path = "params" + where[1:] if where else "params"
    missing = re.match(_MISSING, detail)
    if missing is not None:
        return f"Invalid params for {method}: {path}.{missing.group(1)} is required"
    message = f"Invalid params for {method}: {path}: {detail[:1].lower()}{detail[1:]}"
    if detail.startswith("Invalid enum value") and model is not None:
        allowed = _literal_values(model, where[2:].split(".") if where else [])
        if allowed:
            message += f" (one of {', '.join(repr(v) for v in allowed)})"
    return message


def _literal_values(model: Any, path: list[str]) -> tuple[Any, ...]:
    """The values a ``Literal`` field at ``path`` (wire names, through nested structs) allows."""
    from msgspec import inspect

    info: Any = inspect.type_info(model)
    for name in path:
        if isinstance(info, inspect.UnionType):  # ``X | None``: the struct member
            info = next((t for t in info.types if isinstance(t, inspect.StructType)), None)
        if not isinstance(info, inspect.StructType):
            return ()
        info = next((f.type for f in info.fields if f.encode_name == name), None)
    if isinstance(info, inspect.UnionType):
        info = next((t for t in info.types if isinstance(t, inspect.LiteralType)), None)
    return tuple(info.values) if isinstance(info, inspect.LiteralType) else ()
