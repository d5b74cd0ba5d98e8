"""The throughput report: a block range's transactions, gas, block times, cross-shard transfers
and staking directives, per shard.

:func:`render` builds the page from frames; :func:`throughput_report` fetches them (blocks,
transactions and staking transactions of each shard, through the normal cached range fetcher)
and writes the file (``hmyframe report throughput`` on the command line).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from hmyframe import datasets as ds
from hmyframe import metrics
from hmyframe import plot as hplot
from hmyframe._sync import blocking_twin
from hmyframe.cache import Cache
from hmyframe.engine._progress import Progress
from hmyframe.engine._ranges import fetch_shards
from hmyframe.engine._session import FetchOptions, Session
from hmyframe.engine._shards import shard_ids, shard_label, shard_spec
from hmyframe.errors import redact_url
from hmyframe.metrics._values import floats
from hmyframe.plot._style import fmt_count, fmt_one, fmt_percent
from hmyframe.report._html import Card, Column, Page, output_path, write

__all__ = ["render", "throughput_report", "throughput_report_async"]

CacheArg = bool | str | os.PathLike[str] | Cache
ShardArg = int | str | Sequence[int]


def _span(blocks: pd.DataFrame) -> str:
    if blocks.empty:
        return "no blocks"
    times = pd.to_datetime(blocks["timestamp"], utc=True)
    return f"{times.min():%Y-%m-%d %H:%M:%S} – {times.max():%Y-%m-%d %H:%M:%S} UTC"


def render(
    blocks: pd.DataFrame,
    transactions: pd.DataFrame,
    staking_transactions: pd.DataFrame,
    *,
    freq: str = "auto",
    source: str = "",
) -> Page:
    """The throughput report page for a block range (one shard or several concatenated).

    Parameters
    ----------
    blocks, transactions, staking_transactions
        The datasets of the range.
    freq
        Time bucket of the charts (``"min"``, ``"h"``, ``"D"``... or ``"auto"``).
    source
        Where the data came from (shown under the title; give a redacted URL).

    Returns
    -------
    Page
        ``page.render()`` is the HTML text.
    """
    shards = sorted(int(s) for s in blocks["shard_id"].dropna().unique()) if len(blocks) else []
    ranges = [
        f"shard {s}: blocks {int(g.block_number.min()):,}–{int(g.block_number.max()):,}"
        for s, g in blocks.groupby("shard_id")
    ]
    page = Page(
        "Harmony throughput report",
        ["; ".join(ranges) or "an empty range", _span(blocks) + (f" · {source}" if source else "")],
    )
    seconds = (
        (
            pd.to_datetime(blocks["timestamp"], utc=True).max()
            - pd.to_datetime(blocks["timestamp"], utc=True).min()
        )
        / pd.Timedelta(1, "s")
        if len(blocks) > 1
        else 0.0
    )
    times = metrics.block_times(blocks) if len(blocks) else pd.DataFrame()
    cross = metrics.cross_shard(transactions) if len(transactions) else None
    senders = transactions["from_address"].nunique() if len(transactions) else 0
    creations = (
        int(transactions["is_contract_creation"].fillna(False).astype(bool).sum()) if len(transactions) else 0
    )
    tx_count = len(transactions)
    gas_used = int(floats(blocks["gas_used"]).sum()) if len(blocks) else 0
    gas_limit = int(floats(blocks["gas_limit"]).sum()) if len(blocks) else 0
    page.section("Summary")
    page.cards(
        [
            Card("Blocks", fmt_count(len(blocks)), f"{len(shards)} shard(s)"),
            Card(
                "Transactions",
                fmt_count(tx_count),
                f"{tx_count / seconds:,.2f} per second" if seconds else "",
            ),
            Card("Active senders", fmt_count(senders), "distinct addresses"),
            Card(
                "Value moved",
                fmt_one(float(cross["value_one"].iloc[0])) if cross is not None else "–",
                "sum computed exactly in atto",
            ),
            Card(
                "Cross-shard",
                fmt_percent(float(cross["count_share"].iloc[0])) if cross is not None else "–",
                f"of transfers; {fmt_percent(float(cross['value_share'].iloc[0]))} of value"
                if cross is not None
                else "",
            ),
            Card(
                "Gas used",
                fmt_count(gas_used),
                f"{fmt_percent(gas_used / gas_limit, 2)} of the limit" if gas_limit else "",
            ),
            Card(
                "Block time",
                f"{float(times['mean'].mean()):.2f} s" if len(times) else "–",
                f"mean; p95 {float(times['p95'].max()):.1f} s, max {float(times['max'].max()):.0f} s"
                if len(times)
                else "",
            ),
            Card("Staking transactions", fmt_count(len(staking_transactions)), "on shard 0"),
            Card("Contract creations", fmt_count(creations)),
        ]
    )
    page.section("Activity")
    page.figure(
        lambda ax: hplot.transactions(blocks, freq, ax=ax), "Transactions per time bucket, stacked by shard."
    )
    page.figure(lambda ax: hplot.gas(blocks, freq, ax=ax), "Gas used per time bucket, stacked by shard.")
    page.figure(
        lambda ax: hplot.gas_utilisation(blocks, freq, ax=ax), "Gas used as a share of the blocks' gas limit."
    )
    page.section("Block production")
    page.figure(
        lambda ax: hplot.block_times(blocks, ax=ax),
        "Seconds between consecutive blocks of each shard (log scale).",
    )
    page.table(
        times.reset_index() if len(times) else times,
        [
            Column("shard_id", "shard", str, numeric=True),
            Column("blocks", "blocks", lambda x: f"{x:,}", numeric=True),
            Column("mean", "mean (s)", lambda x: f"{x:.2f}", numeric=True),
            Column("median", "median (s)", lambda x: f"{x:.1f}", numeric=True),
            Column("p95", "p95 (s)", lambda x: f"{x:.1f}", numeric=True),
            Column("max", "max (s)", lambda x: f"{x:.0f}", numeric=True),
            Column("gaps", "gaps", lambda x: f"{x:,}", numeric=True),
            Column("missing", "missing blocks", lambda x: f"{x:,}", numeric=True),
        ],
        empty="No blocks in the range.",
    )
    page.section("Transfers and staking")
    page.figure(
        lambda ax: hplot.cross_shard(transactions, freq, ax=ax),
        "Share of transfers, and of the value they moved, sent to another shard.",
    )
    page.figure(
        lambda ax: hplot.staking_directives(staking_transactions, freq, ax=ax),
        "Staking transactions per time bucket, by directive (they are sent on shard 0).",
    )
    if len(transactions):
        per_shard = []
        for shard, group in transactions.groupby("shard_id"):
            share = metrics.cross_shard(group)
            per_shard.append(
                {
                    "shard_id": int(shard),
                    "transactions": len(group),
                    "senders": group["from_address"].nunique(),
                    "creations": int(group["is_contract_creation"].fillna(False).astype(bool).sum()),
                    "value_one": float(share["value_one"].iloc[0]),
                    "count_share": float(share["count_share"].iloc[0]),
                }
            )
        page.heading("Per shard")
        page.table(
            pd.DataFrame(per_shard),
            [
                Column("shard_id", "shard", str, numeric=True),
                Column("transactions", "transactions", lambda x: f"{x:,}", numeric=True),
                Column("senders", "active senders", lambda x: f"{x:,}", numeric=True),
                Column("creations", "contract creations", lambda x: f"{x:,}", numeric=True),
                Column("value_one", "value (ONE)", lambda x: fmt_one(x, unit=False), numeric=True),
                Column("count_share", "cross-shard", fmt_percent, numeric=True),
            ],
        )
    page.section("How to read this report")
    page.note(
        "Time buckets are UTC and start on round times, so the first and last buckets may cover only part of "
        "their width. Block time is the difference between the timestamps of consecutive blocks of a shard; a gap "
        "is an interval longer than three times the shard's median. Cross-shard transfers are counted on the "
        "sending shard."
    )
    return page


async def throughput_report_async(
    out: str | os.PathLike[str],
    start: object,
    end: object = None,
    *,
    shard: ShardArg = "all",
    freq: str = "auto",
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> Path:
    """Fetch blocks ``start..end`` of the shards and write the throughput report to ``out``.

    Parameters
    ----------
    out
        The ``.html`` file to write.
    start, end
        Inclusive range of every shard reported, in any form the range fetchers take: block
        numbers, UTC times (``"2026-01-01"``), ``"-1000:"``... (``end=None``: each shard's head).
    shard
        ``"all"`` (default), a shard number, or a list of them.
    freq
        Time bucket of the charts (``"auto"`` picks minutes, hours or days).
    rpc, cache, options, progress
        As for every fetcher.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    path = output_path(out)
    metrics.bucket_frequency(pd.Series([], dtype="datetime64[ms, UTC]"), freq)  # check it early
    spec = shard_spec(shard)
    names = ["blocks", "transactions", "staking_transactions"]
    async with Session(rpc, cache=cache, options=options) as session:
        ids = await shard_ids(session, spec)
        with Progress.make(progress, shard_label("throughput", ids)) as bar:
            # every shard at once, each resolved and cached as if fetched alone
            _, tables = await fetch_shards(
                session, names, start, end, ids, progress=bar.update, on_plan=bar.plan
            )
        source = redact_url(session.url)
    joined = {name: ds.to_pandas(tables[name]) for name in names}
    page = render(
        joined["blocks"], joined["transactions"], joined["staking_transactions"], freq=freq, source=source
    )
    return write(page, path)


throughput_report = blocking_twin(throughput_report_async, "throughput_report")
