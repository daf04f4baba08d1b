"""Where client registrations and tokens live, keyed by authorization-server issuer.

SEP-2352: credentials obtained from one authorization server are never presented to another,
so the storage key *is* the issuer. A record holds the client registration for that issuer and
its tokens per resource.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import tempfile
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

import msgspec

from mcpkit.contrib.auth._models import IssuerRecord

__all__ = ["FileTokenStorage", "MemoryTokenStorage", "TokenStorage"]

logger = logging.getLogger("mcpkit.contrib.auth")

FILE_MODE: Final = 0o600
DIR_MODE: Final = 0o700
MAX_STORAGE_BYTES: Final = 4 * 1024 * 1024
"""A token file larger than this is refused rather than parsed."""


@runtime_checkable
class TokenStorage(Protocol):
    """Persistence for :class:`IssuerRecord` values, one per issuer."""

    async def load(self, issuer: str) -> IssuerRecord | None: ...

    async def save(self, issuer: str, record: IssuerRecord) -> None: ...

    async def delete(self, issuer: str) -> None: ...


class MemoryTokenStorage:
    """Process-local storage (the default): nothing survives a restart."""

    def __init__(self) -> None:
        self._records: dict[str, IssuerRecord] = {}

    async def load(self, issuer: str) -> IssuerRecord | None:
        record = self._records.get(issuer)
        return (
            None if record is None else msgspec.structs.replace(record, tokens=dict(record.tokens))
        )

    async def save(self, issuer: str, record: IssuerRecord) -> None:
        self._records[issuer] = msgspec.structs.replace(record, tokens=dict(record.tokens))

    async def delete(self, issuer: str) -> None:
        self._records.pop(issuer, None)


class _FileDoc(msgspec.Struct, kw_only=True):
    version: int = 1
    issuers: dict[str, IssuerRecord] = msgspec.field(default_factory=dict)


class FileTokenStorage:
    """A JSON file readable only by its owner (mode 0600), replaced atomically on every write.

    Writes go to a temporary file in the same directory (created 0600 from the start, so the
    secret is never world-readable even for an instant), are fsynced, then renamed over the
    target. A file found with looser permissions is tightened and a warning is logged.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self._lock = asyncio.Lock()

    def _read(self) -> _FileDoc:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return _FileDoc()
        if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            logger.warning(
                "token file %s was readable by others; restricting it to 0600", self.path
            )
            os.chmod(self.path, FILE_MODE)
        if st.st_size > MAX_STORAGE_BYTES:
            raise OSError(f"token file {self.path} is larger than {MAX_STORAGE_BYTES} bytes")
        data = self.path.read_bytes()
        if not data.strip():
            return _FileDoc()
        try:
            return msgspec.json.decode(data, type=_FileDoc)
        except msgspec.DecodeError as exc:
            raise OSError(
                f"token file {self.path} is corrupt ({exc}); delete it to start over"
            ) from exc

    def _write(self, doc: _FileDoc) -> None:
        directory = self.path.parent
        if not directory.exists():
            directory.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=directory)
        try:
            os.fchmod(fd, FILE_MODE)  # mkstemp already uses 0600; make it explicit
            with os.fdopen(fd, "wb") as fh:
                fh.write(msgspec.json.encode(doc))
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
            raise

    async def load(self, issuer: str) -> IssuerRecord | None:
        async with self._lock:
            doc = await asyncio.to_thread(self._read)
        return doc.issuers.get(issuer)

    async def save(self, issuer: str, record: IssuerRecord) -> None:
        async with self._lock:
            doc = await asyncio.to_thread(self._read)
            doc.issuers[issuer] = record
            await asyncio.to_thread(self._write, doc)

    async def delete(self, issuer: str) -> None:
        async with self._lock:
            doc = await asyncio.to_thread(self._read)
            if doc.issuers.pop(issuer, None) is not None:
                await asyncio.to_thread(self._write, doc)
