"""Fee and token metrics on a token-busy devnet, checked against independent computations on the
raw frames (pandas merges and groupbys, Python ints and Fractions), and on hand-made edge cases."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe.amounts import UINT256_MAX
from hmyframe.errors import ConfigError
from tests.fee_token_frames import frames

ONE = 10**18
ZERO = "0x" + "0" * 40


def _p(values: list[int], q: int) -> float:
    """numpy's linear percentile, computed exactly on Fractions, in ONE."""
    ordered = sorted(Fraction(v, ONE) for v in values)
    position = Fraction(q, 100) * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (position - low))


def test_fees_per_minute_and_shard_match_the_raw_receipts() -> None:
    data = frames()
    receipts, blocks = data["receipts"], data["blocks"]
    out = metrics.fees(receipts, blocks, "1min")
    assert out.attrs["freq"] == "1min"
    # independently: the block time by (shard, number), fees as gas_used x gas_price in Python ints
    merged = receipts.merge(
        blocks[["shard_id", "block_number", "timestamp"]], on=["shard_id", "block_number"]
    )
    assert len(merged) == len(receipts)
    merged["minute"] = pd.to_datetime(merged["timestamp"], utc=True).dt.floor("1min")
    expected = {}
    for (minute, shard), group in merged.groupby(["minute", "shard_id"]):
        fees = [int(g) * int(p) for g, p in zip(group["gas_used"], group["gas_price"], strict=True)]
        status = group["status"].astype(object)
        expected[(minute, int(shard))] = (len(group), int((status == False).sum()), fees)  # noqa: E712
    assert len(out) == len(expected) > 2
    assert set(out["shard_id"]) == {0, 1}
    for row in out.itertuples():
        n, failed, fees = expected[(row.bucket, row.shard_id)]
        assert (row.transactions, row.failed) == (n, failed)
        assert row.fee == sum(fees)  # exact atto
        assert row.failed_share == pytest.approx(failed / n)
        assert row.fee_median_one == pytest.approx(
            float(statistics.median(Fraction(f, ONE) for f in fees)), rel=1e-12
        )
        assert row.fee_p95_one == pytest.approx(_p(fees, 95), rel=1e-12)
    assert out["failed"].sum() > 0  # the devnet's failed token transfers are there
    assert sum(out["fee"]) == sum(int(f) for f in receipts["fee"])


def test_fees_over_the_whole_range_need_no_blocks_and_auto_picks_a_width() -> None:
    data = frames()
    receipts = data["receipts"]
    whole = metrics.fees(receipts, bucket=None)
    assert list(whole["bucket"]) == ["all", "all"]
    assert whole.attrs["freq"] is None
    for row in whole.itertuples():
        mine = receipts[receipts["shard_id"] == row.shard_id]
        assert row.fee == sum(int(f) for f in mine["fee"])
        assert row.gas_used == int(mine["gas_used"].sum())
    together = metrics.fees(receipts, bucket=None, per_shard=False)
    assert "shard_id" not in together
    assert together["fee"].tolist() == [sum(whole["fee"])]
    assert together["fee_median_one"].iloc[0] == pytest.approx(
        float(statistics.median(Fraction(int(f), ONE) for f in receipts["fee"])), rel=1e-12
    )
    auto = metrics.fees(receipts, data["blocks"], "auto")
    assert auto.attrs["freq"] == "min"  # ~7 minutes of blocks: no step gives 12 buckets, the narrowest
    timed = receipts.merge(data["blocks"][["block_hash", "timestamp"]], on="block_hash")
    assert metrics.fees(timed, bucket="1h")["fee"].tolist() == whole["fee"].tolist()


def test_fees_refuse_what_they_cannot_time() -> None:
    data = frames()
    receipts, blocks = data["receipts"], data["blocks"]
    with pytest.raises(ConfigError, match="need the blocks of the range"):
        metrics.fees(receipts)
    later = blocks[blocks["block_number"] != int(receipts["block_number"].iloc[0])]
    with pytest.raises(
        ConfigError, match=rf"receipt of block {int(receipts['block_number'].iloc[0])} .*has no block"
    ):
        metrics.fees(receipts, later)
    with pytest.raises(ConfigError, match="bucket must be a pandas frequency"):
        metrics.fees(receipts, blocks, 60)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="'fortnightly'"):
        metrics.fees(receipts, blocks, "fortnightly")
    with pytest.raises(ConfigError, match="needs the column"):
        metrics.fees(receipts.drop(columns="fee"), blocks)


def test_top_payers_match_a_groupby() -> None:
    receipts = frames()["receipts"]
    top = metrics.top_payers(receipts, n=7)
    totals: dict[str, int] = {}
    for sender, fee in zip(receipts["from_address"], receipts["fee"], strict=True):
        totals[sender] = totals.get(sender, 0) + int(fee)
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:7]
    assert list(zip(top["from_address"], top["fee"], strict=True)) == ranked
    grand = sum(totals.values())
    assert top["share"].tolist() == pytest.approx([f / grand for _, f in ranked])
    counts = receipts.groupby("from_address").size()
    assert top["transactions"].tolist() == [counts[a] for a, _ in ranked]
    failed = receipts[receipts["status"] == False].groupby("from_address").size()  # noqa: E712
    assert top["failed"].tolist() == [int(failed.get(a, 0)) for a, _ in ranked]
    with pytest.raises(ConfigError, match="n must be a positive number of senders, got 0"):
        metrics.top_payers(receipts, 0)


