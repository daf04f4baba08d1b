"""What a server offers, one registry per kind: tools, resources (and templates), prompts.

A registry owns its items, tells its owner when they change (the ``list_changed`` notifications
are the :class:`~mcpkit.server.Server`'s business, so the hook is a plain callable), and keeps
the listing it last built: ``*/list`` answers from that cache until the next change, and each
change bumps the registry's ``version`` so cursors issued for the old list are refused
(:mod:`mcpkit.server._pagination`).

Registries know nothing of eras, requests or transports: the method handlers
(:mod:`mcpkit.server._handlers`) read them.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, KeysView, ValuesView
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from mcpkit.protocol._errors import UsageError
from mcpkit.server._pagination import paginate
from mcpkit.server._prompts import RegisteredPrompt
from mcpkit.server._resources import RegisteredResource
from mcpkit.server._tools import RegisteredTool
from mcpkit.types._jsonrpc import JSONObject

if TYPE_CHECKING:
    from mcpkit.server._context import Context

__all__ = [
    "CompletionRegistry",
    "ResourceNotFoundError",
    "PromptRegistry",
    "Registry",
    "ResourceRegistry",
    "ToolRegistry",
]

T = TypeVar("T")

if TYPE_CHECKING:
    from typing import Generic as _Generic
else:

    class _Generic:
        """Stands in for ``typing.Generic`` at run time: a generic class and its subscripted
        subclasses cost ~1 M instructions at import, billed to every server's start, and
        nothing here needs the run-time type parameters."""

        __slots__ = ()

        def __class_getitem__(cls, item: Any) -> Any:
            return cls


if TYPE_CHECKING:  # typing constructs cost every server's start; these are for mypy
    Kind = Literal["tools", "resources", "prompts"]
    """The kinds with a ``notifications/{kind}/list_changed``."""
    OnChange = Callable[[Kind], None]
    CompletionKey = tuple[str, str, str]
    """``(ref type, prompt name or template URI, argument name)``."""


def _ignore(kind: Kind) -> None:
    return None


class Registry(_Generic[T]):
    """Items of one kind by key, the cached listings built from them, and a change hook.

    Read like a mapping (``registry[key]``, ``key in registry``, iteration over keys, ``len``);
    items come and go through the subclass's ``add`` / ``remove``, which check what they must
    and announce the change. (Not a ``collections.abc.Mapping`` subclass: ABC classes cost
    every server's start, and nothing here needs ``isinstance(x, Mapping)``.)
    """

    __slots__ = ("_items", "_listings", "_noun", "find", "kind", "on_change", "version")

    def __init__(self, kind: Kind, noun: str, on_change: OnChange = _ignore) -> None:
        self.kind: Kind = kind
        self._noun = noun
        self._items: dict[str, T] = {}
        self._listings: dict[str, list[JSONObject]] = {}
        self.version = 0
        """Bumped on every change; cursors carry it, so a stale cursor is refused."""
        self.on_change = on_change
        self.find: Callable[[str], T | None] = self._items.get
        """The item, or ``None``: the dict's own ``get`` (no Python frame: ``tools/call`` does
        one lookup per call)."""

    # -- reading ---------------------------------------------------------------------------------

    def __getitem__(self, key: str) -> T:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def keys(self) -> KeysView[str]:
        return self._items.keys()

    def values(self) -> ValuesView[T]:
        return self._items.values()

    # -- changes -------------------------------------------------------------------------------

    def _put(self, key: str, item: T) -> None:
        if key in self._items:
            raise UsageError(f"a {self._noun} {key!r} is already registered")
        self._items[key] = item
        self._changed()

    def _pop(self, key: str) -> T:
        item = self._items.pop(key, None)
        if item is None:
            raise UsageError(f"no {self._noun} {key!r}")
        self._changed()
        return item

    def _changed(self) -> None:
        self._listings.clear()
        self.version += 1
        self.on_change(self.kind)

    # -- listings ------------------------------------------------------------------------------

    def listing(self, variant: str, build: Callable[[], list[JSONObject]]) -> list[JSONObject]:
        """The listing called ``variant``, built by ``build`` once per version of the items."""
        cached = self._listings.get(variant)
        if cached is None:
            cached = self._listings[variant] = build()
        return cached

    def page(
        self, key: str, items: list[JSONObject], cursor: str | None, page_size: int | None
    ) -> JSONObject:
        """One page of a listing as a result (``{key: [...], "nextCursor"?: ...}``)."""
        if page_size is None and cursor is None:
            return {key: items}
        page, next_cursor = paginate(
            items, cursor, page_size or len(items) or 1, version=self.version
        )
        result: JSONObject = {key: list(page)}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result


class ToolRegistry(Registry[RegisteredTool]):
    """The tools, by name."""

    __slots__ = ()

    def __init__(self, on_change: OnChange = _ignore) -> None:
        super().__init__("tools", "tool named", on_change)

    def add(self, tool: RegisteredTool) -> None:
        self._put(tool.name, tool)

    def remove(self, name: str) -> RegisteredTool:
        return self._pop(name)

    def definitions(self, *, task_support: bool = False, apps: bool = True) -> list[JSONObject]:
        """The ``Tool`` objects of ``tools/list``; ``task_support``: 2025-11-25 listings, where
        tools that run as tasks say so in ``execution.taskSupport``; ``apps=False``: for a
        client that did not declare MCP Apps, without the tools only an app may call."""
        if not apps:
            return self.listing(
                "tools@tasks@no-apps" if task_support else "tools@no-apps",
                lambda: self._without_app_only(task_support),
            )
        if not task_support:
            return self.listing("tools", lambda: [t.definition for t in self._items.values()])
        return self.listing("tools@tasks", self._with_task_support)

    def _without_app_only(self, task_support: bool) -> list[JSONObject]:
        listed = self.definitions(task_support=task_support)
        if not any(tool.app_only for tool in self._items.values()):
            return listed  # the same list: nothing to leave out
        return [d for t, d in zip(self._items.values(), listed, strict=True) if not t.app_only]

    def _with_task_support(self) -> list[JSONObject]:
        out = []
        for tool in self._items.values():
            definition = tool.definition
            if tool.task_support != "forbidden":
                definition = {**definition, "execution": {"taskSupport": tool.task_support}}
            out.append(definition)
        return out

    def input_schema(self, name: str) -> JSONObject | None:
        """A tool's ``inputSchema`` (``None`` for an unknown tool)."""
        tool = self._items.get(name)
        if tool is None:
            return None
        schema = tool.definition.get("inputSchema")
        return schema if isinstance(schema, dict) else None


