"""What the account plots draw, checked value by value against the frames they are given
(exact amounts beyond float precision, labels, empty frames)."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.patches import Rectangle

from hmyframe import metrics, plot
from hmyframe.addresses import to_one

A, B, C = ("0x" + c * 40 for c in "abc")
ONE = 10**18
BIG = 10**33  # 1e15 ONE: a devnet-sized genesis balance


def _balances(rows: list[tuple[str, int, int]]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "address": [to_one(a) for a, _, _ in rows],
            "address_hex": [a for a, _, _ in rows],
            "block_number": [b for _, b, _ in rows],
            "shard_id": [0] * len(rows),
            "balance": pd.array([v for _, _, v in rows], dtype="atto"),
        }
    )


HISTORY = _balances(
    [
        (A, 0, BIG),
        (A, 10, BIG + 5 * ONE),
        (A, 20, BIG - 2 * ONE),
        (B, 0, 3 * ONE),
        (B, 10, ONE),
        (B, 20, ONE),
        (C, 0, 0),
        (C, 10, 0),
        (C, 20, 7 * ONE),
    ]
)


def test_balance_history_lines_per_address(ax: Axes) -> None:
    plot.balance_history(HISTORY, labels={to_one(B): "Treasury"}, top=2, ax=ax)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert len(lines) == 2  # the two largest at the last block: A, then C (7 ONE) over B (1 ONE)
    a_label = next(k for k in lines if k.startswith(to_one(A)[:10]))
    assert list(lines[a_label].get_ydata()) == [BIG / ONE, (BIG + 5 * ONE) / ONE, (BIG - 2 * ONE) / ONE]
    assert list(lines[a_label].get_xdata()) == [0, 10, 20]
    assert not any(k.startswith("Treasury") for k in lines)
    assert ax.get_title(loc="left").strip() == "Balance history"


def test_balance_change_is_exact_where_floats_are_not(ax: Axes) -> None:
    """Relative to the first block, A's movements of a few ONE on 1e15 ONE are drawn exactly."""
    plot.balance_history(HISTORY, labels={to_one(B): "Treasury"}, relative=True, ax=ax)
    lines = {
        line.get_label(): line
        for line in ax.get_lines()
        if line.get_label() and not line.get_label().startswith("_")
    }
    a_label = next(k for k in lines if k.startswith(to_one(A)[:10]))
    assert list(lines[a_label].get_ydata()) == [
        0.0,
        5.0,
        -2.0,
    ]  # (BIG + 5e18) / 1e18 - 1e15 is not 5.0 in floats
    treasury = next(k for k in lines if k.startswith("Treasury ("))
    assert list(lines[treasury].get_ydata()) == [0.0, -2.0, -2.0]
    assert ax.get_ylabel() == "change since block 0 (ONE)"


def test_wealth_lorenz_annotates_gini_top_share_and_nakamoto(ax: Axes) -> None:
    plot.wealth_lorenz(HISTORY, ax=ax)
    values = [BIG - 2 * ONE, ONE, 7 * ONE]
    (box,) = [t.get_text() for t in ax.texts if t.get_text().startswith("Gini")]
    assert box.splitlines() == [
        f"Gini {metrics.gini(values):.3f}",
        "top 10 hold 100.0%",
        "Nakamoto (majority): 1 address",
    ]
    curve = next(line for line in ax.get_lines() if line.get_label() == "balances")
    assert list(curve.get_ydata()) == pytest.approx(list(metrics.lorenz(values)["value_share"]))


def test_rich_list_bars_and_labels(ax: Axes) -> None:
    rich = metrics.rich_list(HISTORY, labels={to_one(C): "Exchange"})
    plot.rich_list(rich, ax=ax)
    bars = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert [p.get_width() for p in bars] == [(BIG - 2 * ONE) / ONE, 7.0, 1.0]
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names[1].startswith("2. Exchange (")
    assert names[0].startswith("1. one1")


def test_rewards_by_validator_stacks_accrued_and_marks_collections(ax: Axes) -> None:
    rows = []
    for epoch in (1, 2, 3):
        for v, accrued in ((A, 3 * ONE), (B, ONE)):
            rows.append(
                {
                    "delegator_address": to_one(C),
                    "epoch": epoch,
                    "validator_address": to_one(v),
                    "accrued_one": accrued / ONE,
                    "collected_one": (4.0 if epoch == 2 else 0.0) if v == A else 0.0,
                }
            )
    plot.rewards_by_validator(pd.DataFrame(rows), ax=ax)
    stacks = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers}
    assert stacks == {
        f"accrued · {to_one(A)[:10]}…{to_one(A)[-4:]}": [3.0, 3.0, 3.0],
        f"accrued · {to_one(B)[:10]}…{to_one(B)[-4:]}": [1.0, 1.0, 1.0],
    }
    (marks,) = ax.collections
    assert [tuple(p) for p in marks.get_offsets()] == [(2.0, 4.0)]


@pytest.mark.parametrize(
    "draw",
    [
        lambda ax: plot.balance_history(HISTORY.iloc[0:0], ax=ax),
        lambda ax: plot.wealth_lorenz(HISTORY.iloc[0:0], ax=ax),
        lambda ax: plot.rich_list(metrics.rich_list(HISTORY.iloc[0:0]), ax=ax),
    ],
)
def test_empty_frames_say_so(ax: Axes, draw: object) -> None:
    draw(ax)  # type: ignore[operator]
    assert any("No " in t.get_text() for t in ax.texts)


def test_labels_are_drawn_safely(ax: Axes) -> None:
    """A caller's label (often a scraped list) is shown like chain text: invisible characters as
    escapes, cut short, mathtext dollars escaped, in the legend and the rich list alike."""
    hostile = "\u202e$\\frac{1}{0}$ " + "W" * 200
    plot.balance_history(HISTORY, labels={to_one(C): hostile}, ax=ax)
    (label,) = [t.get_text() for t in ax.get_legend().get_texts() if "frac" in t.get_text()]
    assert label.startswith("\\u202e\\$\\frac{1}{0}\\$ WWW")
    assert "\u202e" not in label
    assert "W" * 30 not in label
    assert label.endswith(f"({to_one(C)[:10]}…{to_one(C)[-4:]})")
    ax.figure.canvas.draw()  # no mathtext error
    ax.clear()
    plot.rich_list(metrics.rich_list(HISTORY, labels={to_one(C): hostile}), ax=ax)
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert names[1].startswith("2. \\u202e\\$\\frac")
    ax.figure.canvas.draw()
