"""Capability gating: what each side may ask of the other, given what the other declared.

Capabilities are nested JSON objects and open sets; a path like ``("elicitation", "url")`` is
declared when every level is present (an object, or a truthy leaf such as ``listChanged: true``).

* The **server** checks the client's capabilities before asking it for something (legacy: before
  sending a request; modern: before returning an ``InputRequiredResult``). Missing ones raise
  :class:`~mcpkit.protocol._errors.MissingRequiredClientCapability` (-32021) whose
  ``data.requiredCapabilities`` is the minimal nested object the client would have to declare.
* The **client** checks the server's capabilities before sending a request; a missing one is our
  own mistake: :class:`~mcpkit.protocol._errors.MissingServerCapability`. In 2026-07-28 the
  ``tasks/*`` methods belong to the Tasks extension, not to a ``tasks`` capability, so they are
  not gated here in that era.
* The **client** answers a server's request for something it never declared with the error
  the spec names (:func:`refuse_undeclared_question`): -32601 for a capability it lacks
  (sampling, elicitation, roots), -32602 for an elicitation mode or a sampling feature
  (``tools``, ``context``) it did not declare.

Two spec rules live here because they are easy to get wrong: an ``elicitation: {}`` declaration
means form mode only, and sampling with ``tools``/``toolChoice`` or ``includeContext`` other than
``"none"`` needs the ``sampling.tools`` / ``sampling.context`` sub-capabilities.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcpkit.protocol._errors import (
    InvalidParams,
    MethodNotFound,
    MissingRequiredClientCapability,
    MissingServerCapability,
)
from mcpkit.types._versions import Era

__all__ = [
    "CLIENT_CAPABILITY_FOR_METHOD",
    "LISTEN_FILTER_CAPABILITY",
    "SERVER_CAPABILITY_FOR_METHOD",
    "agree_listen_filter",
    "elicitation_modes",
    "has_capability",
    "refuse_undeclared_question",
    "require_client_capability",
    "require_elicitation_mode",
    "require_sampling",
    "require_server_capability",
    "server_supports",
]

Path = tuple[str, ...]

SERVER_CAPABILITY_FOR_METHOD: Final[Mapping[str, Path]] = {
    "tools/list": ("tools",),
    "tools/call": ("tools",),
    "resources/list": ("resources",),
    "resources/templates/list": ("resources",),
    "resources/read": ("resources",),
    "resources/subscribe": ("resources", "subscribe"),
    "resources/unsubscribe": ("resources", "subscribe"),
    "prompts/list": ("prompts",),
    "prompts/get": ("prompts",),
    "completion/complete": ("completions",),
    "logging/setLevel": ("logging",),
    "tasks/get": ("tasks",),
    "tasks/result": ("tasks",),
    "tasks/list": ("tasks", "list"),
    "tasks/cancel": ("tasks", "cancel"),
}
"""Client→server requests and the server capability each needs (unlisted methods need none)."""

CLIENT_CAPABILITY_FOR_METHOD: Final[Mapping[str, Path]] = {
    "sampling/createMessage": ("sampling",),
    "elicitation/create": ("elicitation",),
    "roots/list": ("roots",),
}
"""Server→client requests (legacy) or MRTR input requests (modern) and what they need."""

LISTEN_FILTER_CAPABILITY: Final[Mapping[str, Path]] = {
    "toolsListChanged": ("tools", "listChanged"),
    "promptsListChanged": ("prompts", "listChanged"),
    "resourcesListChanged": ("resources", "listChanged"),
    "resourceSubscriptions": ("resources", "subscribe"),
}
"""``subscriptions/listen`` filter fields and the server capability each needs."""


def has_capability(declared: Mapping[str, Any] | None, path: Path) -> bool:
    """Whether ``declared`` contains ``path`` (each level an object; a leaf may be truthy)."""
    node: Any = declared
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return isinstance(node, Mapping) or (node is not None and node is not False)


def _nested(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in reversed(path):
        out = {key: out}
    return out


def _missing(path: Path, why: str) -> MissingRequiredClientCapability:
    return MissingRequiredClientCapability(
        f"{why} needs the client capability {'.'.join(path)!r}, which this request did not declare",
        {"requiredCapabilities": _nested(path)},
    )


def require_client_capability(
    declared: Mapping[str, Any] | None, path: Path, *, why: str = "this request"
) -> None:
    """Raise -32021 with ``data.requiredCapabilities`` unless the client declared ``path``."""
    if not has_capability(declared, path):
        raise _missing(path, why)


def elicitation_modes(declared: Mapping[str, Any] | None) -> frozenset[str]:
    """The elicitation modes a client supports: ``{}`` (neither mode named) means form only."""
    elicitation = declared.get("elicitation") if isinstance(declared, Mapping) else None
    if not isinstance(elicitation, Mapping):
        return frozenset()
    modes = {mode for mode in ("form", "url") if has_capability(elicitation, (mode,))}
    return frozenset(modes) if modes else frozenset({"form"})


def require_elicitation_mode(declared: Mapping[str, Any] | None, mode: str) -> None:
    """Raise -32021 unless the client can answer an elicitation in ``mode`` ("form" or "url")."""
    if mode not in elicitation_modes(declared):
        raise _missing(("elicitation", mode), f"elicitation in {mode} mode")


def require_sampling(declared: Mapping[str, Any] | None, params: Mapping[str, Any]) -> None:
    """Check a ``sampling/createMessage`` request's params against the client's capabilities."""
    require_client_capability(declared, ("sampling",), why="sampling/createMessage")
    if params.get("tools") is not None or params.get("toolChoice") is not None:
        require_client_capability(declared, ("sampling", "tools"), why="sampling with tools")
    include = params.get("includeContext")
    if include is not None and include != "none":
        require_client_capability(
            declared, ("sampling", "context"), why=f"sampling with includeContext={include!r}"
        )


def refuse_undeclared_question(
    declared: Mapping[str, Any] | None, method: str, params: Mapping[str, Any] | None
) -> None:
    """Client side: raise the error to answer a server's ``method`` request with when it needs
    a capability the client did not declare (``declared``: what the client sent).

    An undeclared capability is -32601 (the spec's "capability not advertised"); an elicitation
    mode the client did not declare, or sampling with ``tools``/``toolChoice`` or an
    ``includeContext`` other than ``"none"`` without ``sampling.tools`` / ``sampling.context``,
    is -32602. Methods with no client capability pass.
    """
    path = CLIENT_CAPABILITY_FOR_METHOD.get(method)
    if path is None:
        return
    name = ".".join(path)
    if not has_capability(declared, path):
        raise MethodNotFound(
            f"{method}: this client did not declare the {name!r} capability, so it does not "
            "answer this request"
        )
    params = params or {}
    if method == "elicitation/create":
        mode = params.get("mode", "form")
        modes = elicitation_modes(declared)
        if mode not in modes:
            raise InvalidParams(
                f"this client does not support elicitation in {mode!r} mode (it declared: "
                f"{', '.join(sorted(modes))})"
            )
    elif method == "sampling/createMessage":
        if (params.get("tools") is not None or params.get("toolChoice") is not None) and not (
            has_capability(declared, ("sampling", "tools"))
        ):
            raise InvalidParams(
                "sampling with tools needs the client capability sampling.tools, which this "
                "client did not declare"
            )
        include = params.get("includeContext")
        if include not in (None, "none") and not has_capability(declared, ("sampling", "context")):
            raise InvalidParams(
                f"includeContext={include!r} needs the client capability sampling.context, "
                "which this client did not declare"
            )


def _server_path(method: str, era: Era) -> Path | None:
    if era == "modern" and method.startswith("tasks/"):
        return None  # the Tasks extension, declared under capabilities.extensions
    return SERVER_CAPABILITY_FOR_METHOD.get(method)


def server_supports(
    declared: Mapping[str, Any] | None, method: str, *, era: Era = "legacy"
) -> bool:
    """Whether the server's capabilities allow a client to send ``method``."""
    path = _server_path(method, era)
    return path is None or has_capability(declared, path)


def require_server_capability(
    declared: Mapping[str, Any] | None, method: str, *, era: Era = "legacy"
) -> None:
    """Raise :class:`MissingServerCapability` before the client sends a gated ``method``."""
    path = _server_path(method, era)
    if path is not None and not has_capability(declared, path):
        raise MissingServerCapability(method, path)


def agree_listen_filter(
    server_capabilities: Mapping[str, Any] | None, requested: Mapping[str, Any]
) -> dict[str, Any]:
    """The subset of a ``subscriptions/listen`` filter the server can honour.

    It goes back in ``notifications/subscriptions/acknowledged``; fields the server has no
    capability for (and unknown fields) are left out rather than failing the subscription.
    """
    agreed: dict[str, Any] = {}
    for name, value in requested.items():
        path = LISTEN_FILTER_CAPABILITY.get(name)
        if path is None or not has_capability(server_capabilities, path):
            continue
        if name == "resourceSubscriptions":
            if isinstance(value, list):
                agreed[name] = [uri for uri in value if isinstance(uri, str)]
        elif value is True:
            agreed[name] = True
    return agreed
