"""Fee plots: fees paid per time bucket and shard, and the share of transactions that failed.

Each function takes the ``receipts`` dataset and the ``blocks`` of the same range (for the
receipts' times; see :func:`hmyframe.metrics.fees`), ``freq`` (a pandas frequency or
``"auto"``) and ``ax=None``, and returns the Axes. Fees are summed exactly in atto and shown in
ONE.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes

from hmyframe import metrics
from hmyframe.plot._style import (
    axes,
    empty,
    fmt_count,
    fmt_one,
    fmt_percent,
    legend_outside,
    one_axis,
    per_bucket,
    percent_axis,
    shard_color,
    shard_lines,
    stacked_bars,
    style,
    title,
)

__all__ = ["failed_share", "fees"]


def _empty(receipts: pd.DataFrame | None) -> bool:
    return receipts is None or receipts.empty


def _per_shard(
    receipts: pd.DataFrame, blocks: pd.DataFrame | None, freq: str, column: str
) -> tuple[pd.DataFrame, str]:
    """``column`` of :func:`hmyframe.metrics.fees` per bucket (rows) and shard (columns), and
    the bucket width used."""
    table = metrics.fees(receipts, blocks, freq)
    return table.pivot(index="bucket", columns="shard_id", values=column), str(table.attrs["freq"])


def fees(
    receipts: pd.DataFrame, blocks: pd.DataFrame | None = None, freq: str = "auto", *, ax: Axes | None = None
) -> Axes:
    """Stacked bars: fees paid per time bucket in ONE, one colour per shard.

    The subtitle gives the whole range's total (summed exactly in atto), the number of
    transactions and the median fee of one transaction.
    """
    with style():
        ax = axes(ax)
        heading = "Fees paid"
        if _empty(receipts):
            return empty(ax, heading, "No transactions in this range")
        wide, width = _per_shard(receipts, blocks, freq, "fee_one")
        wide = wide.fillna(0.0)
        shards = [int(s) for s in wide.columns]
        stacked_bars(ax, wide, width, [shard_color(s) for s in shards], [f"shard {s}" for s in shards])
        one_axis(ax, "y", f"fees {per_bucket(width)} (ONE)")
        legend_outside(ax)
        whole = metrics.fees(receipts, bucket=None)
        total = sum(whole["fee"])
        median = metrics.amount_one(receipts, "fee").median()
        title(
            ax,
            f"{heading} {per_bucket(width)}, by shard",
            f"{fmt_one(float(metrics.to_one([total]).iloc[0]))} in all (exact sum) over "
            f"{fmt_count(len(receipts))} transactions; median fee {fmt_one(float(median))}",
        )
        return ax


def failed_share(
    receipts: pd.DataFrame, blocks: pd.DataFrame | None = None, freq: str = "auto", *, ax: Axes | None = None
) -> Axes:
    """Lines per shard: the share of transactions that failed (status false) in each time bucket.

    A bucket where a shard has no receipt has no point (unknown, not 0 %).
    """
    with style():
        ax = axes(ax)
        heading = "Failed transactions"
        if _empty(receipts):
            return empty(ax, heading, "No transactions in this range")
        wide, width = _per_shard(receipts, blocks, freq, "failed_share")
        shard_lines(ax, wide)
        top = float(wide.max().max()) if wide.notna().any().any() else 0.0
        ax.set_ylim(0, max(0.05, min(1.0, top * 1.25)))
        percent_axis(ax, "y", f"failed / transactions ({per_bucket(width)})", decimals=0)
        legend_outside(ax)
        whole = metrics.fees(receipts, bucket=None)
        summary = ", ".join(
            f"shard {row.shard_id}: {fmt_percent(float(row.failed_share))} of {fmt_count(row.transactions)}"
            for row in whole.itertuples()
        )
        title(ax, f"{heading} {per_bucket(width)}", f"whole range: {summary}")
        return ax
