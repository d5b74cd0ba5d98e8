"""Throughput plots: transactions and gas per time bucket, gas utilisation, block times,
cross-shard share and staking directives.

Each function takes hmyframe frames (``blocks``, ``transactions``, ``staking_transactions``;
one shard or several concatenated) and ``ax=None``, draws on ``ax`` (a new figure when
``None``) and returns the Axes. Time axes are UTC; buckets are a pandas frequency or ``"auto"``
(see :func:`hmyframe.metrics.bucket_frequency`). An empty range gives a plot saying so.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import FuncFormatter

from hmyframe import metrics
from hmyframe.metrics import require_columns
from hmyframe.plot._style import (
    MUTED,
    PALETTE,
    axes,
    count_axis,
    empty,
    fmt_count,
    fmt_percent,
    legend_outside,
    per_bucket,
    percent_axis,
    shard_color,
    shard_lines,
    stacked_bars,
    style,
    title,
    utc_naive,
    utc_time_axis,
)

__all__ = [
    "block_times",
    "cross_shard",
    "gas",
    "gas_utilisation",
    "staking_directives",
    "transactions",
]


def _empty_range(frame: pd.DataFrame) -> bool:
    return frame is None or frame.empty


def _range_text(frame: pd.DataFrame) -> str:
    parts = []
    if "block_number" in frame and "shard_id" in frame and len(frame):
        for shard, group in frame.groupby("shard_id"):
            parts.append(
                f"shard {shard}: blocks {int(group.block_number.min()):,}–{int(group.block_number.max()):,}"
            )
    return "; ".join(parts)


def _per_shard(
    blocks: pd.DataFrame, column: str, freq: str, *, fill: bool = True
) -> tuple[pd.DataFrame, str]:
    """``column`` per bucket (rows) and shard (columns); a shard without blocks in a bucket
    counts 0 (``fill``) or is left out (NaN: a ratio there is not 0 but unknown)."""
    table = metrics.buckets(blocks, freq)
    wide = table.pivot(index="bucket", columns="shard_id", values=column)
    return (wide.fillna(0) if fill else wide), str(table.attrs["freq"])


def transactions(blocks: pd.DataFrame, freq: str = "auto", *, ax: Axes | None = None) -> Axes:
    """Stacked bars: transactions per time bucket, one colour per shard (from ``blocks``)."""
    with style():
        ax = axes(ax)
        heading = "Transactions"
        if _empty_range(blocks):
            return empty(ax, heading, "No blocks in this range")
        require_columns(blocks, ["transaction_count"], "transactions plot")
        wide, width = _per_shard(blocks, "transactions", freq)
        shards = [int(s) for s in wide.columns]
        stacked_bars(ax, wide, width, [shard_color(s) for s in shards], [f"shard {s}" for s in shards])
        count_axis(ax, "y", f"transactions {per_bucket(width)}")
        legend_outside(ax)
        total = int(wide.to_numpy().sum())
        title(
            ax,
            f"{heading} {per_bucket(width)}, by shard",
            f"{fmt_count(total)} transactions; {_range_text(blocks)}",
        )
        return ax


def gas(blocks: pd.DataFrame, freq: str = "auto", *, ax: Axes | None = None) -> Axes:
    """Stacked bars: gas used per time bucket, one colour per shard."""
    with style():
        ax = axes(ax)
        heading = "Gas used"
        if _empty_range(blocks):
            return empty(ax, heading, "No blocks in this range")
        wide, width = _per_shard(blocks, "gas_used", freq)
        shards = [int(s) for s in wide.columns]
        stacked_bars(ax, wide, width, [shard_color(s) for s in shards], [f"shard {s}" for s in shards])
        count_axis(ax, "y", f"gas used {per_bucket(width)}")
        legend_outside(ax)
        total = int(wide.to_numpy().sum())
        title(ax, f"{heading} {per_bucket(width)}, by shard", f"{fmt_count(total)} gas in all")
        return ax


def gas_utilisation(blocks: pd.DataFrame, freq: str = "auto", *, ax: Axes | None = None) -> Axes:
    """Lines per shard: gas used / gas limit in each time bucket."""
    with style():
        ax = axes(ax)
        heading = "Gas utilisation"
        if _empty_range(blocks):
            return empty(ax, heading, "No blocks in this range")
        wide, width = _per_shard(blocks, "utilisation", freq, fill=False)
        shard_lines(ax, wide)
        ax.set_ylim(bottom=0)
        percent_axis(ax, "y", f"gas used / gas limit ({per_bucket(width)})", decimals=2)
        legend_outside(ax)
        overall = metrics.gas_utilisation(blocks)
        summary = ", ".join(f"shard {s}: {fmt_percent(float(v), 2)}" for s, v in overall.items())
        title(ax, f"{heading} {per_bucket(width)}", f"whole range: {summary}")
        return ax


def block_times(blocks: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Histogram per shard of the seconds between consecutive blocks; the legend gives mean,
    median, 95th percentile and maximum (see :func:`hmyframe.metrics.block_times`)."""
    with style():
        ax = axes(ax)
        heading = "Block times"
        if _empty_range(blocks):
            return empty(ax, heading, "No blocks in this range")
        require_columns(blocks, ["block_number", "timestamp", "shard_id"], "block_times plot")
        stats = metrics.block_times(blocks)
        ordered = blocks.sort_values(["shard_id", "block_number"])
        seconds = (pd.to_datetime(ordered["timestamp"], utc=True) - pd.Timestamp(0, tz="UTC")) / pd.Timedelta(
            1, "s"
        )
        frame = pd.DataFrame(
            {
                "shard": ordered["shard_id"].astype("int64").to_numpy(),
                "number": ordered["block_number"].astype("int64").to_numpy(),
                "seconds": seconds.to_numpy(dtype=float),
            }
        )
        intervals: dict[int, np.ndarray] = {}
        for shard, group in frame.groupby("shard"):
            step = np.diff(group["number"].to_numpy())
            intervals[int(shard)] = np.diff(group["seconds"].to_numpy())[step == 1]
        everything = np.concatenate(list(intervals.values())) if intervals else np.array([])
        if not len(everything):
            return empty(ax, heading, "Fewer than two consecutive blocks: no block time to show")
        top = float(everything.max())
        # whole seconds (Harmony's timestamps are seconds) up to a minute, else 40 equal bins;
        # shards side by side in each bin so none hides another
        edges = np.arange(0, np.ceil(top) + 2, 1.0) - 0.5 if top <= 60 else np.linspace(0, top, 41)
        centres = (edges[:-1] + edges[1:]) / 2
        slot = (edges[1] - edges[0]) * 0.8 / len(intervals)
        for k, (shard, values) in enumerate(intervals.items()):
            row = stats.loc[shard]
            counts, _ = np.histogram(values, bins=edges)
            shown = counts > 0
            offset = (k - (len(intervals) - 1) / 2) * slot
            ax.bar(
                centres[shown] + offset,
                counts[shown],
                width=slot,
                color=shard_color(shard),
                label=(
                    f"shard {shard}: mean {row['mean']:.2f} s, median {row['median']:.1f} s, "
                    f"p95 {row['p95']:.1f} s, max {row['max']:.0f} s"
                ),
            )
        threshold = float(stats["gap_threshold"].min())
        if threshold == threshold:
            ax.axvline(threshold, color=MUTED, linestyle="--", linewidth=1.2)
            ax.annotate(
                "gap threshold (3 x median)",
                (threshold, 1),
                xycoords=("data", "axes fraction"),
                xytext=(4, -4),
                textcoords="offset points",
                va="top",
                fontsize=8,
                color="#666666",
            )
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.7)  # a bin holding one interval stays visible
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        right = float(edges[-1])
        if threshold == threshold:
            right = max(right, threshold + (edges[1] - edges[0]) * 3)
        ax.set_xlim(edges[0], right)
        ax.grid(axis="x", visible=False)
        ax.xaxis.set_label_text("seconds between consecutive blocks")
        ax.yaxis.set_label_text("block intervals (log scale)")
        legend_outside(ax) if len(intervals) > 2 else ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.18)
        )
        gaps = int(stats["gaps"].sum())
        title(ax, heading, f"{fmt_count(len(everything))} block intervals; {gaps:,} gaps (> 3 x median)")
        return ax


