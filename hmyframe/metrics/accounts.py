"""Accounts: wealth concentration, rich lists, balance changes and a delegator's rewards.

All take the account datasets as fetched (``balances``, ``delegator_delegations``,
``rewards_collected``) and never fetch. Amounts are read exactly (Python ints) and reported
both exact (``atto``) and as float ONE; only final ratios are floats.

A delegator's rewards, by validator and epoch
-------------------------------------------
The node adds a block's rewards to each delegation's ``reward`` in the block's ``Finalize``,
after the block's transactions; a ``CollectRewards`` of block ``c`` pays every delegation's
``reward`` as the state after block ``c - 1`` shows it and sets it to 0. So, with the
delegations read at each epoch's last block ``L_e`` and just before each collection::

    collected(v, e) = sum over the collections c in (L_{e-1}, L_e] of reward_v(c - 1)
    accrued(v, e)   = reward_v(L_e) - reward_v(L_{e-1}) + collected(v, e)

exactly, per validator ``v``; a delegation missing from a snapshot holds 0. Each collection's
``sum_v reward_v(c - 1)`` must equal the amount its receipt's log paid (``rewards_collected``):
:func:`rewards_by_validator` checks it, so a frame that does not describe the collections
fails loudly rather than mis-attributing them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import exact_ints, exact_series, ratio, require_columns, to_one
from hmyframe.metrics.concentration import gini, holders_to_exceed, top_share

__all__ = ["balance_changes", "rewards_by_validator", "rich_list", "wealth_concentration"]


def _hex(address: Any) -> str:
    from hmyframe.addresses import to_hex

    return to_hex(address)


def _labels(labels: Mapping[str, str] | pd.Series | None) -> dict[str, str]:
    """Known labels keyed by lower-case 0x (one1 or 0x keys; an invalid one is an AddressError)."""
    if labels is None:
        return {}
    items: Iterable[tuple[Any, Any]]
    if isinstance(labels, (pd.Series, Mapping)):
        items = labels.items()
    else:
        raise ConfigError(f"labels must be a mapping address -> label or a Series, got {short_repr(labels)}")
    return {_hex(a): str(label) for a, label in items}


def _at_block(balances: pd.DataFrame, block: int | None, what: str) -> tuple[pd.DataFrame, int | None]:
    require_columns(balances, ["address", "address_hex", "block_number", "balance"], what)
    if balances.empty:
        return balances, block
    blocks = balances["block_number"].astype("int64")
    at = int(blocks.max()) if block is None else block
    rows = balances[blocks == at]
    if rows.empty:
        raise ConfigError(f"{what}: block {at} is not in the balances (blocks {sorted(set(blocks))[:5]}...)")
    return rows, at


def wealth_concentration(
    balances: pd.DataFrame, *, top: Sequence[int] = (1, 10, 100), threshold: float = 0.5
) -> pd.DataFrame:
    """How concentrated the balances are, at each block (and shard) of a ``balances`` frame.

    Parameters
    ----------
    balances
        The ``balances`` dataset (any number of blocks and addresses).
    top
        The ``N`` of the top-N shares.
    threshold
        Share of the total the Nakamoto coefficient's holders must exceed (0.5: a majority).

    Returns
    -------
    pandas.DataFrame
        One row per (``shard_id``, ``block_number``): ``holders`` (balance above 0), ``total``
        (exact atto) and ``total_one``, ``gini``, ``top_<N>_share`` for each ``N`` and
        ``nakamoto`` (the fewest addresses holding more than ``threshold``). Figures are over
        the addresses in the frame: the whole chain's only when every holder was asked.
    """
    require_columns(balances, ["block_number", "balance"], "wealth_concentration")
    sizes = list(top)
    for size in sizes:
        given: object = size
        if isinstance(given, bool) or not isinstance(given, int) or given < 1:
            raise ConfigError(f"wealth_concentration top= needs counts >= 1, got {short_repr(given)}")
    keys = ["shard_id", "block_number"] if "shard_id" in balances.columns else ["block_number"]
    rows: list[dict[str, Any]] = []
    if not balances.empty:
        for key, group in balances.groupby(keys, sort=True):
            values = [v for v in exact_ints(group["balance"]) if v is not None]
            total = sum(values)
            row: dict[str, Any] = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            row.update({"holders": sum(1 for v in values if v > 0), "total": total, "gini": gini(values)})
            row.update({f"top_{n}_share": top_share(values, n) for n in sizes})
            row["nakamoto"] = holders_to_exceed(values, threshold)
            rows.append(row)
    frame = pd.DataFrame(
        rows, columns=[*keys, "holders", "total", "gini", *(f"top_{n}_share" for n in sizes), "nakamoto"]
    )
    frame["total"] = exact_series(frame["total"].tolist(), index=frame.index)
    frame.insert(frame.columns.get_loc("total") + 1, "total_one", to_one(frame["total"]).to_numpy())
    frame["nakamoto"] = pd.array(frame["nakamoto"].tolist(), dtype="Int64")
    for c in keys:
        frame[c] = frame[c].astype("int64")
    return frame


def rich_list(
    balances: pd.DataFrame,
    *,
    top: int | None = 100,
    labels: Mapping[str, str] | pd.Series | None = None,
    block: int | None = None,
) -> pd.DataFrame:
    """The largest balances at one block, ranked, with the labels the caller knows.

    Parameters
    ----------
    balances
        The ``balances`` dataset.
    top
        How many (``None``: all).
    labels
        Known addresses (an exchange, a treasury, a bridge...): address (one1 or 0x) -> label.
    block
        The block (default: the frame's last).

    Returns
    -------
    pandas.DataFrame
        ``rank`` (1 = largest), ``address``, ``address_hex``, ``label`` (``None`` when unknown),
        ``balance`` (exact atto), ``balance_one``, ``share`` (of the frame's total at that block)
        and ``cumulative_share``; ``df.attrs["block"]`` is the block.
    """
    count: object = top
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise ConfigError(f"rich_list top= must be a count >= 1 or None, got {short_repr(count)}")
    known = _labels(labels)
    rows, at = _at_block(balances, block, "rich_list")
    values = [v or 0 for v in exact_ints(rows["balance"])]
    total = sum(values)
    hexes = rows["address_hex"].astype(object).tolist()
    ones = rows["address"].astype(object).tolist()
    order = sorted(range(len(values)), key=lambda i: (-values[i], hexes[i]))
    if top is not None:
        order = order[:top]
    running = 0
    cumulative = []
    for i in order:
        running += values[i]
        cumulative.append(ratio(running, total))
    frame = pd.DataFrame(
        {
            "rank": np.arange(1, len(order) + 1, dtype=np.int64),
            "address": [ones[i] for i in order],
            "address_hex": [hexes[i] for i in order],
            "label": pd.array([known.get(hexes[i]) for i in order], dtype=pd.ArrowDtype(pa.string())),
            "balance": exact_series([values[i] for i in order]),
            "share": [ratio(values[i], total) for i in order],
            "cumulative_share": cumulative,
        }
    )
    frame.insert(5, "balance_one", to_one(frame["balance"]).to_numpy())
    frame.attrs["block"] = at
    return frame


def balance_changes(balances: pd.DataFrame) -> pd.DataFrame:
    """Each address's balance at each block asked and what changed since the block before it.

    Parameters
    ----------
    balances
        The ``balances`` dataset (several blocks per address: a history).

    Returns
    -------
    pandas.DataFrame
        ``address``, ``address_hex``, ``shard_id`` (when present), ``block_number``, ``balance``,
        ``balance_one``, ``change`` (exact atto since the address's previous row; null for its
        first) and ``change_one``, sorted by address and block.
    """
    require_columns(balances, ["address", "address_hex", "block_number", "balance"], "balance_changes")
    keys = ["address", "address_hex"] + (["shard_id"] if "shard_id" in balances.columns else [])
    frame = balances[[*keys, "block_number", "balance"]].sort_values(
        [*keys, "block_number"], ignore_index=True
    )
    values = exact_ints(frame["balance"])
    owners = list(zip(*(frame[k].astype(object).tolist() for k in keys), strict=True))
    change: list[int | None] = []
    for i, v in enumerate(values):
        previous = values[i - 1] if i and owners[i - 1] == owners[i] else None
        change.append(None if previous is None or v is None else v - previous)
    frame["balance"] = exact_series(values)
    frame["balance_one"] = to_one(frame["balance"]).to_numpy()
    frame["change"] = exact_series(change)
    frame["change_one"] = to_one(frame["change"]).to_numpy()
    return frame


#: (delegator, block) -> validator -> (amount, reward), all lower-case 0x and exact atto.
_States = dict[tuple[str, int], dict[str, tuple[int, int]]]
_COLUMNS = ["delegator_address", "delegator_address_hex", "epoch", "last_block", "validator_address",
            "validator_address_hex", "stake", "unclaimed", "accrued", "collected"]  # fmt: skip


def rewards_by_validator(
    delegations: pd.DataFrame, collected: pd.DataFrame, before: pd.DataFrame
) -> pd.DataFrame:
    """A delegator's rewards per validator and epoch: accrued and collected, exact (see the
    module documentation for the formulas).

    Parameters
    ----------
    delegations
        ``delegator_delegations`` at each epoch's last block (``snapshot_block``,
        ``snapshot_epoch``): the first epoch of each delegator is the baseline and gets no row.
    collected
        ``rewards_collected`` of the same blocks (other delegators' rows are ignored).
    before
        ``delegator_delegations`` at ``c - 1`` for each collection block ``c``.

    Returns
    -------
    pandas.DataFrame
        One row per (``delegator_address``, ``epoch``, ``validator_address``): ``last_block``,
        ``stake`` (the delegation at the epoch's end), ``unclaimed`` (its reward then),
        ``accrued`` (earned during the epoch), ``collected`` (paid out during the epoch), each
        exact in atto with a ``*_one`` companion; ``delegator_address_hex`` and
        ``validator_address_hex`` beside.

    Raises
    ------
    ConfigError
        A collection whose paid amount differs from the rewards the state before it shows (the
        frames do not describe the same chain or blocks), or a missing column.
    """
    cols = ["snapshot_block", "validator_address", "validator_address_hex", "delegator_address",
            "delegator_address_hex", "amount", "reward"]  # fmt: skip
    require_columns(delegations, [*cols, "snapshot_epoch"], "rewards_by_validator delegations")
    require_columns(before, cols, "rewards_by_validator before")
    require_columns(
        collected, ["block_number", "delegator_address_hex", "amount"], "rewards_by_validator collected"
    )
    at_end, at_before = _states(delegations), _states(before)
    epoch_of = {
        (d, int(b)): int(e)
        for d, b, e in zip(
            delegations["delegator_address_hex"].astype(object),
            delegations["snapshot_block"].astype("int64"),
            delegations["snapshot_epoch"],
            strict=True,
        )
        if not pd.isna(e)
    }
    ones = _ones(delegations, before)
    paid = _paid(collected)
    rows: list[dict[str, Any]] = []
    for delegator in sorted({d for d, _ in at_end}):
        blocks = sorted(b for d, b in at_end if d == delegator)
        for previous, last in itertools.pairwise(blocks):
            collects = sorted(b for d, b in paid if d == delegator and previous < b <= last)
            taken = _taken(delegator, collects, paid, at_before, ones)
            rows += _epoch_rows(
                delegator, last, epoch_of.get((delegator, last)), at_end[(delegator, previous)],
                at_end[(delegator, last)], taken, ones,
            )  # fmt: skip
    frame = pd.DataFrame(rows, columns=_COLUMNS)
    frame["epoch"] = pd.array(frame["epoch"].tolist(), dtype="Int64")
    frame["last_block"] = frame["last_block"].astype("int64")
    for name in ("stake", "unclaimed", "accrued", "collected"):
        frame[name] = exact_series(frame[name].tolist(), index=frame.index)
        frame.insert(frame.columns.get_loc(name) + 1, f"{name}_one", to_one(frame[name]).to_numpy())
    return frame


def _states(frame: pd.DataFrame) -> _States:
    """(delegator, block) -> validator -> (amount, reward) of ``delegator_delegations`` rows."""
    out: _States = {}
    for d, b, v, amount, reward in zip(
        frame["delegator_address_hex"].astype(object),
        frame["snapshot_block"].astype("int64"),
        frame["validator_address_hex"].astype(object),
        exact_ints(frame["amount"]),
        exact_ints(frame["reward"]),
        strict=True,
    ):
        out.setdefault((d, int(b)), {})[v] = (amount or 0, reward or 0)
    return out


def _ones(*frames: pd.DataFrame) -> dict[str, str]:
    """0x -> one1 of every validator and delegator of the frames."""
    ones: dict[str, str] = {}
    for frame in frames:
        for prefix in ("validator", "delegator"):
            ones.update(
                zip(
                    frame[f"{prefix}_address_hex"].astype(object),
                    frame[f"{prefix}_address"].astype(object),
                    strict=True,
                )
            )
    return ones


def _paid(collected: pd.DataFrame) -> dict[tuple[str, int], int]:
    """(delegator, block) -> the exact amount its CollectRewards of that block paid."""
    paid: dict[tuple[str, int], int] = {}
    for d, b, amount in zip(
        collected["delegator_address_hex"].astype(object),
        collected["block_number"].astype("int64"),
        exact_ints(collected["amount"]),
        strict=True,
    ):
        paid[(d, int(b))] = paid.get((d, int(b)), 0) + (amount or 0)
    return paid


def _taken(
    delegator: str,
    collects: list[int],
    paid: dict[tuple[str, int], int],
    at_before: _States,
    ones: dict[str, str],
) -> dict[str, int]:
    """Per validator, what the ``collects`` (blocks of the delegator's CollectRewards) paid: each
    delegation's reward in the state before the block, checked against the receipt's amount."""
    who = ones.get(delegator, delegator)
    taken: dict[str, int] = {}
    for c in collects:
        state = at_before.get((delegator, c - 1))
        if state is None:
            raise ConfigError(
                f"rewards_by_validator: no delegations of {who} at block {c - 1}, "
                f"the state before its CollectRewards of block {c}"
            )
        shown = sum(r for _, r in state.values())
        if shown != paid[(delegator, c)]:
            raise ConfigError(
                f"rewards_by_validator: the CollectRewards of {who} in block {c} paid "
                f"{paid[(delegator, c)]} atto but its delegations at block {c - 1} show {shown} atto of rewards"
            )
        for v, (_, r) in state.items():
            taken[v] = taken.get(v, 0) + r
    return taken


def _epoch_rows(
    delegator: str,
    last: int,
    epoch: int | None,
    start_state: dict[str, tuple[int, int]],
    end_state: dict[str, tuple[int, int]],
    taken: dict[str, int],
    ones: dict[str, str],
) -> list[dict[str, Any]]:
    """One row per validator of an epoch ending at block ``last``: stake and unclaimed reward
    then, accrued (reward now - reward at the start + collected) and collected."""
    rows = []
    for v in sorted(set(start_state) | set(end_state) | set(taken)):
        amount, reward = end_state.get(v, (0, 0))
        earned = reward - start_state.get(v, (0, 0))[1] + taken.get(v, 0)
        rows.append(
            {
                "delegator_address": ones.get(delegator, delegator),
                "delegator_address_hex": delegator,
                "epoch": epoch,
                "last_block": last,
                "validator_address": ones.get(v, v),
                "validator_address_hex": v,
                "stake": amount,
                "unclaimed": reward,
                "accrued": earned,
                "collected": taken.get(v, 0),
            }
        )
    return rows
