"""The DEX plots, drawn from the devnet's exchange fetched over HTTP (plain and with hostile token
symbols), checked against the metrics' frames; the PNGs go to ``build/plots/`` to be looked at."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib.dates as mdates
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import hmyframe
from hmyframe import metrics, plot
from hmyframe.devnet import Devnet
from hmyframe.errors import ConfigError
from hmyframe.plot._style import _glyphs

PNGS = Path(__file__).parents[2] / "build" / "plots"
NET = {"blocks": 500, "seed": 13, "dex_density": 1.0}


@functools.cache
def fetched(hostile: bool) -> dict[str, Any]:
    with Devnet(**NET, hostile_text=hostile) as net:
        common: dict[str, Any] = {"rpc": net, "cache": False}
        events = hmyframe.events("uniswap_v2_pair", 0, 499, shard="all", event=["Swap", "Sync"], **common)
        blocks = hmyframe.blocks(0, 499, shard="all", **common)
        pairs = pd.concat(
            hmyframe.dex_pairs(g["address"].unique(), block=499, shard=int(s), **common)
            for s, g in events["Sync"].groupby("shard_id")
        )
        wone = [net.chain.dex(s).wone for s in range(net.n_shards)]
    return {
        "swaps": metrics.dex_swaps(events["Swap"], pairs, events["Sync"], blocks, wone=wone),
        "reserves": metrics.dex_reserves(events["Sync"], pairs, blocks, wone=wone),
    }


def draw(name: str, paint: Callable[[Axes], Any]) -> tuple[Figure, Axes]:
    figure = Figure(figsize=(8, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    paint(ax)
    PNGS.mkdir(parents=True, exist_ok=True)
    figure.savefig(PNGS / f"dex_{name}.png", dpi=90)
    return figure, ax


def block_ends(reserves: pd.DataFrame) -> pd.DataFrame:
    return reserves.drop_duplicates(["shard_id", "pair_hex", "block_number"], keep="last")


def naive(values: Any) -> list[np.datetime64]:
    return [t.tz_convert("UTC").tz_localize(None).to_datetime64() for t in pd.to_datetime(values)]


def times(values: Any) -> list[float]:
    return [
        mdates.date2num(t.tz_convert("UTC").tz_localize(None).to_pydatetime()) for t in pd.to_datetime(values)
    ]


def test_prices_are_each_pairs_change_since_its_first_block() -> None:
    reserves = fetched(False)["reserves"]
    _, ax = draw("prices", lambda ax: plot.dex_prices(reserves, 3, ax=ax))
    lines = [line for line in ax.lines if not line.get_label().startswith("_")]
    assert len(lines) == 3
    ends = block_ends(reserves)
    last = ends.drop_duplicates(["shard_id", "pair_hex"], keep="last").sort_values(
        "liquidity_one", ascending=False
    )
    for line, row in zip(lines, last.head(3).itertuples(), strict=True):
        assert row.token0_symbol in line.get_label()
        assert f"(shard {row.shard_id})" in line.get_label()
        mine = ends[(ends["shard_id"] == row.shard_id) & (ends["pair_hex"] == row.pair_hex)]
        prices = mine["price_float"].to_numpy()
        assert list(line.get_ydata()) == pytest.approx(list(prices / prices[0] - 1))
        assert list(line.get_xdata()) == naive(mine["timestamp"])
    assert ax.yaxis.get_major_formatter()(0.05, 0) == "5.0%"
    assert "the 3 deepest of 10 pairs" in ax.texts[0].get_text()


def test_one_pairs_price_shows_the_pool_and_the_swaps() -> None:
    data = fetched(False)
    reserves, swaps = data["reserves"], data["swaps"]
    wone_dusd = reserves[(reserves["token0_symbol"] == "WONE") & (reserves["token1_symbol"] == "dUSD")]
    shard, pair = int(wone_dusd["shard_id"].iloc[0]), str(wone_dusd["pair_hex"].iloc[0])
    _, ax = draw("price", lambda ax: plot.dex_price(reserves, pair, swaps, shard=shard, ax=ax))
    (pool,) = ax.lines
    mine = block_ends(wone_dusd[wone_dusd["shard_id"] == shard])
    assert list(pool.get_ydata()) == pytest.approx(list(mine["price_float"]))
    assert all(0.01 < p < 0.03 for p in pool.get_ydata())  # dUSD per ONE: the 6 and 18 decimals applied
    traded = swaps[(swaps["pair_hex"] == pair) & (swaps["shard_id"] == shard)]
    sold, bought = ax.collections
    assert sold.get_label() == "swaps selling WONE"
    assert len(sold.get_offsets()) == int(traded["zero_for_one"].sum())
    assert len(sold.get_offsets()) + len(bought.get_offsets()) == len(traded)
    assert sorted(np.asarray(sold.get_offsets())[:, 1]) == pytest.approx(
        sorted(traded.loc[traded["zero_for_one"].astype(bool), "price_float"])
    )
    assert ax.get_ylabel() == "dUSD per WONE"
    assert ax.get_title(loc="left").strip() == "WONE/dUSD: price"
    shared = reserves.assign(pair_hex=pair)
    with pytest.raises(ConfigError, match="on several shards of the frame: give shard="):
        plot.dex_price(shared, pair, ax=ax)


def test_volume_bars_are_the_metrics_volume_in_one_per_minute_and_pair() -> None:
    swaps = fetched(False)["swaps"]
    _, ax = draw("volume", lambda ax: plot.dex_volume(swaps, "min", 4, ax=ax))
    per_minute = metrics.dex_volume(swaps, "min")
    totals = metrics.dex_volume(swaps)
    top = list(zip(totals["shard_id"], totals["pair_hex"], strict=True))[:4]
    bars = {c.get_label(): [p for p in c.patches if isinstance(p, Rectangle)] for c in ax.containers}
    assert len(bars) == 5
    assert "other pairs" in bars
    drawn = 0.0
    for label, patches in bars.items():
        heights = {round(p.get_x(), 6): p.get_height() for p in patches}
        if label == "other pairs":
            rows = per_minute[
                [k not in top for k in zip(per_minute["shard_id"], per_minute["pair_hex"], strict=True)]
            ]
        else:
            shard, pair = next(k for k in top if f"(shard {k[0]})" in label and k[1][:8] in label)
            rows = per_minute[(per_minute["shard_id"] == shard) & (per_minute["pair_hex"] == pair)]
        expected = rows.groupby("timestamp")["volume_one"].sum()
        for minute, value in expected.items():
            assert heights[round(times([minute])[0], 6)] == pytest.approx(value)
        drawn += sum(heights.values())
    exact = sum(int(v) for v in swaps["value_atto"].dropna())
    assert drawn == pytest.approx(exact / 10**18)
    assert (
        ax.texts[0]
        .get_text()
        .startswith(f"{exact / 10**18:,.0f} ONE in all (exact sum) over {len(swaps):,} swaps")
    )
    assert ax.get_ylabel() == "volume per minute (ONE)"


def test_liquidity_lines_are_each_pools_worth_in_one() -> None:
    reserves = fetched(False)["reserves"]
    _, ax = draw("liquidity", lambda ax: plot.dex_liquidity(reserves, ax=ax))
    assert len(ax.lines) == 5
    ends = block_ends(reserves)
    for line in ax.lines:
        short = re.search(r"0x(\w{6})…", line.get_label())
        assert short is not None
        mine = ends[ends["pair_hex"].str.startswith("0x" + short.group(1))]
        if mine["shard_id"].nunique() > 1:
            mine = mine[mine["shard_id"] == int(line.get_label()[-2])]
        assert list(line.get_ydata()) == pytest.approx(list(mine["liquidity_one"]))
    assert ax.get_ylim()[0] == 0
    assert ax.get_ylabel() == "liquidity (ONE)"


def test_empty_frames_and_unknown_decimals_give_plots_that_say_so() -> None:
    data = fetched(False)
    swaps, reserves = data["swaps"], data["reserves"]
    for paint, words in (
        (lambda ax: plot.dex_prices(reserves.iloc[:0], ax=ax), "No Sync events in this range"),
        (lambda ax: plot.dex_volume(swaps.iloc[:0], ax=ax), "No swaps in this range"),
        (lambda ax: plot.dex_liquidity(reserves.iloc[:0], ax=ax), "No Sync events in this range"),
        (lambda ax: plot.dex_price(reserves, "0x" + "99" * 20, ax=ax), "No Sync of pair 0x999999…9999"),
        (lambda ax: plot.dex_prices(reserves.assign(price_float=np.nan), ax=ax), "decimals are unknown"),
    ):
        _, ax = draw("empty", paint)
        assert any(words in t.get_text() for t in ax.texts), [t.get_text() for t in ax.texts]
    unvalued = swaps.assign(value_atto=pd.array([None] * len(swaps), dtype="atto"))
    _, ax = draw("swaps_unvalued", lambda ax: plot.dex_volume(unvalued, ax=ax))
    assert ax.get_ylabel().startswith("swaps per")  # no value in ONE: the bars count swaps
    with pytest.raises(ConfigError, match="n must be a positive number of pairs, got 0"):
        plot.dex_prices(reserves, 0)


def test_hostile_symbols_are_escaped_short_and_keep_the_pairs_apart() -> None:
    data = fetched(True)
    labels: list[str] = []
    for name, paint in (
        ("prices_hostile", lambda ax: plot.dex_prices(data["reserves"], 10, ax=ax)),
        ("volume_hostile", lambda ax: plot.dex_volume(data["swaps"], n=8, ax=ax)),
        ("liquidity_hostile", lambda ax: plot.dex_liquidity(data["reserves"], 10, ax=ax)),
    ):
        figure, ax = draw(name, paint)
        shown = [t.get_text() for t in ax.get_legend().get_texts()]
        assert len(set(shown)) == len(shown) >= 8  # each pair its own label
        labels += shown
        renderer = figure.canvas.get_renderer()  # type: ignore[attr-defined]
        assert ax.get_window_extent(renderer).width > 0.35 * figure.bbox.width  # labels left the plot room
    for label in labels:
        if label == "other pairs":
            continue
        assert len(label) <= 60, label
        assert not [c for c in label if unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp")], (
            label
        )
        assert all(ord(c) in _glyphs() for c in label), label
        assert not re.search(r"(?<!\\)\$", label), label
        assert re.search(r" · 0x\w{6}…\w{4}", label), label  # the pair's address beside its symbols
    assert any("\\u202eevil" in label for label in labels)  # dUSD's symbol, the override written out
    assert any("\\x1b[31mRED" in label for label in labels)  # B32's, an ANSI escape written out


def test_a_tiny_price_is_drawn_in_a_power_of_ten_named_on_the_axis() -> None:
    data = fetched(False)
    reserves = data["reserves"]
    huge = reserves[(reserves["token0_symbol"] == "HUGE") & (reserves["token1_symbol"] == "dUSD")]
    shard, pair = int(huge["shard_id"].iloc[0]), str(huge["pair_hex"].iloc[0])
    figure, ax = draw(
        "price_tiny", lambda ax: plot.dex_price(reserves, pair, data["swaps"], shard=shard, ax=ax)
    )
    prices = block_ends(huge[huge["shard_id"] == shard])["price_float"].to_numpy()
    exponent = int(np.floor(np.log10(prices.max())))
    assert exponent < -10  # dUSD (6 decimals) per HUGE (10**32 of them in the pool)
    assert ax.get_ylabel() == f"dUSD per HUGE (x 1e{exponent})"
    (pool,) = ax.lines
    assert list(pool.get_ydata()) == pytest.approx(list(prices / 10.0**exponent))
    figure.draw_without_rendering()
    assert ax.yaxis.get_offset_text().get_text() == ""  # no "1e-11" written over the title
