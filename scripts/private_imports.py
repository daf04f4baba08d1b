"""The private-import rule of issue #26, for ``lint-imports`` and for the test suite.

The composition layer (``mcpkit.gateway``, each ``mcpkit.contrib.<name>``, ``mcpkit.cli``) builds
on what the packages below it publish (their ``__all__``, listed in ``docs/api.md``): it never
imports another package's private modules or names. A module or name is private when a
component of its dotted path starts with ``_`` (dunders such as ``__version__`` are not). A
package's own private modules are its business. The runtime's concurrency primitives
(``TaskSet``, ``TaskScope``, ``race`` ...) are public as ``mcpkit.concurrency``.

Two checks share the rule:

* :class:`PrivateImportsContract`, an import-linter contract type (``pyproject.toml``): the
  module graph, so it sees ``import mcpkit.server._tools`` however it is spelled. Import-linter's
  own ``forbidden`` contract cannot say "modules starting with ``_``" (a wildcard replaces a
  whole module name) nor "another package's".
* :func:`offenders`, an AST walk of the sources (``tests/test_private_imports.py``): it also sees
  private *names* imported from a public module (``from mcpkit.server import _x``).

``PENDING_EXT`` names packages left out of the rule (none: every composition package follows it).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

PENDING_EXT: tuple[str, ...] = ()
"""Packages not checked (yet); empty since every composition package stands on public names."""

COMPOSITION_ROOTS = ("mcpkit.gateway", "mcpkit.contrib", "mcpkit.cli")
"""Where the rule applies: every module under these."""

SHARED_INTERNALS: tuple[str, ...] = ()
"""Private packages anyone may import (none: the runtime's primitives are public as
``mcpkit.concurrency``)."""


def is_private_name(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_private(module: str) -> bool:
    """Any component private: ``mcpkit.transports.http._server.serve`` is."""
    return any(is_private_name(part) for part in module.split("."))


def package_of(module: str) -> str | None:
    """The composition package ``module`` belongs to (``mcpkit.contrib.openapi`` for
    ``mcpkit.contrib.openapi._tool``), or ``None`` outside the composition layer."""
    parts = module.split(".")
    if parts[:2] == ["mcpkit", "contrib"]:
        return ".".join(parts[:3]) if len(parts) > 2 else None
    if parts[:2] in (["mcpkit", "gateway"], ["mcpkit", "cli"]):
        return ".".join(parts[:2])
    return None


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def checked(importer: str, pending: Iterable[str] = PENDING_EXT) -> str | None:
    """The package whose imports the rule checks for ``importer`` (``None``: not checked)."""
    package = package_of(importer)
    if package is None or any(_within(package, skipped) for skipped in pending):
        return None
    return package


def breaks_rule(package: str, imported: str) -> bool:
    """Whether a module of ``package`` may not import the mcpkit module ``imported``."""
    if not _within(imported, "mcpkit") or _within(imported, package):
        return False
    if any(_within(imported, shared) for shared in SHARED_INTERNALS):
        return False
    return is_private(imported)


def offenders(src: Path, pending: Iterable[str] = PENDING_EXT) -> Iterator[str]:
    """``path:line from module import names`` for each import under ``src`` (the directory that
    holds ``mcpkit``) that breaks the rule, by module or by name."""
    pending = tuple(pending)
    for path in sorted((src / "mcpkit").rglob("*.py")):
        parts = path.relative_to(src).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = checked(module, pending)
        if package is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if breaks_rule(package, alias.name):
                        yield f"{path}:{node.lineno} import {alias.name}"
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if not _within(node.module, "mcpkit") or _within(node.module, package):
                    continue
                names = [alias.name for alias in node.names]
                private_names = [n for n in names if is_private_name(n)]
                if breaks_rule(package, node.module) or private_names:
                    yield f"{path}:{node.lineno} from {node.module} import {', '.join(names)}"


# -- the import-linter contract type ------------------------------------------------------------
# Imported only by lint-imports (``contract_types`` in pyproject.toml), which puts the working
# directory on sys.path: this module is ``scripts.private_imports`` there.

try:
    from importlinter.application import output
    from importlinter.domain import fields
    from importlinter.domain.contract import Contract, ContractCheck
except ImportError:  # the AST check above needs none of it
    pass
else:

    class PrivateImportsContract(Contract):
        """Composition packages import no private module of another mcpkit package.

        Options: ``pending`` — packages left out for now (``PENDING_EXT``).
        """

        type_name = "private_imports"

        pending = fields.ListField(subfield=fields.StringField(), required=False)

        def check(self, graph: Any, verbose: bool) -> ContractCheck:
            pending = tuple(self.pending or ())  # type: ignore[attr-defined]
            broken: list[dict[str, Any]] = []
            for importer in sorted(graph.modules):
                package = checked(importer, pending)
                if package is None:
                    continue
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if breaks_rule(package, imported):
                        details = graph.get_import_details(importer=importer, imported=imported)
                        lines = sorted({d["line_number"] for d in details})
                        broken.append({"importer": importer, "imported": imported, "lines": lines})
            return ContractCheck(kept=not broken, metadata={"broken": broken})

        def render_broken_contract(self, check: ContractCheck) -> None:
            output.print_error(
                "Private modules of another package imported (use its public name, or make "
                "the name public where it belongs: docs/contributing.md):",
                bold=False,
            )
            output.new_line()
            for link in check.metadata["broken"]:
                lines = ", ".join(map(str, link["lines"]))
                output.print_error(
                    f"- {link['importer']} -> {link['imported']} (l.{lines})", bold=False
                )
            output.new_line()
