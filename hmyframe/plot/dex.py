"""DEX plots: UniswapV2-style pairs' prices, volume and liquidity over time.

Each function takes the frames of :mod:`hmyframe.metrics.dex` (:func:`~hmyframe.metrics.dex_reserves`,
:func:`~hmyframe.metrics.dex_swaps`, made with the range's ``blocks`` for their times) and
``ax=None``, and returns the Axes. A pair is labelled with its tokens' symbols (chain text, made
safe and short: :mod:`hmyframe._text`) and its shortened address; values in ONE are those the
metrics derive through the WONE pairs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from hmyframe import metrics
from hmyframe._text import chain_text, short_address
from hmyframe.errors import ConfigError, short_repr
from hmyframe.plot._style import (
    MUTED,
    PALETTE,
    axes,
    count_axis,
    empty,
    fmt_count,
    fmt_one,
    legend_outside,
    one_axis,
    per_bucket,
    percent_axis,
    plot_text,
    stacked_bars,
    style,
    title,
    utc_naive,
    utc_time_axis,
)

__all__ = ["dex_liquidity", "dex_price", "dex_prices", "dex_volume", "pair_label", "pair_name", "token_name"]

_SYMBOL = 12  # display columns of one symbol in a pair's label
_OTHER = "other"  # the series of the pairs beyond the n shown


def token_name(symbol: object, token: object = None) -> str:
    """A token of a pair: its symbol made safe and short, else its shortened address, else ``?``."""
    text = chain_text(symbol, _SYMBOL)
    if text:
        return text
    return short_address(token) if isinstance(token, str) and token else "?"


def pair_name(symbol0: object, symbol1: object, token0: object = None, token1: object = None) -> str:
    """``'WONE/dUSD'``: a pair's two tokens (:func:`token_name`); text for tables (the report
    escapes its HTML)."""
    return f"{token_name(symbol0, token0)}/{token_name(symbol1, token1)}"


def pair_label(row: pd.Series) -> str:
    """A pair's label on a plot: its symbols (:func:`pair_name`) and shortened address, ready
    for matplotlib (invisible characters and missing glyphs as escapes, ``$`` escaped)."""
    name = pair_name(
        row.get("token0_symbol"), row.get("token1_symbol"), row.get("token0_hex"), row.get("token1_hex")
    )
    return plot_text(f"{name} · {short_address(row['pair_hex'])}")


def _count(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ConfigError(f"n must be a positive number of pairs, got {short_repr(n)}")
    return n


def _timed(frame: pd.DataFrame, what: str) -> pd.DataFrame:
    metrics.require_columns(frame, ["timestamp", "shard_id", "pair_hex"], what)
    return frame[frame["timestamp"].notna()]


def _block_ends(reserves: pd.DataFrame) -> pd.DataFrame:
    """Each pair's last Sync of each block: its state after the block (several Syncs of one
    block share its time, and would draw as a vertical spike)."""
    metrics.require_columns(reserves, ["block_number"], "a DEX plot")
    return reserves.drop_duplicates(["shard_id", "pair_hex", "block_number"], keep="last")


def _labels(frame: pd.DataFrame) -> dict[tuple[int, str], str]:
    """(shard, pair) -> its label (the shard added when the frame spans several)."""
    several = frame["shard_id"].nunique() > 1
    firsts = frame.drop_duplicates(["shard_id", "pair_hex"])
    return {
        (int(row["shard_id"]), str(row["pair_hex"])): pair_label(row)
        + (f" (shard {row['shard_id']})" if several else "")
        for _, row in firsts.iterrows()
    }


def _deepest(reserves: pd.DataFrame, n: int) -> list[tuple[int, str]]:
    """The ``n`` pairs with the most liquidity (in ONE) at their last Sync, then the most Syncs."""
    counts = reserves.groupby(["shard_id", "pair_hex"]).size()
    last = reserves.drop_duplicates(["shard_id", "pair_hex"], keep="last")
    ranked = pd.DataFrame(
        {
            "shard_id": last["shard_id"].astype(int).to_numpy(),
            "pair_hex": last["pair_hex"].astype(str).to_numpy(),
            "depth": metrics.floats(last["liquidity_one"]).fillna(-1.0).to_numpy(),
        }
    )
    ranked["syncs"] = [
        int(counts[(s, p)]) for s, p in zip(ranked["shard_id"], ranked["pair_hex"], strict=True)
    ]
    ranked = ranked.sort_values(
        ["depth", "syncs", "shard_id", "pair_hex"], ascending=[False, False, True, True]
    )
    return list(zip(ranked["shard_id"].tolist(), ranked["pair_hex"].tolist(), strict=True))[:n]


def _rows(frame: pd.DataFrame, key: tuple[int, str]) -> pd.DataFrame:
    return frame[(frame["shard_id"] == key[0]) & (frame["pair_hex"] == key[1])]


def dex_prices(reserves: pd.DataFrame, n: int = 5, *, ax: Axes | None = None) -> Axes:
    """Lines: each pair's price (token1 per token0, from its Sync reserves after each block) as a
    change since its first block in the range, for the ``n`` deepest pairs (most liquidity in ONE
    at the end).

    ``reserves`` is :func:`hmyframe.metrics.dex_reserves`' frame (with the ``blocks`` given, for
    the times; with the pairs' decimals, for the prices). Changes put pairs whose prices differ
    by twenty orders of magnitude on one axis.
    """
    n = _count(n)
    with style():
        ax = axes(ax)
        heading = "DEX prices"
        if reserves is None or reserves.empty:
            return empty(ax, heading, "No Sync events in this range")
        frame = _block_ends(_timed(reserves, "dex_prices"))
        metrics.require_columns(frame, ["price_float", "liquidity_one"], "dex_prices")
        frame = frame[metrics.floats(frame["price_float"]) > 0]
        if frame.empty:
            return empty(ax, heading, "No price: the pairs' tokens' decimals are unknown")
        chosen = _deepest(frame, n)
        labels = _labels(frame)
        for k, key in enumerate(chosen):
            rows = _rows(frame, key)
            prices = metrics.floats(rows["price_float"]).to_numpy()
            x = utc_naive(rows["timestamp"])
            ax.step(
                x, prices / prices[0] - 1.0, where="post", color=PALETTE[k % len(PALETTE)], label=labels[key]
            )
        ax.axhline(0.0, color=MUTED, linewidth=0.8)
        percent_axis(ax, "y", "price change since the first block")
        utc_time_axis(ax)
        legend_outside(ax)
        total = frame.groupby(["shard_id", "pair_hex"]).ngroups
        title(
            ax,
            f"{heading}: change since each pair's first block",
            f"token1 per token0 from the reserves after {fmt_count(len(frame))} pair-blocks; "
            f"the {len(chosen)} deepest of {fmt_count(total)} pairs",
        )
        return ax


def dex_price(
    reserves: pd.DataFrame,
    pair: str,
    swaps: pd.DataFrame | None = None,
    *,
    shard: int | None = None,
    ax: Axes | None = None,
) -> Axes:
    """One pair's price over time: the pool's price after each block (a step line) and, with
    ``swaps`` (:func:`hmyframe.metrics.dex_swaps`), the price each swap got (dots: token0 sold
    or bought), token1 per token0, scaled by the decimals.

    ``pair`` is the pair's address (one1 or 0x); ``shard`` picks one when the frames span
    several shards.
    """
    from hmyframe.addresses import to_hex

    address = to_hex(pair)
    with style():
        ax = axes(ax)
        rows = (
            _block_ends(_timed(reserves, "dex_price"))
            if reserves is not None and not reserves.empty
            else pd.DataFrame()
        )
        if len(rows):
            rows = rows[
                (rows["pair_hex"] == address) & ((rows["shard_id"] == shard) if shard is not None else True)
            ]
        if rows.empty:
            return empty(ax, "DEX price", f"No Sync of pair {short_address(address)} in this range")
        if rows["shard_id"].nunique() > 1:
            raise ConfigError(f"pair {address} is on several shards of the frame: give shard=")
        first = rows.iloc[0]
        unit0 = plot_text(token_name(first["token0_symbol"], first["token0_hex"]))
        unit1 = plot_text(token_name(first["token1_symbol"], first["token1_hex"]))
        name = f"{unit0}/{unit1}"
        prices = metrics.floats(rows["price_float"])
        if prices.isna().all():
            return empty(ax, f"{name}: price", "No price: the tokens' decimals are unknown")
        exponent = _exponent(prices)
        ax.step(
            utc_naive(rows["timestamp"]),
            prices.to_numpy() / 10.0**exponent,
            where="post",
            color=PALETTE[0],
            label="pool (after each block)",
        )
        traded = _pair_swaps(swaps, address, int(first["shard_id"]))
        for sold, color, label in (
            (True, PALETTE[5], f"swaps selling {unit0}"),
            (False, PALETTE[2], f"swaps buying {unit0}"),
        ):
            part = traded[traded["zero_for_one"] == sold]
            if len(part):
                ax.scatter(
                    utc_naive(part["timestamp"]),
                    metrics.floats(part["price_float"]) / 10.0**exponent,
                    s=12,
                    color=color,
                    label=label,
                    zorder=3,
                )
        utc_time_axis(ax)
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)  # no offset text over the title
        ax.set_ylabel(f"{unit1} per {unit0}" + (f" (x 1e{exponent})" if exponent else ""))
        legend_outside(ax)
        title(
            ax,
            f"{name}: price",
            f"last {float(prices.iloc[-1]):.6g} {unit1} per {unit0}; {fmt_count(len(rows))} blocks with a Sync, "
            f"{fmt_count(len(traded))} swaps · {short_address(address)}",
        )
        return ax


def _exponent(prices: pd.Series) -> int:
    """The power of ten a pair's prices are shown in when they are very large or very small
    (5.05e-11 dUSD per HUGE: ``-11``, the axis in units of 1e-11); 0 from 0.001 to 10,000."""
    largest = float(np.nanmax(np.abs(prices.to_numpy()))) if prices.notna().any() else 0.0
    if largest == 0.0 or 1e-3 <= largest < 1e4:
        return 0
    return int(np.floor(np.log10(largest)))


def _pair_swaps(swaps: pd.DataFrame | None, address: str, shard: int) -> pd.DataFrame:
    if swaps is None or swaps.empty:
        return pd.DataFrame({"timestamp": [], "zero_for_one": [], "price_float": []})
    timed = _timed(swaps, "dex_price (swaps)")
    chosen = timed[(timed["pair_hex"] == address) & (timed["shard_id"] == shard)]
    return chosen[metrics.floats(chosen["price_float"]).notna()]


def dex_volume(swaps: pd.DataFrame, freq: str = "auto", n: int = 5, *, ax: Axes | None = None) -> Axes:
    """Stacked bars: volume in ONE per time bucket, one colour per pair (the ``n`` with the most
    volume; the rest as "other pairs").

    ``swaps`` is :func:`hmyframe.metrics.dex_swaps`' frame (with ``blocks``, for the times). The
    values in ONE are the metric's (through the WONE pairs); when no swap has one, the bars
    count swaps instead.
    """
    n = _count(n)
    with style():
        ax = axes(ax)
        heading = "DEX volume"
        if swaps is None or swaps.empty:
            return empty(ax, heading, "No swaps in this range")
        timed = _timed(swaps, "dex_volume")
        width = metrics.bucket_frequency(pd.to_datetime(timed["timestamp"], utc=True), freq)
        totals = metrics.dex_volume(timed)
        valued = totals["volume_one"].notna().any()
        column = "volume_one" if valued else "swaps"
        per_bucket_table = metrics.dex_volume(timed, width)
        labels = {f"{s}:{p}": label for (s, p), label in _labels(timed).items()}
        top = [f"{s}:{p}" for s, p in zip(totals["shard_id"], totals["pair_hex"], strict=True)][:n]
        series = [
            f"{s}:{p}"
            for s, p in zip(per_bucket_table["shard_id"], per_bucket_table["pair_hex"], strict=True)
        ]
        per_bucket_table["series"] = [k if k in top else _OTHER for k in series]
        per_bucket_table["shown"] = metrics.floats(per_bucket_table[column])
        wide = per_bucket_table.pivot_table(
            index="timestamp", columns="series", values="shown", aggfunc="sum", fill_value=0.0
        ).astype(float)
        order = [k for k in top if k in wide.columns] + ([_OTHER] if _OTHER in wide.columns else [])
        wide = wide[order]
        names = [labels.get(k, "other pairs") for k in order]
        colors = [PALETTE[i % len(PALETTE)] if k != _OTHER else MUTED for i, k in enumerate(order)]
        stacked_bars(ax, wide, width, colors, names)
        if valued:
            one_axis(ax, "y", f"volume {per_bucket(width)} (ONE)")
        else:
            count_axis(ax, "y", f"swaps {per_bucket(width)}")
        legend_outside(ax)
        total = float(totals["volume_one"].sum()) if valued else float("nan")
        unvalued = int(totals["unvalued"].sum())
        title(
            ax,
            f"{heading} {per_bucket(width)}, by pair" if valued else f"Swaps {per_bucket(width)}, by pair",
            (f"{fmt_one(total)} in all (exact sum) over " if valued else "no swap has a value in ONE; ")
            + f"{fmt_count(len(timed))} swaps of {fmt_count(len(totals))} pairs"
            + (f"; {fmt_count(unvalued)} swaps without a value in ONE" if valued and unvalued else ""),
        )
        return ax


def dex_liquidity(reserves: pd.DataFrame, n: int = 5, *, ax: Axes | None = None) -> Axes:
    """Lines: each pair's liquidity in ONE (both reserves valued through the WONE pairs) after
    each block, for the ``n`` deepest pairs; ``reserves`` is :func:`hmyframe.metrics.dex_reserves`'
    frame (with ``blocks``)."""
    n = _count(n)
    with style():
        ax = axes(ax)
        heading = "DEX liquidity"
        if reserves is None or reserves.empty:
            return empty(ax, heading, "No Sync events in this range")
        frame = _block_ends(_timed(reserves, "dex_liquidity"))
        metrics.require_columns(frame, ["liquidity_one"], "dex_liquidity")
        frame = frame[metrics.floats(frame["liquidity_one"]).notna()]
        if frame.empty:
            return empty(ax, heading, "No pair has a value in ONE: none holds the WONE given (wone=)")
        chosen = _deepest(frame, n)
        labels = _labels(frame)
        for k, key in enumerate(chosen):
            rows = _rows(frame, key)
            x = utc_naive(rows["timestamp"])
            ax.step(
                x,
                metrics.floats(rows["liquidity_one"]).to_numpy(),
                where="post",
                color=PALETTE[k % len(PALETTE)],
                label=labels[key],
            )
        ax.set_ylim(bottom=0)
        one_axis(ax, "y", "liquidity (ONE)")
        utc_time_axis(ax)
        legend_outside(ax)
        ends = frame.drop_duplicates(["shard_id", "pair_hex"], keep="last")
        title(
            ax,
            f"{heading}: each pool's worth in ONE",
            f"{fmt_one(float(metrics.floats(ends['liquidity_one']).sum()))} in {fmt_count(len(ends))} pairs "
            f"at their last Sync; the {len(chosen)} deepest shown",
        )
        return ax
