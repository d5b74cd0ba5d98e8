"""The synchronous public API: one thin wrapper per coroutine of :mod:`hmyframe.engine`.

Each function here has the same name, parameters and documentation as its async twin in
``hmyframe.aio`` and simply runs it with :func:`hmyframe._sync.run`, so it works in scripts and
inside a running Jupyter event loop alike.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from hmyframe import engine as _aio
from hmyframe._sync import run

__all__ = [
    "blocks",
    "delegations",
    "fetch",
    "head",
    "pending_cx_receipts",
    "shards",
    "signers",
    "staking_history",
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

P = ParamSpec("P")
R = TypeVar("R")


def _sync(coroutine_function: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """The blocking twin of ``coroutine_function`` (same signature and docstring)."""

    @functools.wraps(coroutine_function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        return run(coroutine_function(*args, **kwargs))

    wrapper.__doc__ = (coroutine_function.__doc__ or "") + (
        f"\n\n    Synchronous twin of ``await hmyframe.aio.{coroutine_function.__name__}(...)``.\n"
    )
    return wrapper


blocks = _sync(_aio.blocks)
transactions = _sync(_aio.transactions)
staking_transactions = _sync(_aio.staking_transactions)
signers = _sync(_aio.signers)
traces = _sync(_aio.traces)
validators = _sync(_aio.validators)
voting_power = _sync(_aio.voting_power)
delegations = _sync(_aio.delegations)
undelegations = _sync(_aio.undelegations)
fetch = _sync(_aio.fetch)
head = _sync(_aio.head)
shards = _sync(_aio.shards)
pending_cx_receipts = _sync(_aio.pending_cx_receipts)
tx_counts = _sync(_aio.tx_counts)
transactions_by_hash = _sync(_aio.transactions_by_hash)
traces_by_hash = _sync(_aio.traces_by_hash)
staking_history = _sync(_aio.staking_history)
