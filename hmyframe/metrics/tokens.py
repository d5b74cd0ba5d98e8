"""Token metrics on ``token_transfers``: per token, how often it moved, how much, between whom.

Volumes are summed exactly (Python ints, the ``uint256`` dtype: a token's units, whatever its
supply); with the ``tokens`` dataset (:func:`hmyframe.tokens`) they are also scaled by each
token's ``decimals`` (a float for display; exact with :func:`hmyframe.to_units`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa

from hmyframe import amounts
from hmyframe.metrics._values import exact_ints, floats, is_missing, require_columns

__all__ = ["ZERO_ADDRESS", "token_activity"]

#: The zero address: the sender of a mint, the receiver of a burn.
ZERO_ADDRESS = "0x" + "0" * 40

_TOKEN_COLUMNS = ["name", "symbol", "decimals"]


class _Tally:
    """One token's running counts."""

    __slots__ = ("burns", "mints", "receivers", "senders", "token_hex", "transfers", "volume")

    def __init__(self, token_hex: str) -> None:
        self.token_hex = token_hex
        self.transfers = self.volume = self.mints = self.burns = 0
        self.senders: set[str] = set()
        self.receivers: set[str] = set()

    def add(self, sender: str, receiver: str, amount: int) -> None:
        self.transfers += 1
        self.volume += amount
        if sender == ZERO_ADDRESS:
            self.mints += 1
        else:
            self.senders.add(sender)
        if receiver == ZERO_ADDRESS:
            self.burns += 1
        else:
            self.receivers.add(receiver)


def _volumes(values: list[int]) -> pd.api.extensions.ExtensionArray | np.ndarray:
    """Exact volumes as ``uint256``; Python ints (object) if a sum outgrows 2**256 - 1."""
    if all(v <= amounts.UINT256_MAX for v in values):
        return pd.array(values, dtype="uint256")
    return np.array(values, dtype=object)


def _token_table(tokens: pd.DataFrame) -> pd.DataFrame:
    """One row per (shard, token) of a ``tokens`` frame: its latest read (highest block)."""
    require_columns(tokens, ["address_hex", *_TOKEN_COLUMNS], "token_activity (tokens)")
    table = pd.DataFrame(
        {
            "token_address_hex": tokens["address_hex"].astype(object).str.lower().to_numpy(),
            "shard_id": floats(tokens["shard_id"]).to_numpy() if "shard_id" in tokens else np.nan,
            "block": floats(tokens["block_number"]).to_numpy() if "block_number" in tokens else 0.0,
            "name": tokens["name"].astype(object).to_numpy(),
            "symbol": tokens["symbol"].astype(object).to_numpy(),
            "decimals": [None if is_missing(d) else int(d) for d in tokens["decimals"].astype(object)],
        }
    )
    return table.sort_values("block", kind="stable").drop_duplicates(
        ["token_address_hex", "shard_id"], keep="last"
    )


