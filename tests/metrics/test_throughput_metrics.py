"""Throughput metrics against a small hand-made chain slice."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe.errors import ConfigError

ONE = 10**18
T0 = pd.Timestamp("2026-03-01 12:00:00", tz="UTC")


def frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    return ds.to_pandas(pa.Table.from_pylist(rows, schema=ds.get(name).schema))


def blocks() -> pd.DataFrame:
    """Shard 0: blocks 10..14 at 0, 2, 4, 60, 62 s (one 56 s stall); block 15 missing, 16 at 66 s.
    Shard 1: blocks 7, 8 at 1 and 3 s. Gas limit 100 per block."""
    rows = []
    for number, second, tx, gas in [
        (10, 0, 3, 10),
        (11, 2, 1, 20),
        (12, 4, 0, 0),
        (13, 60, 5, 50),
        (14, 62, 2, 30),
        (16, 66, 1, 10),
    ]:
        rows.append(
            {
                "block_number": number,
                "shard_id": 0,
                "timestamp": T0 + pd.Timedelta(seconds=second),
                "transaction_count": tx,
                "staking_transaction_count": 1 if number == 13 else 0,
                "gas_used": gas,
                "gas_limit": 100,
            }
        )
    for number, second in [(7, 1), (8, 3)]:
        rows.append(
            {
                "block_number": number,
                "shard_id": 1,
                "timestamp": T0 + pd.Timedelta(seconds=second),
                "transaction_count": 4,
                "staking_transaction_count": 0,
                "gas_used": 40,
                "gas_limit": 100,
            }
        )
    return frame("blocks", rows)


def transactions() -> pd.DataFrame:
    """Four transfers in minute 0 (one cross-shard carrying 3 ONE of 4 ONE + 1 atto), one in minute 1."""
    rows = [
        {
            "from_address": "a",
            "shard_id": 0,
            "value": ONE,
            "is_cross_shard": False,
            "is_contract_creation": False,
            "second": 0,
        },
        {
            "from_address": "a",
            "shard_id": 0,
            "value": 3 * ONE,
            "is_cross_shard": True,
            "is_contract_creation": False,
            "second": 2,
        },
        {
            "from_address": "b",
            "shard_id": 0,
            "value": 1,
            "is_cross_shard": False,
            "is_contract_creation": True,
            "second": 4,
        },
        {
            "from_address": "a",
            "shard_id": 1,
            "value": 0,
            "is_cross_shard": False,
            "is_contract_creation": False,
            "second": 3,
        },
        {
            "from_address": "c",
            "shard_id": 0,
            "value": 10**30,
            "is_cross_shard": False,
            "is_contract_creation": True,
            "second": 61,
        },
    ]
    for row in rows:
        row["timestamp"] = T0 + pd.Timedelta(seconds=row.pop("second"))
    return frame("transactions", rows)


def test_buckets_per_minute_and_shard() -> None:
    table = metrics.buckets(blocks(), "min")
    assert table.attrs["freq"] == "min"
    assert table[
        ["shard_id", "blocks", "transactions", "staking_transactions", "gas_used", "gas_limit"]
    ].values.tolist() == [
        [0, 3, 4, 0, 30, 300],
        [1, 2, 8, 0, 80, 200],
        [0, 3, 8, 1, 90, 300],
    ]
    assert table["utilisation"].tolist() == pytest.approx([0.1, 0.4, 0.3])
    assert table["bucket"].tolist() == [T0, T0, T0 + pd.Timedelta(minutes=1)]


def test_auto_bucket_width_keeps_at_least_twelve_buckets() -> None:
    times = pd.Series(pd.date_range("2026-01-01", periods=2, freq="3h", tz="UTC"))
    assert metrics.bucket_frequency(times) == "15min"  # 3 h / 15 min = 12; 3 h / 1 h = 3
    assert (
        metrics.bucket_frequency(pd.Series(pd.date_range("2026-01-01", periods=2, freq="30D", tz="UTC")))
        == "D"
    )
    assert metrics.bucket_frequency(times, "h") == "h"
    with pytest.raises(ConfigError, match="pandas frequency"):
        metrics.bucket_frequency(times, "fortnightly")


def test_gas_utilisation_over_the_range() -> None:
    assert metrics.gas_utilisation(blocks()).to_dict() == {0: pytest.approx(120 / 600), 1: pytest.approx(0.4)}


def test_block_time_statistics_with_a_stall_and_a_missing_block() -> None:
    stats = metrics.block_times(blocks())
    shard0 = stats.loc[0]
    # consecutive pairs: 2, 2, 56, 2 s (14 -> 16 skips block 15: not a block time)
    assert shard0["intervals"] == 4
    assert shard0["mean"] == 15.5
    assert shard0["median"] == 2.0
    assert shard0["max"] == 56.0
    # sorted 2, 2, 2, 56: the 95th percentile sits at position 0.95 * 3 = 2.85 -> 2 + 0.85 * 54
    assert shard0["p95"] == pytest.approx(2 + 0.85 * 54)
    assert shard0["gaps"] == 1  # 56 s > 3 x median
    assert shard0["missing"] == 1
    assert stats.loc[1, "intervals"] == 1
    assert metrics.block_times(blocks(), gap=1).loc[0, "gaps"] == 4


def test_cross_shard_share_by_count_and_exact_value() -> None:
    overall = metrics.cross_shard(transactions())
    assert overall.loc["all", "transfers"] == 5
    assert overall.loc["all", "count_share"] == 0.2
    value = 4 * ONE + 1 + 10**30
    assert metrics.exact_ints(overall["value"]) == [value]
    assert overall.loc["all", "value_share"] == 3 * ONE / value
    per_minute = metrics.cross_shard(transactions(), "min")
    assert per_minute["count_share"].tolist() == [0.25, 0.0]
    assert per_minute["value_share"].iloc[0] == 3 * ONE / (4 * ONE + 1)


def test_directives_creations_and_senders_per_bucket() -> None:
    staking = frame(
        "staking_transactions",
        [
            {"directive": "Delegate", "timestamp": T0},
            {"directive": "Delegate", "timestamp": T0 + pd.Timedelta(seconds=5)},
            {"directive": "CollectRewards", "timestamp": T0 + pd.Timedelta(seconds=70)},
        ],
    )
    directives = metrics.staking_directives(staking, "min")
    assert list(directives.columns) == list(metrics.throughput.DIRECTIVES)
    assert directives.loc[T0].tolist() == [0, 0, 2, 0, 0]
    assert directives.loc[T0 + pd.Timedelta(minutes=1)].tolist() == [0, 0, 0, 0, 1]
    creations = metrics.contract_creations(transactions(), "min")
    assert creations[0].tolist() == [1, 1]
    senders = metrics.active_senders(transactions(), "min")
    assert senders.loc[T0].tolist() == [2, 1, 2]  # shard 0: a, b; shard 1: a; all: a, b
    assert list(senders.columns) == [0, 1, "all"]


def test_empty_ranges_give_empty_answers() -> None:
    assert metrics.buckets(blocks().iloc[:0]).empty
    assert metrics.block_times(blocks().iloc[:0]).empty
    assert metrics.cross_shard(transactions().iloc[:0]).empty
    assert math.isnan(metrics.gini([]))
    with pytest.raises(ConfigError, match="gas_limit"):
        metrics.buckets(blocks().drop(columns=["gas_limit"]))
