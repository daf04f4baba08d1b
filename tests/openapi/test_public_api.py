"""``mcpkit.contrib.openapi`` loads lazily and its public names all exist."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import mcpkit.contrib.openapi as openapi


def test_all_names_exist() -> None:
    assert len(openapi.__all__) == len(set(openapi.__all__))
    for name in openapi.__all__:
        assert getattr(openapi, name) is not None, name


def test_every_module_has_an_explicit_all() -> None:
    for info in pkgutil.iter_modules(openapi.__path__):
        module = importlib.import_module(f"{openapi.__name__}.{info.name}")
        assert isinstance(getattr(module, "__all__", None), list), module.__name__


def test_importing_mcpkit_loads_no_openapi_dependency() -> None:
    code = (
        "import sys, mcpkit, mcpkit.server, mcpkit.contrib.openapi;"
        "print(sorted(m for m in ('yaml', 'httpx', 'fastapi', 'mcpkit.contrib.openapi._provider')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
