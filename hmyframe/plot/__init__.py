"""Plots for staking and throughput analysis (matplotlib).

Every plot takes hmyframe frames and ``ax=None`` and returns the matplotlib Axes it drew on (a
new figure when ``ax`` is ``None``). They never fetch. Amounts are shown in ONE with thousands
separators, time axes in UTC, every plot has a title, one shared style
(:mod:`hmyframe.plot._style`), and an empty frame gives an empty plot that says so.

Staking (:mod:`hmyframe.plot.staking`)
    :func:`stake_distribution`, :func:`lorenz_curve`, :func:`signing_histogram`,
    :func:`voting_power_by_shard`, :func:`status_breakdown`, :func:`commission_distribution`,
    :func:`delegator_concentration`, :func:`snapshot_diff`, :func:`history`,
    :func:`validator_history`.
Throughput (:mod:`hmyframe.plot.throughput`)
    :func:`transactions`, :func:`gas`, :func:`gas_utilisation`, :func:`block_times`,
    :func:`cross_shard`, :func:`staking_directives`.
Fees and tokens (:mod:`hmyframe.plot.fees`, :mod:`hmyframe.plot.tokens`)
    :func:`fees`, :func:`failed_share`, :func:`top_tokens`.
Accounts (:mod:`hmyframe.plot.accounts`)
    :func:`balance_history`, :func:`wealth_lorenz`, :func:`rich_list`,
    :func:`rewards_by_validator`.
DEX (:mod:`hmyframe.plot.dex`; the frames of :mod:`hmyframe.metrics.dex`)
    :func:`dex_prices`, :func:`dex_price`, :func:`dex_volume`, :func:`dex_liquidity`.
Live (:mod:`hmyframe.plot.live`)
    :func:`live`: transactions and gas per minute per shard over the last minutes, following
    the chain and redrawn in place in Jupyter (it fetches: the one plot that does).

The style
    :func:`style` (a ``with`` block drawing in the plots' style: ``RC``, its matplotlib
    settings), :func:`fmt_one`, :func:`fmt_count`, :func:`fmt_percent` (numbers as the plots
    label them); the reports draw their figures with them.

Adding a plot is one function in the module of its theme, drawn inside :func:`style` with the
helpers of :mod:`hmyframe.plot._style`.
"""

from __future__ import annotations

from hmyframe.plot._style import RC, fmt_count, fmt_one, fmt_percent, style
from hmyframe.plot.accounts import balance_history, rewards_by_validator, rich_list, wealth_lorenz
from hmyframe.plot.dex import dex_liquidity, dex_price, dex_prices, dex_volume
from hmyframe.plot.fees import failed_share, fees
from hmyframe.plot.live import LiveView, live
from hmyframe.plot.staking import (
    commission_distribution,
    delegator_concentration,
    history,
    lorenz_curve,
    signing_histogram,
    snapshot_diff,
    stake_distribution,
    status_breakdown,
    validator_history,
    voting_power_by_shard,
)
from hmyframe.plot.throughput import (
    block_times,
    cross_shard,
    gas,
    gas_utilisation,
    staking_directives,
    transactions,
)
from hmyframe.plot.tokens import top_tokens

__all__ = [
    "RC",
    "LiveView",
    "balance_history",
    "block_times",
    "commission_distribution",
    "cross_shard",
    "delegator_concentration",
    "dex_liquidity",
    "dex_price",
    "dex_prices",
    "dex_volume",
    "failed_share",
    "fees",
    "fmt_count",
    "fmt_one",
    "fmt_percent",
    "gas",
    "gas_utilisation",
    "history",
    "live",
    "lorenz_curve",
    "rewards_by_validator",
    "rich_list",
    "signing_histogram",
    "snapshot_diff",
    "stake_distribution",
    "staking_directives",
    "status_breakdown",
    "style",
    "top_tokens",
    "transactions",
    "validator_history",
    "voting_power_by_shard",
    "wealth_lorenz",
]
