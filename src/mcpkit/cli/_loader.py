"""Find the :class:`~mcpkit.server.Server` object in a file or module, for ``mcpkit run``.

``file.py`` / ``package.module`` alone: the module-level ``server``, ``mcp`` or ``app`` that is
a ``Server``, else the only ``Server`` among the module's globals. ``file.py:name`` /
``module:name.attr`` pick one explicitly; if the named object is a function (a factory) it is
called without arguments and must return a ``Server``.

A file is imported under its own stem (so its dataclasses and pickles behave), with its folder
first on ``sys.path`` (so it can import its neighbours), and *not* as ``__main__``: its
``if __name__ == "__main__": server.run()`` block does not run — the command does that.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from mcpkit.cli._errors import EXIT_CONNECTION, CliError
from mcpkit.cli._targets import split_object

__all__ = ["CONVENTIONAL_NAMES", "load_server", "source_file"]

CONVENTIONAL_NAMES: Final = ("server", "mcp", "app")


def _import_file(path: Path) -> ModuleType:
    folder = str(path.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    name = path.stem if path.stem.isidentifier() else "mcpkit_target"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CliError(f"cannot import {path}: not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _import(target: str) -> tuple[ModuleType, str | None]:
    spec, attribute = split_object(target)
    try:
        if spec.endswith(".py") or Path(spec).is_file():
            path = Path(spec)
            if not path.is_file():
                raise CliError(f"no such file: {spec}")
            return _import_file(path), attribute
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(spec), attribute
    except CliError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name and spec.startswith(exc.name):
            raise CliError(
                f"no module named {spec!r}", hint="give a file path or an importable module"
            ) from None
        raise _startup_failure(target, exc) from exc
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _startup_failure(target, exc) from exc


def _startup_failure(target: str, exc: BaseException) -> CliError:
    """Print the traceback of the user's code only (a client quotes the last stderr lines)."""
    import traceback

    here = str(Path(__file__).resolve().parent)
    report = traceback.TracebackException.from_exception(exc)
    report.stack = traceback.StackSummary.from_list(
        [f for f in report.stack if not f.filename.startswith((here, "<frozen"))]
    )
    sys.stderr.write("".join(report.format()))
    return CliError(
        f"importing {target} failed: {type(exc).__name__}: {exc}",
        hint="the traceback above shows where",
        code=EXIT_CONNECTION,
    )


def load_server(target: str) -> Any:
    """The ``Server`` named by ``target`` (see the module docstring)."""
    from mcpkit.server import Server

    module, attribute = _import(target)
    if attribute is not None:
        obj: Any = module
        for part in attribute.split("."):
            if not hasattr(obj, part):
                raise CliError(
                    f"{target}: {module.__name__} has no attribute {attribute!r}",
                    hint=f"Server objects in it: {', '.join(_servers(module, Server)) or 'none'}",
                )
            obj = getattr(obj, part)
        if not isinstance(obj, Server) and callable(obj):
            obj = obj()
        if not isinstance(obj, Server):
            raise CliError(f"{target} is a {type(obj).__name__}, not an mcpkit Server")
        return obj
    for name in CONVENTIONAL_NAMES:
        candidate = getattr(module, name, None)
        if isinstance(candidate, Server):
            return candidate
    found = _servers(module, Server)
    if len(found) == 1:
        return getattr(module, found[0])
    if not found:
        raise CliError(
            f"{target} defines no mcpkit Server at module level",
            hint="create one as `server = Server(...)`, or name a factory as TARGET:function",
        )
    raise CliError(
        f"{target} defines several servers: {', '.join(found)}",
        hint=f"pick one as {target}:{found[0]}",
    )


def _servers(module: ModuleType, server_type: type) -> list[str]:
    return [name for name, value in vars(module).items() if isinstance(value, server_type)]


def source_file(target: str) -> Path | None:
    """The file ``mcpkit run --reload`` watches for ``target`` (``None`` if it has none)."""
    spec, _ = split_object(target)
    if spec.endswith(".py") or Path(spec).is_file():
        return Path(spec).resolve()
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        found = importlib.util.find_spec(spec)
    except (ImportError, ValueError):
        return None
    return Path(found.origin).resolve() if found and found.origin else None
