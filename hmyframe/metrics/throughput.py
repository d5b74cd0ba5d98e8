"""Throughput metrics on block ranges: per-bucket activity, gas utilisation, block times,
cross-shard share, staking directives, contract creations and active senders.

Inputs are the ``blocks``, ``transactions`` and ``staking_transactions`` datasets (one shard or
several concatenated: every function groups by ``shard_id``). Time buckets are UTC, given as a
pandas frequency (``"min"``, ``"5min"``, ``"h"``, ``"D"``...) or ``"auto"``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import exact_ints, exact_series, floats, ratio, require_columns, to_one

__all__ = [
    "DIRECTIVES",
    "active_senders",
    "block_times",
    "bucket_frequency",
    "buckets",
    "contract_creations",
    "cross_shard",
    "gas_utilisation",
    "staking_directives",
]

#: The five staking directives, in the order plots stack them.
DIRECTIVES = ("CreateValidator", "EditValidator", "Delegate", "Undelegate", "CollectRewards")

_AUTO_STEPS = ("min", "5min", "15min", "h", "6h", "D", "7D")


def _utc(values: pd.Series) -> pd.Series:
    """A timestamp column (Arrow or numpy, tz-aware or naive UTC) as ``datetime64[ms, UTC]``."""
    try:
        return pd.to_datetime(values, utc=True)
    except (TypeError, ValueError):
        raise ConfigError(
            f"timestamp column must hold times, got {short_repr(values.head(3).tolist())}"
        ) from None


def bucket_frequency(timestamps: pd.Series, freq: str = "auto", *, target: int = 12) -> str:
    """The bucket width: ``freq`` checked, or for ``"auto"`` the widest of 1 min, 5 min, 15 min,
    1 h, 6 h, 1 day, 7 days that still gives at least ``target`` buckets over the span."""
    if not isinstance(freq, str):
        raise ConfigError(
            f"freq must be a pandas frequency such as 'min', 'h' or 'D', or 'auto'; got {short_repr(freq)}"
        )
    if freq != "auto":
        try:
            pd.tseries.frequencies.to_offset(freq)
        except ValueError:
            raise ConfigError(
                f"freq must be a pandas frequency such as 'min', 'h' or 'D', or 'auto'; got {freq!r}"
            ) from None
        return freq
    times = _utc(timestamps).dropna()
    if times.empty:
        return "h"
    span = times.max() - times.min()
    chosen = _AUTO_STEPS[0]
    for step in _AUTO_STEPS:
        if span / pd.Timedelta(pd.tseries.frequencies.to_offset(step)) >= target:
            chosen = step
    return chosen


def _bucket(frame: pd.DataFrame, freq: str) -> pd.Series:
    return _utc(frame["timestamp"]).dt.floor(freq)


def buckets(blocks: pd.DataFrame, freq: str = "auto") -> pd.DataFrame:
    """Transactions, staking transactions and gas per time bucket and shard.

    Parameters
    ----------
    blocks
        The ``blocks`` dataset (one or several shards).
    freq
        Bucket width (see :func:`bucket_frequency`).

    Returns
    -------
    pandas.DataFrame
        One row per (``bucket``, ``shard_id``) with ``blocks``, ``transactions``,
        ``staking_transactions``, ``gas_used``, ``gas_limit`` and ``utilisation``
        (gas used / gas limit); ``df.attrs["freq"]`` holds the width used.
    """
    require_columns(
        blocks,
        ["timestamp", "shard_id", "gas_used", "gas_limit", "transaction_count", "staking_transaction_count"],
        "buckets",
    )
    freq = bucket_frequency(blocks["timestamp"], freq)
    frame = pd.DataFrame(
        {
            "bucket": _bucket(blocks, freq).to_numpy(),
            "shard_id": floats(blocks["shard_id"]).astype(np.int64).to_numpy(),
            "blocks": 1,
            "transactions": floats(blocks["transaction_count"]).fillna(0).astype(np.int64).to_numpy(),
            "staking_transactions": floats(blocks["staking_transaction_count"])
            .fillna(0)
            .astype(np.int64)
            .to_numpy(),
            "gas_used": floats(blocks["gas_used"]).fillna(0).astype(np.int64).to_numpy(),
            "gas_limit": floats(blocks["gas_limit"]).fillna(0).astype(np.int64).to_numpy(),
        }
    )
    out = frame.groupby(["bucket", "shard_id"], as_index=False).sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        out["utilisation"] = np.where(
            out["gas_limit"] > 0, out["gas_used"] / out["gas_limit"].where(out["gas_limit"] > 0, 1), np.nan
        )
    out.attrs["freq"] = freq
    return out


def gas_utilisation(blocks: pd.DataFrame) -> pd.Series:
    """Gas used / gas limit over the whole range, per shard (indexed by ``shard_id``)."""
    require_columns(blocks, ["shard_id", "gas_used", "gas_limit"], "gas_utilisation")
    frame = pd.DataFrame(
        {
            "shard_id": floats(blocks["shard_id"]).astype(np.int64).to_numpy(),
            "gas_used": floats(blocks["gas_used"]).fillna(0).to_numpy(),
            "gas_limit": floats(blocks["gas_limit"]).fillna(0).to_numpy(),
        }
    )
    sums = frame.groupby("shard_id").sum()
    return (sums["gas_used"] / sums["gas_limit"].where(sums["gas_limit"] > 0)).rename("utilisation")


def block_times(blocks: pd.DataFrame, *, gap: float | None = None) -> pd.DataFrame:
    """Block-time statistics per shard, in seconds.

    Block time is the difference of timestamps of consecutive block numbers (a jump in the
    numbers is not a block time; such jumps are counted as ``missing`` blocks).

    Parameters
    ----------
    blocks
        The ``blocks`` dataset.
    gap
        Intervals longer than this many seconds count as gaps; default: 3 x the shard's median.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``shard_id``: ``blocks``, ``intervals``, ``mean``, ``median``, ``p95``,
        ``max``, ``gaps`` (intervals longer than the gap threshold), ``gap_threshold`` and
        ``missing`` (block numbers absent between the first and last).
    """
    require_columns(blocks, ["block_number", "timestamp", "shard_id"], "block_times")
    gap_arg: object = gap
    if gap_arg is not None and (
        isinstance(gap_arg, bool) or not isinstance(gap_arg, int | float) or gap_arg <= 0
    ):
        raise ConfigError(f"gap must be a positive number of seconds, got {short_repr(gap)}")
    frame = pd.DataFrame(
        {
            "shard_id": floats(blocks["shard_id"]).astype(np.int64).to_numpy(),
            "number": floats(blocks["block_number"]).to_numpy(),
            "seconds": _seconds(blocks["timestamp"]),
        }
    ).dropna()
    rows = []
    for shard, group in frame.sort_values(["shard_id", "number"]).groupby("shard_id"):
        numbers = group["number"].to_numpy()
        seconds = group["seconds"].to_numpy()
        step = np.diff(numbers)
        intervals = np.diff(seconds)[step == 1]
        median = float(np.median(intervals)) if len(intervals) else math.nan
        threshold = float(gap) if gap is not None else 3 * median
        rows.append(
            {
                "shard_id": int(shard),
                "blocks": len(group),
                "intervals": len(intervals),
                "mean": float(intervals.mean()) if len(intervals) else math.nan,
                "median": median,
                "p95": float(np.percentile(intervals, 95)) if len(intervals) else math.nan,
                "max": float(intervals.max()) if len(intervals) else math.nan,
                "gaps": int((intervals > threshold).sum()) if len(intervals) else 0,
                "gap_threshold": threshold,
                "missing": int(np.clip(step - 1, 0, None).sum()),
            }
        )
    columns = [
        "shard_id",
        "blocks",
        "intervals",
        "mean",
        "median",
        "p95",
        "max",
        "gaps",
        "gap_threshold",
        "missing",
    ]
    return pd.DataFrame(rows, columns=columns).set_index("shard_id")


def _seconds(timestamps: pd.Series) -> np.ndarray:
    """Unix seconds (float) of a timestamp column."""
    elapsed = (_utc(timestamps) - pd.Timestamp(0, tz="UTC")) / pd.Timedelta(1, "s")
    seconds: np.ndarray = elapsed.to_numpy(dtype=np.float64, na_value=np.nan)
    return seconds


def cross_shard(transactions: pd.DataFrame, freq: str | None = None) -> pd.DataFrame:
    """Share of transfers that cross shards, by count and by value.

    Parameters
    ----------
    transactions
        The ``transactions`` dataset.
    freq
        ``None`` for the whole range (one row), else a bucket width (see :func:`bucket_frequency`).

    Returns
    -------
    pandas.DataFrame
        ``transfers``, ``cross_shard``, ``count_share``, ``value`` and ``cross_value`` (exact
        atto), ``value_one`` / ``cross_value_one`` (ONE) and ``value_share`` (computed exactly),
        indexed by ``bucket`` (or a single row ``"all"``).
    """
    require_columns(transactions, ["timestamp", "value", "is_cross_shard"], "cross_shard")
    values = exact_ints(transactions["value"], "value")
    flags = [
        bool(v) if v is not None and v is not pd.NA else False
        for v in transactions["is_cross_shard"].to_numpy(dtype=object)
    ]
    if freq is None:
        keys: list[Any] = ["all"] * len(transactions)
        name = "bucket"
    else:
        width = bucket_frequency(transactions["timestamp"], freq)
        keys = list(_bucket(transactions, width))
        name = "bucket"
    table: dict[Any, list[int]] = {}
    for key, value, cross in zip(keys, values, flags, strict=True):
        entry = table.setdefault(key, [0, 0, 0, 0])
        entry[0] += 1
        entry[2] += value or 0
        if cross:
            entry[1] += 1
            entry[3] += value or 0
    order = sorted(table)
    out = pd.DataFrame(
        {
            "transfers": [table[k][0] for k in order],
            "cross_shard": [table[k][1] for k in order],
            "count_share": [ratio(table[k][1], table[k][0]) for k in order],
            "value": exact_series([table[k][2] for k in order]).array,
            "cross_value": exact_series([table[k][3] for k in order]).array,
            "value_one": to_one([table[k][2] for k in order]).to_numpy(),
            "cross_value_one": to_one([table[k][3] for k in order]).to_numpy(),
            "value_share": [ratio(table[k][3], table[k][2]) for k in order],
        },
        index=pd.Index(order, name=name),
    )
    if freq is not None:
        out.attrs["freq"] = width
    return out


def _count_per_bucket(frame: pd.DataFrame, freq: str, by: str, what: str) -> pd.DataFrame:
    width = bucket_frequency(frame["timestamp"], freq)
    keyed = pd.DataFrame(
        {"bucket": _bucket(frame, width).to_numpy(), by: frame[by].astype(object).to_numpy()}
    )
    out = keyed.groupby(["bucket", by]).size().unstack(by, fill_value=0)
    out.columns.name = by
    out = out.astype(np.int64)
    out.attrs["freq"] = width
    out.attrs["what"] = what
    return out


def staking_directives(staking_transactions: pd.DataFrame, freq: str = "auto") -> pd.DataFrame:
    """Staking transactions per time bucket and directive.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``bucket``, one int column per directive in :data:`DIRECTIVES` order (all
        five, zero where none).
    """
    require_columns(staking_transactions, ["timestamp", "directive"], "staking_directives")
    out = _count_per_bucket(staking_transactions, freq, "directive", "staking transactions")
    extra = [c for c in out.columns if c not in DIRECTIVES]
    return out.reindex(columns=[*DIRECTIVES, *extra], fill_value=0)


def contract_creations(transactions: pd.DataFrame, freq: str = "auto") -> pd.DataFrame:
    """Contract creations per time bucket (columns: shards)."""
    require_columns(transactions, ["timestamp", "shard_id", "is_contract_creation"], "contract_creations")
    created = transactions[transactions["is_contract_creation"].fillna(False).astype(bool).to_numpy()]
    if created.empty:
        width = bucket_frequency(transactions["timestamp"], freq)
        out = pd.DataFrame(index=pd.Index([], name="bucket"))
        out.attrs["freq"] = width
        return out
    return _count_per_bucket(
        created, bucket_frequency(transactions["timestamp"], freq), "shard_id", "contract creations"
    )


def active_senders(transactions: pd.DataFrame, freq: str = "auto") -> pd.DataFrame:
    """Distinct senders per time bucket: one column per shard and ``all`` (distinct over shards).

    Returns
    -------
    pandas.DataFrame
        Indexed by ``bucket``.
    """
    require_columns(transactions, ["timestamp", "shard_id", "from_address"], "active_senders")
    width = bucket_frequency(transactions["timestamp"], freq)
    keyed = pd.DataFrame(
        {
            "bucket": _bucket(transactions, width).to_numpy(),
            "shard_id": floats(transactions["shard_id"]).astype(np.int64).to_numpy(),
            "sender": transactions["from_address"].astype(object).to_numpy(),
        }
    )
    per_shard = keyed.groupby(["bucket", "shard_id"])["sender"].nunique().unstack("shard_id", fill_value=0)
    per_shard["all"] = keyed.groupby("bucket")["sender"].nunique()
    per_shard.columns.name = "shard_id"
    out = per_shard.astype(np.int64)
    out.attrs["freq"] = width
    return out
