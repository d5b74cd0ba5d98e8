"""Pure metrics on hmyframe's DataFrames: concentration, signing, delegation, diffs, throughput.

Nothing here fetches: every function takes frames (the datasets of :mod:`hmyframe`, or one
epoch of :func:`hmyframe.staking_history`) and returns numbers or frames. Amounts are read
exactly (sums of atto are Python ints; only final ratios become floats) and reported both
exact (atto) and as float ONE.

Concentration
    :func:`gini`, :func:`lorenz`, :func:`nakamoto` (per shard; ``.min()`` for the network),
    :func:`validator_voting_power`.
Staking snapshots
    :func:`annotate` (``stake`` / ``elected`` in either format), :func:`elected`, :func:`stake`,
    :func:`signing`, :func:`below_threshold`, :func:`lifetime_uptime`,
    :func:`delegation_summary`, :func:`apr_distribution`, :func:`staking_summary`,
    :func:`snapshot_diff`.
Throughput
    :func:`buckets` (transactions and gas per time bucket and shard), :func:`gas_utilisation`,
    :func:`block_times`, :func:`cross_shard`, :func:`staking_directives`,
    :func:`contract_creations`, :func:`active_senders`.
Accounts
    :func:`wealth_concentration` (per block: holders, Gini, top-N shares, Nakamoto),
    :func:`rich_list` (with known labels), :func:`balance_changes`,
    :func:`rewards_by_validator` (a delegator's rewards accrued and collected per validator and
    epoch), :func:`top_share`, :func:`holders_to_exceed`.
Fees and tokens
    :func:`fees` (per time bucket and shard: exact total, median, p95, failed share),
    :func:`top_payers`, :func:`token_activity` (per token: transfers, exact volume, senders,
    receivers; scaled with the ``tokens`` dataset).
DEX (UniswapV2-style pairs, from decoded ``Swap`` / ``Sync`` events; :mod:`hmyframe.metrics.dex`)
    :func:`dex_swaps` (direction, exact amounts, price, value in ONE), :func:`dex_trades` (the
    hops of a route joined), :func:`dex_reserves` (reserves, price and liquidity over time),
    :func:`dex_volume` (per pair, in all or per time bucket, in each token and in ONE).
Reading frames (what every metric, plot and report does with its input)
    :func:`exact_ints` / :func:`exact_series` (amounts as Python ints), :func:`amount_one` /
    :func:`to_one` (ONE as floats), :func:`floats` (a column as float64, nulls as NaN),
    :func:`ratio` (a fraction of exact ints as a float, NaN over 0),
    :func:`require_columns` (a frame lacking a needed column is a ConfigError naming it).
"""

from __future__ import annotations

from hmyframe.metrics._values import (
    ATTO_PER_ONE,
    amount_one,
    exact_ints,
    exact_series,
    floats,
    ratio,
    require_columns,
    to_one,
)
from hmyframe.metrics.accounts import balance_changes, rewards_by_validator, rich_list, wealth_concentration
from hmyframe.metrics.concentration import (
    gini,
    holders_to_exceed,
    lorenz,
    nakamoto,
    top_share,
    validator_voting_power,
)
from hmyframe.metrics.dex import dex_reserves, dex_swaps, dex_trades, dex_volume
from hmyframe.metrics.fees import fees, receipt_times, top_payers
from hmyframe.metrics.staking import (
    SIGNING_THRESHOLD,
    annotate,
    apr_distribution,
    below_threshold,
    delegation_summary,
    elected,
    lifetime_uptime,
    signing,
    snapshot_diff,
    stake,
    staking_summary,
)
from hmyframe.metrics.throughput import (
    DIRECTIVES,
    active_senders,
    block_times,
    bucket_frequency,
    buckets,
    contract_creations,
    cross_shard,
    gas_utilisation,
    staking_directives,
)
from hmyframe.metrics.tokens import ZERO_ADDRESS, token_activity

__all__ = [
    "ATTO_PER_ONE",
    "DIRECTIVES",
    "SIGNING_THRESHOLD",
    "ZERO_ADDRESS",
    "active_senders",
    "amount_one",
    "annotate",
    "apr_distribution",
    "balance_changes",
    "below_threshold",
    "block_times",
    "bucket_frequency",
    "buckets",
    "contract_creations",
    "cross_shard",
    "delegation_summary",
    "dex_reserves",
    "dex_swaps",
    "dex_trades",
    "dex_volume",
    "elected",
    "exact_ints",
    "exact_series",
    "fees",
    "floats",
    "gas_utilisation",
    "gini",
    "holders_to_exceed",
    "lifetime_uptime",
    "lorenz",
    "nakamoto",
    "ratio",
    "receipt_times",
    "require_columns",
    "rewards_by_validator",
    "rich_list",
    "signing",
    "snapshot_diff",
    "stake",
    "staking_directives",
    "staking_summary",
    "to_one",
    "token_activity",
    "top_payers",
    "top_share",
    "validator_voting_power",
    "wealth_concentration",
]
