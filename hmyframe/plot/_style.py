"""The one look every hmyframe plot shares: colours, fonts, number and date formats, empty plots.

Every plot function draws inside :func:`style` and finishes through the helpers here, so a new
plot reads like the others by using them: :func:`axes` (the caller's Axes or a new figure),
:func:`title`, :func:`one_axis` (amounts in ONE with thousands separators), :func:`count_axis`,
:func:`percent_axis`, :func:`utc_time_axis` and :func:`empty` (an informative empty plot).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
from collections.abc import Iterator
from datetime import UTC
from typing import Any, cast

import matplotlib as mpl
import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.ticker import Formatter, FuncFormatter, MaxNLocator, PercentFormatter

from hmyframe import _text

__all__ = [
    "ACCENT",
    "BAD",
    "GOOD",
    "MUTED",
    "PALETTE",
    "RC",
    "axes",
    "chain_label",
    "count_axis",
    "empty",
    "equality_line",
    "fmt_count",
    "fmt_one",
    "fmt_percent",
    "legend_outside",
    "lorenz_axes",
    "one_axis",
    "per_bucket",
    "percent_axis",
    "plot_text",
    "shard_color",
    "shard_lines",
    "stacked_bars",
    "style",
    "title",
    "utc_time_axis",
]

#: Colour-blind-safe palette (Okabe & Ito), in the order series get it.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
ACCENT = "#0072B2"
GOOD = "#009E73"
BAD = "#D55E00"
MUTED = "#9AA0A6"

#: Matplotlib settings of the shared style.
RC: dict[str, Any] = {
    "figure.figsize": (8.0, 4.5),
    "figure.dpi": 100,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
    "savefig.bbox": "tight",
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.titlepad": 10,
    "axes.labelsize": 10,
    "axes.labelcolor": "#333333",
    "axes.edgecolor": "#888888",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "axes.prop_cycle": cycler(color=PALETTE),
    "grid.color": "#E5E5E5",
    "grid.linewidth": 0.8,
    "xtick.color": "#555555",
    "ytick.color": "#555555",
    "legend.frameon": False,
    "legend.fontsize": 9,
    "svg.fonttype": "path",
    "svg.hashsalt": "hmyframe",
}


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Draw inside hmyframe's style (a :func:`matplotlib.rc_context`)."""
    with mpl.rc_context(cast(Any, RC)):
        yield


def axes(ax: Axes | None, size: tuple[float, float] | None = None) -> Axes:
    """The caller's Axes, or the Axes of a new pyplot figure (``size`` in inches)."""
    given: object = ax
    if given is not None:
        if not isinstance(given, Axes):
            from hmyframe.errors import ConfigError, short_repr

            raise ConfigError(f"ax must be a matplotlib Axes or None, got {short_repr(given)}")
        return given
    import matplotlib.pyplot as plt

    _, new = plt.subplots(figsize=size or RC["figure.figsize"], layout="constrained")
    return new


def title(ax: Axes, text: str, subtitle: str | None = None) -> None:
    """The plot's title (bold, left) and an optional grey subtitle line under it."""
    ax.set_title(text + ("\n" if subtitle else ""), loc="left")
    if subtitle:
        ax.text(
            0.0,
            1.02,
            subtitle,
            transform=ax.transAxes,
            fontsize=9,
            color="#666666",
            ha="left",
            va="bottom",
        )


# --------------------------------------------------------------------------- chain text


@functools.cache
def _glyphs() -> frozenset[int]:
    """The code points the plots' font draws (anything else would be an empty box, and a warning)."""
    from matplotlib import font_manager, ft2font

    path = font_manager.findfont(font_manager.FontProperties(family=RC["font.family"]))
    return frozenset(ft2font.FT2Font(path).get_charmap())


def _drawable(char: str) -> bool:
    return ord(char) in _glyphs()


