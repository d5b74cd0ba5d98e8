"""``hmyframe.read``: one dataset back from a cache or export folder, whatever its chain folder
(issue 7, point 8)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hmyframe
from hmyframe import FetchOptions
from hmyframe.aio import export
from hmyframe.devnet import Chain, Devnet
from hmyframe.errors import CacheError, ConfigError

UNPACED = FetchOptions(validator_pacing=None)


@pytest.fixture(scope="module")
def exported(devnet: Devnet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of several datasets of both shards and a snapshot (chunks of 50 blocks)."""
    out = tmp_path_factory.mktemp("export")
    names = ["blocks", "transactions", "traces", "validators", "delegations"]
    options = FetchOptions(chunk_size=50, validator_pacing=None)
    asyncio.run(export(names, 0, 149, "all", block=300, rpc=devnet, out=out, options=options))
    return out


def test_read_gives_one_dataset_never_a_mix(devnet: Devnet, exported: Path) -> None:
    fetched = hmyframe.transactions(0, 149, "all", rpc=devnet, cache=exported)
    back = hmyframe.read("transactions", exported)
    pd.testing.assert_frame_equal(back, fetched, check_exact=True)
    assert list(back.columns) == hmyframe.schema("transactions").names
    # what pd.read_parquet of the folder does instead: rows of every dataset, mixed
    mixed = pd.read_parquet(exported)
    assert len(mixed) > len(back)


def test_read_finds_the_chain_folder_from_any_level(exported: Path) -> None:
    whole = hmyframe.read("blocks", exported)
    (chain,) = [p for p in exported.iterdir() if p.is_dir()]
    for path in (chain, chain / "blocks"):
        pd.testing.assert_frame_equal(hmyframe.read("blocks", path), whole, check_exact=True)
    one = hmyframe.read("blocks", chain / "blocks" / "shard1")
    assert one["shard_id"].unique().tolist() == [1]
    assert whole["shard_id"].tolist() == [0] * 150 + [1] * 150


def test_read_filters_blocks_times_and_shards(exported: Path, devnet_truth: Chain) -> None:
    part = hmyframe.read("blocks", exported, shard=1, start=20, end=29)
    assert part["block_number"].tolist() == list(range(20, 30))
    assert part["shard_id"].unique().tolist() == [1]
    last = hmyframe.read("blocks", exported, shard=0, start="-10:")
    assert last["block_number"].tolist() == list(range(140, 150))
    when = pd.Timestamp(devnet_truth.block(0, 100).timestamp, unit="s", tz="UTC")
    late = hmyframe.read("transactions", exported, shard=0, start=when.to_pydatetime())
    assert late["block_number"].min() == min(
        t.block_number for t in devnet_truth.iter_transactions(0, 100, 149)
    )
    assert (late["timestamp"] >= when).all()
    with pytest.raises(ConfigError, match="no timestamp column"):
        hmyframe.read("traces", exported, start="2026-01-01")


def test_read_snapshots(exported: Path, devnet_truth: Chain) -> None:
    vals = hmyframe.read("validators", exported)
    assert vals["snapshot_block"].unique().tolist() == [300]
    assert set(vals["validator_address_hex"]) == {v.address.lower() for v in devnet_truth.validators(300)}
    dels = hmyframe.read("delegations", exported, block=300, output="arrow")
    assert isinstance(dels, pa.Table)
    with pytest.raises(ConfigError, match=r"no delegations snapshot at block 7; snapshots: \[300\]"):
        hmyframe.read("delegations", exported, block=7)
    with pytest.raises(ConfigError, match="snapshot dataset: give block="):
        hmyframe.read("validators", exported, start=0)


def test_read_csv_exports_equal_parquet(devnet: Devnet, tmp_path: Path, exported: Path) -> None:
    out = tmp_path / "csv"
    asyncio.run(
        export(
            ["transactions", "traces"], 0, 149, "all", rpc=devnet, out=out, format="csv", cache=tmp_path / "c"
        )
    )
    for name in ("transactions", "traces"):
        pd.testing.assert_frame_equal(
            hmyframe.read(name, out), hmyframe.read(name, exported), check_exact=True
        )


def test_files_of_an_older_schema_are_completed_or_refused(exported: Path, tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(exported, old)
    for path in old.rglob("delegations__*.parquet"):
        table = pq.read_table(path)
        # as written before the *_one companions of reward and undelegating_amount existed
        pq.write_table(table.drop_columns(["reward_one", "undelegating_amount_one"]), path)
    pd.testing.assert_frame_equal(
        hmyframe.read("delegations", old), hmyframe.read("delegations", exported), check_exact=True
    )
    for path in old.rglob("blocks__*.parquet"):
        pq.write_table(pq.read_table(path).drop_columns(["vrf"]), path)
    with pytest.raises(CacheError, match="has no column 'vrf'"):
        hmyframe.read("blocks", old)


def test_several_chains_need_a_choice(exported: Path, tmp_path: Path) -> None:
    root = tmp_path / "two"
    shutil.copytree(exported, root)
    (chain,) = [p.name for p in root.iterdir()]
    shutil.copytree(root / chain, root / ("f" * 16))
    with pytest.raises(ConfigError, match=r"several chains .* choose one with chain="):
        hmyframe.read("blocks", root)
    assert len(hmyframe.read("blocks", root, chain=chain)) == 300


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"dataset": "nosuch"}, "unknown dataset 'nosuch'"),
        ({"dataset": "signers"}, "no signers files under"),
        ({"dataset": "blocks", "shard": 5}, r"no blocks files of shard 5; shards present: \[0, 1\]"),
        ({"dataset": "blocks", "output": "excel"}, "output must be one of"),
        ({"dataset": "blocks", "block": 3}, "not a snapshot dataset"),
    ],
)
def test_read_errors_name_the_problem(exported: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        hmyframe.read(path=exported, **kwargs)
