"""Client and server capabilities, for every revision, and the one question asked of them:
"does this capability object contain that path?".

The known members are typed Structs. Each capability's settings object (``logging: {}``,
``elicitation.form: {}``, every ``experimental`` / ``extensions`` entry) stays a plain ``dict``, so
settings round-trip unchanged. The spec's extension points for new capabilities are the
``experimental`` and ``extensions`` maps, which keep every key; an unknown *top-level* key that a
future revision might add is dropped when decoding into these Structs. Code that must forward a
peer's capabilities verbatim (a proxy) keeps the raw dict instead: :func:`has_capability` accepts
both forms.

Revision differences, all modelled as optional members:

* ``roots``: ``{listChanged?}`` up to 2025-11-25, ``{}`` (deprecated) in 2026-07-28.
* ``elicitation``: ``{}`` in 2025-06-18, ``{form?, url?}`` from 2025-11-25 (``{}`` means form only).
* ``sampling``: ``{}`` until 2025-06-18, ``{context?, tools?}`` from 2025-11-25.
* ``tasks``: 2025-11-25 only (2026 moved Tasks to the ``io.modelcontextprotocol/tasks`` extension).
* ``extensions``: 2026-07-28 (SEP-2133; also accepted inside legacy ``initialize`` capabilities).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import msgspec

from mcpkit.types._base import JSONObject, WireModel

__all__ = [
    "ClientCapabilities",
    "ClientTasksCapability",
    "ElicitationCapability",
    "PromptsCapability",
    "ResourcesCapability",
    "RootsCapability",
    "SamplingCapability",
    "ServerCapabilities",
    "ServerTasksCapability",
    "ToolsCapability",
    "ELICITATION_FORM",
    "ELICITATION_URL",
    "elicitation_modes",
    "has_capability",
]


class RootsCapability(WireModel, kw_only=True):
    list_changed: bool | None = None
    """Legacy only: the client sends ``notifications/roots/list_changed``."""


class SamplingCapability(WireModel, kw_only=True):
    context: JSONObject | None = None
    """``includeContext`` other than ``"none"`` is supported (soft-deprecated)."""
    tools: JSONObject | None = None
    """``tools`` / ``toolChoice`` in ``sampling/createMessage`` are supported."""


class ElicitationCapability(WireModel, kw_only=True):
    form: JSONObject | None = None
    url: JSONObject | None = None


class ClientTasksCapability(WireModel, kw_only=True):
    """2025-11-25 core Tasks, client side."""

    list_: JSONObject | None = msgspec.field(default=None, name="list")
    cancel: JSONObject | None = None
    requests: dict[str, JSONObject] | None = None
    """``{"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}``."""


class ClientCapabilities(WireModel, kw_only=True):
    experimental: dict[str, JSONObject] | None = None
    roots: RootsCapability | None = None
    sampling: SamplingCapability | None = None
    elicitation: ElicitationCapability | None = None
    tasks: ClientTasksCapability | None = None
    extensions: dict[str, JSONObject] | None = None


class PromptsCapability(WireModel, kw_only=True):
    list_changed: bool | None = None


class ResourcesCapability(WireModel, kw_only=True):
    subscribe: bool | None = None
    list_changed: bool | None = None


class ToolsCapability(WireModel, kw_only=True):
    list_changed: bool | None = None


class ServerTasksCapability(WireModel, kw_only=True):
    """2025-11-25 core Tasks, server side."""

    list_: JSONObject | None = msgspec.field(default=None, name="list")
    cancel: JSONObject | None = None
    requests: dict[str, JSONObject] | None = None
    """``{"tools": {"call": {}}}``."""


class ServerCapabilities(WireModel, kw_only=True):
    experimental: dict[str, JSONObject] | None = None
    logging: JSONObject | None = None
    completions: JSONObject | None = None
    prompts: PromptsCapability | None = None
    resources: ResourcesCapability | None = None
    tools: ToolsCapability | None = None
    tasks: ServerTasksCapability | None = None
    extensions: dict[str, JSONObject] | None = None


_WIRE_TO_ATTR: dict[type, dict[str, str]] = {}


def _attr_names(cls: type) -> dict[str, str]:
    names = _WIRE_TO_ATTR.get(cls)
    if names is None:
        names = {f.encode_name: f.name for f in msgspec.structs.fields(cls)}
        _WIRE_TO_ATTR[cls] = names
    return names


def _child(node: Any, key: str) -> Any:
    if isinstance(node, Mapping):
        return node.get(key)
    if isinstance(node, msgspec.Struct):
        attr = _attr_names(type(node)).get(key)
        return None if attr is None else getattr(node, attr, None)
    return None


def has_capability(capabilities: Any, path: Sequence[str]) -> bool:
    """Whether ``capabilities`` declares the capability at ``path`` (wire names).

    ``capabilities`` is a capability Struct, a raw capability dict (e.g. the
    ``io.modelcontextprotocol/clientCapabilities`` entry of a 2026 ``_meta``) or ``None``.
    A member counts as declared when it is present and not ``false``: ``("tools",)`` needs a
    ``tools`` object; ``("resources", "subscribe")`` needs ``subscribe: true``;
    ``("extensions", "io.modelcontextprotocol/tasks")`` needs that extension's settings object.
    The empty path asks whether a capability object was given at all.
    """
    node = capabilities
    if node is None:
        return False
    for key in path:
        node = _child(node, key)
        if node is None or node is msgspec.UNSET:
            return False
    return node is not False


ELICITATION_FORM: Final = "form"
ELICITATION_URL: Final = "url"


def elicitation_modes(capabilities: Any) -> frozenset[str]:
    """The elicitation modes a client declared: an empty ``elicitation: {}`` means form only."""
    elicitation = _child(capabilities, "elicitation") if capabilities is not None else None
    if elicitation is None:
        return frozenset()
    modes = {
        mode
        for mode in (ELICITATION_FORM, ELICITATION_URL)
        if _child(elicitation, mode) is not None
    }
    return frozenset(modes) if modes else frozenset({ELICITATION_FORM})
