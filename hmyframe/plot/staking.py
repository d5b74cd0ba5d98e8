"""Staking plots: stake, concentration, signing, voting power, status, commission, delegators,
snapshot diffs and history over epochs.

Each function takes hmyframe frames (the ``validators``, ``voting_power`` and ``delegations``
datasets of a snapshot, a :func:`hmyframe.metrics.snapshot_diff`, or the frames of a
:class:`hmyframe.StakingHistory`) and ``ax=None``, draws on ``ax`` (a new figure when
``None``) and returns the Axes. Amounts are in ONE; an empty frame gives a plot saying so.
"""

from __future__ import annotations

import math
from typing import cast

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from hmyframe import metrics
from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics import amount_one, floats, require_columns
from hmyframe.plot._style import (
    BAD,
    GOOD,
    MUTED,
    PALETTE,
    axes,
    chain_label,
    count_axis,
    empty,
    equality_line,
    fmt_count,
    fmt_one,
    fmt_percent,
    lorenz_axes,
    one_axis,
    percent_axis,
    shard_color,
    style,
    title,
)

__all__ = [
    "HISTORY_METRICS",
    "VALIDATOR_METRICS",
    "commission_distribution",
    "delegator_concentration",
    "history",
    "lorenz_curve",
    "signing_histogram",
    "snapshot_diff",
    "stake_distribution",
    "status_breakdown",
    "validator_history",
    "voting_power_by_shard",
]


def _check_top(top: object) -> None:
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise ConfigError(f"top must be a positive integer, got {short_repr(top)}")


def _check_width(width: object) -> None:
    if isinstance(width, bool) or not isinstance(width, int | float) or not 0 < width <= 1:
        raise ConfigError(
            f"width must be a rate step between 0 and 1 (0.01 = one point), got {short_repr(width)}"
        )


def _label(name: object, address: object, width: int = 20) -> str:
    """A validator on a chart: its name made safe and short, its shortened address beside it."""
    return chain_label(name, address, width)


def _stake_one(validators: pd.DataFrame, delegations: pd.DataFrame | None) -> pd.Series:
    if "stake_one" in validators.columns:
        return floats(validators["stake_one"])
    table = metrics.annotate(validators, None, delegations)
    return amount_one(table, "stake")


def stake_distribution(
    validators: pd.DataFrame,
    top: int = 20,
    *,
    delegations: pd.DataFrame | None = None,
    ax: Axes | None = None,
) -> Axes:
    """Horizontal bars: the ``top`` validators' stake in ONE, and one bar for all the others.

    ``delegations`` supplies the stake in the early-2020 format (no ``total_delegation``).
    """
    _check_top(top)
    with style():
        ax = axes(ax, (8.0, max(3.0, 0.28 * (min(top, len(validators)) + 1) + 1.2)))
        heading = "Stake distribution"
        if validators.empty:
            return empty(ax, heading, "No validators in this snapshot")
        require_columns(validators, ["validator_address"], "stake_distribution")
        stake = _stake_one(validators, delegations).fillna(0.0).to_numpy()
        order = np.argsort(-stake, kind="stable")
        names = validators["name"].astype(object).to_numpy() if "name" in validators else [None] * len(stake)
        addresses = validators["validator_address"].astype(object).to_numpy()
        shown = order[:top]
        labels = [_label(names[i], addresses[i]) for i in shown]
        values = [float(stake[i]) for i in shown]
        total = float(stake.sum())
        rest = order[top:]
        y = np.arange(len(values))
        bars = ax.barh(y, values, color=PALETTE[0])
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                f"{fmt_one(value, unit=False)} ({fmt_percent(value / total if total else float('nan'))})",
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=8,
                color="#333333",
            )
        if len(rest):
            # the others hold far more than any one validator: a bar would squash the rest of
            # the chart, so their row states the figure instead
            held = float(stake[rest].sum())
            labels.append(f"other {len(rest):,} validators")
            ax.annotate(
                f"together {fmt_one(held)} ({fmt_percent(held / total if total else float('nan'))} of all stake)",
                (0, len(values)),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=9,
                color="#555555",
                fontstyle="italic",
            )
        ax.set_yticks(np.arange(len(labels)), labels)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.grid(axis="y", visible=False)
        ax.set_xlim(0, max(values) * 1.3 if values and max(values) > 0 else 1)
        one_axis(ax, "x", "stake (ONE)")
        title(
            ax,
            heading,
            f"top {len(shown)} of {len(stake):,} validators; total {fmt_one(total)}",
        )
        return ax


