"""Token storage: keyed by issuer, file mode 0600, atomic replacement."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mcpkit.contrib.auth import (
    ClientInfo,
    FileTokenStorage,
    IssuerRecord,
    MemoryTokenStorage,
    TokenSet,
)


def _record(token: str) -> IssuerRecord:
    return IssuerRecord(
        client=ClientInfo(client_id="c", client_secret="sec", kind="dcr"),
        tokens={"https://r/mcp": TokenSet(access_token=token, refresh_token="rt", scopes=["a"])},
    )


@pytest.mark.parametrize("kind", ["memory", "file"])
async def test_records_are_keyed_by_issuer(kind: str, tmp_path: Path) -> None:
    storage = MemoryTokenStorage() if kind == "memory" else FileTokenStorage(tmp_path / "t.json")
    assert await storage.load("https://as1") is None
    await storage.save("https://as1", _record("one"))
    await storage.save("https://as2", _record("two"))
    one, two = await storage.load("https://as1"), await storage.load("https://as2")
    assert one is not None and two is not None
    assert one.tokens["https://r/mcp"].access_token == "one"
    assert two.tokens["https://r/mcp"].access_token == "two"
    await storage.delete("https://as1")
    assert await storage.load("https://as1") is None
    assert await storage.load("https://as2") is not None


async def test_file_is_created_0600_and_replaced_atomically(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "tokens.json"
    storage = FileTokenStorage(path)
    await storage.save("https://as", _record("tok"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    inode = os.stat(path).st_ino
    await storage.save("https://as", _record("tok2"))
    assert os.stat(path).st_ino != inode  # replaced by rename, never rewritten in place
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["tokens.json"]


async def test_loose_permissions_are_tightened(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tokens.json"
    storage = FileTokenStorage(path)
    await storage.save("https://as", _record("tok"))
    os.chmod(path, 0o644)
    assert await storage.load("https://as") is not None
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert "readable by others" in caplog.text


async def test_corrupt_file_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    os.chmod(path, 0o600)
    with pytest.raises(OSError, match="delete it"):
        await FileTokenStorage(path).load("https://as")


def test_reprs_redact_secrets() -> None:
    record = _record("ACCESS-SECRET")
    text = repr(record)
    assert "ACCESS-SECRET" not in text and "sec'" not in text and "'rt'" not in text