def test_token_activity_matches_a_groupby() -> None:
    transfers = frames()["token_transfers"]
    out = metrics.token_activity(transfers)
    assert str(out["volume"].dtype) == "uint256"
    assert len(out) == transfers.groupby(["shard_id", "token_address"]).ngroups
    assert set(out["standard"]) == {"hrc20", "hrc721", "hrc1155"}
    assert out["transfers"].is_monotonic_decreasing
    for row in out.itertuples():
        mine = transfers[
            (transfers["shard_id"] == row.shard_id) & (transfers["token_address"] == row.token_address)
        ]
        assert row.transfers == len(mine)
        assert row.volume == sum(int(a) for a in mine["amount"])
        assert row.mints == int((mine["from_address_hex"] == ZERO).sum())
        assert row.burns == int((mine["to_address_hex"] == ZERO).sum())
        assert row.senders == mine.loc[mine["from_address_hex"] != ZERO, "from_address_hex"].nunique()
        assert row.receivers == mine.loc[mine["to_address_hex"] != ZERO, "to_address_hex"].nunique()
    assert max(out["volume"]) > 10**38  # the huge token, summed exactly


def test_token_activity_scales_with_the_tokens_frame() -> None:
    transfers = frames()["token_transfers"]
    hrc20 = transfers[transfers["standard"] == "hrc20"]
    six, eighteen = hrc20["token_address_hex"].unique()[:2]
    nft = transfers.loc[transfers["standard"] == "hrc721", "token_address_hex"].iloc[0]
    tokens = pd.DataFrame(
        {
            "address_hex": [six.upper().replace("0X", "0x"), eighteen, eighteen, nft],
            "block_number": [199, 10, 199, 199],
            "name": ["Six", "Old name", "Eighteen", "Art"],
            "symbol": ["SIX", "OLD", "EIGHT", "ART"],
            "decimals": pd.array([6, 9, 18, None], dtype="Int64"),
        }
    )
    out = metrics.token_activity(transfers, tokens).set_index("token_address_hex")
    for token, decimals in ((six, 6), (eighteen, 18)):
        volume = sum(int(a) for a in hrc20.loc[hrc20["token_address_hex"] == token, "amount"])
        assert out.loc[token, "volume_scaled"] == float(Fraction(volume, 10**decimals))
        assert out.loc[token, "decimals"] == decimals
    assert out.loc[eighteen, "symbol"] == "EIGHT"  # the latest read of a token read twice
    assert out.loc[nft, "name"] == "Art"
    assert math.isnan(out.loc[nft, "volume_scaled"])
    unknown = out[~out.index.isin([six, eighteen, nft])]
    assert unknown["name"].isna().all()
    assert unknown["symbol"].tolist() == [pd.NA] * len(unknown)  # NA as in the datasets, not NaN
    assert unknown["volume_scaled"].isna().all()
    with pytest.raises(ConfigError, match="needs the column"):
        metrics.token_activity(transfers, tokens.drop(columns="decimals"))


def _frame(name: str, rows: list[dict[str, Any]]) -> pd.DataFrame:
    return ds.to_pandas(pa.Table.from_pylist(rows, schema=ds.get(name).schema))


def test_sums_stay_exact_beyond_floats_and_uint256() -> None:
    receipts = _frame(
        "receipts",
        [
            {
                "block_number": 1,
                "block_hash": "0x" + "a" * 64,
                "shard_id": 0,
                "status": s,
                "fee": f,
                "gas_used": 1,
                "from_address": "one1x",
                "transaction_index": i,
            }
            for i, (s, f) in enumerate([(True, 10**30 + 1), (False, 1), (None, 2)])
        ],
    )
    row = metrics.fees(receipts, bucket=None).iloc[0]
    assert row["fee"] == 10**30 + 4  # a float sum would give 1e30
    assert (row["failed"], row["failed_share"]) == (1, 0.5)  # a root-only receipt (no status) is not counted
    half = 2**255
    transfers = _frame(
        "token_transfers",
        [
            {
                "shard_id": 0,
                "standard": "hrc20",
                "token_address": "one1t",
                "token_address_hex": "0x" + "1" * 40,
                "from_address_hex": "0x" + "2" * 40,
                "to_address_hex": "0x" + "3" * 40,
                "amount": str(a),
            }
            for a in (UINT256_MAX, half, 0)
        ],
    )
    out = metrics.token_activity(transfers)
    assert out["volume"].iloc[0] == UINT256_MAX + half  # beyond uint256: kept as Python ints
    assert metrics.token_activity(transfers.iloc[[0, 2]])["volume"].tolist() == [UINT256_MAX]
