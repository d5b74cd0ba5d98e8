"""The blocking twins of :mod:`hmyframe.aio`'s functions: ``hmyframe.<name>`` (re-exported there).

One line each, in :data:`hmyframe.aio.FUNCTIONS` order (``tests/test_public_registry.py``
checks the two lists agree): spelled out rather than made in a loop so that type checkers and
IDEs see each function's own signature. Made by :func:`hmyframe._sync.blocking_twin` (a
generator, :func:`~hmyframe._sync.iterating_twin`, for :func:`hmyframe.aio.follow`): same name,
parameters and documentation, run to completion in scripts and inside a running Jupyter loop.
"""

from hmyframe import aio as _aio
from hmyframe._sync import blocking_twin as _twin
from hmyframe._sync import iterating_twin as _generator_twin

blocks = _twin(_aio.blocks, "blocks")
transactions = _twin(_aio.transactions, "transactions")
staking_transactions = _twin(_aio.staking_transactions, "staking_transactions")
signers = _twin(_aio.signers, "signers")
traces = _twin(_aio.traces, "traces")
receipts = _twin(_aio.receipts, "receipts")
logs = _twin(_aio.logs, "logs")
token_transfers = _twin(_aio.token_transfers, "token_transfers")
validators = _twin(_aio.validators, "validators")
voting_power = _twin(_aio.voting_power, "voting_power")
delegations = _twin(_aio.delegations, "delegations")
undelegations = _twin(_aio.undelegations, "undelegations")
fetch = _twin(_aio.fetch, "fetch")
head = _twin(_aio.head, "head")
shards = _twin(_aio.shards, "shards")
pending_cx_receipts = _twin(_aio.pending_cx_receipts, "pending_cx_receipts")
tx_counts = _twin(_aio.tx_counts, "tx_counts")
tokens = _twin(_aio.tokens, "tokens")
transactions_by_hash = _twin(_aio.transactions_by_hash, "transactions_by_hash")
traces_by_hash = _twin(_aio.traces_by_hash, "traces_by_hash")
balances = _twin(_aio.balances, "balances")
account_transactions = _twin(_aio.account_transactions, "account_transactions")
delegator_delegations = _twin(_aio.delegator_delegations, "delegator_delegations")
delegator_undelegations = _twin(_aio.delegator_undelegations, "delegator_undelegations")
native_transfers = _twin(_aio.native_transfers, "native_transfers")
rewards_collected = _twin(_aio.rewards_collected, "rewards_collected")
token_balances = _twin(_aio.token_balances, "token_balances")
holders = _twin(_aio.holders, "holders")
delegator_rewards = _twin(_aio.delegator_rewards, "delegator_rewards")
dex_pairs = _twin(_aio.dex_pairs, "dex_pairs")
events = _twin(_aio.events, "events")
calls = _twin(_aio.calls, "calls")
follow = _generator_twin(_aio.follow, "follow")
staking_history = _twin(_aio.staking_history, "staking_history")
export = _twin(_aio.export, "export")
