"""The protocol package's public surface is explicit and complete."""

from __future__ import annotations

import importlib
import pkgutil

import mcpkit.protocol as protocol


def test_all_names_exist_and_are_unique() -> None:
    assert len(protocol.__all__) == len(set(protocol.__all__))
    for name in protocol.__all__:
        assert hasattr(protocol, name), name


def test_every_module_all_is_reexported() -> None:
    exported = set(protocol.__all__)
    for info in pkgutil.iter_modules(protocol.__path__):
        module = importlib.import_module(f"mcpkit.protocol.{info.name}")
        for name in getattr(module, "__all__", ()):
            assert name in exported, f"{info.name}.{name} is not exported"


def test_protocol_core_is_sans_io() -> None:
    import sys

    forbidden = {"asyncio", "socket", "threading", "subprocess", "selectors"}
    for info in pkgutil.iter_modules(protocol.__path__):
        module = importlib.import_module(f"mcpkit.protocol.{info.name}")
        imported = {
            value.__name__.split(".")[0]
            for value in vars(module).values()
            if isinstance(value, type(sys))
        }
        assert not imported & forbidden, info.name
