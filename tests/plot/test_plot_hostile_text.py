"""Plots of chain text chosen by strangers: a devnet serving hostile token names and validator
descriptions (``Devnet(hostile_text=True)``), fetched over HTTP, drawn and rendered to PNG.

Every label is short, shows invisible characters (U+202E, zero-width, control) and those the
font cannot draw (emoji) as visible escapes, never starts mathtext (``$`` escaped), and keeps the
token's or validator's address beside it; the bars keep their width (a 10,000-character name
once squeezed the axes to nothing). The PNGs are written to ``build/plots/`` to be looked at.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

import hmyframe
from hmyframe import metrics, plot
from hmyframe.devnet import Devnet
from hmyframe.plot._style import _glyphs

PNGS = Path(__file__).parents[2] / "build" / "plots"
NET = {"blocks": 420, "seed": 5, "hostile_text": True}


@functools.cache
def fetched() -> dict[str, Any]:
    with Devnet(**NET, validator_rate_limit=False) as net:
        transfers = hmyframe.token_transfers(200, 419, shard="all", rpc=net, cache=False)
        tokens = pd.concat(
            hmyframe.tokens(sorted(set(group["token_address_hex"])), 419, shard, rpc=net, cache=False)
            for shard, group in transfers.groupby("shard_id")
        )
        history = hmyframe.staking_history(0, 2, rpc=net, cache=False)
        return {
            "transfers": transfers,
            "tokens": tokens,
            "before": hmyframe.validators(199, rpc=net, cache=False),
            "after": hmyframe.validators(419, rpc=net, cache=False),
            "history": history,
        }


def draw(name: str, paint: Callable[[Axes], Any]) -> tuple[Figure, Axes]:
    figure = Figure(figsize=(8, 5), layout="constrained")
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    paint(ax)
    PNGS.mkdir(parents=True, exist_ok=True)
    figure.savefig(PNGS / f"hostile_{name}.png", dpi=90)  # mathtext would fail here on a raw "$"
    return figure, ax


def check_label(text: str) -> None:
    assert len(text) <= 48, text
    hidden = [c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Co", "Cn", "Zl", "Zp")]
    assert hidden == [], text
    assert all(ord(c) in _glyphs() for c in text), text  # no empty box, no missing-glyph warning
    assert not re.search(r"(?<!\\)\$", text), text  # every dollar escaped: no mathtext


def check_bars(figure: Figure, ax: Axes, least: float = 0.2) -> None:
    """The axes keep over a third of the figure's width, the widest bar ``least`` of it."""
    assert isinstance(figure.canvas, FigureCanvasAgg)
    renderer = figure.canvas.get_renderer()
    width = figure.bbox.width
    assert ax.get_window_extent(renderer).width > 0.35 * width  # the labels left the axes room
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_width()]
    widest = max(abs(p.get_window_extent(renderer).width) for p in bars)
    assert widest > least * width


def test_top_tokens_with_hostile_names() -> None:
    data = fetched()
    figure, ax = draw("tokens", lambda ax: plot.top_tokens(data["transfers"], data["tokens"], 10, ax=ax))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    for label in labels:
        check_label(label)
        assert re.search(r"one1\w{4}…\w{4}", label), label  # the address beside the name
    assert any(label.startswith("\\u202eevil · ") for label in labels)
    assert any("\\x1b[31mRED" in label for label in labels)
    assert any(label.startswith("\\$\\frac{1}{0}\\$") for label in labels)
    for text in ax.texts:
        check_label(text.get_text())
    check_bars(figure, ax)


def test_validator_plots_with_hostile_names() -> None:
    data = fetched()
    figure, ax = draw("stake", lambda ax: plot.stake_distribution(data["after"], 20, ax=ax))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    seen = list(labels)
    for label in labels[:-1]:  # the last bar: "other N validators"
        check_label(label)
        assert re.search(r" · one1\w{4}…\w{4}$", label), label
    check_bars(figure, ax)
    diff = metrics.snapshot_diff(data["before"], data["after"])
    figure, ax = draw("diff", lambda ax: plot.snapshot_diff(diff, 8, ax=ax))
    for label in ax.get_yticklabels():
        check_label(label.get_text())
        seen.append(label.get_text())
    check_bars(figure, ax, 0.12)  # gains and losses: each side has half the axes
    escaped = {"\\u202e", "\\u200b", "\\n", "\\$", "…"}
    assert {e for e in escaped if any(e in label for label in seen)} == escaped
    ticks = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert 2 <= len(ticks) <= 5  # room for each
    history = data["history"]
    address = history.validators["validator_address"].iloc[0]
    rows = history.validator(address)
    figure, ax = draw("validator", lambda ax: plot.validator_history(rows, "stake", ax=ax))
    subtitle = next(t.get_text() for t in ax.texts if ", epochs " in t.get_text())
    check_label(subtitle.split(", epochs ")[0])