def plot_text(text: str) -> str:
    """Text holding chain-chosen parts, ready for matplotlib: invisible characters and those the
    font cannot draw (emoji) as visible escapes (:func:`hmyframe._text.visible`), and ``$``
    escaped so a name never starts mathtext."""
    return _text.visible(text, _drawable).replace("$", r"\$")


def chain_label(name: object, address: object, width: int = 22) -> str:
    """A token's or validator's label on a plot: its name made safe and cut to ``width``
    columns, its shortened address beside it (:func:`hmyframe._text.labelled`)."""
    return _text.labelled(name, address, width, _drawable).replace("$", r"\$")


def legend_outside(ax: Axes, **kwargs: Any) -> None:
    """The legend to the right of the plot, where it never hides data."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), **kwargs)


def shard_color(shard: int) -> str:
    """The colour of a shard, the same in every plot."""
    return PALETTE[int(shard) % len(PALETTE)]


# --------------------------------------------------------------------------- numbers


def fmt_count(value: float | None) -> str:
    """``1234567`` -> ``'1,234,567'`` (NaN -> ``'–'``)."""
    if value is None or value != value:  # None or NaN
        return "–"
    return f"{value:,.0f}"


def fmt_one(value: float | None, *, unit: bool = True) -> str:
    """An amount in ONE with thousands separators: ``'1,234,567 ONE'``, ``'0.25 ONE'``."""
    if value is None or value != value:  # None or NaN
        return "–"
    magnitude = abs(value)
    if magnitude >= 100 or float(value).is_integer():
        text = f"{value:,.0f}"
    elif magnitude >= 1:
        text = f"{value:,.2f}"
    else:
        text = f"{value:,.4g}"
    return f"{text} ONE" if unit else text


def fmt_percent(value: float | None, digits: int = 1) -> str:
    """A fraction as a percentage: ``0.123`` -> ``'12.3%'``, ``0.0003`` -> ``'<0.1%'``."""
    if value is None or value != value:  # None or NaN
        return "–"
    smallest = 10.0**-digits  # the smallest percentage shown: a non-zero share never reads 0.0%
    if 0 < abs(value) * 100 < smallest / 2:
        return f"{'<' if value > 0 else '>-'}{smallest:.{digits}f}%"
    return f"{value * 100:.{digits}f}%"


def _axis(ax: Axes, which: str) -> Axis:
    return ax.xaxis if which == "x" else ax.yaxis


def one_axis(ax: Axes, which: str = "y", label: str = "ONE") -> None:
    """Tick labels in ONE with thousands separators; the axis label names the unit."""
    axis = _axis(ax, which)
    axis.set_major_locator(MaxNLocator(nbins=5 if which == "x" else 7))
    axis.set_major_formatter(_StepDecimals())
    axis.set_label_text(label)


class _StepDecimals(Formatter):
    """Thousands separators and as many decimals as the tick step needs, the same on every tick.

    (``0, 0.8, 1.6 ... 4.8`` rather than ``0, 0.8 ... 4, 4.80``.)
    """

    _ticks: tuple[float, ...] = ()

    def set_locs(self, locs: Any) -> None:
        self._ticks = tuple(sorted(float(v) for v in locs))

    def __call__(self, x: float, pos: int | None = None) -> str:
        locs = self._ticks
        steps = [b - a for a, b in itertools.pairwise(locs) if b > a]
        step = min(steps) if steps else abs(x)
        decimals = 0
        while decimals < 8 and step and abs(round(step, decimals) - step) > 1e-9 * step:
            decimals += 1
        return f"{x:,.{decimals}f}"


def count_axis(ax: Axes, which: str = "y", label: str = "") -> None:
    """Integer ticks with thousands separators."""
    axis = _axis(ax, which)
    axis.set_major_locator(MaxNLocator(integer=True))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    if label:
        axis.set_label_text(label)


def percent_axis(ax: Axes, which: str = "y", label: str = "", decimals: int | None = None) -> None:
    """Fractions shown as percentages."""
    axis = _axis(ax, which)
    axis.set_major_formatter(PercentFormatter(1.0, decimals=decimals))
    if label:
        axis.set_label_text(label)


def utc_time_axis(ax: Axes, which: str = "x") -> None:
    """Dates in UTC, concise labels; the axis label says UTC."""
    axis = _axis(ax, which)
    locator = mdates.AutoDateLocator(tz=UTC, minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
    axis.set_major_locator(locator)
    axis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=UTC))  # type: ignore[no-untyped-call]
    axis.set_label_text("time (UTC)")


_FREQ_WORDS = {"min": "minute", "h": "hour", "D": "day", "7D": "week", "W": "week"}


def per_bucket(freq: str) -> str:
    """``'min'`` / ``'1min'`` -> ``'per minute'``, ``'5min'`` -> ``'per 5 minutes'``."""
    if freq in _FREQ_WORDS:
        return f"per {_FREQ_WORDS[freq]}"
    digits = "".join(c for c in freq if c.isdigit())
    unit = freq[len(digits) :]
    word = _FREQ_WORDS.get(unit, unit)
    return f"per {digits} {word}s" if digits.lstrip("0") not in ("", "1") else f"per {word}"


def _width_days(freq: str) -> float:
    return float(pd.Timedelta(pd.tseries.frequencies.to_offset(freq)) / pd.Timedelta(days=1))


def stacked_bars(ax: Axes, table: pd.DataFrame, freq: str, colors: list[str], labels: list[str]) -> None:
    """Stacked bars, one per bucket (index: UTC bucket starts), one segment per column."""
    x = utc_naive(table.index)
    bottom = np.zeros(len(table))
    width = _width_days(freq) * 0.9
    for column, color, label in zip(table.columns, colors, labels, strict=True):
        values = table[column].to_numpy(dtype=float)
        ax.bar(x, values, bottom=bottom, width=width, align="edge", color=color, label=label)
        bottom += values
    utc_time_axis(ax)


def shard_lines(ax: Axes, wide: pd.DataFrame) -> None:
    """One line per shard (columns: shard ids; index: UTC bucket starts) in the shard's colour;
    a missing value leaves a gap."""
    x = utc_naive(wide.index)
    for shard in wide.columns:
        ax.plot(
            x,
            wide[shard].to_numpy(dtype=float),
            marker="o",
            markersize=3,
            linewidth=1.8,
            color=shard_color(int(shard)),
            label=f"shard {shard}",
        )
    utc_time_axis(ax)


def equality_line(ax: Axes) -> None:
    """A Lorenz chart's diagonal (perfect equality), drawn first: the legend's first line."""
    ax.plot([0, 1], [0, 1], color=MUTED, linestyle="--", linewidth=1, label="perfect equality")


def lorenz_axes(ax: Axes, note: str, x_label: str, y_label: str) -> None:
    """A Lorenz chart's frame once its curves are drawn: ``note`` boxed at the top left, both
    axes 0 to 100 % (``x_label``: who, smallest first; ``y_label``: what they hold), the legend."""
    ax.text(
        0.04,
        0.96,
        note,
        transform=ax.transAxes,
        va="top",
        fontsize=9,
        bbox={"boxstyle": "round,pad=0.4", "facecolor": "#F4F6F8", "edgecolor": "#CCCCCC"},
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    percent_axis(ax, "x", x_label)
    percent_axis(ax, "y", y_label)
    ax.legend(loc="lower right")


def utc_naive(values: Any) -> np.ndarray:
    """Timestamps as naive ``datetime64[ms]`` in UTC (what matplotlib plots without shifting)."""
    times = pd.to_datetime(pd.Series(values), utc=True)
    converted: np.ndarray = times.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[ms]")
    return converted


def empty(ax: Axes, heading: str, message: str) -> Axes:
    """An empty plot that says why it is empty (no exception for an empty range)."""
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    title(ax, heading)
    ax.text(
        0.5,
        0.5,
        message,
        transform=ax.transAxes,
        ha="center",
        va="center",
        fontsize=11,
        color="#666666",
        wrap=True,
    )
    return ax
