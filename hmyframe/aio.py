"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

Same names and parameters as the synchronous functions of :mod:`hmyframe`; see
:mod:`hmyframe.fetch` for the common keyword arguments.
"""

from __future__ import annotations

from hmyframe.fetch import (
    FetchOptions,
    Session,
    blocks,
    delegations,
    fetch,
    head,
    pending_cx_receipts,
    shards,
    signers,
    staking_transactions,
    traces,
    traces_by_hash,
    transactions,
    transactions_by_hash,
    tx_counts,
    undelegations,
    validators,
    voting_power,
)

__all__ = [
    "FetchOptions",
    "Session",
    "blocks",
    "delegations",
    "fetch",
    "head",
    "pending_cx_receipts",
    "shards",
    "signers",
    "staking_transactions",
    "traces",
    "traces_by_hash",
    "transactions",
    "transactions_by_hash",
    "tx_counts",
    "undelegations",
    "validators",
    "voting_power",
]
