"""The validator report, for an operator or a delegator: one validator over the last epochs.

Signing per epoch, stake and delegators over time, rewards, commission, status changes and the
largest delegators. :func:`render` builds the page from a validator's history;
the coroutine :func:`validator_report` fetches it (one ``getValidatorInformationByBlockNumber``
call per epoch, see :func:`hmyframe.staking_history`) and writes the file. Its doors are
``hmyframe.aio.validator_report`` and the blocking ``hmyframe.report.validator_report``
(``hmyframe report validator`` on the command line).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from hmyframe import metrics
from hmyframe import plot as hplot
from hmyframe._text import chain_text
from hmyframe.cache import Cache
from hmyframe.engine import FetchOptions, Session, StakingHistory, block_arg, fetch_staking_history
from hmyframe.errors import ConfigError, redact_url
from hmyframe.metrics import amount_one, floats
from hmyframe.plot import fmt_count, fmt_one, fmt_percent
from hmyframe.report._html import Card, Column, Page, output_path, write
from hmyframe.rpc.methods import address_param

__all__ = ["render", "status_changes", "validator_report"]

CacheArg = bool | str | os.PathLike[str] | Cache


def _status(row: pd.Series) -> str:
    status = row.get("epos_status")
    if isinstance(status, str):
        return status
    if bool(row.get("is_banned")) is True:
        return "banned"
    if bool(row.get("elected")):
        return "elected"
    return "active" if bool(row.get("is_active")) else "inactive"


def status_changes(rows: pd.DataFrame) -> pd.DataFrame:
    """The epochs where the validator's status, election or commission changed.

    Parameters
    ----------
    rows
        One validator's history (:meth:`hmyframe.StakingHistory.validator`).

    Returns
    -------
    pandas.DataFrame
        ``epoch``, ``change`` (what changed, in words), ``status`` (after the change); the first
        epoch is listed as the starting point.
    """
    out: list[dict[str, Any]] = []
    previous: dict[str, Any] | None = None
    for _, row in rows.sort_values("snapshot_epoch").iterrows():
        now = {
            "status": _status(row),
            "elected": bool(row.get("elected")),
            "rate": row.get("rate"),
            "banned": bool(row.get("is_banned")) is True,
        }
        epoch = int(row["snapshot_epoch"])
        if previous is None:
            out.append({"epoch": epoch, "change": "first epoch reported", "status": now["status"]})
        else:
            words = []
            if now["status"] != previous["status"]:
                words.append(f"{previous['status']} → {now['status']}")
            elif now["elected"] != previous["elected"]:
                words.append("entered the committee" if now["elected"] else "left the committee")
            if now["rate"] != previous["rate"] and not (pd.isna(now["rate"]) and pd.isna(previous["rate"])):
                words.append(f"commission {fmt_percent(previous['rate'])} → {fmt_percent(now['rate'])}")
            if words:
                out.append({"epoch": epoch, "change": "; ".join(words), "status": now["status"]})
        previous = now
    return pd.DataFrame(out, columns=["epoch", "change", "status"])


def render(address: str, history: StakingHistory, *, source: str = "", top: int = 15) -> Page:
    """The validator report page.

    Parameters
    ----------
    address
        The validator (``one1`` or ``0x``).
    history
        Its history (``hmyframe.staking_history(..., validator=address)``, or a full history).
    source
        Where the data came from (a redacted URL).
    top
        Delegators listed.

    Returns
    -------
    Page
    """
    rows = history.validator(address)
    name = chain_text(rows["name"].astype(object).iloc[-1], 48) if len(rows) else None
    page = Page(
        f"Validator report: {name}" if name else "Validator report",
        [address + (f" · {source}" if source else "")],
    )
    if rows.empty:
        page.section("No data")
        page.note(
            "The validator has no snapshot in the epochs asked for (created later, or unknown address)."
        )
        return page
    key = rows.iloc[-1]["validator_address"]
    delegations = history.delegations
    latest = delegations[
        (delegations["validator_address"].astype(object) == key)
        & (
            delegations["snapshot_epoch"].astype("int64")
            == int(rows["snapshot_epoch"].astype("int64").iloc[-1])
        )
    ]
    _summary_section(page, rows, latest)
    _history_sections(page, rows)
    _status_section(page, rows)
    _delegators_section(page, rows, latest, top)
    _epochs_section(page, rows)
    return page


def _summary_section(page: Page, rows: pd.DataFrame, latest: pd.DataFrame) -> None:
    """The validator at its last epoch: status, stake, delegators, commission, elections,
    signing, rewards, uptime (``latest``: its delegations at that epoch)."""
    last = rows.iloc[-1]
    epochs = rows["snapshot_epoch"].astype("int64")
    key = last["validator_address"]
    summary = metrics.delegation_summary(latest) if len(latest) else None
    share = floats(rows["epoch_signing_percentage"]).to_numpy()
    elected = rows["elected"].to_numpy(dtype=bool)
    below = int(((share < metrics.SIGNING_THRESHOLD) & elected).sum())
    reward = amount_one(rows, "lifetime_reward") if "lifetime_reward" in rows else pd.Series(dtype=float)
    earned = float(reward.iloc[-1] - reward.iloc[0]) if len(reward.dropna()) >= 2 else float("nan")
    uptime = metrics.lifetime_uptime(rows.tail(1)).iloc[0]
    page.section(f"Summary at epoch {int(epochs.iloc[-1]):,} (block {int(last['snapshot_block']):,})")
    page.cards(
        [
            Card(
                "Status",
                _status(last),
                "in the committee" if bool(last["elected"]) else "not in the committee",
            ),
            Card("Stake", fmt_one(float(last["stake_one"])), "self stake and delegations"),
            Card(
                "Delegators",
                fmt_count(int(summary.loc[key, "delegators"]))
                if summary is not None and key in summary.index
                else "–",
                f"largest holds {fmt_percent(float(summary.loc[key, 'largest_delegator_share']))}"
                if summary is not None and key in summary.index
                else "",
            ),
            Card(
                "Self stake",
                fmt_percent(float(summary.loc[key, "self_stake_share"]))
                if summary is not None and key in summary.index
                else "–",
                "of the stake",
            ),
            Card(
                "Commission",
                fmt_percent(float(last["rate"])),
                f"max {fmt_percent(float(last['max_rate']))}, change ≤ {fmt_percent(float(last['max_change_rate']))}/epoch",
            ),
            Card("Elected", f"{int(elected.sum()):,} of {len(rows):,}", "epochs reported"),
            Card("Epochs below 66%", fmt_count(below), "signing, while elected"),
            Card(
                "Reward earned",
                fmt_one(earned) if earned == earned else "–",
                f"over epochs {int(epochs.iloc[0]):,}–{int(epochs.iloc[-1]):,}"
                if earned == earned
                else "not in this format",
            ),
            Card("Lifetime uptime", fmt_percent(float(uptime)), "blocks signed / to sign"),
        ]
    )


def _history_sections(page: Page, rows: pd.DataFrame) -> None:
    """Signing, then stake, delegators, rewards and commission, epoch by epoch."""
    page.section("Signing")
    page.figure(
        lambda ax: hplot.validator_history(rows, "signing", ax=ax),
        "Share of its blocks the validator signed in each epoch it was elected.",
        (9.0, 4.2),
    )
    page.section("Stake, delegators and rewards")
    page.figure(
        lambda ax: hplot.validator_history(rows, "stake", ax=ax),
        "Total stake at the end of each epoch.",
        (8.0, 3.8),
    )
    page.figure(
        lambda ax: hplot.validator_history(rows, "delegators", ax=ax),
        "Delegations listed (the self delegation included).",
        (8.0, 3.8),
    )
    page.figure(
        lambda ax: hplot.validator_history(rows, "reward", ax=ax),
        "Lifetime reward at the end of each epoch.",
        (8.0, 3.8),
    )
    page.figure(
        lambda ax: hplot.validator_history(rows, "commission", ax=ax),
        "Commission rate, and the maximum it may reach.",
        (8.0, 3.8),
    )


def _status_section(page: Page, rows: pd.DataFrame) -> None:
    """Each epoch whose status differs from the one before."""
    page.section("Status changes")
    page.table(
        status_changes(rows),
        [
            Column("epoch", "epoch", lambda x: f"{x:,}", numeric=True),
            Column("change", "change"),
            Column("status", "status after"),
        ],
    )


def _delegators_section(page: Page, rows: pd.DataFrame, latest: pd.DataFrame, top: int) -> None:
    """The ``top`` largest delegations at the last epoch (``latest``), the self delegation marked."""
    epochs = rows["snapshot_epoch"].astype("int64")
    key = rows.iloc[-1]["validator_address"]
    page.section(f"Largest delegators at epoch {int(epochs.iloc[-1]):,}")
    if len(latest):
        total = sum(v for v in metrics.exact_ints(latest["amount"]) if v is not None)
        table = (
            latest.assign(
                delegator=[
                    f"{a} (self)" if a == key else a for a in latest["delegator_address"].astype(object)
                ],
                amount_one_=amount_one(latest, "amount").to_numpy(),
                share=[
                    (v or 0) / total if total else float("nan") for v in metrics.exact_ints(latest["amount"])
                ],
                reward_one=amount_one(latest, "reward").to_numpy(),
            )
            .sort_values("amount_one_", ascending=False)
            .head(top)
        )
        page.table(
            table,
            [
                Column("delegator", "delegator", mono=True),
                Column("amount_one_", "amount (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
                Column("share", "share", fmt_percent, numeric=True),
                Column(
                    "reward_one", "unclaimed reward (ONE)", lambda v: fmt_one(v, unit=False), numeric=True
                ),
            ],
        )
    else:
        page.note("No delegation listed.")


def _epochs_section(page: Page, rows: pd.DataFrame) -> None:
    """One line per epoch: status, signing, stake, delegations, commission."""
    page.section("Per epoch")
    page.table(
        rows.assign(status=[_status(r) for _, r in rows.iterrows()]),
        [
            Column("snapshot_epoch", "epoch", lambda x: f"{x:,}", numeric=True),
            Column("snapshot_block", "block", lambda x: f"{x:,}", numeric=True),
            Column("status", "status"),
            Column("epoch_signing_percentage", "signed", fmt_percent, numeric=True),
            Column("stake_one", "stake (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("delegation_count", "delegations", lambda x: f"{x:,}", numeric=True),
            Column("rate", "commission", fmt_percent, numeric=True),
        ],
    )


async def validator_report(
    out: str | os.PathLike[str],
    address: str,
    *,
    epochs: int = 10,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> Path:
    """Fetch one validator's last ``epochs`` epochs and write its report to ``out``.

    Parameters
    ----------
    out
        The ``.html`` file to write.
    address
        The validator, ``one1...`` or ``0x...``.
    epochs
        How many epochs, up to the current one.
    rpc, cache, options, progress
        As for every fetcher.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    path = output_path(out)
    address_param(address)
    if block_arg(epochs, "epochs") < 1:
        raise ConfigError("epochs must be a number of epochs >= 1, got 0")
    async with Session(rpc, cache=cache, options=options) as session:
        history = await fetch_staking_history(session, -epochs, validator=address, progress=progress)
        source = redact_url(session.url)
    return write(render(address, history, source=source), path)
