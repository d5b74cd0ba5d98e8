"""Polite at any node limit: a default fetch sizes its requests and the work it keeps out at the
node from what it measures (answer times, rate refusals: hmyframe.rpc.window), so it runs at the
node's limit instead of timing out on its own queue.

The devnet models the node's limiter (hmyframe.devnet.limits): each block of a ``getBlocks``
takes a token, receipts and logs none; the node's 5 s wait deadline, its 30 s write timeout.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from fetch_helpers import transactions as truth_transactions
from tqdm import tqdm

from hmyframe.devnet import Devnet
from hmyframe.engine import Progress, Session
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
    stream = io.StringIO()
    async with Session(limited, cache=tmp_path) as session:
        with Progress(bar=tqdm(total=0, file=stream, mininterval=0)) as bar:
            bar.watch_node(session.client)
            assert bar.note == ""  # nothing known yet
            tables = await fetch_range(
                session, ["blocks", "transactions"], 1, 400, 0, progress=bar.update, on_plan=bar.plan
            )
            note = bar.note
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
    assert seen == pytest.approx(LIMIT, rel=0.35)
    # the progress bar says that the node's limit bounds the speed, and how fast it lets it go
    assert note.startswith("node rate limit ~")
    assert note.endswith(" calls/s")
    assert float(note.split("~")[1].split()[0]) == pytest.approx(LIMIT, rel=0.35)
    assert note in stream.getvalue()
    served = limited.stats.total()
    assert dict(served.rpc_errors) == {}  # never refused for its rate
    assert retries == {}  # nothing timed out or was retried


async def test_the_bar_says_nothing_of_a_limit_that_does_not_bind(devnet: Devnet, tmp_path: Path) -> None:
    stream = io.StringIO()
    async with Session(devnet, cache=tmp_path) as session:
        with Progress(bar=tqdm(total=0, file=stream, mininterval=0)) as bar:
            bar.watch_node(session.client)
            await fetch_range(session, ["blocks"], 0, 299, 0, progress=bar.update, on_plan=bar.plan)
            assert bar.note == ""
    assert "rate limit" not in stream.getvalue()
