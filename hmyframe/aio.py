"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

This module is the one list of hmyframe's public functions: each line below binds one
coroutine (or async iterator) under its public name, and ``hmyframe.<name>`` is its blocking
twin (same name, parameters and documentation; made by :mod:`hmyframe` from this list on first
use, so it works in scripts and inside a running Jupyter loop alike)::

    from hmyframe import aio
    df = await aio.transactions(1000, 1999, rpc="devnet")

The dataset fetchers are made from their kind's template (:mod:`hmyframe._public`, which
documents every parameter once); the other functions are written in the module that does their
work and only named here. The reports' coroutines are here too (``await
aio.staking_report(...)``; their blocking twins are :mod:`hmyframe.report`'s), bound on first
use: they load pandas and matplotlib.
"""

import importlib as _importlib
import inspect as _inspect
from typing import TYPE_CHECKING, Any

from hmyframe import _public
from hmyframe.engine import DEFAULT_RPC as DEFAULT_RPC
from hmyframe.engine import DEFAULT_TRACE_RPC as DEFAULT_TRACE_RPC
from hmyframe.engine import RANGE_DATASETS as RANGE_DATASETS
from hmyframe.engine import SNAPSHOT_DATASETS as SNAPSHOT_DATASETS
from hmyframe.engine import FetchOptions as FetchOptions
from hmyframe.engine import Session as Session
from hmyframe.engine import StakingHistory as StakingHistory
from hmyframe.engine import default_devnet as default_devnet
from hmyframe.errors import NotFoundWarning as NotFoundWarning

# block ranges
blocks = _public.range_fetcher("blocks")
transactions = _public.range_fetcher("transactions")
staking_transactions = _public.range_fetcher("staking_transactions")
signers = _public.range_fetcher("signers")
traces = _public.traces_fetcher("traces")
receipts = _public.range_fetcher("receipts")
logs = _public.range_fetcher("logs")
token_transfers = _public.token_transfers_fetcher("token_transfers")
# validator snapshots
validators = _public.snapshot_fetcher("validators")
voting_power = _public.snapshot_fetcher("voting_power")
delegations = _public.snapshot_fetcher("delegations")
undelegations = _public.snapshot_fetcher("undelegations")
# the point lookups (and the deprecated door by name)
fetch = _public.fetch
head = _public.head
shards = _public.shards
pending_cx_receipts = _public.pending_cx_receipts
tx_counts = _public.tx_counts
tokens = _public.tokens
transactions_by_hash = _public.transactions_by_hash
traces_by_hash = _public.traces_by_hash
# accounts (issue 26): balances, histories, delegators, internal ONE movements, tokens held
balances = _public.balances
account_transactions = _public.account_transactions
delegator_delegations = _public.delegator_delegations
delegator_undelegations = _public.delegator_undelegations
native_transfers = _public.native_transfers
rewards_collected = _public.rewards_collected
token_balances = _public.token_balances
holders = _public.holders
delegator_rewards = _public.delegator_rewards
# UniswapV2-style pairs at a block (their tokens and reserves, by call)
dex_pairs = _public.dex_pairs
# contract events and calls decoded by an ABI (read through the logs / transactions / traces cache)
events = _public.events
calls = _public.calls
# new blocks as they appear (an async iterator of frames)
follow = _public.follow
# validator snapshots epoch by epoch (not one dataset: a StakingHistory of several)
staking_history = _public.staking_history

# exports to Parquet / CSV (in this process or on a Dask cluster)
from hmyframe.exporting import export as export  # noqa: E402

#: The reports' coroutines, each in the module of its report (bound on first use, below); their
#: blocking twins are hmyframe.report's.
REPORTS: dict[str, str] = {
    "staking_report": "hmyframe.report.staking",
    "throughput_report": "hmyframe.report.throughput",
    "validator_report": "hmyframe.report.validator",
    "account_report": "hmyframe.report.account",
}

#: The public functions bound above, in documentation order: ``hmyframe.<name>`` is the blocking
#: twin of each (a generator for :func:`follow`).
FUNCTIONS: tuple[str, ...] = tuple(
    name
    for name, value in list(globals().items())
    if not name.startswith("_")
    and (_inspect.iscoroutinefunction(value) or _inspect.isasyncgenfunction(value))
)

__all__ = [
    *FUNCTIONS,
    "DEFAULT_RPC",
    "DEFAULT_TRACE_RPC",
    "RANGE_DATASETS",
    "SNAPSHOT_DATASETS",
    "FetchOptions",
    "NotFoundWarning",
    "Session",
    "StakingHistory",
    "default_devnet",
    *REPORTS,
]

if TYPE_CHECKING:
    from hmyframe.report.account import account_report as account_report
    from hmyframe.report.staking import staking_report as staking_report
    from hmyframe.report.throughput import throughput_report as throughput_report
    from hmyframe.report.validator import validator_report as validator_report


def __getattr__(name: str) -> Any:
    """The reports' coroutines, imported on first use (they load pandas and matplotlib)."""
    if name not in REPORTS:
        raise AttributeError(f"module 'hmyframe.aio' has no attribute {name!r}")
    value = getattr(_importlib.import_module(REPORTS[name]), name)
    globals()[name] = value
    return value
