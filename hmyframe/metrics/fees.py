"""Fee metrics on receipts: what transactions cost per time bucket and shard, how many failed,
and who paid.

The input is the ``receipts`` dataset (one shard or several concatenated: every function
groups by ``shard_id``). Receipts carry no time: :func:`fees` takes it from the ``blocks`` of the
same range (joined on ``block_hash``), or from a ``timestamp`` column the caller has already
joined. Fees are summed exactly (Python ints of atto, the ``atto`` dtype); only statistics of a
distribution (median, p95) and shares are floats.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import (
    exact_ints,
    exact_series,
    floats,
    is_missing,
    ratio,
    require_columns,
    to_one,
)
from hmyframe.metrics.throughput import bucket_frequency

__all__ = ["fees", "receipt_times", "top_payers"]

_FEE_COLUMNS = ["shard_id", "block_hash", "status", "fee", "gas_used"]


def receipt_times(receipts: pd.DataFrame, blocks: pd.DataFrame | None) -> pd.Series:
    """The UTC time of each receipt: its block's ``timestamp`` (matched on ``block_hash``), or
    the receipts' own ``timestamp`` column when ``blocks`` is ``None``.

    Raises
    ------
    ConfigError
        Without ``blocks`` and without a ``timestamp`` column, or for a receipt whose block is
        not in ``blocks`` (named by its number and shard).
    """
    if blocks is None:
        if "timestamp" not in receipts.columns:
            raise ConfigError(
                "fees per time bucket need the blocks of the range (blocks=...) or a timestamp "
                "column on the receipts; pass bucket=None for totals over the whole range"
            )
        return pd.Series(pd.to_datetime(receipts["timestamp"], utc=True).to_numpy(), index=receipts.index)
    require_columns(blocks, ["block_hash", "timestamp"], "fees (blocks)")
    when = pd.Series(
        pd.to_datetime(blocks["timestamp"], utc=True).to_numpy(),
        index=blocks["block_hash"].astype(object).to_numpy(),
    )
    when = when[~when.index.duplicated()]
    hashes = receipts["block_hash"].astype(object)
    times = pd.Series(when.reindex(hashes.to_numpy()).to_numpy(), index=receipts.index)
    lost = times.isna().to_numpy()
    if lost.any():
        row = receipts[lost].iloc[0]
        raise ConfigError(
            f"receipt of block {row['block_number']} (shard {row['shard_id']}, hash {row['block_hash']}) "
            "has no block in blocks: expected the blocks of the receipts' range"
        )
    return times


def _failed(status: object) -> bool:
    """A receipt's status is false (a missing status, of a root-only receipt, is not a failure)."""
    return not is_missing(status) and not status


def _percentile(values: list[int], q: float) -> float:
    """The ``q``-th percentile (linear interpolation, as numpy's default) of exact atto, in ONE."""
    if not values:
        return math.nan
    ones = to_one(sorted(values)).to_numpy(dtype=np.float64)
    return float(np.percentile(ones, q))


def fees(
    receipts: pd.DataFrame,
    blocks: pd.DataFrame | None = None,
    bucket: str | None = "1h",
    *,
    per_shard: bool = True,
) -> pd.DataFrame:
    """Fees paid, their distribution and the failed share, per time bucket and shard.

    Parameters
    ----------
    receipts
        The ``receipts`` dataset (one or several shards).
    blocks
        The ``blocks`` of the same range, for the receipts' times (matched on ``block_hash``);
        ``None`` when ``receipts`` has a ``timestamp`` column or ``bucket`` is ``None``.
    bucket
        Bucket width: a pandas frequency (``"1h"``, ``"5min"``, ``"D"``), ``"auto"`` (see
        :func:`~hmyframe.metrics.bucket_frequency`), or ``None`` for one row per shard over the
        whole range.
    per_shard
        ``True`` (default): a row per shard in each bucket; ``False``: the shards together (no
        ``shard_id`` column; the median and p95 are of all the shards' transactions).

    Returns
    -------
    pandas.DataFrame
        One row per (``bucket``, ``shard_id``) with a receipt, in that order: ``transactions``,
        ``failed`` (status false), ``failed_share`` (failed / receipts with a status),
        ``gas_used``, ``fee`` (total, exact atto), ``fee_one``, ``fee_median_one`` and
        ``fee_p95_one`` (one transaction's fee in ONE; linear interpolation).
        ``df.attrs["freq"]`` holds the width used (``None`` for the whole range; then ``bucket``
        is ``"all"``).

    Raises
    ------
    ConfigError
        Missing columns, a bad ``bucket``, or receipts whose blocks are not in ``blocks``.
    """
    require_columns(receipts, _FEE_COLUMNS, "fees")
    keys, width = _bucket_keys(receipts, blocks, bucket)
    shards = floats(receipts["shard_id"]).astype(np.int64).tolist() if per_shard else [0] * len(receipts)
    groups = _groups(receipts, keys, shards)
    order = sorted(groups)
    totals = [sum(groups[k]["fees"]) for k in order]
    out = pd.DataFrame(
        {
            "bucket": [k[0] for k in order],
            "shard_id": pd.array([k[1] for k in order], dtype=np.int64),
            "transactions": pd.array([groups[k]["n"] for k in order], dtype=np.int64),
            "failed": pd.array([groups[k]["failed"] for k in order], dtype=np.int64),
            "failed_share": [ratio(groups[k]["failed"], groups[k]["known"]) for k in order],
            "gas_used": pd.array([groups[k]["gas"] for k in order], dtype=np.int64),
            "fee": exact_series(totals).array,
            "fee_one": to_one(totals).to_numpy(),
            "fee_median_one": [_percentile(groups[k]["fees"], 50) for k in order],
            "fee_p95_one": [_percentile(groups[k]["fees"], 95) for k in order],
        }
    )
    if width is not None and not out.empty:
        out["bucket"] = pd.to_datetime(out["bucket"], utc=True)
    if not per_shard:
        out = out.drop(columns="shard_id")
    out.attrs["freq"] = width
    return out


