"""Polite at any node limit: a default fetch sizes its requests and the work it keeps out at the
node from what it measures (answer times, rate refusals: hmyframe.rpc.window), so it runs at the
node's limit instead of timing out on its own queue.

The devnet models the node's limiter (hmyframe.devnet.limits): each block of a ``getBlocks``
takes a token, receipts and logs none; the node's 5 s wait deadline, its 30 s write timeout.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fetch_helpers import transactions as truth_transactions

from hmyframe.devnet import Devnet
from hmyframe.engine import Session
from hmyframe.engine._ranges import fetch_range

LIMIT = 40.0


@pytest.fixture(scope="module")
def limited() -> Devnet:
    with Devnet(shards=1, blocks=700, seed=21, validator_rate_limit=False, rpc_rate_limit=LIMIT) as net:
        yield net


async def test_a_default_fetch_runs_at_a_low_node_limit_with_small_requests(
    limited: Devnet, tmp_path: Path
) -> None:
    """400 blocks at 40 calls/s: ~9 s at the limit (its first second's burst aside). The first
    100-block request goes alone (the first window); its answer (1.5 s) opens the window to the
    three others, whose answer (7.5 s, over the 5 s target) cuts it to what the node serves in
    5 s: later requests would be of 25 blocks."""
    limited.stats.reset()
    began = time.monotonic()
    async with Session(limited, cache=tmp_path) as session:
        tables = await fetch_range(session, ["blocks", "transactions"], 1, 400, 0)
        took = time.monotonic() - began
        client = session.client
        advised = client.request_calls(limited.urls[0], "hmyv2_getBlocks")
        seen = client.node_limit()
        retries = dict(client.stats.retries)
    assert tables["blocks"]["block_number"].to_pylist() == list(range(1, 401))
    truth = truth_transactions(limited.chain, 0, 1, 400)
    assert tables["transactions"]["transaction_hash"].to_pylist() == [t.hash for t in truth]
    ideal = (400 - LIMIT) / LIMIT
    assert took <= ideal / 0.8 + 2.0, f"{took:.1f} s for {ideal:.1f} s at the limit"
    # requests were cut to what the node serves in ~5 s with 8 out: 200 calls out, 25 a request
    assert advised is not None
    assert 5 <= advised <= 60
    assert seen == pytest.approx(LIMIT, rel=0.35)  # the bar's "node rate limit ~40 calls/s"
    served = limited.stats.total()
    assert dict(served.rpc_errors) == {}  # never refused for its rate
    assert retries == {}  # nothing timed out or was retried
