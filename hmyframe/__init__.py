"""hmyframe: Harmony blockchain data as exact, typed pandas DataFrames.

Quick tour::

    import hmyframe
    tx = hmyframe.transactions(0, 999, rpc="devnet")      # a DataFrame, value exact in atto
    vals = hmyframe.validators(rpc="devnet")             # the validator snapshot at the head
    hmyframe.schema("transactions")                      # columns, Arrow types, descriptions

Every fetcher has an async twin in :mod:`hmyframe.aio`. Fetched ranges are cached as Parquet
under ``data/`` (see :mod:`hmyframe.cache`), so a range is fetched once.
"""

from __future__ import annotations

from hmyframe import aio
from hmyframe.amounts import to_one
from hmyframe.api import (
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
from hmyframe.cache import Cache
from hmyframe.datasets import DATASETS, to_pandas
from hmyframe.datasets import get as dataset
from hmyframe.engine import FetchOptions, NotFoundWarning, Session
from hmyframe.errors import HmyframeError
from hmyframe.rpc import Client, RetryPolicy

__version__ = "0.1.0"

__all__ = [
    "DATASETS",
    "Cache",
    "Client",
    "FetchOptions",
    "HmyframeError",
    "NotFoundWarning",
    "RetryPolicy",
    "Session",
    "__version__",
    "aio",
    "blocks",
    "dataset",
    "delegations",
    "fetch",
    "head",
    "pending_cx_receipts",
    "schema",
    "shards",
    "signers",
    "staking_transactions",
    "to_one",
    "to_pandas",
    "traces",
    "traces_by_hash",
    "transactions",
    "transactions_by_hash",
    "tx_counts",
    "undelegations",
    "validators",
    "voting_power",
]


def schema(name: str) -> object:
    """The Arrow schema of dataset ``name`` (column names, types and one-line descriptions).

    Parameters
    ----------
    name
        A dataset name (``hmyframe.DATASETS`` lists them).

    Returns
    -------
    pyarrow.Schema
    """
    return dataset(name).schema
