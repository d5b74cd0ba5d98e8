"""Signing, delegation, summaries and snapshot diffs against hand-made snapshots in both formats."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe.errors import ConfigError

ONE = 10**18


def frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows in a dataset's exact schema (unlisted columns null)."""
    return ds.to_pandas(pa.Table.from_pylist(rows, schema=ds.get(name).schema))


def validators(legacy: bool = False) -> pd.DataFrame:
    """Four validators: A and B elected (A signs 0.5, B 0.66 exactly), C eligible, D banned."""
    rows = [
        {
            "validator_address": "A",
            "name": "Alpha",
            "rate": 0.10,
            "total_delegation": 100 * ONE + 1,
            "is_elected": True,
            "epos_status": "currently elected",
            "epoch_signing_percentage": 0.5,
            "epoch_blocks_signed": 50,
            "epoch_blocks_to_sign": 100,
            "lifetime_blocks_signed": 90,
            "lifetime_blocks_to_sign": 100,
            "apr": 0.10,
            "is_active": True,
            "is_banned": False,
            "snapshot_block": 99,
        },
        {
            "validator_address": "B",
            "name": "Beta",
            "rate": 0.05,
            "total_delegation": 300 * ONE,
            "is_elected": True,
            "epos_status": "currently elected",
            "epoch_signing_percentage": 0.66,
            "epoch_blocks_signed": 66,
            "epoch_blocks_to_sign": 100,
            "lifetime_blocks_signed": 0,
            "lifetime_blocks_to_sign": 0,
            "apr": 0.30,
            "is_active": True,
            "is_banned": False,
            "snapshot_block": 99,
        },
        {
            "validator_address": "C",
            "name": "Gamma",
            "rate": 0.20,
            "total_delegation": 50 * ONE,
            "is_elected": False,
            "epos_status": "eligible to be elected next epoch",
            "epoch_signing_percentage": None,
            "apr": 0.0,
            "is_active": True,
            "is_banned": False,
            "snapshot_block": 99,
        },
        {
            "validator_address": "D",
            "name": "Delta",
            "rate": 0.07,
            "total_delegation": 0,
            "is_elected": False,
            "epos_status": "banned forever",
            "epoch_signing_percentage": None,
            "apr": 0.0,
            "is_active": False,
            "is_banned": True,
            "snapshot_block": 99,
        },
    ]
    if legacy:  # the early-2020 format has neither total_delegation nor is_elected / epos_status
        for row in rows:
            row["total_delegation"] = row["is_elected"] = row["epos_status"] = row["apr"] = None
    return frame("validators", rows)


def voting_power() -> pd.DataFrame:
    return frame(
        "voting_power",
        [
            {"validator_address": "A", "shard_id": 0, "voting_power_adjusted": 0.4, "overall_percent": 0.4},
            {"validator_address": "B", "shard_id": 1, "voting_power_adjusted": 0.6, "overall_percent": 0.6},
        ],
    )


def delegations() -> pd.DataFrame:
    """A: self 30 ONE + 1 atto, X 50, Y 20, Z 0 (a delegation fully undelegated). B: self 300."""
    return frame(
        "delegations",
        [
            {"validator_address": "A", "delegator_address": "A", "amount": 30 * ONE + 1},
            {"validator_address": "A", "delegator_address": "X", "amount": 50 * ONE},
            {"validator_address": "A", "delegator_address": "Y", "amount": 20 * ONE},
            {"validator_address": "A", "delegator_address": "Z", "amount": 0},
            {"validator_address": "B", "delegator_address": "B", "amount": 300 * ONE},
            {"validator_address": "C", "delegator_address": "C", "amount": 50 * ONE},
        ],
    )


@pytest.mark.parametrize("legacy", [False, True], ids=["current", "early-2020"])
def test_annotate_gives_stake_and_election_in_both_formats(legacy: bool) -> None:
    table = metrics.annotate(validators(legacy), voting_power(), delegations())
    assert metrics.exact_ints(table["stake"]) == [100 * ONE + 1, 300 * ONE, 50 * ONE, 0]
    assert table["stake_one"].tolist() == [100.0, 300.0, 50.0, 0.0]
    assert table["elected"].tolist() == [True, True, False, False]


def test_signing_lists_elected_validators_worst_first_with_the_66_percent_rule() -> None:
    table = metrics.signing(validators())
    assert table["validator_address"].tolist() == ["A", "B"]
    # 0.66 exactly is not below Harmony's threshold (signed / to_sign < 0.66 is)
    assert table["below_threshold"].tolist() == [True, False]
    assert table["epoch_blocks_signed"].tolist() == [50, 66]
    assert table["lifetime_uptime"].iloc[0] == 0.9
    assert math.isnan(table["lifetime_uptime"].iloc[1])  # nothing to sign yet
    below = metrics.below_threshold(validators(legacy=True), voting_power=voting_power())
    assert below["validator_address"].tolist() == ["A"]
    assert metrics.below_threshold(validators(), 0.4).empty
    with pytest.raises(ConfigError, match="between 0 and 1"):
        metrics.signing(validators(), 66)


