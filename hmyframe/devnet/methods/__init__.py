"""The devnet node's JSON-RPC methods, one module per area; importing this package fills the
method table (:mod:`._table`).

* :mod:`.blocks`: blocks by number / hash / range, transactions by block and index, counts,
  signers, epochs;
* :mod:`.transactions`: transactions by hash, nonces, cross-shard receipts;
* :mod:`.validators`: validator addresses and information (beacon shard, paged, limited);
* :mod:`.network`: chain id, ``net_version``, sharding structure;
* :mod:`.traces`: ``trace_block`` / ``trace_transaction`` (trace port);
* :mod:`.receipts`: ``getTransactionReceipt`` (plain and staking), ``getBlockReceipts``;
* :mod:`.logs`: ``getLogs`` and filters (``hmy_`` and ``eth_`` only, as the node);
* :mod:`.contracts`: ``call`` and ``getCode`` (also ``eth_``);
* :mod:`.accounts`: balances, the explorer's transaction history and counts, delegations by
  delegator;
* :mod:`.eth`: the rest of the Ethereum namespace (``eth_*``, ``web3_*``).
"""

from hmyframe.devnet.methods import (
    accounts,
    blocks,
    contracts,
    eth,
    logs,
    network,
    receipts,
    traces,
    transactions,
    validators,
)
from hmyframe.devnet.methods._table import METHODS, Handler, Method, register, register_method, served_methods

__all__ = [
    "METHODS",
    "Handler",
    "Method",
    "accounts",
    "blocks",
    "contracts",
    "eth",
    "logs",
    "network",
    "receipts",
    "register",
    "register_method",
    "served_methods",
    "traces",
    "transactions",
    "validators",
]
