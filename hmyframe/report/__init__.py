"""Reports: one self-contained HTML file each (charts embedded as SVG, no network to view,
prints on A4), from Python or from ``hmyframe report ...``.

``staking_report(out, rpc=..., block=, compare=, history=)``
    A validator snapshot: summary figures, stake / concentration / voting power / status /
    commission / signing / delegation charts, the elected validators below the signing
    threshold, the largest stake changes since ``compare``, the network's history over the last
    ``history`` epochs.
``throughput_report(out, start, end, shard="all", rpc=...)``
    A block range: transactions and gas per time bucket and shard, gas utilisation, block
    times, cross-shard share, staking directives.
``account_report(out, address, epochs=10, rpc=..., labels=...)``
    One address: balance on every shard and what moved, transactions and counterparties,
    tokens held, delegations, rewards by validator over the last epochs (accrued and collected).
``validator_report(out, address, epochs=10, rpc=...)``
    One validator: signing per epoch, stake, delegators, rewards, commission, status changes,
    largest delegators.

Each is written once, as a coroutine in its module (``hmyframe.aio.staking_report`` and so on are
those coroutines); the functions here are their blocking twins. Each module's ``render(...)``
builds the page from frames already in hand (``render(...).render()`` is the HTML text).
Reports fetch through the normal cached fetchers; plots and metrics never fetch.
"""

from __future__ import annotations

import warnings
from typing import Any

from hmyframe._sync import blocking_twin
from hmyframe.report import account, staking, throughput, validator
from hmyframe.report.staking import Snapshot

__all__ = [
    "Snapshot",
    "account",
    "account_report",
    "staking",
    "staking_report",
    "throughput",
    "throughput_report",
    "validator",
    "validator_report",
]

staking_report = blocking_twin(staking.staking_report, "staking_report", module=__name__)
throughput_report = blocking_twin(throughput.throughput_report, "throughput_report", module=__name__)
validator_report = blocking_twin(validator.validator_report, "validator_report", module=__name__)
account_report = blocking_twin(account.account_report, "account_report", module=__name__)

#: The names the async forms had before they were doors of hmyframe.aio (deprecated).
_DEPRECATED = {f"{name}_async": name for name in ("staking_report", "throughput_report", "validator_report")}


def __getattr__(name: str) -> Any:
    """``staking_report_async`` and its like: deprecated aliases of the coroutines of
    :mod:`hmyframe.aio`."""
    if name not in _DEPRECATED:
        raise AttributeError(f"module 'hmyframe.report' has no attribute {name!r}")
    door = _DEPRECATED[name]
    warnings.warn(
        f"hmyframe.report.{name} is deprecated: use hmyframe.aio.{door} (the blocking "
        f"hmyframe.report.{door} is unchanged)",
        DeprecationWarning,
        stacklevel=2,
    )
    return globals()[door].__wrapped__
