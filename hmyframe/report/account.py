"""The account report: one address on one page.

Its balance on every shard (now, and what moved over the chain), its transactions (plain and
staking, from the node's history index) and counterparties, the tokens it holds, its
delegations, and its rewards by validator over the last epochs: accrued and collected, the
history a delegator needs for taxes. :func:`render` builds the page from an
:class:`AccountData`, one function per section; the coroutine :func:`account_report` fetches
one (:func:`fetch_account`, through the normal cached fetchers) and writes the file. Its doors
are ``hmyframe.aio.account_report`` and the blocking ``hmyframe.report.account_report``
(``hmyframe report account`` on the command line).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from hmyframe import metrics
from hmyframe import plot as hplot
from hmyframe._text import chain_text
from hmyframe.cache import Cache
from hmyframe.engine import (
    FetchOptions,
    Progress,
    Session,
    block_arg,
    fetch_account_transactions,
    fetch_balances,
    fetch_delegator_rewards,
    fetch_delegator_table,
    fetch_token_balances,
    fetch_tokens,
    to_output,
)
from hmyframe.errors import ConfigError, HistoryUnavailableError, redact_url
from hmyframe.metrics import exact_ints, exact_series, ratio
from hmyframe.plot import fmt_count, fmt_one, fmt_percent
from hmyframe.report._html import Card, Column, Page, output_path, write

__all__ = ["AccountData", "account_report", "counterparties", "fetch_account", "render"]

CacheArg = bool | str | os.PathLike[str] | Cache
ATTO = 10**18


@dataclass
class AccountData:
    """What the account report shows, as fetched.

    Attributes
    ----------
    address
        The account, lower-case 0x.
    balances
        ``balances`` of the address on each shard at the blocks asked (the last is the head).
    history
        ``account_transactions`` of the address on each shard (``None``: the node keeps no
        history index).
    tokens
        ``token_balances`` of the address, with the ``tokens`` metadata joined (``name``,
        ``symbol``, ``decimals``).
    delegations
        ``delegator_delegations`` of the address at the beacon shard's head.
    rewards
        :func:`hmyframe.delegator_rewards` of the address over the epochs asked.
    labels
        Known addresses (lower-case 0x -> label).
    """

    address: str
    balances: pd.DataFrame
    history: pd.DataFrame | None
    tokens: pd.DataFrame
    delegations: pd.DataFrame
    rewards: pd.DataFrame
    labels: dict[str, str] = field(default_factory=dict)


def counterparties(history: pd.DataFrame, address: str) -> pd.DataFrame:
    """Who an address dealt with, from its ``account_transactions``.

    Parameters
    ----------
    history
        ``account_transactions`` of the address.
    address
        The address (one1 or 0x).

    Returns
    -------
    pandas.DataFrame
        One row per counterparty (the other side of a plain transaction; a staking
        transaction's validator): ``counterparty``, ``counterparty_hex``, ``transactions``,
        ``sent`` and ``received`` (exact atto of ONE the address sent it / got from it, with
        ``*_one``), ``first_block``, ``last_block``; most transactions first.
    """
    from hmyframe.addresses import to_hex, to_one

    me = to_hex(address)
    table: dict[str, dict[str, Any]] = {}
    for row in history.to_dict("records"):
        if row["kind"] == "staking":
            other = row.get("validator_address_hex")
        elif row["direction"] == "received":
            other = row.get("from_address_hex")
        else:
            other = row.get("to_address_hex")
        if not isinstance(other, str) or other == me:
            continue
        entry = table.setdefault(
            other, {"transactions": 0, "sent": 0, "received": 0, "first_block": None, "last_block": None}
        )
        entry["transactions"] += 1
        value = row.get("value")
        amount = 0 if value is None or value is pd.NA else int(value)
        if row["kind"] == "plain":
            entry["sent" if row["direction"] == "sent" else "received"] += amount
        block = int(row["block_number"])
        entry["first_block"] = block if entry["first_block"] is None else min(entry["first_block"], block)
        entry["last_block"] = block if entry["last_block"] is None else max(entry["last_block"], block)
    rows = [{"counterparty": to_one(k), "counterparty_hex": k, **v} for k, v in table.items()]
    frame = pd.DataFrame(
        rows,
        columns=[
            "counterparty",
            "counterparty_hex",
            "transactions",
            "sent",
            "received",
            "first_block",
            "last_block",
        ],
    )
    frame = frame.sort_values(
        ["transactions", "counterparty_hex"], ascending=[False, True], ignore_index=True
    )
    for c in ("sent", "received"):
        frame[c] = exact_series(frame[c].tolist(), index=frame.index)
        frame[f"{c}_one"] = metrics.to_one(frame[c]).to_numpy()
    return frame


def _card_one(value: float) -> str:
    """A card's amount: exact to the ONE below a billion, else in millions / billions /
    trillions (a card holds about 14 characters; the tables below give every digit)."""
    for size, word in ((1e12, "trillion"), (1e9, "billion")):
        if abs(value) >= size:
            return f"{value / size:,.2f} {word} ONE"
    return fmt_one(value)


def _short(address: str) -> str:
    return f"{address[:12]}…{address[-6:]}"


def _scaled(raw: Any, decimals: Any) -> str | None:
    """A token balance in whole tokens, exact (``Decimal``): every digit shown is the chain's."""
    if raw is None or raw is pd.NA:
        return None
    places = 0 if decimals is None or decimals is pd.NA else int(decimals)
    value = Decimal(int(raw)).scaleb(-places)
    text = f"{value:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def render(data: AccountData, *, source: str = "", top: int = 15) -> Page:
    """The account report page.

    Parameters
    ----------
    data
        What :func:`fetch_account` fetched.
    source
        Where it came from (a redacted URL).
    top
        Rows of the transaction and counterparty tables.

    Returns
    -------
    Page
    """
    from hmyframe.addresses import to_one

    label = _label(data.labels.get(data.address), 48)
    page = Page(
        f"Account report: {label}" if label else "Account report",
        [to_one(data.address) + f" · {data.address}" + (f" · {source}" if source else "")],
    )
    balances = data.balances
    heads = balances.sort_values("block_number").groupby("shard_id").tail(1).sort_values("shard_id")
    now = {int(s): v or 0 for s, v in zip(heads["shard_id"], exact_ints(heads["balance"]), strict=True)}
    history = data.history
    parties = counterparties(history, data.address) if history is not None else None
    held = _held(data.tokens)
    _summary_section(page, data, now, parties, held)
    _balance_section(page, data, heads, now)
    _transactions_section(page, data, parties, top)
    _tokens_section(page, held)
    _delegations_section(page, data.delegations)
    _rewards_section(page, data.rewards)
    return page


def _label(label: object, width: int = 32) -> str | None:
    """A label as shown: made safe and short like chain text (labels are often scraped lists)."""
    return chain_text(label, width)


def _sum(frame: pd.DataFrame, column: str) -> int:
    return sum(v or 0 for v in exact_ints(frame[column])) if len(frame) else 0


def _held(tokens: pd.DataFrame) -> pd.DataFrame:
    """The token rows with a balance above 0."""
    held = tokens[tokens["token_balance"].notna()] if len(tokens) else tokens
    return held[[int(v) > 0 for v in held["token_balance"]]] if len(held) else held


def _summary_section(
    page: Page,
    data: AccountData,
    now: dict[int, int],
    parties: pd.DataFrame | None,
    held: pd.DataFrame,
) -> None:
    """The cards: balance, transactions, staking transactions, counterparties, tokens,
    delegated, unclaimed and accrued rewards."""
    history = data.history
    plain = history[history["kind"] == "plain"] if history is not None else None
    staking = history[history["kind"] == "staking"] if history is not None else None
    delegations, rewards = data.delegations, data.rewards
    epochs = rewards.attrs.get("epochs") or []
    sent = 0 if plain is None else int((plain["direction"] == "sent").sum())
    page.section("Summary")
    page.cards(
        [
            Card(
                "Balance",
                _card_one(sum(now.values()) / ATTO),
                " · ".join(f"shard {s}: {_card_one(v / ATTO)}" for s, v in now.items()),
            ),
            Card(
                "Transactions",
                "–" if plain is None else fmt_count(len(plain)),
                "no history index on this node"
                if plain is None
                else f"{sent:,} sent, {len(plain) - sent:,} received",
            ),
            Card(
                "Staking transactions",
                "–" if staking is None else fmt_count(len(staking)),
                "" if staking is None else "beacon shard",
            ),
            Card(
                "Counterparties", "–" if parties is None else fmt_count(len(parties)), "addresses dealt with"
            ),
            Card("Tokens held", fmt_count(len(held)), "with a balance above 0"),
            Card(
                "Delegated",
                fmt_one(_sum(delegations, "amount") / ATTO),
                f"to {len(delegations):,} validator{'s' if len(delegations) != 1 else ''}",
            ),
            Card("Unclaimed rewards", fmt_one(_sum(delegations, "reward") / ATTO), "at the head"),
            Card(
                "Rewards accrued",
                fmt_one(_sum(rewards, "accrued") / ATTO),
                f"epochs {epochs[0]:,}–{epochs[-1]:,}; collected {fmt_one(_sum(rewards, 'collected') / ATTO)}"
                if epochs
                else "",
            ),
        ]
    )


def _balance_section(page: Page, data: AccountData, heads: pd.DataFrame, now: dict[int, int]) -> None:
    """What moved since the first block read, per shard, and the balance at each shard's head."""
    page.section(
        "Balance", "The balance read after each block shown (getBalanceByBlockNumber), on every shard."
    )
    balances = data.balances
    if not len(balances):
        return
    first = int(balances["block_number"].min())
    page.figure(
        lambda ax: hplot.balance_history(balances, labels=data.labels, relative=True, ax=ax),
        f"What moved since block {first:,}, per shard: the balance less its value then (exact, in ONE).",
        (9.0, 4.0),
    )
    page.table(
        heads.assign(balance_one_=[v / ATTO for v in now.values()]),
        [
            Column("shard_id", "shard", lambda x: f"{x}", numeric=True),
            Column("block_number", "at block", lambda x: f"{x:,}", numeric=True),
            Column("balance_one_", "balance (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("balance", "balance (atto, exact)", lambda v: f"{int(v):,}", numeric=True),
        ],
    )


def _transactions_section(page: Page, data: AccountData, parties: pd.DataFrame | None, top: int) -> None:
    """The latest transactions of the history index, and the counterparties."""
    page.section(
        "Transactions",
        "The node's history index: plain transactions of every shard, staking ones of the beacon shard.",
    )
    history = data.history
    if history is None or parties is None:
        page.note(
            "This node keeps no transaction history index (it answers 'explorer service not started'): "
            "no transaction or counterparty can be listed. Use a node with the explorer service."
        )
        return
    latest = history.sort_values(["block_number", "kind"], ascending=False).head(top)
    records = latest.to_dict("records")
    page.table(
        latest.assign(other=[_other(r) for r in records], what=[_what(r) for r in records]),
        [
            Column("block_number", "block", lambda x: f"{x:,}", numeric=True),
            Column("shard_id", "shard", lambda x: f"{x}", numeric=True),
            Column("what", "what"),
            Column("direction", "direction"),
            Column("other", "counterparty", mono=True),
            Column("value_one", "value (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("amount_one", "staked (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
        ],
        empty="No transaction in the history index.",
    )
    if len(history) > top:
        page.note(f"The {top} latest of {len(history):,}.")
    page.heading("Counterparties")
    shown = parties.head(top)
    page.table(
        shown.assign(
            who=[
                _labelled(one, data.labels.get(h))
                for one, h in zip(shown["counterparty"], shown["counterparty_hex"], strict=True)
            ]
        ),
        [
            Column("who", "counterparty", mono=True, chain=True),
            Column("transactions", "transactions", lambda x: f"{x:,}", numeric=True),
            Column("sent_one", "sent to it (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("received_one", "received from it (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("first_block", "first block", lambda x: f"{x:,}", numeric=True),
            Column("last_block", "last block", lambda x: f"{x:,}", numeric=True),
        ],
        empty="No counterparty.",
    )


def _labelled(one: str, label: str | None) -> str:
    shown = _label(label)
    return f"{shown} ({_short(one)})" if shown else one


def _what(row: Mapping[str, Any]) -> str:
    if row["kind"] == "staking":
        return str(row["directive"])
    return "transfer" if row["input"] == "0x" else "call"


def _tokens_section(page: Page, held: pd.DataFrame) -> None:
    """The tokens the address holds, in whole tokens (exact) and raw."""
    page.section("Tokens held", "balanceOf at the head, for the token contracts in the address's history.")
    page.table(
        held.assign(
            token=[
                chain_text(s, 16) or chain_text(n, 32) or _short(a)
                for s, n, a in zip(held["symbol"], held["name"], held["token_address"], strict=True)
            ],
            amount=[_scaled(v, d) for v, d in zip(held["token_balance"], held["decimals"], strict=True)],
        ),
        [
            Column("token", "token", chain=True),
            Column("token_address", "contract", mono=True),
            Column("amount", "balance (whole tokens)", numeric=True),
            Column("token_balance", "raw balance (exact)", lambda v: f"{int(v):,}", numeric=True),
        ],
        empty="No token balance above 0 among the tokens of its history.",
    )


def _delegations_section(page: Page, delegations: pd.DataFrame) -> None:
    page.section("Delegations", "At the beacon shard's head (getDelegationsByDelegatorByBlockNumber).")
    page.table(
        delegations,
        [
            Column("validator_address", "validator", mono=True),
            Column("amount_one", "delegated (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("reward_one", "unclaimed reward (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column(
                "undelegating_amount_one",
                "undelegating (ONE)",
                lambda v: fmt_one(v, unit=False),
                numeric=True,
            ),
        ],
        empty="No delegation.",
    )


def _rewards_section(page: Page, rewards: pd.DataFrame) -> None:
    """The rewards by epoch (chart and exact table) and by validator."""
    page.section(
        "Rewards by validator",
        "Accrued: the unclaimed reward at each epoch's end, less the one before, plus what was collected in "
        "between. Collected: each CollectRewards split over the validators exactly (the node pays each "
        "delegation's reward as the state before the block shows it). Exact sums in atto.",
    )
    if not len(rewards):
        page.note("No delegation in these epochs.")
        return
    page.figure(
        lambda ax: hplot.rewards_by_validator(rewards, ax=ax),
        "Rewards accrued per epoch, by validator; diamonds: rewards collected in the epoch.",
        (9.0, 4.2),
    )
    per_epoch = (
        rewards.assign(
            accrued_=[v or 0 for v in exact_ints(rewards["accrued"])],
            collected_=[v or 0 for v in exact_ints(rewards["collected"])],
        )
        .groupby("epoch", as_index=False)
        .agg(last_block=("last_block", "max"), accrued=("accrued_", "sum"), collected=("collected_", "sum"))
    )
    page.table(
        per_epoch.assign(
            accrued_one=per_epoch["accrued"] / ATTO, collected_one=per_epoch["collected"] / ATTO
        ),
        [
            Column("epoch", "epoch", lambda x: f"{x:,}", numeric=True),
            Column("last_block", "last block", lambda x: f"{x:,}", numeric=True),
            Column("accrued_one", "accrued (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("collected_one", "collected (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("accrued", "accrued (atto, exact)", lambda v: f"{int(v):,}", numeric=True),
        ],
    )
    page.table(
        _by_validator(rewards),
        [
            Column("validator_address", "validator", mono=True),
            Column("accrued", "accrued (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
            Column("share", "share", fmt_percent, numeric=True),
            Column("collected", "collected (ONE)", lambda v: fmt_one(v, unit=False), numeric=True),
        ],
    )


def _by_validator(rewards: pd.DataFrame) -> pd.DataFrame:
    """Accrued (and its share) and collected per validator, summed exactly, largest first."""
    sums: dict[str, list[int]] = {}
    for v, a, c in zip(
        rewards["validator_address"],
        exact_ints(rewards["accrued"]),
        exact_ints(rewards["collected"]),
        strict=True,
    ):
        entry = sums.setdefault(str(v), [0, 0])
        entry[0] += a or 0
        entry[1] += c or 0
    accrued = sum(a for a, _ in sums.values())
    return pd.DataFrame(
        [
            {"validator_address": v, "accrued": a / ATTO, "share": ratio(a, accrued), "collected": c / ATTO}
            for v, (a, c) in sorted(sums.items(), key=lambda kv: -kv[1][0])
        ]
    )


def _other(row: Mapping[str, Any]) -> Any:
    if row["kind"] == "staking":
        return row.get("validator_address")
    return row.get("from_address") if row["direction"] == "received" else row.get("to_address")


# --------------------------------------------------------------------------- fetching


async def _balances_and_history(
    session: Session, me: str, points: int, progress: Callable[[int], None] | None
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The address's balance at ``points`` blocks of each shard (block 0 to the head) and its
    history on each shard (``None``: the node keeps no history index)."""
    frames = []
    histories: list[pd.DataFrame] | None = []
    for shard in await session.shard_ids():
        head = await session.head(shard, refresh=True)
        step = max(1, head // max(1, points - 1))
        blocks = sorted({*range(0, head + 1, step), head})
        frames.append(
            to_output(await fetch_balances(session, [me], blocks, shard, progress=progress), "pandas")
        )
        if histories is not None:
            try:
                found = await fetch_account_transactions(session, [me], shard, progress=progress)
            except HistoryUnavailableError:
                histories = None
            else:
                histories.append(to_output(found, "pandas"))
    history = pd.concat(histories, ignore_index=True) if histories else None
    return pd.concat(frames, ignore_index=True), history


def _token_candidates(history: pd.DataFrame | None, tokens: list[str] | None) -> dict[int, set[str]]:
    """Per shard, the contracts the address's plain transactions called, and those given (shard 0)."""
    from hmyframe.addresses import to_hex

    candidates: dict[int, set[str]] = {}
    if history is not None:
        calls = history[
            (history["kind"] == "plain") & (history["direction"] == "sent") & (history["input"] != "0x")
        ]
        for shard, to in zip(calls["shard_id"], calls["to_address_hex"], strict=True):
            if isinstance(to, str):
                candidates.setdefault(int(shard), set()).add(to)
    for token in tokens or ():
        candidates.setdefault(0, set()).add(to_hex(token))
    return candidates


async def _tokens_held(
    session: Session, me: str, candidates: dict[int, set[str]], progress: Callable[[int], None] | None
) -> pd.DataFrame:
    """``token_balances`` of ``me`` for the candidates that are contracts, with their ``name``,
    ``symbol`` and ``decimals`` (the ``tokens`` dataset at the shard's head)."""
    held = []
    for shard, contracts in sorted(candidates.items()):
        block, meta = await fetch_tokens(session, sorted(contracts), None, shard, progress=progress)
        meta_frame = to_output(meta, "pandas")
        real = [
            a for a, code in zip(meta_frame["address_hex"], meta_frame["is_contract"], strict=True) if code
        ]
        if not real:
            continue
        got = to_output(await fetch_token_balances(session, [(t, me) for t in real], block, shard), "pandas")
        held.append(
            got.merge(
                meta_frame[["address_hex", "name", "symbol", "decimals"]],
                left_on="token_address_hex",
                right_on="address_hex",
                how="left",
            ).drop(columns=["address_hex"])
        )
    if held:
        return pd.concat(held, ignore_index=True)
    return pd.DataFrame(
        columns=["token_address", "token_address_hex", "token_balance", "name", "symbol", "decimals"]
    )


async def fetch_account(
    session: Session,
    address: str,
    *,
    epochs: int = 10,
    points: int = 40,
    tokens: list[str] | None = None,
    labels: Mapping[str, str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> AccountData:
    """Everything :func:`render` shows of ``address``, through the cached fetchers.

    Parameters
    ----------
    session
        An open session.
    address, epochs, points, tokens, labels
        As for :func:`account_report`.
    progress
        Called with each step's count of answers.

    Returns
    -------
    AccountData
    """
    from hmyframe.addresses import to_hex

    me = to_hex(address)
    known = {to_hex(k): str(v) for k, v in (labels or {}).items()}
    balances, history = await _balances_and_history(session, me, points, progress)
    held = await _tokens_held(session, me, _token_candidates(history, tokens), progress)
    delegations = to_output(
        await fetch_delegator_table(session, "delegator_delegations", [me], None, progress=progress), "pandas"
    )
    rewards = await fetch_delegator_rewards(session, [me], epochs, progress=progress)
    return AccountData(me, balances, history, held, delegations, rewards, known)


async def account_report(
    out: str | os.PathLike[str],
    address: str,
    *,
    epochs: int = 10,
    points: int = 40,
    tokens: list[str] | None = None,
    labels: Mapping[str, str] | None = None,
    rpc: object = None,
    cache: CacheArg = True,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
) -> Path:
    """Fetch one address and write its report to ``out``.

    Parameters
    ----------
    out
        The ``.html`` file to write.
    address
        The account, ``one1...`` or ``0x...``.
    epochs
        Epochs of the rewards history (the last ``epochs`` before the current one).
    points
        Blocks per shard the balance is read at (evenly spaced from block 0 to the head).
    tokens
        Token contracts to check besides those the address called (on shard 0).
    labels
        Known addresses (address -> label), used in the title, tables and charts.
    rpc, cache, options, progress
        As for every fetcher.

    Returns
    -------
    pathlib.Path
        The file written.
    """
    from hmyframe.addresses import to_hex

    path = output_path(out)
    to_hex(address)  # an AddressError names a bad address before anything is sent
    if block_arg(epochs, "epochs") < 1:
        raise ConfigError("epochs must be a number of epochs >= 1, got 0")
    if block_arg(points, "points") < 2:
        raise ConfigError(f"points must be at least 2 (the first block and the head), got {points}")
    async with Session(rpc, cache=cache, options=options) as session:
        with Progress.make(progress, "account report", unit="answers") as bar:
            data = await fetch_account(
                session,
                address,
                epochs=epochs,
                points=points,
                tokens=tokens,
                labels=labels,
                progress=bar.update,
            )
        source = redact_url(session.url)
    return write(render(data, source=source), path)