def token_activity(token_transfers: pd.DataFrame, tokens: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per token: transfers, exact volume, mints, burns, distinct senders and receivers.

    Parameters
    ----------
    token_transfers
        The ``token_transfers`` dataset (one or several shards).
    tokens
        Optional: the ``tokens`` dataset of these tokens (:func:`hmyframe.tokens`), matched on the
        address (and ``shard_id`` when both frames have one; the latest read of a token when it
        was read at several blocks). Adds ``name``, ``symbol``, ``decimals`` and
        ``volume_scaled``.

    Returns
    -------
    pandas.DataFrame
        One row per (``shard_id``, ``token_address``, ``standard``), most transfers first (ties
        in address order): ``token_address_hex``, ``transfers`` (rows: one per id of an HRC-1155
        batch), ``volume`` (sum of ``amount`` in the token's smallest unit, exact ``uint256``;
        the number of NFTs moved for HRC-721; exact Python ints in an ``object`` column in the
        rare case a sum exceeds 2**256 - 1), ``mints`` (from the zero address), ``burns`` (to
        it), ``senders`` and ``receivers`` (distinct addresses, the zero address not counted);
        with ``tokens`` also ``name``, ``symbol``, ``decimals`` and ``volume_scaled``
        (``volume / 10**decimals`` as float64, correctly rounded; NaN where decimals are unknown).

    Raises
    ------
    ConfigError
        Missing columns in either frame.
    """
    require_columns(
        token_transfers,
        [
            "shard_id",
            "standard",
            "token_address",
            "token_address_hex",
            "from_address_hex",
            "to_address_hex",
            "amount",
        ],
        "token_activity",
    )
    out = _activity(_tallies(token_transfers))
    return out if tokens is None else _with_tokens(out, tokens)


def _tallies(token_transfers: pd.DataFrame) -> dict[tuple[int, str, str], _Tally]:
    """Each (shard, token, standard)'s tally of the transfers, exact amounts summed."""
    keys = zip(
        floats(token_transfers["shard_id"]).astype(np.int64).tolist(),
        token_transfers["token_address"].astype(object).tolist(),
        token_transfers["standard"].astype(object).tolist(),
        strict=True,
    )
    groups: dict[tuple[int, str, str], _Tally] = {}
    rows = zip(
        keys,
        token_transfers["token_address_hex"].astype(object).tolist(),
        token_transfers["from_address_hex"].astype(object).tolist(),
        token_transfers["to_address_hex"].astype(object).tolist(),
        exact_ints(token_transfers["amount"], "amount"),
        strict=True,
    )
    for key, token_hex, sender, receiver, amount in rows:
        tally = groups.get(key)
        if tally is None:
            tally = groups[key] = _Tally(str(token_hex).lower())
        tally.add(sender, receiver, amount or 0)
    return groups


def _activity(groups: dict[tuple[int, str, str], _Tally]) -> pd.DataFrame:
    """One row per tally, most transfers first (ties in key order)."""
    order = sorted(groups, key=lambda k: (-groups[k].transfers, k))
    tallies = [groups[k] for k in order]
    return pd.DataFrame(
        {
            "shard_id": pd.array([k[0] for k in order], dtype=np.int64),
            "token_address": [k[1] for k in order],
            "token_address_hex": [t.token_hex for t in tallies],
            "standard": [k[2] for k in order],
            "transfers": pd.array([t.transfers for t in tallies], dtype=np.int64),
            "volume": _volumes([t.volume for t in tallies]),
            "mints": pd.array([t.mints for t in tallies], dtype=np.int64),
            "burns": pd.array([t.burns for t in tallies], dtype=np.int64),
            "senders": pd.array([len(t.senders) for t in tallies], dtype=np.int64),
            "receivers": pd.array([len(t.receivers) for t in tallies], dtype=np.int64),
        }
    )


def _with_tokens(out: pd.DataFrame, tokens: pd.DataFrame) -> pd.DataFrame:
    """``out`` with each token's name, symbol, decimals and scaled volume from ``tokens``."""
    table = _token_table(tokens)
    on = ["token_address_hex"]
    if table["shard_id"].notna().all():
        on.append("shard_id")
        table = table.astype({"shard_id": np.int64})
    else:
        table = table.drop(columns="shard_id").drop_duplicates("token_address_hex", keep="last")
    merged = out.merge(table[[*on, *_TOKEN_COLUMNS]], on=on, how="left")
    decimals = [None if is_missing(d) else int(d) for d in merged["decimals"].astype(object)]
    merged["decimals"] = pd.array(decimals, dtype="Int64")
    for text in ("name", "symbol"):  # a token not in ``tokens``: NA, as in the datasets (not NaN)
        merged[text] = pd.array(
            [None if is_missing(v) else str(v) for v in merged[text].astype(object)],
            dtype=pd.ArrowDtype(pa.string()),
        )
    merged["volume_scaled"] = (
        amounts.to_units(merged["volume"], decimals, exact=False).to_numpy()
        if len(merged)
        else np.array([], dtype=np.float64)
    )
    merged["volume_scaled"] = merged["volume_scaled"].fillna(math.nan)
    return merged
