"""Concentration: Gini coefficient, Lorenz curve and the Nakamoto coefficient per shard.

Harmony's voting power, as the validator snapshots show it
--------------------------------------------------------
Each shard has its own committee of BLS keys, and a block is final when keys holding more
than 2/3 of that committee's votes sign it. A validator's keys may sit on several shards, so
voting power is a per-shard quantity. In today's format the snapshot gives, for each elected
key, ``group-percent`` (its share of the *staked* group's votes on the shard, proportional to
the key's effective EPoS stake) and ``overall-percent`` (its share of the *whole* committee's
votes): the two differ by the share of the committee held by Harmony's own (foundation)
keys, which carry a fixed part of the votes and are not staked validators, so they never appear
as rows. The early-2020 format gives ``voting-power-raw`` (the staked-group share) and
``voting-power-adjusted`` (the whole-committee share) per validator and shard. Either way a
validator's voting power on a shard is its whole-committee share: ``overall_percent`` summed
over its keys on the shard, or ``voting_power_adjusted``. Whatever the staked validators do not
hold on a shard (``1 - sum``) is the foundation's share.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from hmyframe.errors import ConfigError, short_repr
from hmyframe.metrics._values import exact_int, floats, is_missing, require_columns

__all__ = ["gini", "holders_to_exceed", "lorenz", "nakamoto", "top_share", "validator_voting_power"]


def _numbers(values: Any, what: str) -> list[int] | list[float]:
    """The non-missing values: exact ints when every value is integral (ints, Decimals),
    else floats. Negative values are refused."""
    items: Iterable[Any] = values.to_numpy(dtype=object) if isinstance(values, pd.Series) else values
    present = [v for v in items if not is_missing(v)]
    exact: list[int] = []
    for v in present:
        try:
            exact.append(exact_int(v, what))
        except ConfigError:
            break
    else:
        if any(v < 0 for v in exact):
            raise ConfigError(f"{what} needs non-negative values, got {min(exact)}")
        return exact
    try:
        out = [float(v) for v in present]
    except (TypeError, ValueError):
        raise ConfigError(f"{what} needs numbers, got {short_repr(present[:3])}") from None
    if any(math.isnan(v) or v < 0 for v in out):
        raise ConfigError(f"{what} needs non-negative numbers, got {min(out)}")
    return out


def gini(values: Any) -> float:
    """Gini coefficient of non-negative values (0: all equal, towards 1: one holds everything).

    Exact for integer amounts (atto): sums and products are Python ints and only the final
    ratio becomes a float. With values sorted ascending, ``x_1 <= ... <= x_n`` and total ``S``::

        G = (2 * sum(i * x_i) - (n + 1) * S) / (n * S)

    Parameters
    ----------
    values
        A Series, array or iterable (ints, Decimals or floats); missing values are ignored.

    Returns
    -------
    float
        ``NaN`` when there is no value or the total is 0.

    Examples
    --------
    >>> gini([1, 2, 3, 4])
    0.25
    """
    xs = sorted(_numbers(values, "gini"))
    n = len(xs)
    total = sum(xs)
    if n == 0 or total == 0:
        return math.nan
    weighted = sum((i + 1) * x for i, x in enumerate(xs))
    if all(isinstance(x, int) for x in xs):
        return float(Fraction(2 * int(weighted) - (n + 1) * int(total), n * int(total)))
    return (2 * weighted - (n + 1) * total) / (n * total)


def top_share(values: Any, n: int) -> float:
    """Share of the total held by the ``n`` largest values (exact for integer amounts).

    Parameters
    ----------
    values
        Non-negative values (see :func:`gini`): balances, stakes...
    n
        How many of the largest values (``n`` >= 1; more than there are: all of them).

    Returns
    -------
    float
        ``NaN`` when there is no value or the total is 0.

    Examples
    --------
    >>> top_share([5, 3, 1, 1], 2)
    0.8
    """
    given: object = n
    if isinstance(given, bool) or not isinstance(given, int) or given < 1:
        raise ConfigError(f"top_share needs n >= 1 (how many of the largest values), got {short_repr(n)}")
    xs = sorted(_numbers(values, "top_share"), reverse=True)
    total = sum(xs)
    if not xs or total == 0:
        return math.nan
    top = sum(xs[:n])
    if all(isinstance(x, int) for x in xs):
        return float(Fraction(int(top), int(total)))
    return float(top) / float(total)


def holders_to_exceed(values: Any, threshold: float = 0.5) -> int | None:
    """The Nakamoto coefficient of a set of holdings: the fewest holders whose combined values
    exceed ``threshold`` of the total (the largest first; exact for integer amounts).

    Parameters
    ----------
    values
        Non-negative values (see :func:`gini`).
    threshold
        Share of the total to exceed, strictly between 0 and 1 (0.5: a majority).

    Returns
    -------
    int or None
        ``None`` when there is no value or the total is 0.

    Examples
    --------
    >>> holders_to_exceed([5, 3, 1, 1])
    1
    >>> holders_to_exceed([4, 3, 2, 1])
    2
    """
    _check_threshold(threshold, "holders_to_exceed")
    xs = sorted(_numbers(values, "holders_to_exceed"), reverse=True)
    total = sum(xs)
    if not xs or total == 0:
        return None
    exact = all(isinstance(x, int) for x in xs)
    limit = Fraction(threshold) * int(total) if exact else float(threshold) * float(total)
    running: Any = 0
    for i, x in enumerate(xs, start=1):
        running += x
        if running > limit:
            return i
    return None  # pragma: no cover (the whole total exceeds any threshold below 1)


def lorenz(values: Any) -> pd.DataFrame:
    """Points of the Lorenz curve: the poorest ``population_share`` holds ``value_share``.

    Parameters
    ----------
    values
        Non-negative values (see :func:`gini`).

    Returns
    -------
    pandas.DataFrame
        ``n + 1`` rows from ``(0, 0)`` to ``(1, 1)`` with float columns ``population_share``
        and ``value_share`` (cumulative shares computed exactly for integer amounts); empty
        when there is no value or the total is 0.

    Examples
    --------
    >>> lorenz([3, 1]).value_share.tolist()
    [0.0, 0.25, 1.0]
    """
    xs = sorted(_numbers(values, "lorenz"))
    n = len(xs)
    total = sum(xs)
    if n == 0 or total == 0:
        return pd.DataFrame(
            {"population_share": pd.Series(dtype=float), "value_share": pd.Series(dtype=float)}
        )
    running: float = 0
    shares = [0.0]
    for x in xs:
        running += x
        shares.append(
            float(Fraction(int(running), total)) if isinstance(total, int) else float(running) / total
        )
    return pd.DataFrame({"population_share": np.arange(n + 1) / n, "value_share": shares})


def validator_voting_power(voting_power: pd.DataFrame) -> pd.DataFrame:
    """Each validator's voting power on each shard (its share of the whole committee's votes).

    Parameters
    ----------
    voting_power
        The ``voting_power`` dataset (current format: ``overall_percent`` per BLS key, summed
        here; early-2020: ``voting_power_adjusted`` per shard), or any frame with
        ``shard_id``, ``validator_address`` and a ``voting_power`` column.

    Returns
    -------
    pandas.DataFrame
        Columns ``shard_id``, ``validator_address``, ``voting_power`` (float, 0..1), sorted
        by shard and descending power.
    """
    require_columns(voting_power, ["shard_id", "validator_address"], "validator_voting_power")
    column = next(
        (
            c
            for c in ("voting_power", "overall_percent", "voting_power_adjusted")
            if c in voting_power.columns and voting_power[c].notna().any()
        ),
        None,
    )
    if column is None:
        if len(voting_power) and not {"overall_percent", "voting_power_adjusted", "voting_power"} & set(
            voting_power.columns
        ):
            raise ConfigError(
                "validator_voting_power needs an overall_percent (current format), voting_power_adjusted "
                "(early-2020) or voting_power column"
            )
        return pd.DataFrame(
            {
                "shard_id": pd.Series(dtype=np.int64),
                "validator_address": pd.Series(dtype=object),
                "voting_power": pd.Series(dtype=float),
            }
        )
    frame = pd.DataFrame(
        {
            "shard_id": floats(voting_power["shard_id"]).astype(np.int64),
            "validator_address": voting_power["validator_address"].astype(object).to_numpy(),
            "voting_power": floats(voting_power[column]).fillna(0.0).to_numpy(),
        }
    )
    grouped = frame.groupby(["shard_id", "validator_address"], as_index=False, sort=False)[
        "voting_power"
    ].sum()
    return grouped.sort_values(
        ["shard_id", "voting_power", "validator_address"], ascending=[True, False, True], ignore_index=True
    )


def nakamoto(voting_power: pd.DataFrame, threshold: float = 1 / 3) -> pd.Series:
    """Nakamoto coefficient per shard: the fewest validators whose combined voting power on the
    shard exceeds ``threshold`` of the committee's votes.

    With ``threshold=1/3`` that many validators can halt the shard (refuse to sign); with 2/3 they
    could finalise blocks alone. The network's figure is its weakest shard: ``.min()``.
    Harmony's foundation keys hold part of each committee's votes and are not validator rows
    (see the module documentation): they count towards the total but are never counted as a
    validator, so a shard where the staked validators together do not exceed the threshold
    gets ``<NA>``.

    Parameters
    ----------
    voting_power
        The ``voting_power`` dataset (either format), see :func:`validator_voting_power`.
    threshold
        Share of the committee's votes to exceed, strictly between 0 and 1.

    Returns
    -------
    pandas.Series
        Integer counts (``int64[pyarrow]``, ``<NA>`` where unreachable) indexed by ``shard_id``,
        named ``nakamoto``.

    Examples
    --------
    >>> vp = pd.DataFrame({"shard_id": [0, 0, 0], "validator_address": ["a", "b", "c"],
    ...                    "voting_power": [0.5, 0.3, 0.2]})
    >>> nakamoto(vp).tolist()
    [1]
    """
    _check_threshold(threshold)
    power = validator_voting_power(voting_power)
    shards: list[int] = []
    counts: list[int | None] = []
    for shard, group in power.groupby("shard_id", sort=True):
        running = 0.0
        found: int | None = None
        for i, share in enumerate(group["voting_power"].to_numpy(), start=1):
            running += float(share)
            if running > threshold:
                found = i
                break
        shards.append(int(shard))
        counts.append(found)
    index = pd.Index(shards, name="shard_id", dtype=np.int64)
    return pd.Series(pd.array(counts, dtype=pd.ArrowDtype(pa.int64())), index=index, name="nakamoto")


def _check_threshold(threshold: object, what: str = "nakamoto") -> None:
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 < float(threshold) < 1:
        raise ConfigError(
            f"{what} threshold must be a number strictly between 0 and 1, got {short_repr(threshold)}"
        )
