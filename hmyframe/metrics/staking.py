"""Staking metrics on validator snapshots: election, stake, signing, delegation, summaries, diffs.

The snapshot frames are the ``validators``, ``voting_power`` and ``delegations`` datasets
(``hmyframe.validators()`` and friends, or one epoch of :func:`hmyframe.staking_history`), in
either format. The early-2020 format lacks ``total_delegation`` and ``is_elected``;
:func:`annotate` fills the two columns every metric here reads, ``stake`` (exact atto) and
``elected``, from whichever fields the format has.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import (
    exact_ints,
    exact_series,
    floats,
    ratio,
    require_columns,
    to_one,
)
from hmyframe.metrics.concentration import gini, nakamoto

__all__ = [
    "SIGNING_THRESHOLD",
    "annotate",
    "apr_distribution",
    "below_threshold",
    "delegation_summary",
    "elected",
    "lifetime_uptime",
    "signing",
    "snapshot_diff",
    "stake",
    "staking_summary",
]

#: Harmony's signing threshold: an elected validator signing less than 66 % of its epoch's
#: blocks is not eligible for the next election.
SIGNING_THRESHOLD = 0.66


def _addresses(frame: pd.DataFrame) -> pd.Index:
    return pd.Index(frame["validator_address"].astype(object).to_numpy(), name="validator_address")


def _bools(series: pd.Series) -> pd.Series:
    """A nullable bool column as a plain object Series of True / False / None."""
    return pd.Series([None if v is None or v is pd.NA else bool(v) for v in series.to_numpy(dtype=object)])


def elected(validators: pd.DataFrame, voting_power: pd.DataFrame | None = None) -> pd.Series:
    """Whether each validator sits in the current committee (bool Series on the validators' index).

    ``is_elected`` (today's ``currently-in-committee``) where present; else ``epos_status ==
    'currently elected'``; else (early-2020 format) whether the validator holds voting power in
    ``voting_power``. Without any of these the answer is False.
    """
    if "elected" in validators.columns:
        return validators["elected"].fillna(False).astype(bool)
    require_columns(validators, ["validator_address"], "elected")
    out = pd.Series(False, index=validators.index, dtype=bool)
    known = pd.Series(False, index=validators.index, dtype=bool)
    if "is_elected" in validators.columns:
        values = _bools(validators["is_elected"])
        mask = values.notna().to_numpy()
        out[mask] = values[mask].astype(bool).to_numpy()
        known |= mask
    if "epos_status" in validators.columns:
        status = validators["epos_status"].astype(object)
        mask = (~known & status.notna()).to_numpy()
        out[mask] = (status[mask] == "currently elected").to_numpy()
        known |= mask
    if voting_power is not None and not known.all():
        require_columns(voting_power, ["validator_address"], "elected")
        members = set(voting_power["validator_address"].astype(object).dropna())
        mask = ~known.to_numpy()
        out[mask] = validators["validator_address"].astype(object)[mask].isin(members).to_numpy()
    return out


def stake(validators: pd.DataFrame, delegations: pd.DataFrame | None = None) -> pd.Series:
    """Each validator's total stake (self stake included) in exact atto, on the validators' index.

    ``total_delegation`` where the format has it; else the sum of the validator's delegations
    in ``delegations`` (the early-2020 format). Missing when neither is known.
    """
    if "stake" in validators.columns:
        return validators["stake"]
    require_columns(validators, ["validator_address"], "stake")
    values: list[int | None] = (
        exact_ints(validators["total_delegation"], "total_delegation")
        if "total_delegation" in validators.columns
        else [None] * len(validators)
    )
    if delegations is not None and any(v is None for v in values):
        require_columns(delegations, ["validator_address", "amount"], "stake")
        sums: dict[str, int] = {}
        for address, amount in zip(
            delegations["validator_address"].astype(object), exact_ints(delegations["amount"]), strict=True
        ):
            if amount is not None:
                sums[address] = sums.get(address, 0) + amount
        addresses = validators["validator_address"].astype(object).tolist()
        values = [sums.get(a, 0) if v is None else v for v, a in zip(values, addresses, strict=True)]
    return exact_series(values, index=validators.index, name="stake")


def annotate(
    validators: pd.DataFrame,
    voting_power: pd.DataFrame | None = None,
    delegations: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """A copy of ``validators`` with ``stake`` (exact atto), ``stake_one`` (float) and ``elected``.

    Works for both formats (see :func:`stake` and :func:`elected`); the other metrics and the
    plots read these columns when present.
    """
    require_columns(validators, ["validator_address"], "annotate")
    out = validators.copy()
    out["stake"] = stake(validators, delegations)
    out["stake_one"] = to_one(out["stake"]).to_numpy()
    out["elected"] = elected(validators, voting_power).to_numpy()
    return out


def lifetime_uptime(validators: pd.DataFrame) -> pd.Series:
    """Blocks signed / blocks to sign over each validator's life (NaN when it had none to sign),
    indexed by address."""
    require_columns(
        validators,
        ["validator_address", "lifetime_blocks_signed", "lifetime_blocks_to_sign"],
        "lifetime_uptime",
    )
    signed = floats(validators["lifetime_blocks_signed"]).to_numpy()
    to_sign = floats(validators["lifetime_blocks_to_sign"]).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(to_sign > 0, signed / np.where(to_sign > 0, to_sign, 1), np.nan)
    return pd.Series(values, index=_addresses(validators), name="lifetime_uptime")


def signing(
    validators: pd.DataFrame,
    threshold: float = SIGNING_THRESHOLD,
    voting_power: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Signing of the elected validators in the snapshot's epoch, worst first.

    Parameters
    ----------
    validators
        The ``validators`` dataset (``voting_power`` tells the elected ones in the early-2020
        format, see :func:`elected`).
    threshold
        Share of the epoch's blocks an elected validator must sign (Harmony: 0.66).

    Returns
    -------
    pandas.DataFrame
        One row per elected validator: ``validator_address``, ``name``,
        ``epoch_signing_percentage`` (0..1), ``epoch_blocks_signed``, ``epoch_blocks_to_sign``,
        ``lifetime_uptime`` (0..1) and ``below_threshold`` (signing share < ``threshold``;
        False when the epoch has no blocks to sign yet), sorted by signing share.
    """
    _check_share(threshold, "signing threshold")
    require_columns(validators, ["validator_address", "epoch_signing_percentage"], "signing")
    chosen = validators[elected(validators, voting_power).to_numpy()]
    share = floats(chosen["epoch_signing_percentage"]).to_numpy()
    out = pd.DataFrame(
        {
            "validator_address": chosen["validator_address"].astype(object).to_numpy(),
            "name": chosen["name"].astype(object).to_numpy() if "name" in chosen else None,
            "epoch_signing_percentage": share,
            "epoch_blocks_signed": floats(
                chosen.get("epoch_blocks_signed", pd.Series(np.nan, index=chosen.index))
            ).to_numpy(),
            "epoch_blocks_to_sign": floats(
                chosen.get("epoch_blocks_to_sign", pd.Series(np.nan, index=chosen.index))
            ).to_numpy(),
            "lifetime_uptime": lifetime_uptime(chosen).to_numpy()
            if "lifetime_blocks_to_sign" in chosen
            else np.nan,
            "below_threshold": np.nan_to_num(share, nan=np.inf) < threshold,
        }
    )
    return out.sort_values(["epoch_signing_percentage", "validator_address"], ignore_index=True)


def below_threshold(
    validators: pd.DataFrame,
    threshold: float = SIGNING_THRESHOLD,
    voting_power: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The elected validators signing less than ``threshold`` of their epoch's blocks (rows of
    :func:`signing`)."""
    table = signing(validators, threshold, voting_power)
    return table[table["below_threshold"]].reset_index(drop=True)


def delegation_summary(delegations: pd.DataFrame) -> pd.DataFrame:
    """Per validator: delegators, stake, the largest delegator's share and the self-stake share.

    Parameters
    ----------
    delegations
        The ``delegations`` dataset of one snapshot.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``validator_address``: ``delegators`` (delegations with a positive amount),
        ``stake`` (exact atto, the sum of the delegations), ``stake_one``, ``largest_delegator``,
        ``largest_delegator_share`` and ``self_stake_share`` (the validator's own delegation over
        its stake; shares are computed exactly, NaN for a validator with no stake), sorted by
        descending stake.
    """
    require_columns(delegations, ["validator_address", "delegator_address", "amount"], "delegation_summary")
    totals: dict[str, int] = {}
    counts: dict[str, int] = {}
    largest: dict[str, tuple[int, str]] = {}
    own: dict[str, int] = {}
    rows = zip(
        delegations["validator_address"].astype(object),
        delegations["delegator_address"].astype(object),
        exact_ints(delegations["amount"]),
        strict=True,
    )
    for validator, delegator, amount in rows:
        value = amount or 0
        totals[validator] = totals.get(validator, 0) + value
        counts.setdefault(validator, 0)
        if value > 0:
            counts[validator] += 1
        best = largest.get(validator)
        if best is None or value > best[0]:
            largest[validator] = (value, delegator)
        if delegator == validator:
            own[validator] = own.get(validator, 0) + value
    addresses = sorted(totals, key=lambda a: (-totals[a], a))
    stakes = [totals[a] for a in addresses]
    return pd.DataFrame(
        {
            "delegators": np.array([counts[a] for a in addresses], dtype=np.int64),
            "stake": exact_series(stakes).array,
            "stake_one": to_one(stakes).to_numpy(),
            "largest_delegator": [largest[a][1] for a in addresses],
            "largest_delegator_share": [ratio(largest[a][0], totals[a]) for a in addresses],
            "self_stake_share": [ratio(own.get(a, 0), totals[a]) for a in addresses],
        },
        index=pd.Index(addresses, name="validator_address", dtype=object),
    )


def apr_distribution(
    validators: pd.DataFrame, voting_power: pd.DataFrame | None = None, *, elected_only: bool = True
) -> pd.Series:
    """Distribution of the validators' APR (fractions): count, mean, min, 10/25/50/75/90 % and max.

    Only elected validators by default (the others earn nothing this epoch). The early-2020
    format has no APR: ``count`` is 0 and the rest NaN.
    """
    require_columns(validators, ["apr"], "apr_distribution")
    chosen = validators[elected(validators, voting_power).to_numpy()] if elected_only else validators
    values = floats(chosen["apr"]).dropna()
    stats: dict[str, float] = {"count": float(len(values))}
    if len(values):
        stats["mean"] = float(values.mean())
        stats["min"] = float(values.min())
        for q in (10, 25, 50, 75, 90):
            stats[f"p{q}"] = float(np.percentile(values, q))
        stats["max"] = float(values.max())
    else:
        for key in ("mean", "min", "p10", "p25", "p50", "p75", "p90", "max"):
            stats[key] = math.nan
    return pd.Series(stats, name="apr")


def staking_summary(
    validators: pd.DataFrame,
    voting_power: pd.DataFrame | None = None,
    delegations: pd.DataFrame | None = None,
    *,
    threshold: float = SIGNING_THRESHOLD,
) -> dict[str, Any]:
    """The network's figures in one snapshot.

    Returns
    -------
    dict
        ``validators`` (count), ``elected`` (count), ``total_stake`` (exact atto of all
        validators), ``total_stake_one``, ``elected_stake`` (exact atto), ``gini`` (of the
        elected validators' stakes), ``nakamoto`` (the weakest shard's Nakamoto coefficient at
        1/3; ``None`` without voting power), ``nakamoto_by_shard`` (``{shard: count}``),
        ``median_signing`` (median epoch signing share of the elected validators) and
        ``below_threshold`` (elected validators signing less than ``threshold``).
    """
    table = annotate(validators, voting_power, delegations)
    stakes = exact_ints(table["stake"])
    chosen = table["elected"].to_numpy(dtype=bool)
    elected_stakes = [s for s, e in zip(stakes, chosen, strict=True) if e and s is not None]
    total = sum(s for s in stakes if s is not None)
    by_shard: dict[int, int | None] = {}
    if voting_power is not None and len(voting_power):
        counts = nakamoto(voting_power)
        by_shard = {int(k): (None if v is pd.NA else int(v)) for k, v in counts.items()}
    present = [v for v in by_shard.values() if v is not None]
    signing_share = (
        floats(table.loc[chosen, "epoch_signing_percentage"]).dropna()
        if len(table)
        else pd.Series(dtype=float)
    )
    below = len(below_threshold(table, threshold)) if len(table) else 0
    return {
        "validators": len(table),
        "elected": int(chosen.sum()),
        "total_stake": total,
        "total_stake_one": float(to_one([total]).iloc[0]),
        "elected_stake": sum(elected_stakes),
        "gini": gini(elected_stakes),
        "nakamoto": min(present) if present else None,
        "nakamoto_by_shard": by_shard,
        "median_signing": float(signing_share.median()) if len(signing_share) else math.nan,
        "below_threshold": below,
    }


def snapshot_diff(
    old: pd.DataFrame,
    new: pd.DataFrame,
    *,
    old_voting_power: pd.DataFrame | None = None,
    new_voting_power: pd.DataFrame | None = None,
    old_delegations: pd.DataFrame | None = None,
    new_delegations: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """What changed between two validator snapshots.

    Parameters
    ----------
    old, new
        ``validators`` frames of the earlier and the later snapshot. In the early-2020 format
        pass the snapshots' voting power and delegations too (election and stake come from
        them, see :func:`annotate`).

    Returns
    -------
    pandas.DataFrame
        One row per validator in either snapshot, indexed by ``validator_address``: ``name``,
        ``joined`` / ``left`` (present only in the new / old snapshot), ``got_elected`` /
        ``dropped`` (entered / left the committee), ``stake_old`` / ``stake_new`` /
        ``stake_change`` (exact atto; a validator absent from a side counts 0 there),
        ``stake_change_one`` (float ONE), ``rate_old`` / ``rate_new`` / ``rate_change``
        (commission, fractions), sorted by descending stake change. ``df.attrs`` holds
        ``old_block`` / ``new_block``, the snapshots' blocks, when the frames carry them.
    """
    a_idx, a_stake, a_elected, a_rate, a_name = _side(annotate(old, old_voting_power, old_delegations))
    b_idx, b_stake, b_elected, b_rate, b_name = _side(annotate(new, new_voting_power, new_delegations))
    addresses = sorted(set(a_idx) | set(b_idx))
    rows: dict[str, list[Any]] = {
        k: [] for k in ("name", "joined", "left", "got_elected", "dropped", "rate_old", "rate_new")
    }
    stake_old: list[int] = []
    stake_new: list[int] = []
    for addr in addresses:
        i, j = a_idx.get(addr), b_idx.get(addr)
        rows["name"].append(b_name[j] if j is not None else a_name[i] if i is not None else None)
        rows["joined"].append(i is None)
        rows["left"].append(j is None)
        was = bool(a_elected[i]) if i is not None else False
        now = bool(b_elected[j]) if j is not None else False
        rows["got_elected"].append(now and not was)
        rows["dropped"].append(was and not now)
        stake_old.append((a_stake[i] or 0) if i is not None else 0)
        stake_new.append((b_stake[j] or 0) if j is not None else 0)
        rows["rate_old"].append(a_rate[i] if i is not None else np.nan)
        rows["rate_new"].append(b_rate[j] if j is not None else np.nan)
    change = [n - o for o, n in zip(stake_old, stake_new, strict=True)]
    frame = pd.DataFrame(
        {
            "name": rows["name"],
            "joined": np.array(rows["joined"], dtype=bool),
            "left": np.array(rows["left"], dtype=bool),
            "got_elected": np.array(rows["got_elected"], dtype=bool),
            "dropped": np.array(rows["dropped"], dtype=bool),
            "stake_old": exact_series(stake_old).array,
            "stake_new": exact_series(stake_new).array,
            "stake_change": exact_series(change).array,
            "stake_change_one": to_one(change).to_numpy(),
            "rate_old": np.array(rows["rate_old"], dtype=float),
            "rate_new": np.array(rows["rate_new"], dtype=float),
        },
        index=pd.Index(addresses, name="validator_address", dtype=object),
    )
    frame["rate_change"] = frame["rate_new"] - frame["rate_old"]
    order = sorted(range(len(addresses)), key=lambda k: (-change[k], addresses[k]))
    out = frame.iloc[order]
    for key, side in (("old_block", old), ("new_block", new)):
        if "snapshot_block" in side and side["snapshot_block"].notna().any():
            out.attrs[key] = int(floats(side["snapshot_block"]).max())
    return out


def _side(
    frame: pd.DataFrame,
) -> tuple[dict[Any, int], list[int | None], np.ndarray, np.ndarray, list[Any]]:
    """One annotated snapshot as :func:`snapshot_diff` reads it: each validator's row, exact
    stakes, elected flags, commission rates (NaN when absent) and names (``None`` when absent)."""
    index = {addr: i for i, addr in enumerate(frame["validator_address"].astype(object))}
    rate = floats(frame["rate"]).to_numpy() if "rate" in frame else np.full(len(frame), np.nan)
    names = frame["name"].astype(object).tolist() if "name" in frame else [None] * len(frame)
    return index, exact_ints(frame["stake"]), frame["elected"].to_numpy(dtype=bool), rate, names


def _check_share(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= float(value) <= 1:
        raise ConfigError(f"{what} must be a number between 0 and 1, got {short_repr(value)}")
    return float(value)
