"""Opt-in checks against a real Harmony node: ``HMYFRAME_LIVE_RPC=<url> pytest -m live``.

Skipped unless ``HMYFRAME_LIVE_RPC`` names a node (e.g. ``https://api.s0.t.hmny.io``);
``HMYFRAME_LIVE_TRACE_RPC`` optionally names a trace/archival endpoint. Everything else in the
suite runs against the devnet; these tests confirm the devnet's conclusions hold on a real node.
They only read, use a temporary cache, and ask for a handful of blocks.
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest

import hmyframe
from hmyframe.engine import FetchOptions

LIVE = os.environ.get("HMYFRAME_LIVE_RPC")
TRACE = os.environ.get("HMYFRAME_LIVE_TRACE_RPC")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(not LIVE, reason="set HMYFRAME_LIVE_RPC to a node URL to run the live tests"),
]


@pytest.fixture(scope="module")
def recent() -> tuple[int, int]:
    head = hmyframe.head(rpc=LIVE)
    assert head > 1000
    return head - 60, head - 31


def test_both_generations_give_the_same_blocks_and_transactions(
    recent: tuple[int, int], tmp_path: Path
) -> None:
    start, end = recent
    v2 = hmyframe.transactions(start, end, rpc=LIVE, cache=tmp_path / "a")
    v1 = hmyframe.transactions(start, end, rpc=LIVE, cache=tmp_path / "b", options=FetchOptions(version=1))
    pd.testing.assert_frame_equal(v1, v2, check_exact=True)
    blocks = hmyframe.blocks(start, end, rpc=LIVE, cache=tmp_path / "a")
    assert blocks["block_number"].tolist() == list(range(start, end + 1))
    assert int(blocks["transaction_count"].sum()) == len(v2)
    assert sum(v2["value"].dropna().tolist(), Decimal(0)) >= 0


def test_validator_snapshot_pages_are_complete(tmp_path: Path) -> None:
    vals = hmyframe.validators(rpc=LIVE, cache=tmp_path)
    assert vals["validator_address"].is_unique
    assert len(vals) > 100  # mainnet has several pages of validators
    elected = vals[vals["is_elected"].fillna(False)]
    assert len(elected) > 0


def test_shards_and_heads() -> None:
    shards = hmyframe.shards(rpc=LIVE)
    assert shards["is_current"].sum() == 1
    for shard in shards["shard_id"]:
        assert hmyframe.head(int(shard), rpc=LIVE) > 0


@pytest.mark.skipif(not TRACE, reason="set HMYFRAME_LIVE_TRACE_RPC to a trace/archival endpoint")
def test_traces_resolve_harmony_hashes(recent: tuple[int, int], tmp_path: Path) -> None:
    start, end = recent
    tx = hmyframe.transactions(start, end, rpc=LIVE, cache=tmp_path)
    traces = hmyframe.traces(start, end, rpc=LIVE, trace_rpc=TRACE, cache=tmp_path)
    assert set(traces["transaction_hash"].dropna()) <= set(tx["transaction_hash"])
