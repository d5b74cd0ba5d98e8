"""The staking report: one snapshot's concentration, signing and delegation, what changed since
an earlier snapshot, and the network's history over the last epochs.

:func:`render` builds the page from frames; the coroutine :func:`staking_report` fetches them
(through the normal cached fetchers) and writes the file. Its doors are ``hmyframe.aio.staking_report``
and the blocking ``hmyframe.report.staking_report`` (``hmyframe report staking`` on the command line).
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from matplotlib.axes import Axes

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe import plot as hplot
from hmyframe._text import chain_text
from hmyframe.cache import Cache
from hmyframe.engine import (
    FetchOptions,
    Session,
    StakingHistory,
    block_arg,
    epoch_of_block,
    fetch_snapshot,
    fetch_staking_history,
)
from hmyframe.errors import ConfigError, redact_url
from hmyframe.metrics import floats
from hmyframe.plot import fmt_count, fmt_one, fmt_percent
from hmyframe.report._html import Card, Column, Page, output_path, write

__all__ = ["Snapshot", "render", "staking_report"]

CacheArg = bool | str | os.PathLike[str] | Cache


class Snapshot:
    """The three frames of one validator snapshot (``validators``, ``voting_power``,
    ``delegations``) and its block and epoch.

    Parameters
    ----------
    validators, voting_power, delegations
        The datasets of the same snapshot, in either format.
    block, epoch
        Where the snapshot was taken (``None`` if unknown).
    """

    def __init__(
        self,
        validators: pd.DataFrame,
        voting_power: pd.DataFrame,
        delegations: pd.DataFrame,
        block: int | None = None,
        epoch: int | None = None,
    ) -> None:
        for name, frame in (
            ("validators", validators),
            ("voting_power", voting_power),
            ("delegations", delegations),
        ):
            if not isinstance(frame, pd.DataFrame):
                raise ConfigError(f"Snapshot {name} must be a DataFrame, got {type(frame).__name__}")
        self.validators = metrics.annotate(validators, voting_power, delegations)
        self.voting_power = voting_power
        self.delegations = delegations
        self.block = block
        self.epoch = epoch

    def where(self) -> str:
        """``'block 1,399 (epoch 6)'``."""
        text = f"block {self.block:,}" if self.block is not None else "an unknown block"
        return text + (f" (epoch {self.epoch:,})" if self.epoch is not None else "")


def _validator_name(value: object) -> str:
    """A validator's name in a table (the address column is beside it), made safe and short."""
    return chain_text(value, 32) or "–"


