"""The asynchronous public API: ``await hmyframe.aio.transactions(...)`` and friends.

Same names and parameters as the synchronous functions of :mod:`hmyframe` (each of those runs
the coroutine of the same name here). Each function's docstring explains every parameter::

    from hmyframe import aio
    df = await aio.transactions(1000, 1999, rpc="devnet")

The functions are made in :mod:`hmyframe.engine._public` from the datasets registry: one line
below binds each public name (a test checks the lines and the registry agree).
"""

from hmyframe.engine import DEFAULT_RPC as DEFAULT_RPC
from hmyframe.engine import DEFAULT_TRACE_RPC as DEFAULT_TRACE_RPC
from hmyframe.engine import RANGE_DATASETS as RANGE_DATASETS
from hmyframe.engine import SNAPSHOT_DATASETS as SNAPSHOT_DATASETS
from hmyframe.engine import FetchOptions as FetchOptions
from hmyframe.engine import Session as Session
from hmyframe.engine import _public
from hmyframe.engine import default_devnet as default_devnet
from hmyframe.engine._history import StakingHistory as StakingHistory
from hmyframe.engine._lookups import NotFoundWarning as NotFoundWarning

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
# any of those by name, and the point lookups
fetch = _public.fetch
head = _public.head
shards = _public.shards
pending_cx_receipts = _public.pending_cx_receipts
tx_counts = _public.tx_counts
tokens = _public.tokens
transactions_by_hash = _public.transactions_by_hash
traces_by_hash = _public.traces_by_hash
# accounts (issue 26): balances, histories, delegators, internal ONE movements, tokens held
from hmyframe.engine import _accounts  # noqa: E402

balances = _accounts.balances
account_transactions = _accounts.account_transactions
delegator_delegations = _accounts.delegator_delegations
delegator_undelegations = _accounts.delegator_undelegations
native_transfers = _accounts.native_transfers
rewards_collected = _accounts.rewards_collected
token_balances = _accounts.token_balances
holders = _accounts.holders
delegator_rewards = _accounts.delegator_rewards
# new blocks as they appear (an async iterator of frames)
from hmyframe.engine._follow import follow as follow  # noqa: E402

# validator snapshots epoch by epoch (not one dataset: a StakingHistory of several)
from hmyframe.engine._history import staking_history as staking_history  # noqa: E402

# exports to Parquet / CSV (in this process or on a Dask cluster)
from hmyframe.export import export as export  # noqa: E402

__all__ = [name for name in list(globals()) if not name.startswith("_")]