def lorenz_curve(voting_power: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Lorenz curve of the validators' voting power on each shard, Gini and Nakamoto annotated.

    One curve per shard (validators sorted by increasing voting power on that shard); the
    legend gives each shard's Gini coefficient and Nakamoto coefficient (validators needed to
    exceed 1/3 of the votes), and the box the network's (its weakest shard).
    """
    with style():
        ax = axes(ax, (6.5, 5.5))
        heading = "Voting power concentration"
        power = metrics.validator_voting_power(voting_power)
        if power.empty:
            return empty(ax, heading, "No voting power in this snapshot (no elected validator)")
        counts = metrics.nakamoto(voting_power)
        equality_line(ax)
        for shard, group in power.groupby("shard_id"):
            curve = metrics.lorenz(group["voting_power"].to_numpy())
            coefficient = metrics.gini(group["voting_power"].to_numpy())
            count = counts.get(shard)
            nak = "–" if count is None or count is pd.NA else f"{int(count)}"
            ax.plot(
                curve["population_share"],
                curve["value_share"],
                color=shard_color(int(shard)),
                linewidth=2,
                label=f"shard {shard}: Gini {coefficient:.3f}, Nakamoto {nak} ({len(group)} validators)",
            )
        present = [int(v) for v in counts if v is not pd.NA]
        network = min(present) if present else None
        lorenz_axes(
            ax,
            f"Nakamoto coefficient (1/3, weakest shard): {network if network is not None else '–'}",
            "validators, smallest voting power first (cumulative share)",
            "voting power (cumulative share)",
        )
        title(ax, heading, "Lorenz curve per shard")
        return ax


def signing_histogram(
    validators: pd.DataFrame,
    *,
    voting_power: pd.DataFrame | None = None,
    threshold: float = metrics.SIGNING_THRESHOLD,
    bins: int = 20,
    ax: Axes | None = None,
) -> Axes:
    """Histogram of the elected validators' epoch signing share, with the threshold line."""
    with style():
        ax = axes(ax)
        heading = "Epoch signing of elected validators"
        table = metrics.signing(validators, threshold, voting_power) if len(validators) else None
        if table is None or table["epoch_signing_percentage"].dropna().empty:
            return empty(ax, heading, "No elected validator with blocks to sign in this snapshot")
        share = table["epoch_signing_percentage"].dropna().to_numpy()
        # a bin edge at the threshold, so no bar mixes validators below and above it
        edges = np.unique(np.append(np.linspace(0.0, 1.0, bins + 1), threshold))
        counts, _, patches = ax.hist(share, bins=edges.tolist(), color=PALETTE[0], edgecolor="white")
        # small bars (the validators in trouble) stay readable with their count on top
        ax.bar_label(
            cast(BarContainer, patches),
            labels=[f"{c:,.0f}" if c else "" for c in counts],
            fontsize=8,
            padding=1,
        )
        for patch, left in zip(cast(list[Patch], patches), edges[:-1], strict=True):
            if left + 1e-12 < threshold:
                patch.set_facecolor(BAD)
        below = int(table["below_threshold"].sum())
        ax.axvline(threshold, color=BAD, linestyle="--", linewidth=1.5)
        ax.annotate(
            f"{fmt_percent(threshold, 0)} threshold: {below:,} below",
            (threshold, max(counts) if len(counts) else 1),
            xytext=(-6, 0),
            textcoords="offset points",
            ha="right",
            va="top",
            color=BAD,
            fontsize=9,
        )
        ax.set_xlim(0, 1)
        percent_axis(ax, "x", "blocks signed this epoch (share of blocks to sign)", decimals=0)
        count_axis(ax, "y", "elected validators")
        median = float(np.median(share))
        title(ax, heading, f"{len(share):,} elected validators; median {fmt_percent(median)}")
        return ax


_TIERS = ((1, "largest"), (5, "2nd–5th"), (10, "6th–10th"), (25, "11th–25th"))


