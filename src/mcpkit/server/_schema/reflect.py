"""Reading a function's parameters and evaluated annotations, cheaply, once per registration.

``inspect.signature(fn, eval_str=True)`` is most of what registering a tool costs: it builds
validated ``Parameter`` objects and, under ``from __future__ import annotations`` (where every
annotation is a string), compiles each annotation string anew (~20 µs each). A server with
1,000 tools pays that 5,000 times before it can answer anything.

For a plain function (the usual tool) the same facts are read straight from the code object,
``__defaults__``, ``__kwdefaults__`` and ``__annotations__``; annotation strings are evaluated in
``fn.__globals__`` with no locals — exactly what ``inspect`` does for a function — from code
objects compiled once per distinct text (tools share a handful: ``"str"``, ``"int"`` ...).
Anything else (partials, bound methods, callables, functions with ``__wrapped__`` or
``__signature__``) goes through ``inspect`` itself, so its rules stay the reference.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = ["EMPTY", "Param", "read_signature"]

EMPTY: Any = inspect.Parameter.empty
_CO_VARARGS = inspect.CO_VARARGS
_CO_VARKEYWORDS = inspect.CO_VARKEYWORDS
_Kind = inspect._ParameterKind


class Param(NamedTuple):
    """One parameter: the fields of ``inspect.Parameter`` that schemas need."""

    name: str
    kind: inspect._ParameterKind
    default: Any
    annotation: Any


@functools.lru_cache(maxsize=1024)
def _compile_annotation(text: str) -> types.CodeType:
    return compile(text, "<annotation>", "eval")


def _evaluate(annotation: Any, namespace: dict[str, Any]) -> Any:
    if isinstance(annotation, str):
        return eval(_compile_annotation(annotation), namespace, None)
    return annotation


def read_signature(fn: Callable[..., Any]) -> tuple[list[Param], Any]:
    """``(parameters in signature order, return annotation)`` with annotations evaluated.

    Missing defaults and annotations are :data:`EMPTY`. Raises what
    ``inspect.signature(fn, eval_str=True)`` raises (``NameError`` for an unresolvable
    annotation, ``TypeError``/``ValueError`` for an unreadable signature).
    """
    if (
        type(fn) is not types.FunctionType
        or hasattr(fn, "__wrapped__")
        or hasattr(fn, "__signature__")
    ):
        sig = inspect.signature(fn, eval_str=True)
        found = [Param(p.name, p.kind, p.default, p.annotation) for p in sig.parameters.values()]
        return found, sig.return_annotation
    code = fn.__code__
    namespace = fn.__globals__
    notes = fn.__annotations__
    positional = code.co_argcount
    keyword_only = code.co_kwonlyargcount
    names = code.co_varnames
    defaults = fn.__defaults__ or ()
    kwdefaults = fn.__kwdefaults__ or {}
    first_default = positional - len(defaults)

    def param(name: str, kind: inspect._ParameterKind, default: Any) -> Param:
        return Param(name, kind, default, _evaluate(notes.get(name, EMPTY), namespace))

    params: list[Param] = []
    for i in range(positional):
        kind = _Kind.POSITIONAL_ONLY if i < code.co_posonlyargcount else _Kind.POSITIONAL_OR_KEYWORD
        params.append(
            param(names[i], kind, defaults[i - first_default] if i >= first_default else EMPTY)
        )
    index = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        params.append(param(names[index], _Kind.VAR_POSITIONAL, EMPTY))
        index += 1
    for name in names[positional : positional + keyword_only]:
        params.append(param(name, _Kind.KEYWORD_ONLY, kwdefaults.get(name, EMPTY)))
    if code.co_flags & _CO_VARKEYWORDS:
        params.append(param(names[index], _Kind.VAR_KEYWORD, EMPTY))
    return params, _evaluate(notes.get("return", EMPTY), namespace)
