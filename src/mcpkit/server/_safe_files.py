"""Reading a file under a root without following a symbolic link swapped in after the check.

:func:`~mcpkit.server._uri_template.safe_join` decides whether a path stays under its root, but a
check followed by a plain ``open`` has a window: whoever can write under the root can replace
the checked file (or a directory on its way) with a symlink to ``/etc/shadow`` in between, and
the ``open`` follows it. :func:`read_under` closes the window: it walks the checked, symlink-free
path from a descriptor of the root with ``openat`` and ``O_NOFOLLOW`` on every component, so a
link that appears later makes the open fail instead of leaving the root, and it reads from the
descriptor it opened (``fstat``: a regular file, size bounded).

Symlinks that stay inside the root and exist at check time keep working: ``safe_join`` resolves
them to their target first, and the walk follows that real path. On a platform without
``dir_fd`` support (Windows) the file is opened by path and the descriptor's real path is checked
against the root afterwards instead.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Final

from mcpkit.server import _uri_template as uri_template
from mcpkit.server._uri_template import UnsafePathError

__all__ = ["MAX_FILE_BYTES", "read_under"]

MAX_FILE_BYTES: Final = 16 * 1024 * 1024
"""Largest file :func:`read_under` reads by default (a resource is sent in one message)."""

_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW: Final = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY: Final = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_BINARY: Final = getattr(os, "O_BINARY", 0)
_LINK_ERRNOS: Final = frozenset({errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)})


def _refuse(relative: str, reason: str) -> UnsafePathError:
    return UnsafePathError(f"Unsafe path {relative!r}: {reason}")


def _open_walk(base: Path, target: Path, relative: str) -> int:
    parts = target.relative_to(base).parts
    if not parts:
        raise IsADirectoryError(relative)
    fd = os.open(base, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in _LINK_ERRNOS:
                    raise _refuse(relative, "a directory on its way became a link") from None
                raise
            os.close(fd)
            fd = step
        try:
            return os.open(
                parts[-1], os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _BINARY, dir_fd=fd
            )
        except OSError as exc:
            if exc.errno in _LINK_ERRNOS:
                raise _refuse(relative, "it became a symbolic link") from None
            raise
    finally:
        os.close(fd)


def _open_checked(base: Path, target: Path, relative: str) -> int:
    fd = os.open(target, os.O_RDONLY | _BINARY | _CLOEXEC)
    real = Path(os.path.realpath(target))
    if real != base and not real.is_relative_to(base):
        os.close(fd)
        raise _refuse(relative, "it resolves outside the allowed directory")
    return fd


def read_under(root: Path | str, relative: str, *, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``relative`` under ``root``; never follows a late link.

    Raises :class:`~mcpkit.server._uri_template.UnsafePathError` (-32602) for traversal, links
    that leave the root, a link swapped in after the check, something that is not a regular
    file, or a file over ``max_bytes``; ``FileNotFoundError`` when it does not exist.
    """
    base = Path(root).resolve()
    target = uri_template.safe_join(base, relative)
    if os.open in os.supports_dir_fd and _NOFOLLOW:
        fd = _open_walk(base, target, relative)
    else:  # pragma: no cover - Windows
        fd = _open_checked(base, target, relative)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(relative, "it is not a regular file")
        if info.st_size > max_bytes:
            raise _refuse(relative, f"the file is larger than {max_bytes} bytes")
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1024 * 1024))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise _refuse(relative, f"the file is larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
