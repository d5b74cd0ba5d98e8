"""Account plots: balance histories, how concentrated balances are, a rich list, and a
delegator's rewards by validator.

Each takes an account frame (``balances``, or what :mod:`hmyframe.metrics.accounts` makes of
it) and ``ax=None``, and returns the Axes. Balances are drawn in ONE (the exact column converted
once per value), block numbers on the x axis (balances carry no time).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from hmyframe import metrics
from hmyframe._text import chain_text
from hmyframe.metrics import floats, require_columns
from hmyframe.plot._style import (
    MUTED,
    PALETTE,
    axes,
    count_axis,
    empty,
    equality_line,
    fmt_one,
    fmt_percent,
    legend_outside,
    lorenz_axes,
    one_axis,
    plot_text,
    style,
    title,
)

__all__ = ["balance_history", "rewards_by_validator", "rich_list", "wealth_lorenz"]


def _short(address: str) -> str:
    return f"{address[:10]}…{address[-4:]}" if len(address) > 16 else address


def _label(label: object) -> str | None:
    """A caller's label as drawn: made safe and short like chain text (labels are often scraped
    lists), ``$`` escaped for mathtext; ``None`` for none."""
    text = chain_text(label, 24)
    return None if text is None else plot_text(text)


def _name(address: str, address_hex: str, known: dict[str, str]) -> str:
    label = _label(known.get(address_hex))
    return f"{label} ({_short(address)})" if label else _short(address)


def _known(labels: Mapping[str, str] | pd.Series | None) -> dict[str, str]:
    from hmyframe.addresses import to_hex

    if labels is None:
        return {}
    items = labels.items()
    return {to_hex(a): str(v) for a, v in items}


def balance_history(
    balances: pd.DataFrame,
    *,
    labels: Mapping[str, str] | pd.Series | None = None,
    top: int = 8,
    relative: bool = False,
    ax: Axes | None = None,
) -> Axes:
    """Balances over the blocks asked, one step line per address (the ``top`` largest at the
    last block when there are more).

    Parameters
    ----------
    balances
        The ``balances`` dataset: several blocks per address.
    labels
        Known addresses: address (one1 or 0x) -> label, shown in the legend.
    top
        Most addresses drawn.
    relative
        Draw each balance less its first value in the frame (what moved since the first block):
        a large holder's movements are invisible on the scale of its balance.
    """
    with style():
        ax = axes(ax, (9.0, 4.5))
        heading = "Balance change" if relative else "Balance history"
        require_columns(balances, ["address", "address_hex", "block_number", "balance"], "balance_history")
        if balances.empty:
            return empty(ax, heading, "No balance in this frame")
        known = _known(labels)
        changes = metrics.balance_changes(balances)
        # one line per address and shard (an address holds ONE on each shard separately)
        shards = (
            changes["shard_id"].astype("int64")
            if "shard_id" in changes
            else pd.Series(0, index=changes.index)
        )
        several = shards.nunique() > 1
        changes = changes.assign(
            line=[f"{a}|{s}" for a, s in zip(changes["address_hex"], shards, strict=True)]
        )
        last = changes.sort_values("block_number").groupby("line").tail(1)
        chosen = last.sort_values("balance_one", ascending=False)["line"].head(top).tolist()
        for i, line in enumerate(chosen):
            rows = changes[changes["line"] == line]
            address, shard = line.split("|")
            ax.step(
                rows["block_number"].to_numpy(),
                _drawn(rows, relative),
                where="post",
                color=PALETTE[i % len(PALETTE)],
                linewidth=1.8,
                marker="o" if len(rows) <= 30 else None,
                markersize=3,
                label=_name(str(rows["address"].iloc[0]), address, known)
                + (f" · shard {shard}" if several else ""),
            )
        one_axis(
            ax,
            "y",
            f"change since block {int(changes['block_number'].min()):,} (ONE)"
            if relative
            else "balance (ONE)",
        )
        count_axis(ax, "x", "block (balance after it)")
        if relative:
            ax.axhline(0, color=MUTED, linewidth=1)
        title(ax, heading, _history_subtitle(changes, chosen, shards.nunique()))
        legend_outside(ax)
        return ax


def _drawn(rows: pd.DataFrame, relative: bool) -> np.ndarray:
    """One line's values in ONE: the balances, or (``relative``) their exact differences from
    the first, converted once (a few ONE on a balance of 1e15 ONE survive)."""
    if not relative:
        return np.asarray(rows["balance_one"].to_numpy(), dtype=np.float64)
    exact = metrics.exact_ints(rows["balance"])
    start = exact[0] or 0
    changes = metrics.to_one(pd.Series([(v or 0) - start for v in exact], dtype="atto"))
    return np.asarray(changes.to_numpy(), dtype=np.float64)


def _history_subtitle(changes: pd.DataFrame, chosen: list[str], shards: int) -> str:
    blocks = changes["block_number"]
    addresses = len({line.split("|")[0] for line in chosen})
    more = changes["line"].nunique() - len(chosen)
    return (
        f"{addresses} address{'es' if addresses != 1 else ''}"
        + (f" on {shards} shards" if shards > 1 else "")
        + (f" (the largest; {more} more lines not drawn)" if more > 0 else "")
        + f", blocks {int(blocks.min()):,}–{int(blocks.max()):,}"
    )


def wealth_lorenz(balances: pd.DataFrame, *, block: int | None = None, ax: Axes | None = None) -> Axes:
    """Lorenz curve of the balances at one block (default the frame's last), with the Gini
    coefficient, the top-10 share and the Nakamoto coefficient (holders for a majority)."""
    with style():
        ax = axes(ax, (6.5, 5.5))
        heading = "Wealth concentration"
        require_columns(balances, ["block_number", "balance"], "wealth_lorenz")
        if balances.empty:
            return empty(ax, heading, "No balance in this frame")
        at = int(balances["block_number"].max()) if block is None else block
        values = [v for v in metrics.exact_ints(balances.loc[balances["block_number"] == at, "balance"]) if v]
        if not values:
            return empty(ax, heading, f"No address holds anything at block {at:,}")
        curve = metrics.lorenz(values)
        gini = metrics.gini(values)
        nakamoto = metrics.holders_to_exceed(values, 0.5)
        equality_line(ax)
        ax.plot(
            curve["population_share"], curve["value_share"], color=PALETTE[0], linewidth=2, label="balances"
        )
        ax.fill_between(
            curve["population_share"], curve["value_share"], curve["population_share"], alpha=0.08
        )
        lorenz_axes(
            ax,
            f"Gini {gini:.3f}\ntop 10 hold {fmt_percent(metrics.top_share(values, 10))}\n"
            f"Nakamoto (majority): {nakamoto:,} address{'es' if nakamoto != 1 else ''}",
            "addresses, smallest balance first (cumulative share)",
            "ONE held (cumulative share)",
        )
        title(ax, heading, f"{len(values):,} addresses holding ONE at block {at:,}")
        return ax


def rich_list(rich: pd.DataFrame, *, ax: Axes | None = None) -> Axes:
    """The largest balances as horizontal bars, labelled where the label is known.

    Parameters
    ----------
    rich
        :func:`hmyframe.metrics.rich_list`.
    """
    with style():
        n = len(rich)
        ax = axes(ax, (9.0, max(2.5, 0.36 * n + 1.4)))
        heading = "Rich list"
        require_columns(rich, ["rank", "address", "label", "balance_one", "share"], "rich_list plot")
        if rich.empty:
            return empty(ax, heading, "No balance in this frame")
        names = [
            f"{int(r)}. {_label(label)} ({_short(str(a))})"
            if _label(label)
            else f"{int(r)}. {_short(str(a))}"
            for r, a, label in zip(rich["rank"], rich["address"], rich["label"].astype(object), strict=True)
        ]
        y = np.arange(n)[::-1]
        colors = [PALETTE[1] if isinstance(v, str) else PALETTE[0] for v in rich["label"].astype(object)]
        values = floats(rich["balance_one"]).to_numpy()
        ax.barh(y, values, color=colors, height=0.7)
        for yy, v, share in zip(y, values, floats(rich["share"]).to_numpy(), strict=True):
            ax.text(v, yy, f"  {fmt_percent(share)}", va="center", fontsize=8, color="#444444")
        ax.set_yticks(y, names, fontsize=8)
        ax.grid(axis="y", visible=False)
        ax.set_xlim(0, float(values.max()) * 1.15 if values.max() > 0 else 1)
        one_axis(ax, "x", "balance (ONE)")
        block = rich.attrs.get("block")
        title(
            ax,
            heading,
            f"the {n} largest balances"
            + (f" at block {block:,}" if block is not None else "")
            + "; labelled in orange, share of the addresses asked",
        )
        return ax


def rewards_by_validator(rewards: pd.DataFrame, *, top: int = 6, ax: Axes | None = None) -> Axes:
    """A delegator's rewards accrued in each epoch, stacked by validator, and what it collected.

    Parameters
    ----------
    rewards
        :func:`hmyframe.delegator_rewards` (or :func:`hmyframe.metrics.rewards_by_validator`).
    top
        Validators drawn on their own (by accrued total); the rest are stacked as "others".
    """
    with style():
        ax = axes(ax, (9.0, 4.5))
        heading = "Rewards by validator"
        require_columns(
            rewards,
            ["epoch", "validator_address", "accrued_one", "collected_one"],
            "rewards_by_validator plot",
        )
        if rewards.empty:
            return empty(ax, heading, "No delegation in these epochs")
        frame = rewards.assign(
            epoch=rewards["epoch"].astype("int64"),
            accrued=floats(rewards["accrued_one"]),
            collected=floats(rewards["collected_one"]),
        )
        totals = frame.groupby("validator_address")["accrued"].sum().sort_values(ascending=False)
        chosen = list(totals.index[:top])
        frame["who"] = [v if v in chosen else "others" for v in frame["validator_address"]]
        wide = frame.pivot_table(
            index="epoch", columns="who", values="accrued", aggfunc="sum", fill_value=0.0
        )
        order = [v for v in chosen if v in wide.columns] + (["others"] if "others" in wide.columns else [])
        epochs = wide.index.to_numpy()
        bottom = np.zeros(len(epochs))
        for i, who in enumerate(order):
            heights = wide[who].to_numpy()
            ax.bar(
                epochs,
                heights,
                bottom=bottom,
                width=0.8,
                color=MUTED if who == "others" else PALETTE[i % len(PALETTE)],
                label=who if who == "others" else f"accrued · {_short(str(who))}",
            )
            bottom += heights
        paid = frame.groupby("epoch")["collected"].sum().reindex(epochs, fill_value=0.0).to_numpy()
        hit = paid > 0
        if hit.any():
            ax.scatter(
                epochs[hit],
                paid[hit],
                marker="D",
                s=36,
                color="#000000",
                zorder=3,
                label="collected (CollectRewards)",
            )
        one_axis(ax, "y", "reward (ONE)")
        count_axis(ax, "x", "epoch")
        delegator = str(frame["delegator_address"].iloc[0]) if "delegator_address" in frame else ""
        title(
            ax,
            heading,
            f"{_short(delegator)}: accrued {fmt_one(float(frame['accrued'].sum()))}, collected "
            f"{fmt_one(float(frame['collected'].sum()))} over epochs {int(epochs.min()):,}–{int(epochs.max()):,}",
        )
        legend_outside(ax)
        return ax
