"""The types package's public surface is explicit and complete, and stays free of I/O."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import mcpkit.types as types_pkg

NAMESPACED = {"meta"}
"""Modules used through their own namespace (``mcpkit.types.meta.PROTOCOL_VERSION``)."""


def test_all_names_exist_and_are_unique() -> None:
    assert len(types_pkg.__all__) == len(set(types_pkg.__all__))
    for name in types_pkg.__all__:
        assert hasattr(types_pkg, name), name


def test_every_module_all_is_reexported() -> None:
    exported = set(types_pkg.__all__)
    for info in pkgutil.iter_modules(types_pkg.__path__):
        if info.name in NAMESPACED:
            continue
        module = importlib.import_module(f"mcpkit.types.{info.name}")
        names = getattr(module, "__all__", None)
        assert names is not None or info.name == "_versions", f"{info.name} has no __all__"
        for name in names or ():
            assert name in exported, f"{info.name}.{name} is not exported"
            assert getattr(types_pkg, name) is getattr(module, name), name


def test_types_import_no_io_modules() -> None:
    forbidden = {"asyncio", "socket", "threading", "subprocess", "selectors"}
    for info in pkgutil.iter_modules(types_pkg.__path__):
        module = importlib.import_module(f"mcpkit.types.{info.name}")
        imported = {
            value.__name__.split(".")[0]
            for value in vars(module).values()
            if isinstance(value, type(sys))
        }
        assert not imported & forbidden, info.name
