"""A pytest-xdist worker's own temporary folder, set before any test runs.

Example servers and CLI children keep SQLite files and indexes under the system temp folder
(``$TMPDIR``) unless a test gives them another: two workers would share, and race on, the same
files. Each worker points ``TMPDIR`` (inherited by every child it starts) at a fresh folder of
its own, removed when the worker exits; tests that want one per test still use ``tmp_path``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

__all__ = ["WORKER"]

WORKER = os.environ.get("PYTEST_XDIST_WORKER")
"""``gw0``, ``gw1`` … in an xdist worker; ``None`` in a serial run and in the controller."""

if WORKER is not None:
    _folder = tempfile.mkdtemp(prefix=f"mcpkit-tests-{WORKER}-")
    os.environ["TMPDIR"] = _folder
    tempfile.tempdir = None  # gettempdir() caches: make it read TMPDIR again
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)
