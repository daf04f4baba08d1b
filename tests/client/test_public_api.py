"""The client package's public surface is explicit, complete and layered."""

from __future__ import annotations

import importlib
import pkgutil

import mcpkit.client as client
import mcpkit.client.host as host


def test_all_names_exist_and_are_unique() -> None:
    for package in (client, host):
        assert len(package.__all__) == len(set(package.__all__))
        for name in package.__all__:
            assert hasattr(package, name), f"{package.__name__}.{name}"


def test_every_module_has_an_explicit_all() -> None:
    for package in (client, host):
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            assert isinstance(getattr(module, "__all__", None), list), module.__name__


def test_client_never_imports_the_server() -> None:
    import sys

    for package in (client, host):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for value in vars(module).values():
                name = getattr(value, "__module__", None) or getattr(value, "__name__", "")
                if isinstance(value, type(sys)):
                    name = value.__name__
                assert not str(name).startswith("mcpkit.server"), (module.__name__, name)