def _signing_columns() -> list[Column]:
    return [
        Column("name", "validator", _validator_name, chain=True),
        Column("validator_address", "address", mono=True),
        Column("epoch_signing_percentage", "signed", fmt_percent, numeric=True),
        Column("epoch_blocks_signed", "blocks signed", lambda v: f"{v:,.0f}", numeric=True),
        Column("epoch_blocks_to_sign", "to sign", lambda v: f"{v:,.0f}", numeric=True),
        Column("lifetime_uptime", "lifetime", fmt_percent, numeric=True),
        Column("stake_one", "stake (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
    ]


def _diff_columns() -> list[Column]:
    return [
        Column("name", "validator", _validator_name, chain=True),
        Column("validator_address", "address", mono=True),
        Column("event", "change"),
        Column("stake_old_one", "stake before (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
        Column("stake_new_one", "stake after (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
        Column(
            "stake_change_one",
            "change (ONE)",
            lambda v: ("+" if v > 0 else "") + fmt_one(v, unit=False),
            numeric=True,
        ),
        Column(
            "rate_change",
            "commission change",
            lambda v: "unchanged" if v == 0 else ("+" if v > 0 else "") + fmt_percent(v),
            numeric=True,
        ),
    ]


def _events(row: pd.Series) -> str:
    words = [
        w
        for w, key in (
            ("joined", "joined"),
            ("left", "left"),
            ("elected", "got_elected"),
            ("dropped", "dropped"),
        )
        if bool(row[key])
    ]
    return ", ".join(words)


def render(
    snapshot: Snapshot,
    *,
    previous: Snapshot | None = None,
    history: StakingHistory | None = None,
    source: str = "",
    top: int = 20,
) -> Page:
    """The staking report page for ``snapshot`` (and optionally a comparison and a history).

    Parameters
    ----------
    snapshot
        The snapshot reported on.
    previous
        An earlier snapshot: adds the table and chart of the largest stake changes.
    history
        A :class:`hmyframe.StakingHistory`: adds the network's figures over its epochs.
    source
        Where the data came from (shown under the title; give a redacted URL).
    top
        Validators shown in the stake chart and in the change table.

    Returns
    -------
    Page
        ``page.render()`` is the HTML text.
    """
    page = Page(
        "Harmony staking report",
        [f"Validator snapshot at {snapshot.where()}" + (f" · {source}" if source else "")],
    )
    _summary_section(page, snapshot)
    _stake_section(page, snapshot, top)
    _validators_section(page, snapshot)
    _signing_section(page, snapshot)
    _delegation_section(page, snapshot)
    if previous is not None:
        _changes_section(page, previous, snapshot, top)
    if history is not None:
        _history_section(page, history)
    _reading_section(page)
    return page


def _summary_section(page: Page, snapshot: Snapshot) -> None:
    """The snapshot's figures: validators, stake, concentration, signing, APR."""
    v, vp, d = snapshot.validators, snapshot.voting_power, snapshot.delegations
    summary = metrics.staking_summary(v, vp, d)
    apr = metrics.apr_distribution(v, vp) if "apr" in v else pd.Series({"count": 0.0})
    page.section("Summary")
    by_shard = ", ".join(
        f"shard {s}: {n if n is not None else '–'}" for s, n in summary["nakamoto_by_shard"].items()
    )
    page.cards(
        [
            Card("Validators", fmt_count(summary["validators"])),
            Card("Elected", fmt_count(summary["elected"]), "in the current committee"),
            Card("Total stake", fmt_one(summary["total_stake_one"]), "all validators"),
            Card(
                "Nakamoto coefficient",
                "–" if summary["nakamoto"] is None else f"{summary['nakamoto']:,}",
                f"validators to exceed 1/3 of a shard's votes; {by_shard}" if by_shard else "no voting power",
            ),
            Card(
                "Gini of elected stake",
                "–" if math.isnan(summary["gini"]) else f"{summary['gini']:.3f}",
                "0 = equal stakes",
            ),
            Card("Median signing", fmt_percent(summary["median_signing"]), "elected validators, this epoch"),
            Card("Below 66% signing", fmt_count(summary["below_threshold"]), "elected validators"),
            Card(
                "Median APR",
                fmt_percent(float(apr.get("p50", math.nan))) if apr.get("count", 0) else "–",
                "elected validators" if apr.get("count", 0) else "not in this format",
            ),
        ]
    )


def _stake_section(page: Page, snapshot: Snapshot, top: int) -> None:
    """The largest validators' stakes, the Lorenz curve and the committees' concentration."""
    v, vp = snapshot.validators, snapshot.voting_power
    page.section("Stake and concentration")
    page.figure(
        lambda ax: hplot.stake_distribution(v, top, ax=ax),
        f"The {top} largest validators by stake (self stake and delegations); the others summed in the last row.",
        (8.0, 0.28 * (min(top, len(v)) + 1) + 1.6),
    )
    page.figure(
        lambda ax: hplot.lorenz_curve(vp, ax=ax),
        "Lorenz curve of voting power per shard: the further below the diagonal, the more concentrated. "
        "Gini and Nakamoto coefficients in the legend.",
        (7.0, 5.6),
    )
    page.figure(
        lambda ax: hplot.voting_power_by_shard(vp, ax=ax),
        "Share of each shard committee's votes held by its largest validators.",
    )


def _validators_section(page: Page, snapshot: Snapshot) -> None:
    """Election status and commission rates."""
    v, vp = snapshot.validators, snapshot.voting_power
    page.section("Validators")
    page.figure(
        lambda ax: hplot.status_breakdown(v, voting_power=vp, ax=ax),
        "Validators by election status.",
        (8.0, 3.2),
    )
    page.figure(lambda ax: hplot.commission_distribution(v, ax=ax), "Current commission rates.")


def _signing_section(page: Page, snapshot: Snapshot) -> None:
    """This epoch's signing, and the elected validators below the threshold."""
    v, vp = snapshot.validators, snapshot.voting_power
    page.section(
        "Signing",
        "Harmony removes from the next election an elected validator that signs less than 66% of its blocks in an epoch.",
    )
    page.figure(
        lambda ax: hplot.signing_histogram(v, voting_power=vp, ax=ax),
        "Share of its blocks each elected validator signed this epoch; bars left of the line are below 66%.",
    )
    page.heading("Elected validators below the 66% signing threshold")
    below = metrics.below_threshold(v, voting_power=vp)
    stakes = v.set_index(v["validator_address"].astype(object))["stake_one"]
    below = below.assign(stake_one=below["validator_address"].map(stakes))
    page.table(below, _signing_columns(), empty="No elected validator is below the threshold.")


def _delegation_section(page: Page, snapshot: Snapshot) -> None:
    """Delegators per validator and the share of its largest one."""
    d = snapshot.delegations
    page.section("Delegation")
    page.figure(
        lambda ax: hplot.delegator_concentration(d, ax=ax),
        "Per validator: how many delegators it has and how much of its stake the largest one holds.",
    )


def _changes_section(page: Page, previous: Snapshot, snapshot: Snapshot, top: int) -> None:
    """What changed since ``previous``: joins, departures, elections, the largest stake changes."""
    v, vp, d = snapshot.validators, snapshot.voting_power, snapshot.delegations
    page.section(f"Changes since {previous.where()}")
    diff = metrics.snapshot_diff(
        previous.validators,
        v,
        old_voting_power=previous.voting_power,
        new_voting_power=vp,
        old_delegations=previous.delegations,
        new_delegations=d,
    )
    counts = {k: int(diff[k].sum()) for k in ("joined", "left", "got_elected", "dropped")}
    page.cards(
        [
            Card("Joined", fmt_count(counts["joined"]), "new validators"),
            Card("Left", fmt_count(counts["left"]), "validators gone"),
            Card("Got elected", fmt_count(counts["got_elected"])),
            Card("Dropped", fmt_count(counts["dropped"]), "out of the committee"),
            Card("Commission changes", fmt_count(int((diff["rate_change"].fillna(0) != 0).sum()))),
        ]
    )
    page.figure(
        lambda ax: hplot.snapshot_diff(diff, 10, ax=ax),
        "Largest stake gains and losses between the two snapshots.",
        (8.0, 5.2),
    )
    page.heading("Largest stake changes")
    change = floats(diff["stake_change_one"]).abs()
    largest = diff.loc[change.sort_values(ascending=False).index[:top]].reset_index()
    largest = largest.assign(
        event=[_events(r) for _, r in largest.iterrows()],
        stake_old_one=metrics.to_one(largest["stake_old"]).to_numpy(),
        stake_new_one=metrics.to_one(largest["stake_new"]).to_numpy(),
    )
    largest = largest[floats(largest["stake_change_one"]) != 0]
    page.table(largest, _diff_columns(), empty="No stake changed.")


def _history_section(page: Page, history: StakingHistory) -> None:
    """The network's figures over the history's epochs: charts and a table per epoch."""
    net = history.network
    epochs = f"epochs {int(net['epoch'].min()):,}–{int(net['epoch'].max()):,}" if len(net) else "no epoch"
    page.section(
        f"History over {len(net):,} epochs", f"Snapshots at the last block of each epoch ({epochs})."
    )
    for metric in ("nakamoto", "gini", "total_stake", "elected", "median_signing"):
        page.figure(
            functools.partial(_history_chart, net, metric),
            hplot.staking.HISTORY_METRICS[metric] + ".",
            (8.0, 3.6),
        )
    page.heading("Per epoch")
    table = net.assign(
        nakamoto_text=[
            ("–" if n is pd.NA else str(n)) for n in net.get("nakamoto", pd.Series([pd.NA] * len(net)))
        ],
    )
    page.table(
        table,
        [
            Column("epoch", "epoch", lambda x: f"{x:,}", numeric=True),
            Column("block", "block", lambda x: f"{x:,}", numeric=True),
            Column("timestamp", "time (UTC)", lambda t: pd.Timestamp(t).strftime("%Y-%m-%d %H:%M")),
            Column("elected", "elected", lambda x: f"{x:,}", numeric=True),
            Column("total_stake_one", "total stake (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
            Column("gini", "Gini", lambda x: f"{x:.3f}", numeric=True),
            Column("nakamoto_text", "Nakamoto", numeric=True),
            Column("median_signing", "median signing", fmt_percent, numeric=True),
            Column("below_threshold", "below 66%", lambda x: f"{x:,}", numeric=True),
        ],
        empty="No epoch in the history.",
    )


def _reading_section(page: Page) -> None:
    """How to read the report: stake, voting power, Nakamoto and Gini."""
    page.section("How to read this report")
    page.note(
        "Stake is each validator's total delegation, its own included. Voting power is a validator's share of a "
        "shard committee's votes (summed over its BLS keys on the shard); Harmony's own keys hold the rest. "
        "The Nakamoto coefficient is the fewest validators whose votes together exceed 1/3 of a shard "
        "(enough to halt it); the network's is its weakest shard's. The Gini coefficient is computed exactly "
        "from the elected validators' stakes in atto."
    )


def _history_chart(network: pd.DataFrame, metric: str, ax: Axes) -> Axes:
    return hplot.history(network, metric, ax=ax)


async def _snapshot(session: Session, block: int | None) -> Snapshot:
    at, tables = await fetch_snapshot(session, ["validators", "voting_power", "delegations"], block)
    frames = {name: ds.to_pandas(t) for name, t in tables.items()}
    epoch = await epoch_of_block(session, at)
    return Snapshot(frames["validators"], frames["voting_power"], frames["delegations"], at, epoch)


async def staking_report(
    out: str | os.PathLike[str],
    *,
    rpc: object = None,
    block: int | None = None,
    compare: int | None = None,
    history: int | None = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> Path:
    """Fetch a snapshot (and a comparison and history) and write the staking report to ``out``.

    Parameters
    ----------
    out
        The ``.html`` file to write.
    rpc, cache, options
        As for every fetcher (``rpc="devnet"`` for the embedded devnet).
    block
        Snapshot block (default: the head).
    compare
        An earlier block: report the changes since its snapshot.
    history
        Add the network's figures over the last ``history`` epochs (up to the snapshot's epoch).
    progress
        Show a bar counting the history's epochs.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    path = output_path(out)
    if block is not None:
        block = block_arg(block, "block")
    if compare is not None:
        compare = block_arg(compare, "compare block")
    if history is not None and (block_arg(history, "history (epochs)") < 1):
        raise ConfigError("history must be a number of epochs >= 1, got 0")
    async with Session(rpc, cache=cache, options=options) as session:
        snapshot = await _snapshot(session, block)
        if compare is not None and snapshot.block is not None and compare >= snapshot.block:
            raise ConfigError(f"compare block {compare} must be before the snapshot block {snapshot.block}")
        previous = await _snapshot(session, compare) if compare is not None else None
        past = None
        if history is not None:
            end = snapshot.epoch
            past = await fetch_staking_history(session, -history, end, progress=progress)
        source = redact_url(session.url)
    page = render(snapshot, previous=previous, history=past, source=source)
    return write(page, path)
