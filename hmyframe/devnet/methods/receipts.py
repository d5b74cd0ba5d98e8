"""Receipts: ``getTransactionReceipt`` (plain and staking, one method, as the node) and the
block-wide ``getBlockReceipts`` (by block hash; the current node only).

Shapes in :mod:`hmyframe.devnet.receipts`. The node looks a hash up as a plain transaction's
Harmony or Ethereum-form hash, then as a staking transaction's; unknown -> ``null``.
``getBlockReceipts`` of an unknown hash crashes the node's handler (it dereferences the
missing block): -32000 ``method handler crashed``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.devnet.methods._table import NULL as _NULL
from hmyframe.devnet.methods._table import register
from hmyframe.devnet.model import StakingTransaction, Transaction
from hmyframe.devnet.params import ERR_CRASHED, RpcFault, arity, hash_param
from hmyframe.devnet.receipts import block_receipt_objs, cumulative_gas, receipt_obj
from hmyframe.devnet.render import Gen, encode

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState


def find_any_transaction(node: ShardState, tx_hash: str) -> Transaction | StakingTransaction | None:
    """A plain transaction of this shard by Harmony or Ethereum-form hash, else a staking one
    (beacon shard), else ``None``; never one beyond head."""
    tx: Transaction | StakingTransaction | None = node.own_transaction(
        tx_hash
    ) or node.own_transaction_by_eth_hash(tx_hash)
    if tx is None and node.shard == 0:
        tx = node.chain.find_staking_transaction(tx_hash)
    if tx is None or tx.block_number > node.head:
        return None
    return tx


async def _get_transaction_receipt(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx = find_any_transaction(node, hash_param(raw_hash, 0))
    if tx is None:
        return _NULL
    await node.read_cost()
    block = node.chain.block(node.shard, tx.block_number)
    position = tx.index + (len(block.transactions) if isinstance(tx, StakingTransaction) else 0)
    obj = receipt_obj(
        tx,
        block,
        cumulative_gas_used=cumulative_gas(block, position),
        gen=gen,
        profile=node.profile,
        log_hashes=node.log_hashes,
    )
    return encode(obj)


async def _get_block_receipts(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    block = node.own_block_by_hash(hash_param(raw_hash, 0))
    if block is None:
        raise RpcFault(-32000, ERR_CRASHED)
    await node.read_cost()
    key = ("block_receipts", node.shard, block.number, gen, node.profile, node.log_hashes)
    return node.cache.get_or_render(
        key,
        lambda: encode(block_receipt_objs(block, gen=gen, profile=node.profile, log_hashes=node.log_hashes)),
    )


register("getTransactionReceipt", _get_transaction_receipt)
register("getBlockReceipts", _get_block_receipts, current_only=True)