def voting_power_by_shard(voting_power: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Stacked bars per shard: the share of the committee's votes held by the largest
    validator, the next 4, the next 5, the next 15, the rest, and Harmony's own keys."""
    with style():
        ax = axes(ax)
        heading = "Voting power by shard"
        power = metrics.validator_voting_power(voting_power)
        if power.empty:
            return empty(ax, heading, "No voting power in this snapshot (no elected validator)")
        shards = sorted(int(s) for s in power["shard_id"].unique())
        segments: dict[str, list[float]] = {name: [] for _, name in _TIERS}
        segments["the rest"] = []
        segments["Harmony's keys (unstaked)"] = []
        sizes: list[int] = []
        for shard in shards:
            values = power.loc[power["shard_id"] == shard, "voting_power"].to_numpy()
            sizes.append(len(values))
            start = 0
            for end, name in _TIERS:
                segments[name].append(float(values[start:end].sum()))
                start = end
            segments["the rest"].append(float(values[start:].sum()))
            segments["Harmony's keys (unstaked)"].append(max(0.0, 1.0 - float(values.sum())))
        x = np.arange(len(shards))
        bottom = np.zeros(len(shards))
        colors = [*PALETTE[:4], "#B8C4CE", "#E0E0E0"]
        for (name, values), color in zip(segments.items(), colors, strict=True):
            if name.startswith("Harmony") and max(values) < 0.0005:
                continue
            bars = ax.bar(x, values, bottom=bottom, color=color, width=0.6, label=name, edgecolor="white")
            ax.bar_label(
                bars,
                labels=[fmt_percent(v) if v >= 0.04 else "" for v in values],
                label_type="center",
                fontsize=8,
                color="#222222",
            )
            bottom += np.array(values)
        for xi, size in zip(x, sizes, strict=True):
            ax.annotate(
                f"{size:,} validators",
                (xi, 1.0),
                xytext=(0, 3),
                textcoords="offset points",
                ha="center",
                fontsize=9,
            )
        ax.set_xticks(x, [f"shard {s}" for s in shards])
        ax.set_ylim(0, 1.1)
        ax.grid(axis="x", visible=False)
        percent_axis(ax, "y", "share of the committee's votes", decimals=0)
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(
            handles[::-1],
            labels[::-1],
            title="validators by voting power",
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
        title(ax, heading, "who holds each shard committee's votes")
        return ax


_STATUS_LABELS = {
    "currently elected": "elected",
    "eligible to be elected next epoch": "eligible next epoch",
    "not eligible to be elected next epoch": "not eligible",
}


def _statuses(validators: pd.DataFrame, voting_power: pd.DataFrame | None) -> pd.Series:
    """A short status per validator, from ``epos_status`` or (early-2020) the flags."""
    elected = metrics.elected(validators, voting_power).to_numpy()
    out = []
    epos = (
        validators["epos_status"].astype(object).to_numpy()
        if "epos_status" in validators
        else [None] * len(validators)
    )
    banned = (
        validators["is_banned"].astype(object).to_numpy()
        if "is_banned" in validators
        else [None] * len(validators)
    )
    active = (
        validators["is_active"].astype(object).to_numpy()
        if "is_active" in validators
        else [None] * len(validators)
    )
    for status, is_elected, is_banned, is_active in zip(epos, elected, banned, active, strict=True):
        if isinstance(status, str):
            out.append(
                "banned (double signing)" if "banned" in status else _STATUS_LABELS.get(status, status)
            )
        elif is_banned is True:
            out.append("banned (double signing)")
        elif is_elected:
            out.append("elected")
        elif is_active is True:
            out.append("active, not elected")
        elif is_active is False:
            out.append("inactive")
        else:
            out.append("unknown")
    return pd.Series(out, index=validators.index, name="status")


def status_breakdown(
    validators: pd.DataFrame, *, voting_power: pd.DataFrame | None = None, ax: Axes | None = None
) -> Axes:
    """Horizontal bars: how many validators are elected, eligible, not eligible, banned...

    Today's ``epos_status``; for the early-2020 format, election (from ``voting_power``),
    ``is_active`` and ``is_banned``.
    """
    with style():
        ax = axes(ax, (8.0, 3.2))
        heading = "Validator status"
        if validators.empty:
            return empty(ax, heading, "No validators in this snapshot")
        counts = _statuses(validators, voting_power).value_counts()
        order = ["elected", "eligible next epoch", "active, not elected", "not eligible", "inactive"]
        ranked = sorted(counts.index, key=lambda s: (order.index(s) if s in order else len(order), s))
        values = [int(counts[s]) for s in ranked]
        colors = [
            GOOD
            if s == "elected"
            else BAD
            if s.startswith("banned")
            else PALETTE[0]
            if "eligible" in s
            else MUTED
            for s in ranked
        ]
        colors = [PALETTE[1] if s == "not eligible" else c for s, c in zip(ranked, colors, strict=True)]
        y = np.arange(len(ranked))
        bars = ax.barh(y, values, color=colors)
        ax.set_yticks(y, ranked)
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                f"{value:,}",
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
                fontsize=9,
            )
        ax.set_xlim(0, max(values) * 1.12)
        count_axis(ax, "x", "validators")
        title(ax, heading, f"{len(validators):,} validators in the snapshot")
        return ax


def commission_distribution(validators: pd.DataFrame, *, width: float = 0.01, ax: Axes | None = None) -> Axes:
    """Histogram of the validators' current commission rates, median marked.

    Bars are ``width`` wide (1 point of percentage by default) and centred on whole multiples
    of it, so the usual round rates (5 %, 10 %...) each get their own bar.
    """
    _check_width(width)
    with style():
        ax = axes(ax)
        heading = "Commission rates"
        rates = floats(validators["rate"]).dropna().to_numpy() if "rate" in validators else np.array([])
        if not len(rates):
            return empty(ax, heading, "No validators (no commission rate) in this snapshot")
        steps = int(np.ceil(float(rates.max()) / width + 1e-9)) + 1
        edges = (np.arange(steps + 1) - 0.5) * width
        ax.hist(rates, bins=edges.tolist(), color=PALETTE[0], edgecolor="white")
        ax.set_xlim(edges[0], max(float(edges[-1]), 0.05))
        median = float(np.median(rates))
        ax.axvline(median, color=PALETTE[1], linewidth=1.5)
        ax.annotate(
            f"median {fmt_percent(median)}",
            (median, 1),
            xycoords=("data", "axes fraction"),
            xytext=(4, -4),
            textcoords="offset points",
            va="top",
            color=PALETTE[1],
            fontsize=9,
        )
        percent_axis(ax, "x", "commission rate", decimals=0)
        count_axis(ax, "y", "validators")
        title(ax, heading, f"{len(rates):,} validators; mean {fmt_percent(float(rates.mean()))}")
        return ax


def delegator_concentration(delegations: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """Scatter per validator: number of delegators against the largest delegator's share of
    its stake (point area ~ stake); the 50 % line marks validators one delegator controls."""
    with style():
        ax = axes(ax)
        heading = "Delegator concentration"
        summary = metrics.delegation_summary(delegations) if len(delegations) else None
        if summary is None or summary.empty:
            return empty(ax, heading, "No delegations in this snapshot")
        stake = summary["stake_one"].to_numpy()
        sizes = 12 + 240 * np.sqrt(stake / stake.max()) if stake.max() > 0 else np.full(len(stake), 20.0)
        ax.scatter(
            summary["delegators"],
            summary["largest_delegator_share"],
            s=sizes,
            alpha=0.55,
            color=PALETTE[0],
            edgecolor="white",
            linewidth=0.5,
        )
        controlled = int((summary["largest_delegator_share"] > 0.5).sum())
        ax.axhline(0.5, color=BAD, linestyle="--", linewidth=1)
        ax.annotate(
            f"one delegator holds > 50%: {controlled:,} validators",
            (1, 0.5),
            xycoords=("axes fraction", "data"),
            xytext=(-4, 4),
            textcoords="offset points",
            ha="right",
            color=BAD,
            fontsize=9,
        )
        ax.set_ylim(0, 1.05)
        ax.set_xlim(left=0)
        count_axis(ax, "x", "delegators per validator")
        percent_axis(ax, "y", "largest delegator's share of the stake", decimals=0)
        title(
            ax,
            heading,
            f"{len(summary):,} validators; median {summary['delegators'].median():,.0f} delegators; "
            "point area ~ stake",
        )
        return ax


def snapshot_diff(diff: pd.DataFrame, top: int = 10, *, ax: Axes | None = None) -> Axes:
    """Horizontal bars: the ``top`` largest stake gains and losses between two snapshots (ONE).

    ``diff`` is :func:`hmyframe.metrics.snapshot_diff`; new validators are marked ``(new)``,
    departed ones ``(left)``.
    """
    _check_top(top)
    with style():
        ax = axes(ax, (8.0, 5.0))
        heading = "Largest stake changes"
        require_columns(diff, ["stake_change_one"], "snapshot_diff plot")
        change = floats(diff["stake_change_one"]).fillna(0.0)
        gainers = change[change > 0].sort_values(ascending=False).head(top)
        losers = change[change < 0].sort_values().head(top)
        if gainers.empty and losers.empty:
            return empty(ax, heading, "No stake changed between the two snapshots")
        picked = pd.concat([gainers, losers.iloc[::-1]])
        labels = []
        for key in picked.index:
            row = diff.loc[key]
            mark = (
                " (new)"
                if bool(row.get("joined", False))
                else " (left)"
                if bool(row.get("left", False))
                else ""
            )
            labels.append(_label(row.get("name"), key) + mark)
        values = picked.to_numpy()
        y = np.arange(len(values))
        bars = ax.barh(y, values, color=[GOOD if v > 0 else BAD for v in values])
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.axvline(0, color="#666666", linewidth=0.8)
        ax.grid(axis="y", visible=False)
        span = float(np.abs(values).max())
        for bar, value in zip(bars, values, strict=True):
            ax.annotate(
                ("+" if value > 0 else "") + fmt_one(float(value), unit=False),
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                xytext=(3 if value > 0 else -3, 0),
                textcoords="offset points",
                ha="left" if value > 0 else "right",
                va="center",
                fontsize=8,
            )
        ax.set_xlim(
            -span * 1.35 if len(losers) else -span * 0.05, span * 1.35 if len(gainers) else span * 0.05
        )
        one_axis(ax, "x", "stake change (ONE)")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))  # labelled bars leave the axis narrow
        net = float(change.sum())
        blocks = (
            f"block {diff.attrs['old_block']:,} → {diff.attrs['new_block']:,}; "
            if "old_block" in diff.attrs and "new_block" in diff.attrs
            else ""
        )
        title(
            ax,
            heading,
            f"{blocks}{len(gainers):,} largest gains, {len(losers):,} largest losses; "
            f"net change of all stake {'+' if net > 0 else ''}{fmt_one(net)}",
        )
        return ax


