"""``mcpkit.protocol`` re-exports lazily (PEP 562), and every name still resolves to its object.

Each check runs in a fresh interpreter: what an import loads depends on what was imported
before, and the test session has imported everything.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import textwrap

import mcpkit.protocol as protocol


def _run(code: str) -> object:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return json.loads(out)


def test_the_lazy_table_is_each_submodules_all() -> None:
    for module_name, names in protocol._SOURCES.items():
        module = importlib.import_module(f"mcpkit.protocol._{module_name}")
        assert sorted(names) == sorted(module.__all__), module_name
    assert sorted(protocol._MODULE_OF) == sorted(protocol.__all__)


def test_importing_the_package_loads_no_rule_module() -> None:
    loaded = _run(
        """
        import json, sys
        import mcpkit.protocol
        print(json.dumps(sorted(m for m in sys.modules if m.startswith("mcpkit.protocol."))))
        """
    )
    assert loaded == []


def test_every_name_resolves_to_its_modules_object_whatever_was_imported_first() -> None:
    # Importing a submodule binds it on the package by its own name; a lazy re-export that bound
    # names one at a time could then hand back a module (the bug of commit 389fa41).
    wrong = _run(
        """
        import importlib, json
        import mcpkit.protocol._meta, mcpkit.protocol._framing, mcpkit.protocol._connection
        import mcpkit.protocol as protocol

        wrong = []
        for name in protocol.__all__:
            value = getattr(protocol, name)
            module = importlib.import_module("mcpkit.protocol._" + protocol._MODULE_OF[name])
            if value is not getattr(module, name):
                wrong.append(name)
        exec("from mcpkit.protocol import " + ", ".join(protocol.__all__))
        print(json.dumps(wrong))
        """
    )
    assert wrong == []


def test_a_name_loads_its_whole_module_at_once() -> None:
    bound = _run(
        """
        import json
        import mcpkit.protocol as protocol
        from mcpkit.protocol import LineFramer
        print(json.dumps(sorted(n for n in protocol._SOURCES["framing"] if n in vars(protocol))))
        """
    )
    assert bound == sorted(protocol._SOURCES["framing"])
