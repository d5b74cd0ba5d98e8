"""What each throughput plot shows: bar heights, line data, UTC time axes, labels."""

from __future__ import annotations

import datetime as dt

import matplotlib.dates as mdates
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle
from plot_frames import T0, blocks, staking_transactions, transactions

from hmyframe import plot

MINUTE0 = mdates.date2num(T0.tz_localize(None).to_pydatetime())
MINUTE1 = mdates.date2num((T0 + dt.timedelta(minutes=1)).tz_localize(None).to_pydatetime())


def texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.texts]


def bars_by_label(ax: Axes) -> dict[str, list[tuple[float, float, float]]]:
    """Each bar series: (x, bottom, height) of its bars."""
    out = {}
    for container in ax.containers:
        out[container.get_label()] = [
            (round(p.get_x(), 6), p.get_y(), p.get_height())
            for p in container.patches
            if isinstance(p, Rectangle)
        ]
    return out


def assert_utc_time_axis(ax: Axes) -> None:
    formatter = ax.xaxis.get_major_formatter()
    assert isinstance(formatter, mdates.ConciseDateFormatter)
    assert formatter._tz == dt.UTC
    assert ax.get_xlabel() == "time (UTC)"


def test_transactions_stacked_by_shard_per_minute(ax: Axes) -> None:
    plot.transactions(blocks(), "min", ax=ax)
    series = bars_by_label(ax)
    m0, m1 = round(MINUTE0, 6), round(MINUTE1, 6)
    assert series["shard 0"] == [(m0, 0.0, 4.0), (m1, 0.0, 5.0)]
    assert series["shard 1"] == [(m0, 4.0, 8.0), (m1, 5.0, 0.0)]  # stacked on shard 0
    assert ax.get_ylabel() == "transactions per minute"
    assert ax.get_title(loc="left").strip() == "Transactions per minute, by shard"
    assert any(t.startswith("17 transactions; shard 0: blocks 10–13; shard 1: blocks 7–8") for t in texts(ax))
    assert_utc_time_axis(ax)


def test_gas_and_utilisation(ax: Axes) -> None:
    plot.gas(blocks(), "min", ax=ax)
    assert [h for _, _, h in bars_by_label(ax)["shard 0"]] == [30.0, 50.0]
    assert ax.get_ylabel() == "gas used per minute"
    ax.clear()
    plot.gas_utilisation(blocks(), "min", ax=ax)
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.lines}
    assert lines["shard 0"] == pytest.approx([0.1, 0.5])
    # shard 1 has no block in minute 1: no point there (not a 0% utilisation)
    assert lines["shard 1"][0] == pytest.approx(0.4)
    assert lines["shard 1"][1] != lines["shard 1"][1]
    assert "whole range: shard 0: 20.00%, shard 1: 40.00%" in texts(ax)
    assert ax.yaxis.get_major_formatter()(0.25, 0) == "25.00%"
    assert_utc_time_axis(ax)


def test_block_time_distribution_with_statistics(ax: Axes) -> None:
    plot.block_times(blocks(), ax=ax)
    series = {label.split(":")[0]: sorted(h for _, _, h in bars) for label, bars in bars_by_label(ax).items()}
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    # shard 0: intervals 2, 2, 58 s; shard 1: one interval of 2 s
    assert legend[0] == "shard 0: mean 20.67 s, median 2.0 s, p95 52.4 s, max 58 s"
    assert legend[1] == "shard 1: mean 2.00 s, median 2.0 s, p95 2.0 s, max 2 s"
    assert series == {"shard 0": [1.0, 2.0], "shard 1": [1.0]}  # two 2 s and one 58 s; one 2 s
    assert "4 block intervals; 1 gaps (> 3 x median)" in texts(ax)
    assert ax.get_xlabel() == "seconds between consecutive blocks"
    assert ax.get_yscale() == "log"


def test_cross_shard_share_lines(ax: Axes) -> None:
    plot.cross_shard(transactions(), "min", ax=ax)
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.lines}
    assert lines["share of transfers"] == [0.25, 0.0]
    assert lines["share of value moved"] == [0.75, 0.0]
    assert list(mdates.date2num(ax.lines[0].get_xdata())) == [MINUTE0, MINUTE1]  # bucket starts, UTC
    assert "whole range: 20.0% of 5 transfers, 60.0% of the value" in texts(ax)
    assert_utc_time_axis(ax)


def test_staking_directives_stacked(ax: Axes) -> None:
    plot.staking_directives(staking_transactions(), "min", ax=ax)
    series = bars_by_label(ax)
    assert sorted(series) == ["CollectRewards", "Delegate"]  # directives that occur
    assert [h for _, _, h in series["Delegate"]] == [2.0, 0.0]
    assert [(b, h) for _, b, h in series["CollectRewards"]] == [(2.0, 0.0), (0.0, 1.0)]
    assert "Delegate 2, CollectRewards 1" in texts(ax)


@pytest.mark.parametrize(
    ("name", "frame", "message"),
    [
        ("transactions", blocks, "No blocks in this range"),
        ("gas", blocks, "No blocks in this range"),
        ("gas_utilisation", blocks, "No blocks in this range"),
        ("block_times", blocks, "No blocks in this range"),
        ("cross_shard", transactions, "No transactions in this range"),
        ("staking_directives", staking_transactions, "No staking transactions in this range"),
    ],
)
def test_an_empty_range_gives_a_plot_that_says_so(ax: Axes, name: str, frame: object, message: str) -> None:
    getattr(plot, name)(frame().iloc[:0], ax=ax)  # type: ignore[operator]
    assert message in texts(ax)
    assert not ax.containers
    assert not ax.lines
