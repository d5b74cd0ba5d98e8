"""Token plots: the most active tokens of a range.

:func:`top_tokens` takes the ``token_transfers`` dataset (and optionally the ``tokens`` dataset
for names, symbols and decimals; see :func:`hmyframe.metrics.token_activity`) and ``ax=None``,
and returns the Axes.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.patches import Patch

from hmyframe import metrics
from hmyframe._text import chain_text
from hmyframe.errors import ConfigError, short_repr
from hmyframe.plot._style import (
    PALETTE,
    axes,
    chain_label,
    count_axis,
    empty,
    fmt_count,
    legend_outside,
    plot_text,
    style,
    title,
)

__all__ = ["STANDARD_COLORS", "STANDARD_NAMES", "compact_number", "token_label", "top_tokens", "volume_text"]

#: The colour of each token standard, the same in every plot.
STANDARD_COLORS = {"hrc20": PALETTE[0], "hrc721": PALETTE[1], "hrc1155": PALETTE[2]}
#: How each standard is written for readers, in this order.
STANDARD_NAMES = {"hrc20": "HRC-20", "hrc721": "HRC-721", "hrc1155": "HRC-1155"}


def token_label(row: pd.Series) -> str:
    """A token's name on a chart: its symbol (or name) when known, made safe and short, with its
    shortened address beside it (:func:`~hmyframe.plot._style.chain_label`); the address alone
    when neither is known."""
    symbol = row.get("symbol")
    name = row.get("name")
    known = [v for v in (symbol, name) if isinstance(v, str) and v.strip()]
    return chain_label(known[0] if known else None, row["token_address"], 16)


def volume_text(row: pd.Series) -> str:
    """A row of :func:`~hmyframe.metrics.token_activity` as a short volume: scaled with the
    symbol where decimals are known, else in the token's units (NFTs for HRC-721)."""
    scaled = row.get("volume_scaled")
    if scaled is not None and isinstance(scaled, float) and not math.isnan(scaled):
        unit = chain_text(row.get("symbol"), 12) or "tokens"
        return f"{compact_number(scaled)} {unit}"
    if row["standard"] == "hrc721":
        return f"{int(row['volume']):,} NFTs"
    return f"{compact_number(float(int(row['volume'])))} units"


def compact_number(value: float) -> str:
    """``1234.5`` -> ``'1,234.5'``; large or tiny values in scientific notation."""
    if value == 0:
        return "0"
    if abs(value) >= 1e12 or abs(value) < 1e-3:
        return f"{value:.3g}"
    return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"


def top_tokens(
    token_transfers: pd.DataFrame, tokens: pd.DataFrame | None = None, n: int = 10, *, ax: Axes | None = None
) -> Axes:
    """Horizontal bars: the ``n`` tokens with the most transfers, coloured by standard.

    Each bar is labelled with the token's symbol (from ``tokens``) or its shortened address (and
    shard when the transfers span several); the text beside it gives the volume, scaled by the
    token's decimals where known.
    """
    count: object = n
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ConfigError(f"n must be a positive number of tokens, got {short_repr(n)}")
    with style():
        ax = axes(ax)
        heading = "Most active tokens"
        if token_transfers is None or token_transfers.empty:
            return empty(ax, heading, "No token transfers in this range")
        activity = metrics.token_activity(token_transfers, tokens)
        shown = activity.head(n).iloc[::-1]  # largest at the top
        several = activity["shard_id"].nunique() > 1
        labels = [
            token_label(row) + (f" (shard {row['shard_id']})" if several else "")
            for _, row in shown.iterrows()
        ]
        y = np.arange(len(shown))
        counts = shown["transfers"].to_numpy(dtype=float)
        colors = [STANDARD_COLORS.get(s, PALETTE[3]) for s in shown["standard"]]
        ax.barh(y, counts, color=colors, height=0.7)
        ax.set_yticks(y, labels)
        ax.grid(axis="y", visible=False)
        right = float(counts.max())
        for k, (_, row) in enumerate(shown.iterrows()):
            ax.text(
                counts[k] + right * 0.01,
                k,
                plot_text(f"volume {volume_text(row)}"),
                va="center",
                fontsize=8,
                color="#444444",
            )
        ax.set_xlim(0, right * 1.45)
        count_axis(ax, "x", "transfers")
        present = [s for s in STANDARD_COLORS if s in set(shown["standard"])]
        legend_outside(
            ax, handles=[Patch(color=STANDARD_COLORS[s], label=STANDARD_NAMES[s]) for s in present]
        )
        title(
            ax,
            f"{heading}, by transfers",
            f"{fmt_count(len(token_transfers))} transfers of {fmt_count(len(activity))} tokens; "
            f"top {len(shown)} shown",
        )
        return ax