#: What :func:`history` can draw, with its title.
HISTORY_METRICS = {
    "nakamoto": "Nakamoto coefficient (1/3) per epoch",
    "gini": "Gini coefficient of elected stake per epoch",
    "total_stake": "Total stake per epoch",
    "elected": "Elected validators per epoch",
    "median_signing": "Median signing of elected validators per epoch",
}


def _epoch_axis(ax: Axes, epochs: np.ndarray) -> None:
    count_axis(ax, "x", "epoch")
    if len(epochs) == 1:
        ax.set_xlim(epochs[0] - 1, epochs[0] + 1)


def _mark_incomplete(ax: Axes, network: pd.DataFrame, x: np.ndarray, y: np.ndarray) -> None:
    if "complete" not in network:
        return
    partial = ~network["complete"].to_numpy(dtype=bool)
    if partial.any():
        ax.scatter(x[partial], y[partial], s=60, facecolor="white", edgecolor="#333333", zorder=5)


def history(network: pd.DataFrame, metric: str = "nakamoto", *, ax: Axes | None = None) -> Axes:
    """A line over epochs of one network figure of :attr:`hmyframe.StakingHistory.network`.

    ``metric`` is one of :data:`HISTORY_METRICS`: ``"nakamoto"`` (one line per shard and the
    network's, the weakest shard), ``"gini"``, ``"total_stake"`` (ONE), ``"elected"``,
    ``"median_signing"``. A hollow marker flags the epoch still in progress.
    """
    if metric not in HISTORY_METRICS:
        raise ConfigError(f"metric must be one of {', '.join(HISTORY_METRICS)}, got {short_repr(metric)}")
    with style():
        ax = axes(ax)
        heading = HISTORY_METRICS[metric]
        column = "total_stake_one" if metric == "total_stake" else metric
        if network.empty or column not in network or floats(network[column]).dropna().empty:
            return empty(ax, heading, "No epoch with a full validator snapshot in this history")
        x = network["epoch"].to_numpy(dtype=np.int64)
        y = floats(network[column]).to_numpy()
        subtitle = f"epochs {x.min():,}–{x.max():,}"
        if metric == "nakamoto":
            subtitle += _nakamoto_lines(ax, network, x, y)
        else:
            subtitle += _network_line(ax, metric, x, y)
        _mark_incomplete(ax, network, x, y)
        _epoch_axis(ax, x)
        _in_progress_legend(ax, network)
        title(ax, heading, subtitle)
        return ax


