"""Run a server script with phase and import marks for ``startup_instructions.py --by-module``.

    python startup_marks.py EVENTS_FILE SCRIPT [ARGS...]

Each mark is one call to ``os.getpgrp()``, which callgrind is told to dump its counters before
(``--dump-before=getpgrp``): the dump files then hold the instructions between consecutive
marks, and EVENTS_FILE (written at exit) names what each mark was. Marks: ``+name`` / ``-name``
around the execution of every module imported from here on (finding, loading and running it),
``=script`` when the script starts, ``=serve`` / ``=served`` around the event loop
(``asyncio.Runner.run``, when the script uses it) and ``=exit`` after the script returns
(interpreter shutdown follows). Each mark costs a few thousand instructions, billed to the
segment it opens: the attribution is for reading, the plain count is the figure.

A module's "self" is what ran while it was the innermost module being imported: its own
top-level code (class bodies, tables, decorators), loading its bytecode, and finding the
modules it imports (the nested modules' own work is theirs).
"""

from __future__ import annotations

import os
import sys

# Nothing else is imported before the marks are in place: a module imported here would be
# billed to the interpreter's start instead of to the server that imports it.
_events: list[str] = []
_getpgrp = os.getpgrp


def mark(label: str) -> None:
    _events.append(label)
    _getpgrp()


def _wrap_runner(module: object) -> None:
    run = module.Runner.run  # type: ignore[attr-defined]

    def marked_run(self: object, *args: object, **kwargs: object) -> object:
        mark("=serve")
        try:
            return run(self, *args, **kwargs)
        finally:
            mark("=served")

    module.Runner.run = marked_run  # type: ignore[attr-defined]


def _install(load: object) -> object:
    def marked_load(spec: object) -> object:
        name = spec.name  # type: ignore[attr-defined]
        mark("+" + name)
        try:
            module = load(spec)  # type: ignore[operator]
        finally:
            mark("-" + name)
        if name == "asyncio.runners":
            _wrap_runner(module)
        return module

    return marked_load


def main() -> None:
    events_file, script, *args = sys.argv[1:]
    bootstrap = sys.modules["_frozen_importlib"]  # importlib._bootstrap: where every import passes
    bootstrap._load_unlocked = _install(bootstrap._load_unlocked)  # type: ignore[attr-defined]
    if "asyncio.runners" in sys.modules:
        _wrap_runner(sys.modules["asyncio.runners"])
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    with open(script, "rb") as source:
        code = compile(source.read(), script, "exec")
    mark("=script")
    try:
        exec(code, {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__})
        mark("=exit")
    finally:
        with open(events_file, "w") as out:  # (before shutdown, which is the last segment)
            out.write("\n".join(_events))


if __name__ == "__main__":
    main()
