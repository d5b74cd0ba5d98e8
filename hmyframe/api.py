"""The synchronous public API: the blocking twin of each coroutine of :mod:`hmyframe.aio`.

Each function here has the same name, parameters and documentation as its async twin and runs
it with :func:`hmyframe._sync.run`, so it works in scripts and inside a running Jupyter event
loop alike. One line binds each name of :data:`hmyframe.engine._public.REGISTRY` (a test checks
they agree); ``hmyframe`` re-exports them all.
"""

from hmyframe import aio as _aio
from hmyframe._sync import iterating_twin as _iterating_twin
from hmyframe.engine._public import sync_twin as _twin

blocks = _twin(_aio.blocks)
transactions = _twin(_aio.transactions)
staking_transactions = _twin(_aio.staking_transactions)
signers = _twin(_aio.signers)
traces = _twin(_aio.traces)
receipts = _twin(_aio.receipts)
logs = _twin(_aio.logs)
token_transfers = _twin(_aio.token_transfers)
validators = _twin(_aio.validators)
voting_power = _twin(_aio.voting_power)
delegations = _twin(_aio.delegations)
undelegations = _twin(_aio.undelegations)
fetch = _twin(_aio.fetch)
head = _twin(_aio.head)
shards = _twin(_aio.shards)
pending_cx_receipts = _twin(_aio.pending_cx_receipts)
tx_counts = _twin(_aio.tx_counts)
tokens = _twin(_aio.tokens)
transactions_by_hash = _twin(_aio.transactions_by_hash)
traces_by_hash = _twin(_aio.traces_by_hash)
balances = _twin(_aio.balances)
account_transactions = _twin(_aio.account_transactions)
delegator_delegations = _twin(_aio.delegator_delegations)
delegator_undelegations = _twin(_aio.delegator_undelegations)
native_transfers = _twin(_aio.native_transfers)
rewards_collected = _twin(_aio.rewards_collected)
token_balances = _twin(_aio.token_balances)
holders = _twin(_aio.holders)
delegator_rewards = _twin(_aio.delegator_rewards)
staking_history = _twin(_aio.staking_history)
follow = _iterating_twin(_aio.follow, "follow")  # a generator of frames: new blocks as they appear

# no __all__: `from hmyframe.api import *` (in hmyframe) takes every name above