def _nakamoto_lines(ax: Axes, network: pd.DataFrame, x: np.ndarray, y: np.ndarray) -> str:
    """The network's Nakamoto coefficient under each shard's; the subtitle's latest value."""
    # the network's figure is its weakest shard's: a wide grey band under the shards'
    # lines, so a shard line lying on it stays visible
    ax.plot(
        x,
        y,
        linewidth=7,
        color="#222222",
        alpha=0.18,
        solid_capstyle="round",
        label="network (weakest shard)",
        zorder=1,
    )
    shards = sorted(c for c in network.columns if c.startswith("nakamoto_shard_"))
    for name in shards:
        shard = int(name.rsplit("_", 1)[1])
        ax.plot(
            x,
            floats(network[name]).to_numpy(),
            marker="o",
            markersize=4,
            linewidth=1.8,
            color=shard_color(shard),
            label=f"shard {shard}",
            zorder=3,
        )
    count_axis(ax, "y", "validators to exceed 1/3 of votes")
    highest = max(
        [float(np.nanmax(y))]
        + [
            float(np.nanmax(floats(network[c]).to_numpy()))
            for c in shards
            if floats(network[c]).notna().any()
        ]
    )
    ax.set_ylim(0, highest * 1.15 + 1)  # headroom: the top line stays off the frame
    ax.legend(loc="lower left")
    return f"; latest {int(y[-1]) if not math.isnan(y[-1]) else '–'}"


