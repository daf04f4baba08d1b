"""The shared requestState key ring: every worker verifies what any worker sealed, and rotation
keeps rounds in flight valid."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mcpkit.contrib.redis import SharedKeyRing
from mcpkit.server._request_state import InvalidRequestState, RequestStateSealer


async def test_workers_share_one_ring(client: Any, prefix: str) -> None:
    a = await SharedKeyRing(client, prefix=prefix).load()
    b = await SharedKeyRing(client, prefix=prefix).load()
    token = RequestStateSealer(a).seal({"round": 1}, bind=b"req")
    assert RequestStateSealer(b).unseal(token, bind=b"req") == {"round": 1}


async def test_rotation_keeps_old_tokens_valid_for_the_grace_period(
    client: Any, prefix: str
) -> None:
    ring = SharedKeyRing(client, prefix=prefix, refresh=5, grace=100)
    now = time.time()
    before = RequestStateSealer(await ring.load(now)).seal({"r": 1}, bind=b"x", now=now)
    await ring.rotate(now)
    # the new key does not sign until every worker has had time to load it ...
    still_old = await ring.load(now + 1)
    assert RequestStateSealer(still_old).seal({"r": 2}, bind=b"x", now=now).split(".")[0]
    assert len(still_old) == 2
    # ... then it signs, and the old key still verifies what it sealed
    later = await ring.load(now + 11)
    sealer = RequestStateSealer(later)
    assert sealer.unseal(before, bind=b"x", now=now + 11) == {"r": 1}
    newer = sealer.seal({"r": 3}, bind=b"x", now=now + 11)
    assert RequestStateSealer(still_old).unseal(newer, bind=b"x", now=now + 11) == {"r": 3}
    # after the grace period a further rotation retires the old key
    await ring.rotate(now + 11 + 101)
    final = await ring.load(now + 11 + 101 + 11)
    with pytest.raises(InvalidRequestState, match="unknown key"):
        RequestStateSealer(final).unseal(before, bind=b"x", now=now + 1)
