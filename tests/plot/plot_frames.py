"""Small hand-made frames in the datasets' schemas, shared by the plot tests."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa

from hmyframe import datasets as ds

ONE = 10**18
T0 = pd.Timestamp("2026-03-01 12:00:00", tz="UTC")


def frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    return ds.to_pandas(pa.Table.from_pylist(rows, schema=ds.get(name).schema))


def validators() -> pd.DataFrame:
    """A (100 ONE, elected, signs 50%), B (3,000,000 ONE, elected, 96%), C (50 ONE, eligible), D (banned)."""
    base = {"is_active": True, "is_banned": False, "snapshot_block": 99, "snapshot_epoch": 3}
    rows = [
        {
            "validator_address": "A",
            "name": "Alpha",
            "rate": 0.10,
            "max_rate": 0.5,
            "max_change_rate": 0.05,
            "total_delegation": 100 * ONE,
            "is_elected": True,
            "epos_status": "currently elected",
            "epoch_signing_percentage": 0.5,
            "delegation_count": 4,
        },
        {
            "validator_address": "B",
            "name": "Beta",
            "rate": 0.05,
            "max_rate": 0.5,
            "max_change_rate": 0.05,
            "total_delegation": 3_000_000 * ONE,
            "is_elected": True,
            "epos_status": "currently elected",
            "epoch_signing_percentage": 0.96,
            "delegation_count": 1,
        },
        {
            "validator_address": "C",
            "name": "Gamma",
            "rate": 0.20,
            "total_delegation": 50 * ONE,
            "is_elected": False,
            "epos_status": "eligible to be elected next epoch",
        },
        {
            "validator_address": "D",
            "name": "Delta",
            "rate": 0.07,
            "total_delegation": 0,
            "is_elected": False,
            "epos_status": "banned forever from network because was caught double-signing",
            "is_banned": True,
            "is_active": False,
        },
    ]
    return frame("validators", [{**base, **row} for row in rows])


def voting_power() -> pd.DataFrame:
    """Shard 0: A 0.10 + 0.15 (two keys), B 0.45 (Harmony's keys 0.30). Shard 1: B 1.0."""
    return frame(
        "voting_power",
        [
            {"validator_address": "A", "shard_id": 0, "bls_public_key": "k1", "overall_percent": 0.10},
            {"validator_address": "A", "shard_id": 0, "bls_public_key": "k2", "overall_percent": 0.15},
            {"validator_address": "B", "shard_id": 0, "bls_public_key": "k3", "overall_percent": 0.45},
            {"validator_address": "B", "shard_id": 1, "bls_public_key": "k4", "overall_percent": 1.0},
        ],
    )


def delegations() -> pd.DataFrame:
    """A: self 40, X 60 ONE; B: self 3,000,000 ONE."""
    return frame(
        "delegations",
        [
            {"validator_address": "A", "delegator_address": "A", "amount": 40 * ONE},
            {"validator_address": "A", "delegator_address": "X", "amount": 60 * ONE},
            {"validator_address": "B", "delegator_address": "B", "amount": 3_000_000 * ONE},
        ],
    )


def blocks() -> pd.DataFrame:
    """Shard 0: blocks 10..13 at 0, 2, 4 and 62 s; shard 1: blocks 7, 8 at 1 and 3 s."""
    rows = []
    for shard, number, second, tx, gas in [
        (0, 10, 0, 3, 10),
        (0, 11, 2, 1, 20),
        (0, 12, 4, 0, 0),
        (0, 13, 62, 5, 50),
        (1, 7, 1, 4, 40),
        (1, 8, 3, 4, 40),
    ]:
        rows.append(
            {
                "block_number": number,
                "shard_id": shard,
                "timestamp": T0 + pd.Timedelta(seconds=second),
                "transaction_count": tx,
                "staking_transaction_count": 0,
                "gas_used": gas,
                "gas_limit": 100,
            }
        )
    return frame("blocks", rows)


def transactions() -> pd.DataFrame:
    """Minute 0: 4 transfers, one cross-shard moving 3 of 4 ONE; minute 1: 1 transfer."""
    rows = [
        {"from_address": "a", "shard_id": 0, "value": ONE, "is_cross_shard": False, "second": 0},
        {"from_address": "a", "shard_id": 0, "value": 3 * ONE, "is_cross_shard": True, "second": 2},
        {"from_address": "b", "shard_id": 0, "value": 0, "is_cross_shard": False, "second": 4},
        {"from_address": "a", "shard_id": 1, "value": 0, "is_cross_shard": False, "second": 3},
        {"from_address": "c", "shard_id": 0, "value": ONE, "is_cross_shard": False, "second": 61},
    ]
    for row in rows:
        row["timestamp"] = T0 + pd.Timedelta(seconds=row.pop("second"))
        row["is_contract_creation"] = False
    return frame("transactions", rows)


def staking_transactions() -> pd.DataFrame:
    return frame(
        "staking_transactions",
        [
            {"directive": "Delegate", "timestamp": T0},
            {"directive": "Delegate", "timestamp": T0 + pd.Timedelta(seconds=5)},
            {"directive": "CollectRewards", "timestamp": T0 + pd.Timedelta(seconds=70)},
        ],
    )
