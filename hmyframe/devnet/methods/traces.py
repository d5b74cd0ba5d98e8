"""Parity-style traces on the trace ("auth") port: ``trace_block``, ``trace_transaction`` (RPC notes §1.10)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.devnet.methods._table import NULL as _NULL
from hmyframe.devnet.methods._table import register
from hmyframe.devnet.model import ZERO_HASH
from hmyframe.devnet.params import (
    RpcFault,
    arity,
    eth_block_number_param,
    hash_param,
)
from hmyframe.devnet.render import Gen, encode, trace_objs

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState


async def _trace_block(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_number,) = arity(params, 1, 1)
    number = eth_block_number_param(raw_number, 0)
    if number < 0 or number > node.head:
        return _NULL
    await node.read_cost()
    key = ("trace_block", node.shard, number, node.profile)
    cached = node.cache.get(key)
    if cached is not None:
        return cached
    block = node.chain.block(node.shard, number)
    legacy = node.profile == "legacy"
    entries: list[dict[str, Any]] = []
    for tx in block.transactions:
        entries.extend(trace_objs(tx, transaction_hash=tx.hash if legacy else tx.eth_hash))
    data = encode(entries)
    node.cache.put(key, data)
    return data


def _trace_transaction(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    tx = node.own_transaction(tx_hash)
    if tx is None or tx.block_number > node.head:
        raise RpcFault(-32000, f"transaction {tx_hash} not found")
    return encode(trace_objs(tx, transaction_hash=tx.hash if node.profile == "legacy" else ZERO_HASH))


register("trace_block", _trace_block, both=False, trace_only=True)
register("trace_transaction", _trace_transaction, both=False, trace_only=True)