def cross_shard(transactions: pd.DataFrame, freq: str = "auto", *, ax: Axes | None = None) -> Axes:
    """Lines: share of transfers that cross shards per time bucket, by count and by value."""
    with style():
        ax = axes(ax)
        heading = "Cross-shard transfers"
        if _empty_range(transactions):
            return empty(ax, heading, "No transactions in this range")
        table = metrics.cross_shard(transactions, freq)
        width = str(table.attrs["freq"])
        x = utc_naive(table.index)
        ax.plot(
            x,
            table["count_share"].to_numpy(),
            marker="o",
            markersize=3,
            linewidth=2,
            label="share of transfers",
        )
        ax.plot(
            x,
            table["value_share"].to_numpy(),
            marker="s",
            markersize=3,
            linewidth=2,
            label="share of value moved",
        )
        utc_time_axis(ax)
        top = float(np.nanmax(table[["count_share", "value_share"]].to_numpy()))
        ax.set_ylim(0, max(0.05, min(1.0, top * 1.25)))
        percent_axis(ax, "y", f"cross-shard share ({per_bucket(width)})", decimals=0)
        legend_outside(ax)
        overall = metrics.cross_shard(transactions)
        title(
            ax,
            f"{heading} {per_bucket(width)}",
            f"whole range: {fmt_percent(float(overall['count_share'].iloc[0]))} of "
            f"{fmt_count(int(overall['transfers'].iloc[0]))} transfers, "
            f"{fmt_percent(float(overall['value_share'].iloc[0]))} of the value",
        )
        return ax


def staking_directives(
    staking_transactions: pd.DataFrame, freq: str = "auto", *, ax: Axes | None = None
) -> Axes:
    """Stacked bars: staking transactions per time bucket, one colour per directive."""
    with style():
        ax = axes(ax)
        heading = "Staking transactions"
        if _empty_range(staking_transactions):
            return empty(ax, heading, "No staking transactions in this range")
        table = metrics.staking_directives(staking_transactions, freq)
        width = str(table.attrs["freq"])
        present = [c for c in table.columns if table[c].sum() > 0]
        table = table[present]
        stacked_bars(ax, table, width, list(PALETTE[: len(present)]), present)
        count_axis(ax, "y", f"staking transactions {per_bucket(width)}")
        legend_outside(ax)
        totals = ", ".join(f"{c} {int(table[c].sum()):,}" for c in present)
        title(ax, f"{heading} {per_bucket(width)}, by directive", totals)
        return ax
