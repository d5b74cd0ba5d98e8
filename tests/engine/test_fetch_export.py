"""``hmyframe.aio.export`` (``hmyframe.export``): what lands on disk and what the summary says about it."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
from fetch_helpers import hidden_files
from fetch_helpers import transactions as truth_transactions

import hmyframe
from hmyframe import FetchOptions
from hmyframe.aio import export
from hmyframe.devnet import Chain, Devnet, DevnetStats

OPTIONS = FetchOptions(chunk_size=50, blocks_per_request=25, validator_pacing=None)


async def test_export_of_a_range_inside_wider_cached_files_counts_and_writes_only_that_range(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain, tmp_path: Path
) -> None:
    # an earlier fetch cached blocks 0..199 in one file (chunk_size 1000)
    await hmyframe.aio.transactions(0, 199, rpc=devnet, cache=tmp_path / "cache")
    devnet_stats.reset()
    truth = truth_transactions(devnet_truth, 0, 60, 119)
    summary = await export(["transactions"], 60, 119, rpc=devnet, out=tmp_path / "cache")
    assert devnet_stats.http_requests == 0
    assert summary.fetched_blocks == 0
    assert summary.datasets["transactions"].rows == len(truth)
    assert f"{len(truth):,} rows" in "\n".join(summary.lines())

    summary = await export(
        ["transactions"], 60, 119, rpc=devnet, out=tmp_path / "csv", format="csv", cache=tmp_path / "cache"
    )
    assert devnet_stats.http_requests == 0
    (path,) = summary.datasets["transactions"].files
    assert path.name == "transactions__0000000060_0000000119.csv"
    assert summary.datasets["transactions"].rows == len(truth)
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["transaction_hash"] for r in rows] == [t.hash for t in truth]
    # exact amounts as plain digits, nothing through a float
    assert [int(r["value"]) for r in rows] == [t.value for t in truth]
    assert all(r["value"].isdigit() for r in rows)
    assert hidden_files(tmp_path) == []


async def test_csv_export_of_snapshot_and_ranges_across_chunks(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    summary = await export(
        ["blocks", "delegations"],
        30,
        140,
        1,
        block=200,
        rpc=devnet,
        out=tmp_path / "csv",
        format="csv",
        cache=tmp_path / "cache",
        options=OPTIONS,
    )
    blocks = summary.datasets["blocks"]
    assert [p.name for p in blocks.files] == [
        "blocks__0000000030_0000000049.csv",
        "blocks__0000000050_0000000099.csv",
        "blocks__0000000100_0000000140.csv",
    ]
    df = pd.concat(pd.read_csv(p) for p in blocks.files)
    assert df["block_number"].tolist() == list(range(30, 141))
    assert df["block_hash"].tolist() == [devnet_truth.block(1, n).hash for n in range(30, 141)]
    (snap,) = summary.datasets["delegations"].files
    with snap.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    truth = [d for v in devnet_truth.validators(200) for d in v.delegations]
    assert len(rows) == len(truth) == summary.datasets["delegations"].rows
    assert sum(int(r["amount"]) for r in rows) == sum(d.amount for d in truth)
