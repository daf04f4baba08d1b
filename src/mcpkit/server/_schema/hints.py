"""Type-hint normalisation: one vocabulary of constraints (``msgspec.Meta``) for every style.

Users write constraints in several dialects: ``Annotated[int, "a description"]``,
``Annotated[int, annotated_types.Ge(0)]``, ``Annotated[int, pydantic.Field(ge=0)]``,
``Annotated[int, msgspec.Meta(ge=0)]``. msgspec only understands the last one, so
:func:`normalize` rewrites the others into ``msgspec.Meta`` (recursively through generic
arguments such as ``list[Annotated[...]]``). Constraints inside a dataclass or TypedDict's own
fields are read by msgspec as written, so use ``msgspec.Meta`` there (or a pydantic model).

:func:`classify` then decides, once per parameter at registration, who validates it: msgspec
(fast, the default) or pydantic (only when the type involves a pydantic model). pydantic is never
imported here: a class is recognised as pydantic by the ``__pydantic_validator__`` attribute that
every pydantic model and pydantic dataclass carries.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

import msgspec
import msgspec.inspect

from mcpkit.protocol._errors import UsageError

__all__ = [
    "ParamMeta",
    "classify",
    "is_pydantic_type",
    "mentions_pydantic",
    "normalize",
    "read_metadata",
    "strip_annotated",
    "type_repr",
]

_CONSTRAINT_ATTRS: Final = (
    "gt",
    "ge",
    "lt",
    "le",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
)
_MAX_DEPTH: Final = 64
"""Generic nesting deeper than this is rejected (a hint that deep is a bug, not a schema)."""


class ParamMeta(msgspec.Struct, frozen=True):
    """What ``Annotated`` metadata said about a type: a description and msgspec constraints."""

    description: str | None
    metas: tuple[msgspec.Meta, ...]


def is_pydantic_type(tp: Any) -> bool:
    """True for a pydantic model or pydantic dataclass class (without importing pydantic)."""
    return isinstance(tp, type) and hasattr(tp, "__pydantic_validator__")


def _is_field_info(obj: Any) -> bool:
    cls = type(obj)
    return cls.__name__ == "FieldInfo" and cls.__module__.startswith("pydantic")


def _flatten(items: Iterable[Any]) -> Iterator[Any]:
    """Expand grouped metadata (``annotated_types.Interval``, pydantic ``FieldInfo``)."""
    for item in items:
        if _is_field_info(item):
            yield from _flatten(getattr(item, "metadata", ()))
        elif type(item).__module__.startswith("annotated_types") and hasattr(item, "__iter__"):
            yield from _flatten(item)
        else:
            yield item


def read_metadata(items: Iterable[Any], *, where: str) -> ParamMeta:
    """Turn ``Annotated`` metadata (any supported dialect) into a description and Metas.

    Raises :class:`UsageError` for an ``annotated_types`` constraint msgspec cannot enforce
    (``Predicate``, ``Timezone`` ...): silently dropping a constraint would accept bad input.
    """
    items = list(items)
    description: str | None = None
    metas: list[msgspec.Meta] = []
    constraints: dict[str, Any] = {}
    for item in items:
        if isinstance(item, str):
            description = item
        elif _is_field_info(item) and getattr(item, "description", None):
            description = item.description
    for item in _flatten(items):
        if isinstance(item, msgspec.Meta):
            metas.append(item)
            if item.description:
                description = item.description
            continue
        if isinstance(item, str):
            continue
        doc = getattr(item, "documentation", None)  # annotated_types.doc / typing_extensions.Doc
        if isinstance(doc, str):
            description = doc
            continue
        found = False
        for attr in _CONSTRAINT_ATTRS:
            value = getattr(item, attr, None)
            if value is not None:
                constraints[attr] = value.pattern if isinstance(value, re.Pattern) else value
                found = True
        module = type(item).__module__
        if not found and module.startswith("annotated_types"):
            raise UsageError(
                f"{where}: the constraint {item!r} is not supported; use "
                "Ge/Gt/Le/Lt/MultipleOf/MinLen/MaxLen/Len/Interval or msgspec.Meta"
            )
    if constraints:
        metas.append(msgspec.Meta(**constraints))
    return ParamMeta(description, tuple(metas))


def strip_annotated(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """``Annotated[T, *m]`` → ``(T, m)``; anything else → ``(tp, ())``."""
    if get_origin(tp) is Annotated:
        args = get_args(tp)
        return args[0], tuple(args[1:])
    return tp, ()


def normalize(tp: Any, *, where: str, _depth: int = 0) -> Any:
    """Rewrite every ``Annotated`` in ``tp`` so that its constraints are ``msgspec.Meta``."""
    if _depth > _MAX_DEPTH:
        raise UsageError(f"{where}: the type hint is nested too deeply")
    origin = get_origin(tp)
    if origin is None:
        return tp
    args = get_args(tp)
    if origin is Annotated:
        inner = normalize(args[0], where=where, _depth=_depth + 1)
        meta = read_metadata(args[1:], where=where)
        if meta.description and not any(m.description for m in meta.metas):
            metas: tuple[Any, ...] = (*meta.metas, msgspec.Meta(description=meta.description))
        else:
            metas = meta.metas
        return Annotated[(inner, *metas)] if metas else inner
    if origin is Literal or not args:
        return tp
    new_args = tuple(
        a if a is Ellipsis else normalize(a, where=where, _depth=_depth + 1) for a in args
    )
    if new_args == args:
        return tp
    if origin in (Union, types.UnionType):
        return Union[new_args]  # noqa: UP007  # rebuilding a union from a tuple of members
    try:
        return origin[new_args]
    except TypeError:
        return tp


def mentions_pydantic(tp: Any, _depth: int = 0) -> bool:
    """True when ``tp`` or any of its generic arguments is a pydantic class."""
    if _depth > _MAX_DEPTH:
        return False
    if is_pydantic_type(tp):
        return True
    return any(mentions_pydantic(a, _depth + 1) for a in get_args(tp))


def _children(info: Any) -> Iterator[Any]:
    for attr in ("item_type", "key_type", "value_type", "type"):
        child = getattr(info, attr, None)
        if isinstance(child, msgspec.inspect.Type):
            yield child
    for attr in ("types", "item_types"):
        yield from getattr(info, attr, ())
    for f in getattr(info, "fields", ()):
        yield f.type


def classify(tp: Any, *, where: str) -> Literal["msgspec", "pydantic"]:
    """Decide who validates ``tp`` and fail early, with a clear message, if nobody can."""
    if mentions_pydantic(tp):
        return "pydantic"
    try:
        root = msgspec.inspect.type_info(tp)
    except (TypeError, ValueError) as exc:
        raise UsageError(
            f"{where}: the type {_type_name(tp)} is not supported ({exc}). Use dataclasses, "
            "TypedDicts, msgspec Structs (tagged, for unions of objects) or pydantic models."
        ) from None
    seen: set[int] = set()
    stack = [root]
    uses_pydantic = False
    while stack:
        info = stack.pop()
        if id(info) in seen:
            continue
        seen.add(id(info))
        if isinstance(info, msgspec.inspect.CustomType):
            if is_pydantic_type(info.cls):
                uses_pydantic = True
                continue
            raise UsageError(
                f"{where}: the type {_type_name(info.cls)} cannot be converted from JSON. Use "
                "str/int/float/bool, containers, Enum/Literal, datetime/UUID/bytes, dataclasses, "
                "TypedDicts, msgspec Structs or pydantic models."
            )
        stack.extend(_children(info))
    return "pydantic" if uses_pydantic else "msgspec"


def type_repr(tp: Any) -> str:
    """A readable name for a type hint: ``Point``, ``list[Point]``, ``int | None``."""
    if isinstance(tp, type) and get_origin(tp) is None and not get_args(tp):
        return tp.__qualname__
    return repr(tp).replace("typing.", "")


_type_name = type_repr