def test_lifetime_uptime_is_signed_over_to_sign() -> None:
    uptime = metrics.lifetime_uptime(validators())
    assert uptime.loc["A"] == 0.9
    assert uptime.index.tolist() == ["A", "B", "C", "D"]
    assert uptime.isna().tolist() == [False, True, True, True]


def test_delegation_summary_shares_are_exact() -> None:
    summary = metrics.delegation_summary(delegations())
    assert summary.index.tolist() == ["B", "A", "C"]  # by descending stake
    a = summary.loc["A"]
    assert a["delegators"] == 3  # Z's zero delegation does not count
    assert metrics.exact_ints(summary["stake"])[1] == 100 * ONE + 1
    assert a["largest_delegator"] == "X"
    assert a["largest_delegator_share"] == 50 * ONE / (100 * ONE + 1)
    assert a["self_stake_share"] == pytest.approx(0.3)
    assert summary.loc["B", "self_stake_share"] == 1.0
    with pytest.raises(ConfigError, match="delegator_address"):
        metrics.delegation_summary(pd.DataFrame({"validator_address": ["A"], "amount": [1]}))


def test_apr_distribution_of_elected_validators() -> None:
    stats = metrics.apr_distribution(validators())
    assert stats["count"] == 2
    assert stats["mean"] == pytest.approx(0.2)
    assert stats["p50"] == pytest.approx(0.2)
    assert stats["min"] == 0.10
    assert stats["max"] == 0.30
    assert metrics.apr_distribution(validators(), elected_only=False)["count"] == 4
    legacy = metrics.apr_distribution(validators(legacy=True), voting_power())
    assert legacy["count"] == 0
    assert math.isnan(legacy["p50"])


@pytest.mark.parametrize("legacy", [False, True], ids=["current", "early-2020"])
def test_staking_summary(legacy: bool) -> None:
    summary = metrics.staking_summary(validators(legacy), voting_power(), delegations())
    assert summary["validators"] == 4
    assert summary["elected"] == 2
    assert summary["total_stake"] == 450 * ONE + 1
    assert summary["elected_stake"] == 400 * ONE + 1
    # Gini of the elected stakes 100 ONE + 1 atto and 300 ONE: (2*(a + 2b) - 3(a + b)) / (2(a + b)) = (b - a) / (2(a + b))
    a, b = 100 * ONE + 1, 300 * ONE
    assert summary["gini"] == pytest.approx((b - a) / (2 * (a + b)))
    assert summary["nakamoto_by_shard"] == {0: 1, 1: 1}
    assert summary["nakamoto"] == 1
    assert summary["median_signing"] == pytest.approx(0.58)
    assert summary["below_threshold"] == 1


def test_snapshot_diff_names_every_change_and_keeps_atto() -> None:
    old = validators()
    new = frame(
        "validators",
        [
            # A: one atto more, dropped out of the committee, commission 10% -> 12%
            {
                "validator_address": "A",
                "name": "Alpha",
                "rate": 0.12,
                "total_delegation": 100 * ONE + 2,
                "is_elected": False,
            },
            # B unchanged; C got elected with 25 ONE more; D left; E joined
            {
                "validator_address": "B",
                "name": "Beta",
                "rate": 0.05,
                "total_delegation": 300 * ONE,
                "is_elected": True,
            },
            {
                "validator_address": "C",
                "name": "Gamma",
                "rate": 0.20,
                "total_delegation": 75 * ONE,
                "is_elected": True,
            },
            {
                "validator_address": "E",
                "name": "Epsilon",
                "rate": 0.10,
                "total_delegation": 10 * ONE,
                "is_elected": False,
                "snapshot_block": 199,
            },
        ],
    )
    diff = metrics.snapshot_diff(old, new)
    assert diff.index.tolist() == ["C", "E", "A", "B", "D"]  # by descending stake change
    assert metrics.exact_ints(diff["stake_change"]) == [25 * ONE, 10 * ONE, 1, 0, 0]
    assert diff.loc["A", "stake_change_one"] == pytest.approx(1e-18)
    flags = diff[["joined", "left", "got_elected", "dropped"]]
    assert flags.loc["E"].tolist() == [True, False, False, False]
    assert flags.loc["D"].tolist() == [False, True, False, False]
    assert flags.loc["C"].tolist() == [False, False, True, False]
    assert flags.loc["A"].tolist() == [False, False, False, True]
    assert diff.loc["A", "rate_change"] == pytest.approx(0.02)
    assert np.isnan(diff.loc["E", "rate_old"])
    assert diff.attrs == {"old_block": 99, "new_block": 199}


def test_metrics_name_the_missing_column() -> None:
    with pytest.raises(ConfigError, match="epoch_signing_percentage"):
        metrics.signing(pd.DataFrame({"validator_address": ["A"]}))
    with pytest.raises(ConfigError, match="needs a pandas DataFrame"):
        metrics.annotate([1, 2])  # type: ignore[arg-type]
