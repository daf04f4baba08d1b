"""The public surface: every public module's ``__all__``, name uniqueness, and ``docs/api.md``.

* "public" has one meaning: a module with no ``_`` in its dotted path. Every such module has a
  section in ``docs/api.md`` (or is a name its package's section lists, like ``mcpkit.types.meta``);
  everything else lives in an underscore module or package;
* every public module has an ``__all__`` whose names all resolve, none private, and nothing public
  it defines is missing from it;
* no two distinct public classes share a name across all those ``__all__`` lists (a name means
  one thing everywhere);
* ``docs/api.md`` lists exactly each package's ``__all__``, and the error signatures it shows
  are the real ones;
* ``import mcpkit`` stays cheap: the top-level names load lazily.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

import mcpkit

ROOT = Path(__file__).resolve().parents[1]
API_DOC = ROOT / "docs" / "api.md"

def _public_modules() -> list[str]:
    names = ["mcpkit"] + [m.name for m in pkgutil.walk_packages(mcpkit.__path__, "mcpkit.")]
    return sorted(n for n in names if not any(p.startswith("_") for p in n.split(".")[1:]))


PUBLIC = _public_modules()
CHECKED = PUBLIC
PACKAGES = [n for n in PUBLIC if hasattr(importlib.import_module(n), "__path__")]


def _exports(name: str) -> list[str]:
    exported = getattr(importlib.import_module(name), "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    return list(exported)


@pytest.mark.parametrize("name", CHECKED)
def test_all_resolves_and_is_public(name: str) -> None:
    module = importlib.import_module(name)
    exported = _exports(name)
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    unresolved = [n for n in exported if not hasattr(module, n)]
    assert not unresolved, f"{name}.__all__ names what it does not have: {unresolved}"
    private = [n for n in exported if n.startswith("_") and n != "__version__"]
    assert not private, f"{name}.__all__ exports private names: {private}"


@pytest.mark.parametrize("name", CHECKED)
def test_nothing_public_is_missing_from_all(name: str) -> None:
    """A class or function a module defines without ``_`` is public, so it must be exported."""
    module = importlib.import_module(name)
    exported = set(_exports(name))
    missing = [
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_")
        and attr not in exported
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == name
    ]
    assert not missing, f"{name} defines public names outside __all__: {missing}"


def test_each_public_class_name_means_one_class() -> None:
    owners: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for name in CHECKED:
        module = importlib.import_module(name)
        for attr in _exports(name):
            value = getattr(module, attr)
            if inspect.isclass(value):
                owners[attr].add((value.__module__, value.__qualname__))
    clashes = {attr: sorted(where) for attr, where in owners.items() if len(where) > 1}
    assert not clashes, f"one name, several classes: {clashes}"


def test_internals_are_not_public() -> None:
    import mcpkit.server

    # The command table is the CLI's own business: a private package, not in docs/api.md.
    assert importlib.util.find_spec("mcpkit.cli.commands") is None
    assert "mcpkit.cli._commands" not in PUBLIC
    assert "cli._commands" not in API_DOC.read_text(encoding="utf-8")

    for internal in ("LegacyConnection", "Outbound", "RequestInfo", "InputRequired"):
        assert internal not in mcpkit.server.__all__
        assert not hasattr(mcpkit.server, internal)
    import mcpkit.contrib.auth

    assert "client_auth_from_context" not in dir(mcpkit.contrib.auth)
    assert importlib.util.find_spec("mcpkit.contrib.auth.conformance") is None


# -- the top-level package ----------------------------------------------------------------------


def test_top_level_names_are_the_real_objects() -> None:
    from mcpkit import client, errors, server

    assert mcpkit.Server is server.Server and mcpkit.Context is server.Context
    assert mcpkit.Client is client.Client and mcpkit.SyncClient is client.SyncClient
    assert mcpkit.Host is client.Host
    for name in errors.__all__:
        assert getattr(mcpkit, name) is getattr(errors, name)
        # ToolError is a tool's own failure (an isError result), not an mcpkit error
        assert issubclass(getattr(errors, name), errors.MCPError) != (name == "ToolError"), name
    with pytest.raises(AttributeError):
        _ = mcpkit.NoSuchName  # type: ignore[attr-defined]


def test_errors_holds_what_users_catch() -> None:
    """The exceptions users meet (raised at them or by their code) are all in mcpkit.errors,
    and are the very classes raised (not copies)."""
    import mcpkit.errors
    from mcpkit.protocol import _errors as protocol_errors
    from mcpkit.server._memo import MemoTooLarge
    from mcpkit.transports._stdio_client import ServerStartError

    for name in ("MissingServerCapability", "HeaderMismatch", "SessionReplaced", "ParseError",
                 "SSEProtocolError", "TooManyInFlight"):  # fmt: skip
        assert getattr(mcpkit.errors, name) is getattr(protocol_errors, name), name
    assert mcpkit.errors.ServerStartError is ServerStartError
    assert mcpkit.errors.MemoTooLarge is MemoTooLarge
    assert issubclass(mcpkit.errors.UnknownTool, mcpkit.errors.InvalidParams)


def test_import_mcpkit_loads_nothing_heavy() -> None:
    code = (
        "import sys, mcpkit\n"
        "print(sorted(m for m in sys.modules if m.startswith('mcpkit') or m in "
        "('msgspec', 'asyncio', 'httpx', 'pydantic')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    assert out.strip() == "['mcpkit', 'mcpkit._version', 'mcpkit.errors']"


# -- docs/api.md --------------------------------------------------------------------------------

_SECTION = re.compile(r"^## `(mcpkit[\w.]*)`\s*$")
_NAME = re.compile(r"`([A-Za-z_]\w*)(\([^`]*\))?`")


def _documented() -> dict[str, dict[str, str | None]]:
    """``{module: {name: signature or None}}`` from the list items of each module section."""
    sections: dict[str, dict[str, str | None]] = {}
    current: dict[str, str | None] | None = None
    for line in API_DOC.read_text(encoding="utf-8").splitlines():
        heading = _SECTION.match(line)
        if heading:
            current = sections.setdefault(heading.group(1), {})
        elif line.startswith("## "):
            current = None
        elif current is not None and line.startswith("- "):
            names_part = line[2:].split(" — ", 1)[0]
            for match in _NAME.finditer(names_part):
                current[match.group(1)] = match.group(2)
    return sections


def _render_signature(cls: Any) -> str:
    try:
        signature = inspect.signature(cls)
    except ValueError:  # a built-in __init__: takes any positional arguments
        return "(*args)"
    parts: list[str] = []
    star = False
    for param in signature.parameters.values():
        if param.kind is param.VAR_POSITIONAL:
            parts.append(f"*{param.name}")
            star = True
        elif param.kind is param.VAR_KEYWORD:
            parts.append(f"**{param.name}")
        else:
            if param.kind is param.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            default = "" if param.default is param.empty else f"={param.default!r}"
            parts.append(param.name + default)
    return f"({', '.join(parts)})"


def test_every_public_module_is_documented() -> None:
    """One meaning of public: no module is public by its name yet internal by the docs."""
    documented = _documented()

    def listed(name: str) -> bool:
        parent, _, leaf = name.rpartition(".")
        return name in documented or leaf in documented.get(parent, {})

    undocumented = [n for n in PUBLIC if not listed(n)]
    assert not undocumented, (
        f"public modules without a section in docs/api.md: {undocumented} "
        "(document them, or make them private with a leading underscore)"
    )


@pytest.mark.parametrize("name", sorted(_documented()))
def test_api_doc_section_matches_all(name: str) -> None:
    documented = set(_documented()[name])
    exported = set(_exports(name))
    assert documented - exported == set(), f"docs/api.md lists names {name} does not export"
    assert exported - documented == set(), f"docs/api.md misses names {name} exports"


def test_api_doc_shows_the_real_error_signatures() -> None:
    import mcpkit.errors

    for name, shown in _documented()["mcpkit.errors"].items():
        real = _render_signature(getattr(mcpkit.errors, name))
        assert shown == real, f"docs/api.md shows {name}{shown}, the class takes {real}"


def test_every_public_module_imports_without_side_modules() -> None:
    """Sanity of the walk above: it found the packages users know."""
    assert {"mcpkit", "mcpkit.server", "mcpkit.client", "mcpkit.types"} <= set(PACKAGES)
    assert isinstance(importlib.import_module("mcpkit.errors"), types.ModuleType)