class ResourceNotFoundError(LookupError):
    """No resource matches the URI, or its reader said it does not exist (the handler answers
    with the era's not-found error)."""


class ResourceRegistry(Registry[RegisteredResource]):
    """Resources and resource templates, by URI (template) string; also the resource reader
    a :class:`~mcpkit.server._context.Context` reads its server's own resources through."""

    __slots__ = ()

    def __init__(self, on_change: OnChange = _ignore) -> None:
        super().__init__("resources", "resource", on_change)

    def add(self, resource: RegisteredResource) -> None:
        self._put(resource.uri, resource)

    def remove(self, uri: str) -> RegisteredResource:
        return self._pop(uri)

    def resources(self) -> list[JSONObject]:
        """The ``Resource`` objects of ``resources/list`` (templates excluded)."""
        return self.listing(
            "resources", lambda: [r.definition for r in self._items.values() if not r.is_template]
        )

    def templates(self) -> list[JSONObject]:
        """The ``ResourceTemplate`` objects of ``resources/templates/list``."""
        return self.listing(
            "templates", lambda: [r.definition for r in self._items.values() if r.is_template]
        )

    async def read_contents(self, uri: str, ctx: Context) -> list[JSONObject]:
        """The ``contents`` of ``uri``: the exact resource first, then each template in turn.

        Raises :class:`ResourceNotFoundError` when nothing matches or the reader reports a
        missing file or key (``FileNotFoundError``, ``LookupError`` …).
        """
        exact = self._items.get(uri)
        candidates = [exact] if exact is not None and not exact.is_template else []
        candidates += [r for r in self._items.values() if r.is_template]
        for resource in candidates:
            variables = resource.match(uri)
            if variables is None:
                continue
            try:
                return await resource.read(uri, variables, ctx)
            except (FileNotFoundError, IsADirectoryError, PermissionError, LookupError):
                raise ResourceNotFoundError(uri) from None
        raise ResourceNotFoundError(uri)


class PromptRegistry(Registry[RegisteredPrompt]):
    """The prompts, by name."""

    __slots__ = ()

    def __init__(self, on_change: OnChange = _ignore) -> None:
        super().__init__("prompts", "prompt named", on_change)

    def add(self, prompt: RegisteredPrompt) -> None:
        self._put(prompt.name, prompt)

    def remove(self, name: str) -> RegisteredPrompt:
        return self._pop(name)

    def definitions(self) -> list[JSONObject]:
        """The ``Prompt`` objects of ``prompts/list``."""
        return self.listing("prompts", lambda: [p.definition for p in self._items.values()])


class CompletionRegistry:
    """Completion functions for prompt arguments and resource template variables."""

    __slots__ = ("_functions",)

    def __init__(self) -> None:
        self._functions: dict[CompletionKey, Callable[..., Any]] = {}

    def add(
        self, fn: Callable[..., Any], *, argument: str, prompt: str | None, resource: str | None
    ) -> None:
        if (prompt is None) == (resource is None):
            raise UsageError("give exactly one of prompt= or resource=")
        if prompt is not None:
            self._functions[("ref/prompt", prompt, argument)] = fn
        else:
            assert resource is not None
            self._functions[("ref/resource", resource, argument)] = fn

    async def complete(
        self, kind: str, target: str, argument: str, value: str, arguments: dict[str, str]
    ) -> list[str] | None:
        """The function's values, best first; ``None`` when no function is registered."""
        fn = self._functions.get((kind, target, argument))
        if fn is None:
            return None
        values = fn(value, arguments)
        if inspect.isawaitable(values):
            values = await values
        return [str(v) for v in values]
