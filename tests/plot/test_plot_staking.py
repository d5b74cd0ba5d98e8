"""What each staking plot shows: bar lengths, line data, annotated values, labels and units."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.patches import Rectangle
from plot_frames import ONE, delegations, frame, validators, voting_power

from hmyframe import metrics, plot
from hmyframe.errors import ConfigError
from hmyframe.plot._style import BAD, GOOD, fmt_percent, one_axis


def texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.texts]


def bars(ax: Axes) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def title(ax: Axes) -> str:
    return ax.get_title(loc="left").strip()


def tick(ax: Axes, which: str, value: float) -> str:
    axis = ax.xaxis if which == "x" else ax.yaxis
    return axis.get_major_formatter()(value, 0)


def test_stake_distribution_bars_are_stakes_in_one(ax: Axes) -> None:
    plot.stake_distribution(validators(), top=2, delegations=delegations(), ax=ax)
    assert [b.get_width() for b in bars(ax)] == [3_000_000.0, 100.0]  # largest first
    # each validator's name with its address beside (the frames' addresses are single letters)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["Beta · B", "Alpha · A", "other 2 validators"]
    total = 3_000_150
    assert f"3,000,000 ({3_000_000 / total:.1%})" in texts(ax)
    assert "together 50 ONE (<0.1% of all stake)" in texts(ax)  # a non-zero share never reads 0.0%
    assert ax.get_xlabel() == "stake (ONE)"
    assert tick(ax, "x", 2_500_000) == "2,500,000"
    assert title(ax) == "Stake distribution"
    assert "top 2 of 4 validators; total 3,000,150 ONE" in texts(ax)


def test_stake_distribution_of_an_early_2020_snapshot_takes_stake_from_delegations(ax: Axes) -> None:
    legacy = validators().assign(total_delegation=pd.NA)
    legacy["total_delegation"] = legacy["total_delegation"].astype(validators()["total_delegation"].dtype)
    plot.stake_distribution(legacy, top=3, delegations=delegations(), ax=ax)
    assert [b.get_width() for b in bars(ax)] == [3_000_000.0, 100.0, 0.0]


def test_lorenz_curve_per_shard_with_gini_and_nakamoto(ax: Axes) -> None:
    plot.lorenz_curve(voting_power(), ax=ax)
    equality, shard0, _ = ax.lines
    assert list(equality.get_xdata()) == [0, 1]
    # shard 0: validators' power 0.25 (A, two keys) and 0.45 (B): Lorenz 0 -> 0.25/0.70 -> 1
    assert list(shard0.get_ydata()) == pytest.approx([0.0, 0.25 / 0.70, 1.0])
    gini0 = metrics.gini([0.25, 0.45])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[1] == f"shard 0: Gini {gini0:.3f}, Nakamoto 1 (2 validators)"
    assert legend[2] == "shard 1: Gini 0.000, Nakamoto 1 (1 validators)"
    assert "Nakamoto coefficient (1/3, weakest shard): 1" in texts(ax)
    assert tick(ax, "y", 0.5) == "50%"


def test_signing_histogram_splits_at_the_threshold(ax: Axes) -> None:
    plot.signing_histogram(validators(), ax=ax)
    filled = [b for b in bars(ax) if b.get_height() > 0]
    # two elected validators: one at 50% (red, below) and one at 96%
    assert [(round(b.get_x(), 2), b.get_height()) for b in filled] == [(0.5, 1.0), (0.95, 1.0)]
    assert filled[0].get_facecolor()[:3] == pytest.approx(plt.matplotlib.colors.to_rgb(BAD))
    assert "66% threshold: 1 below" in texts(ax)
    assert [line.get_xdata()[0] for line in ax.lines] == [0.66]
    assert "2 elected validators; median 73.0%" in texts(ax)
    assert ax.get_ylabel() == "elected validators"


def test_voting_power_by_shard_stacks_the_shares(ax: Axes) -> None:
    plot.voting_power_by_shard(voting_power(), ax=ax)
    by_label: dict[str, list[float]] = {}
    for container in ax.containers:
        by_label[container.get_label()] = [round(p.get_height(), 6) for p in container.patches]
    assert by_label["largest"] == [0.45, 1.0]
    assert by_label["2nd–5th"] == [0.25, 0.0]
    assert by_label["Harmony's keys (unstaked)"] == [0.30, 0.0]
    assert "2 validators" in texts(ax)
    assert "45.0%" in texts(ax)  # the segment's own label
    assert [t.get_text() for t in ax.get_xticklabels()] == ["shard 0", "shard 1"]


def test_status_breakdown_counts(ax: Axes) -> None:
    plot.status_breakdown(validators(), ax=ax)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["elected", "eligible next epoch", "banned (double signing)"]
    assert [b.get_width() for b in bars(ax)] == [2, 1, 1]
    assert bars(ax)[0].get_facecolor()[:3] == pytest.approx(plt.matplotlib.colors.to_rgb(GOOD))


def test_commission_distribution_marks_the_median(ax: Axes) -> None:
    plot.commission_distribution(validators(), ax=ax)
    assert sum(b.get_height() for b in bars(ax)) == 4
    assert ax.lines[0].get_xdata()[0] == pytest.approx(0.085)
    assert "median 8.5%" in texts(ax)
    assert tick(ax, "x", 0.2) == "20%"


def test_delegator_concentration_points(ax: Axes) -> None:
    plot.delegator_concentration(delegations(), ax=ax)
    points = next(c for c in ax.collections if isinstance(c, PathCollection)).get_offsets()
    assert sorted(map(tuple, np.asarray(points))) == [(1.0, 1.0), (2.0, 0.6)]
    assert "one delegator holds > 50%: 2 validators" in texts(ax)


def test_snapshot_diff_gainers_and_losers(ax: Axes) -> None:
    new = frame(
        "validators",
        [
            {"validator_address": "A", "name": "Alpha", "total_delegation": 125 * ONE},
            {"validator_address": "B", "name": "Beta", "total_delegation": 2_999_000 * ONE},
            {
                "validator_address": "E",
                "name": "Epsilon",
                "total_delegation": 10 * ONE,
                "snapshot_block": 199,
            },
        ],
    )
    diff = metrics.snapshot_diff(validators(), new)
    plot.snapshot_diff(diff, top=5, ax=ax)
    # gains largest first, then losses smallest first (Delta left with no stake: no change)
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "Alpha · A",
        "Epsilon · E (new)",
        "Gamma · C (left)",
        "Beta · B",
    ]
    widths = {t.get_text(): b.get_width() for t, b in zip(ax.get_yticklabels(), bars(ax), strict=True)}
    assert widths == {
        "Alpha · A": 25.0,
        "Epsilon · E (new)": 10.0,
        "Gamma · C (left)": -50.0,
        "Beta · B": -1000.0,
    }
    assert "+25" in texts(ax)
    assert "-1,000" in texts(ax)
    assert any(
        t.startswith("block 99 → 199;") and "net change of all stake -1,015 ONE" in t for t in texts(ax)
    )


def history_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "epoch": [4, 5, 6],
            "complete": [True, True, False],
            "nakamoto": pd.array([3, 2, 2], dtype="Int64"),
            "nakamoto_shard_0": pd.array([3, 2, 4], dtype="Int64"),
            "nakamoto_shard_1": pd.array([5, 4, 2], dtype="Int64"),
            "gini": [0.4, 0.45, 0.5],
            "total_stake_one": [1_000_000.0, 1_500_000.0, 1_250_000.0],
            "elected": [10, 12, 11],
            "median_signing": [0.97, 0.98, 0.99],
        }
    )


@pytest.mark.parametrize(
    ("metric", "column", "label"),
    [
        ("gini", "gini", "Gini (0 = equal stakes)"),
        ("total_stake", "total_stake_one", "total stake (ONE)"),
        ("elected", "elected", "elected validators"),
        ("median_signing", "median_signing", "median epoch signing share"),
    ],
)
def test_history_line(ax: Axes, metric: str, column: str, label: str) -> None:
    plot.history(history_frame(), metric, ax=ax)
    line = ax.lines[0]
    assert list(line.get_xdata()) == [4, 5, 6]
    assert list(line.get_ydata()) == history_frame()[column].tolist()
    assert ax.get_ylabel() == label
    assert ax.get_xlabel() == "epoch"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "epoch in progress (at the head)" in legend


def test_history_nakamoto_lines_per_shard_and_network(ax: Axes) -> None:
    plot.history(history_frame(), "nakamoto", ax=ax)
    lines = {line.get_label(): list(line.get_ydata()) for line in ax.lines}
    assert lines["network (weakest shard)"] == [3, 2, 2]
    assert lines["shard 0"] == [3, 2, 4]
    assert lines["shard 1"] == [5, 4, 2]
    assert "epochs 4–6; latest 2" in texts(ax)
    assert tick(ax, "y", 2000) == "2,000"


def test_validator_history_signing_bars(ax: Axes) -> None:
    rows = validators().iloc[[0, 0, 0]].reset_index(drop=True)
    rows["snapshot_epoch"] = pd.array([1, 2, 3], dtype=rows["snapshot_epoch"].dtype)
    rows["epoch_signing_percentage"] = pd.array(
        [0.9, 0.5, None], dtype=rows["epoch_signing_percentage"].dtype
    )
    rows["is_elected"] = pd.array([True, True, False], dtype=rows["is_elected"].dtype)
    plot.validator_history(rows, "signing", ax=ax)
    shown = [(b.get_x() + b.get_width() / 2, b.get_height()) for b in bars(ax)]
    assert shown == [(1.0, 0.9), (2.0, 0.5), (3.0, 1.0)]  # epoch 3: not elected, pale full bar
    colors = [b.get_facecolor()[:3] for b in bars(ax)]
    assert colors[0] == pytest.approx(plt.matplotlib.colors.to_rgb(GOOD))
    assert colors[1] == pytest.approx(plt.matplotlib.colors.to_rgb(BAD))
    assert "Alpha · A, epochs 1–3; elected in 2 of 3 epochs" in texts(ax)


def test_validator_history_stake_in_one(ax: Axes) -> None:
    rows = metrics.annotate(validators().iloc[[1, 1]].reset_index(drop=True))
    rows["snapshot_epoch"] = pd.array([7, 8], dtype=rows["snapshot_epoch"].dtype)
    plot.validator_history(rows, "stake", ax=ax)
    assert list(ax.lines[0].get_ydata()) == [3_000_000.0, 3_000_000.0]
    assert ax.get_ylabel() == "stake (ONE)"
    assert "Beta · B, epochs 7–8; latest 3,000,000 ONE" in texts(ax)


EMPTY_CASES = [
    (lambda ax: plot.stake_distribution(validators().iloc[:0], ax=ax), "No validators in this snapshot"),
    (lambda ax: plot.lorenz_curve(voting_power().iloc[:0], ax=ax), "No voting power"),
    (lambda ax: plot.signing_histogram(validators().iloc[:0], ax=ax), "No elected validator"),
    (lambda ax: plot.voting_power_by_shard(voting_power().iloc[:0], ax=ax), "No voting power"),
    (lambda ax: plot.status_breakdown(validators().iloc[:0], ax=ax), "No validators"),
    (lambda ax: plot.commission_distribution(validators().iloc[:0], ax=ax), "No validators"),
    (lambda ax: plot.delegator_concentration(delegations().iloc[:0], ax=ax), "No delegations"),
    (lambda ax: plot.history(history_frame().iloc[:0], ax=ax), "No epoch"),
    (lambda ax: plot.validator_history(validators().iloc[:0], ax=ax), "no snapshot in these epochs"),
]


@pytest.mark.parametrize(("draw", "message"), EMPTY_CASES, ids=[str(i) for i in range(len(EMPTY_CASES))])
def test_an_empty_frame_gives_a_plot_that_says_so(ax: Axes, draw: object, message: str) -> None:
    drawn = draw(ax)  # type: ignore[operator]
    assert drawn is ax
    assert any(message in t for t in texts(ax))
    assert title(ax)
    assert not bars(ax)


def test_without_ax_a_new_figure_is_made() -> None:
    ax = plot.status_breakdown(validators())
    assert isinstance(ax, Axes)
    assert ax.figure is plt.gcf()


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ConfigError, match="top must be a positive integer, got 0"):
        plot.stake_distribution(validators(), top=0)
    with pytest.raises(ConfigError, match="metric must be one of nakamoto"):
        plot.history(history_frame(), "apr")
    with pytest.raises(ConfigError, match="ax must be a matplotlib Axes"):
        plot.status_breakdown(validators(), ax="left")  # type: ignore[arg-type]


def test_one_ticks_show_the_same_decimals_on_every_tick(ax: Axes) -> None:
    ax.plot([0, 1, 2], [0.0, 2.9, 4.3])
    one_axis(ax, "y", "lifetime reward (ONE)")
    ax.set_ylim(0, 4.8)
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) >= 4
    assert {len(label.partition(".")[2]) for label in labels} == {1}  # "4.0", never "4" beside "4.8"
    assert tick(ax, "y", 1_600_000) == "1,600,000.0"  # separators kept; decimals follow the step


@pytest.mark.parametrize(
    ("share", "shown"),
    [(0.000384, "<0.1%"), (0.0, "0.0%"), (0.0006, "0.1%"), (0.123, "12.3%"), (-0.0001, ">-0.1%")],
)
def test_a_small_non_zero_share_never_reads_zero(share: float, shown: str) -> None:
    assert fmt_percent(share) == shown
