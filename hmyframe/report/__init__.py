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

Each has an ``*_async`` twin, and each module's ``render(...)`` builds the page from frames
already in hand (``render(...).render()`` is the HTML text). Reports fetch through the normal
cached fetchers; plots and metrics never fetch.
"""

from __future__ import annotations

from hmyframe.report import account, staking, throughput, validator
from hmyframe.report.account import account_report, account_report_async
from hmyframe.report.staking import Snapshot, staking_report, staking_report_async
from hmyframe.report.throughput import throughput_report, throughput_report_async
from hmyframe.report.validator import validator_report, validator_report_async

__all__ = [
    "Snapshot",
    "account",
    "account_report",
    "account_report_async",
    "staking",
    "staking_report",
    "staking_report_async",
    "throughput",
    "throughput_report",
    "throughput_report_async",
    "validator",
    "validator_report",
    "validator_report_async",
]