def _network_line(ax: Axes, metric: str, x: np.ndarray, y: np.ndarray) -> str:
    """One network figure over epochs (``gini``, ``total_stake``, ``elected``, ``median_signing``);
    the subtitle's latest value."""
    ax.plot(x, y, marker="o", linewidth=2, color=PALETTE[0])
    if metric == "gini":
        ax.set_ylim(0, 1)
        ax.yaxis.set_label_text("Gini (0 = equal stakes)")
        return f"; latest {y[-1]:.3f}"
    if metric == "total_stake":
        one_axis(ax, "y", "total stake (ONE)")
        return f"; latest {fmt_one(float(y[-1]))}"
    if metric == "elected":
        count_axis(ax, "y", "elected validators")
        return f"; latest {fmt_count(float(y[-1]))}"
    ax.set_ylim(min(0.6, float(np.nanmin(y)) - 0.02), 1.0)
    ax.axhline(metrics.SIGNING_THRESHOLD, color=BAD, linestyle="--", linewidth=1.2)
    ax.annotate(
        f"{fmt_percent(metrics.SIGNING_THRESHOLD, 0)} threshold",
        (0, metrics.SIGNING_THRESHOLD),
        xycoords=("axes fraction", "data"),
        xytext=(4, 3),
        textcoords="offset points",
        color=BAD,
        fontsize=9,
    )
    percent_axis(ax, "y", "median epoch signing share", decimals=0)
    return f"; latest {fmt_percent(float(y[-1]))}"


def _in_progress_legend(ax: Axes, network: pd.DataFrame) -> None:
    """A legend entry for the hollow marker of the epoch still in progress, if any."""
    if "complete" in network and not network["complete"].to_numpy(dtype=bool).all():
        handles, labels = ax.get_legend_handles_labels()
        handles.append(
            Line2D([], [], marker="o", linestyle="", markerfacecolor="white", markeredgecolor="#333333")
        )
        labels.append("epoch in progress (at the head)")
        ax.legend(handles, labels, loc="best")


#: What :func:`validator_history` can draw, with its title.
VALIDATOR_METRICS = {
    "signing": "Signing per epoch",
    "stake": "Stake per epoch",
    "delegators": "Delegators per epoch",
    "reward": "Lifetime reward",
    "commission": "Commission rate per epoch",
}


