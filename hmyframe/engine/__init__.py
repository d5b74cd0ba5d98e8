"""The fetch engine: sessions, the block-range driver, snapshots, lookups and following.

This package holds the machinery, which names no dataset: what to fetch and how comes from the
datasets' declarations (:mod:`hmyframe.datasets.sources`). The public functions made from it
are bound in :mod:`hmyframe.aio` (their templates and documentation in :mod:`hmyframe._public`);
the rest of hmyframe uses the names below, and only those. Importing it loads neither pandas
nor pyarrow.

Sessions
    :class:`Session` (client + cache + chain id; an open one may be passed as ``rpc=``),
    :class:`FetchOptions`, :func:`default_devnet`, :func:`block_arg` (a caller's block number
    checked), the default endpoints.
Arguments
    :func:`parse_range` (start / end specs checked before any request), :func:`shard_spec` /
    :func:`shard_ids` / :func:`shard_label` (a caller's shards), :func:`check_output` /
    :func:`to_output` (pandas, Arrow or polars), :class:`Progress` (bars and callbacks).
Block ranges
    :func:`fetch_range` (one shard), :func:`fetch_shards` (several, concurrently),
    :func:`plan_range` (what is missing), :func:`run_chunks` (a failing chunk costs no other).
Snapshots and lookups
    :func:`fetch_snapshot`, :func:`fetch_staking_history` (:class:`StakingHistory`,
    :func:`epoch_of_block`), :func:`fetch_tokens` / :func:`tokens_of_transfers`,
    :func:`fetch_dex_pairs` (UniswapV2-style pairs' tokens and reserves at a block), and the point
    lookups (``fetch_tx_counts``, ``fetch_*_by_hash``, ``fetch_pending_cx_receipts``,
    ``fetch_sharding_structure``).
Accounts
    ``fetch_balances``, ``fetch_token_balances``, ``fetch_delegator_table`` (delegations cached
    per block), ``fetch_account_transactions``, ``fetch_native_transfers`` (``CX_WINDOW``),
    ``fetch_rewards_collected``, ``fetch_delegator_rewards``, ``fetch_holders``;
    ``addresses_arg`` / ``token_pairs`` / ``history_args`` (a caller's arguments checked before
    any request).
Following
    :func:`follow_shards` (batches of new blocks as heads come), :func:`follow_export`,
    :class:`Batch`.
"""

from hmyframe.datasets.sources import RANGE_DATASETS as RANGE_DATASETS
from hmyframe.datasets.sources import SNAPSHOT_DATASETS as SNAPSHOT_DATASETS
from hmyframe.engine._accounts import (
    CX_WINDOW,
    addresses_arg,
    fetch_account_transactions,
    fetch_balances,
    fetch_delegator_rewards,
    fetch_delegator_table,
    fetch_holders,
    fetch_native_transfers,
    fetch_rewards_collected,
    fetch_token_balances,
    history_args,
    token_pairs,
)
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._chunks import run_chunks
from hmyframe.engine._dex import fetch_dex_pairs
from hmyframe.engine._follow import Batch, follow_export, follow_shards
from hmyframe.engine._history import StakingHistory, epoch_of_block, fetch_staking_history
from hmyframe.engine._lookups import (
    MissingPolicy,
    fetch_pending_cx_receipts,
    fetch_sharding_structure,
    fetch_traces_by_hash,
    fetch_transactions_by_hash,
    fetch_tx_counts,
)
from hmyframe.engine._output import Output, check_output, to_output
from hmyframe.engine._progress import Progress
from hmyframe.engine._ranges import fetch_range, fetch_shards, plan_range, prefetch_range
from hmyframe.engine._session import (
    DEFAULT_RPC,
    DEFAULT_TRACE_RPC,
    FetchOptions,
    Session,
    block_arg,
    default_devnet,
)
from hmyframe.engine._shards import ShardSpec, shard_ids, shard_label, shard_spec
from hmyframe.engine._snapshots import fetch_snapshot
from hmyframe.engine._tokens import fetch_tokens, tokens_of_transfers

__all__ = [
    "CX_WINDOW",
    "DEFAULT_RPC",
    "DEFAULT_TRACE_RPC",
    "RANGE_DATASETS",
    "SNAPSHOT_DATASETS",
    "Batch",
    "FetchOptions",
    "MissingPolicy",
    "Output",
    "Progress",
    "Session",
    "ShardSpec",
    "StakingHistory",
    "addresses_arg",
    "block_arg",
    "check_output",
    "default_devnet",
    "epoch_of_block",
    "fetch_account_transactions",
    "fetch_balances",
    "fetch_delegator_rewards",
    "fetch_delegator_table",
    "fetch_dex_pairs",
    "fetch_holders",
    "fetch_native_transfers",
    "fetch_pending_cx_receipts",
    "fetch_range",
    "fetch_rewards_collected",
    "fetch_sharding_structure",
    "fetch_shards",
    "fetch_snapshot",
    "fetch_staking_history",
    "fetch_token_balances",
    "fetch_tokens",
    "fetch_traces_by_hash",
    "fetch_transactions_by_hash",
    "fetch_tx_counts",
    "follow_export",
    "follow_shards",
    "history_args",
    "parse_range",
    "plan_range",
    "prefetch_range",
    "run_chunks",
    "shard_ids",
    "shard_label",
    "shard_spec",
    "to_output",
    "token_pairs",
    "tokens_of_transfers",
]
