"""Account metrics: top-N share, the Nakamoto coefficient of holdings, wealth concentration per
block, rich lists with labels, balance changes and a delegator's rewards per validator, on
frames whose answers are worked out by hand (and exact beyond 2**64)."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import pytest

from hmyframe import metrics
from hmyframe.addresses import to_one
from hmyframe.errors import AddressError, ConfigError

A, B, C, D = ("0x" + c * 40 for c in "abcd")
BIG = 10**30  # beyond 2**64 and float precision


def _balances(rows: list[tuple[str, int, int]], shard: int = 0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "address": [to_one(a) for a, _, _ in rows],
            "address_hex": [a for a, _, _ in rows],
            "block_number": [b for _, b, _ in rows],
            "shard_id": [shard] * len(rows),
            "balance": pd.array([v for _, _, v in rows], dtype="atto"),
        }
    )


def test_top_share_and_holders_to_exceed() -> None:
    assert metrics.top_share([5, 3, 1, 1], 1) == 0.5
    assert metrics.top_share([5, 3, 1, 1], 10) == 1.0
    # exact where floats are not: 1 atto out of 3e30 + 1
    assert metrics.top_share([BIG, BIG, BIG, 1], 3) == float(Fraction(3 * BIG, 3 * BIG + 1))
    assert metrics.holders_to_exceed([4, 3, 2, 1]) == 2  # 4 + 3 > 5
    assert metrics.holders_to_exceed([5, 3, 1, 1]) == 2  # 5 is not more than half of 10
    assert metrics.holders_to_exceed([BIG + 1, BIG]) == 1  # more than half by one atto
    assert metrics.holders_to_exceed([1, 1, 1, 1], threshold=0.74) == 3
    assert metrics.holders_to_exceed([]) is None
    with pytest.raises(ConfigError, match=r"^top_share needs n >= 1"):
        metrics.top_share([1], 0)
    with pytest.raises(ConfigError, match=r"^holders_to_exceed threshold must be"):
        metrics.holders_to_exceed([1], 1.5)


def test_wealth_concentration_per_block() -> None:
    df = _balances([(A, 10, 6 * BIG), (B, 10, 3 * BIG), (C, 10, BIG), (D, 10, 0), (A, 20, BIG), (B, 20, BIG)])
    out = metrics.wealth_concentration(df, top=(1, 2))
    assert list(out["block_number"]) == [10, 20]
    first, second = out.iloc[0], out.iloc[1]
    assert int(first["holders"]) == 3
    assert int(first["total"]) == 10 * BIG
    assert first["total_one"] == 10 * BIG / 10**18
    assert first["top_1_share"] == 0.6
    assert first["top_2_share"] == 0.9
    assert int(first["nakamoto"]) == 1
    assert first["gini"] == pytest.approx(metrics.gini([6, 3, 1, 0]))
    assert second["gini"] == 0.0
    assert int(second["nakamoto"]) == 2


def test_rich_list_ranks_and_labels() -> None:
    df = _balances([(A, 5, BIG), (B, 5, 3 * BIG), (C, 5, 2 * BIG), (A, 9, 7)])
    rich = metrics.rich_list(df, top=2, labels={to_one(B): "exchange hot wallet"}, block=5)
    assert rich.attrs["block"] == 5
    assert list(rich["address_hex"]) == [B, C]
    assert list(rich["rank"]) == [1, 2]
    assert rich["label"].iloc[0] == "exchange hot wallet"
    assert pd.isna(rich["label"].iloc[1])
    assert [int(v) for v in rich["balance"]] == [3 * BIG, 2 * BIG]
    assert list(rich["share"]) == [0.5, float(Fraction(2, 6))]
    assert list(rich["cumulative_share"]) == [0.5, float(Fraction(5, 6))]
    assert list(metrics.rich_list(df)["address_hex"]) == [A]  # the frame's last block by default
    with pytest.raises(AddressError):
        metrics.rich_list(df, labels={"one1nothing": "x"})
    with pytest.raises(ConfigError, match=r"^rich_list: block 6 is not in the balances"):
        metrics.rich_list(df, block=6)


def test_balance_changes_are_exact() -> None:
    df = _balances([(A, 20, BIG + 1), (A, 10, BIG), (B, 10, 5), (B, 30, 2)])
    out = metrics.balance_changes(df)
    assert list(out["address_hex"]) == [A, A, B, B]
    assert list(out["block_number"]) == [10, 20, 10, 30]
    changes = [None if pd.isna(v) else int(v) for v in out["change"]]
    assert changes == [None, 1, None, -3]


def _delegations(rows: list[tuple[int, int, str, int, int]], delegator: str = D) -> pd.DataFrame:
    """(block, epoch, validator, amount, reward) rows of one delegator."""
    return pd.DataFrame(
        {
            "snapshot_block": [r[0] for r in rows],
            "snapshot_epoch": [r[1] for r in rows],
            "validator_address": [to_one(r[2]) for r in rows],
            "validator_address_hex": [r[2] for r in rows],
            "delegator_address": [to_one(delegator)] * len(rows),
            "delegator_address_hex": [delegator] * len(rows),
            "amount": pd.array([r[3] for r in rows], dtype="atto"),
            "reward": pd.array([r[4] for r in rows], dtype="atto"),
        }
    )


def _collected(rows: list[tuple[int, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "block_number": [b for b, _ in rows],
            "delegator_address_hex": [D] * len(rows),
            "amount": pd.array([a for _, a in rows], dtype="atto"),
        }
    )


def test_rewards_by_validator_splits_a_collection_exactly() -> None:
    """Epoch 1 (blocks 10..19): validator A's reward goes 2 -> 9 with a collection at block 15
    that paid A's 5 and B's 4 (the state after block 14); B's reward goes 3 -> 1."""
    epochs = _delegations([(9, 0, A, BIG, 2), (9, 0, B, BIG, 3), (19, 1, A, BIG, 9), (19, 1, B, 2 * BIG, 1)])
    before = _delegations([(14, 1, A, BIG, 5), (14, 1, B, BIG, 4)])
    out = metrics.rewards_by_validator(epochs, _collected([(15, 9)]), before)
    assert list(out["validator_address_hex"]) == [A, B]
    assert list(out["epoch"]) == [1, 1]
    assert [int(v) for v in out["collected"]] == [5, 4]
    assert [int(v) for v in out["accrued"]] == [9 - 2 + 5, 1 - 3 + 4]
    assert [int(v) for v in out["stake"]] == [BIG, 2 * BIG]
    assert [int(v) for v in out["unclaimed"]] == [9, 1]
    # a collection that does not match the state before it names the block
    with pytest.raises(ConfigError, match=r"in block 15 paid 10 atto but its delegations at block 14 show 9"):
        metrics.rewards_by_validator(epochs, _collected([(15, 10)]), before)
    with pytest.raises(ConfigError, match=r"no delegations of one1.* at block 14"):
        metrics.rewards_by_validator(epochs, _collected([(15, 9)]), before.iloc[0:0])