def validator_history(rows: pd.DataFrame, metric: str = "signing", *, ax: Axes | None = None) -> Axes:
    """One validator over epochs: ``rows`` is :meth:`hmyframe.StakingHistory.validator`.

    ``metric`` is one of :data:`VALIDATOR_METRICS`: ``"signing"`` (bars of the epoch signing
    share with the 66 % line; red below it, grey when not elected), ``"stake"`` (ONE),
    ``"delegators"``, ``"reward"`` (lifetime reward, ONE) or ``"commission"``.
    """
    if metric not in VALIDATOR_METRICS:
        raise ConfigError(f"metric must be one of {', '.join(VALIDATOR_METRICS)}, got {short_repr(metric)}")
    with style():
        ax = axes(ax)
        heading = VALIDATOR_METRICS[metric]
        if rows.empty:
            return empty(ax, heading, "The validator has no snapshot in these epochs")
        require_columns(rows, ["snapshot_epoch"], "validator_history")
        x = floats(rows["snapshot_epoch"]).to_numpy()
        name = rows["name"].astype(object).iloc[-1] if "name" in rows else None
        subtitle = f"{_label(name, rows['validator_address'].iloc[-1], 40)}, epochs {int(x.min()):,}–{int(x.max()):,}"
        if metric == "signing":
            subtitle += _signing_bars(ax, rows, x)
        elif metric in ("stake", "reward"):
            column = "stake" if metric == "stake" else "lifetime_reward"
            if column not in rows or rows[column].isna().all():
                return empty(
                    ax, heading, f"The snapshots have no {column.replace('_', ' ')} (early-2020 format)"
                )
            values = amount_one(rows, column).to_numpy()
            ax.plot(x, values, marker="o", linewidth=2, color=PALETTE[0])
            top = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
            ax.set_ylim(0, top * 1.15 if top > 0 else 1.0)  # amounts are never negative
            one_axis(ax, "y", "stake (ONE)" if metric == "stake" else "lifetime reward (ONE)")
            subtitle += f"; latest {fmt_one(float(values[-1]))}"
        elif metric == "delegators":
            values = floats(rows["delegation_count"]).to_numpy()
            ax.plot(x, values, marker="o", linewidth=2, color=PALETTE[0], drawstyle="steps-mid")
            count_axis(ax, "y", "delegations (self included)")
            ax.set_ylim(bottom=0)
        else:
            values = floats(rows["rate"]).to_numpy()
            ax.plot(x, values, marker="o", linewidth=2, color=PALETTE[0], drawstyle="steps-mid")
            ax.set_ylim(0, max(0.05, float(np.nanmax(values)) * 1.3))
            if "max_rate" in rows and "max_change_rate" in rows:
                # the limits go in the subtitle: a 100 % maximum line would squash the rate
                subtitle += (
                    f"; may reach {fmt_percent(float(floats(rows['max_rate']).iloc[-1]), 0)}, "
                    f"changing at most {fmt_percent(float(floats(rows['max_change_rate']).iloc[-1]))} per epoch"
                )
            percent_axis(ax, "y", "commission rate")
        _epoch_axis(ax, x.astype(np.int64))
        title(ax, heading, subtitle)
        return ax


def _signing_bars(ax: Axes, rows: pd.DataFrame, x: np.ndarray) -> str:
    """The validator's signing share per epoch (red below the threshold, pale when not elected);
    the subtitle's count of epochs elected."""
    share = floats(rows["epoch_signing_percentage"]).to_numpy()
    chosen = rows["elected"].to_numpy(dtype=bool) if "elected" in rows else metrics.elected(rows).to_numpy()
    threshold = metrics.SIGNING_THRESHOLD
    colors = [BAD if (not math.isnan(s) and s < threshold) else GOOD for s in share]
    ax.bar(
        x[chosen],
        np.nan_to_num(share[chosen]),
        color=[c for c, e in zip(colors, chosen, strict=True) if e],
        width=0.7,
    )
    # epochs out of the committee: a pale full-height bar (no blocks to sign)
    ax.bar(x[~chosen], np.ones(int((~chosen).sum())), color=MUTED, alpha=0.25, width=0.7)
    ax.axhline(threshold, color=BAD, linestyle="--", linewidth=1.2)
    ax.set_ylim(0, 1.05)
    percent_axis(ax, "y", "blocks signed (share of blocks to sign)", decimals=0)
    ax.legend(
        handles=[
            Line2D([], [], color=GOOD, linewidth=6, label="elected, at or above 66%"),
            Line2D([], [], color=BAD, linewidth=6, label="elected, below 66%"),
            Line2D([], [], color=MUTED, alpha=0.4, linewidth=6, label="not elected (nothing to sign)"),
        ],
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    return f"; elected in {int(chosen.sum()):,} of {len(x):,} epochs"