def _bucket_keys(
    receipts: pd.DataFrame, blocks: pd.DataFrame | None, bucket: str | None
) -> tuple[list[Any], str | None]:
    """Each receipt's time bucket, and the width used (``"all"`` and ``None`` without buckets)."""
    if bucket is None:
        return ["all"] * len(receipts), None
    if not isinstance(bucket, str):
        raise ConfigError(
            f"bucket must be a pandas frequency such as '1h', 'auto' or None, got {short_repr(bucket)}"
        )
    times = receipt_times(receipts, blocks)
    width = bucket_frequency(times, bucket)
    return (list(times.dt.floor(width)) if len(times) else []), width


def _groups(
    receipts: pd.DataFrame, keys: list[Any], shards: list[int]
) -> dict[tuple[Any, int], dict[str, Any]]:
    """Per (bucket, shard): receipts, failed ones, ones with a status, gas, and the exact fees."""
    fee_values = exact_ints(receipts["fee"], "fee")
    gas = floats(receipts["gas_used"]).fillna(0).astype(np.int64).tolist()
    statuses = receipts["status"].astype(object).tolist()
    groups: dict[tuple[Any, int], dict[str, Any]] = {}
    for key, shard, fee, used, status in zip(keys, shards, fee_values, gas, statuses, strict=True):
        entry = groups.setdefault((key, shard), {"n": 0, "failed": 0, "known": 0, "gas": 0, "fees": []})
        entry["n"] += 1
        entry["gas"] += used
        if not is_missing(status):
            entry["known"] += 1
            entry["failed"] += _failed(status)
        if fee is not None:
            entry["fees"].append(fee)
    return groups


def top_payers(receipts: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The senders who paid the most in fees.

    Parameters
    ----------
    receipts
        The ``receipts`` dataset (one or several shards; a sender's fees on every shard add up).
    n
        How many senders (the largest fee totals; ties in address order).

    Returns
    -------
    pandas.DataFrame
        Up to ``n`` rows, largest first: ``from_address``, ``transactions``, ``failed``,
        ``fee`` (exact atto), ``fee_one`` and ``share`` (of all the receipts' fees, computed
        exactly).

    Raises
    ------
    ConfigError
        Missing columns, or ``n`` not a positive integer.
    """
    require_columns(receipts, ["from_address", "fee", "status"], "top_payers")
    count: object = n
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError(f"n must be a positive number of senders, got {short_repr(n)}")
    table: dict[str, list[int]] = {}
    for sender, fee, status in zip(
        receipts["from_address"].astype(object).tolist(),
        exact_ints(receipts["fee"], "fee"),
        receipts["status"].astype(object).tolist(),
        strict=True,
    ):
        entry = table.setdefault(str(sender), [0, 0, 0])
        entry[0] += 1
        entry[1] += _failed(status)
        entry[2] += fee or 0
    total = sum(entry[2] for entry in table.values())
    chosen = sorted(table, key=lambda a: (-table[a][2], a))[:n]
    fee_totals = [table[a][2] for a in chosen]
    return pd.DataFrame(
        {
            "from_address": chosen,
            "transactions": pd.array([table[a][0] for a in chosen], dtype=np.int64),
            "failed": pd.array([table[a][1] for a in chosen], dtype=np.int64),
            "fee": exact_series(fee_totals).array,
            "fee_one": to_one(fee_totals).to_numpy(),
            "share": [ratio(f, total) for f in fee_totals],
        }
    )
