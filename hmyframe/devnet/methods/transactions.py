"""Transactions by hash, account nonces and cross-shard receipts (RPC notes §1.3-§1.5, §1.9)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.addresses import to_one as _one
from hmyframe.devnet.chain import CX_PENDING_BLOCKS
from hmyframe.devnet.methods._table import NULL as _NULL
from hmyframe.devnet.methods._table import register
from hmyframe.devnet.methods.blocks import block_number_or_hash
from hmyframe.devnet.params import (
    _go_type,
    _invalid,
    address_param,
    arity,
    hash_param,
)
from hmyframe.devnet.render import (
    Gen,
    cx_proof_obj,
    encode,
    hexq,
    staking_transaction_obj,
    structured,
    transaction_obj,
)

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState


def _get_transaction_by_hash(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    tx = node.own_transaction(tx_hash)
    if tx is None:
        return _NULL
    return encode(transaction_obj(tx, gen=gen, profile=node.profile, sort_keys=node.profile == "current"))


def _get_staking_transaction_by_hash(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_hash,) = arity(params, 1, 1)
    tx_hash = hash_param(raw_hash, 0)
    stx = node.chain.find_staking_transaction(tx_hash) if node.shard == 0 else None
    if stx is None:
        return _NULL
    return encode(
        staking_transaction_obj(stx, gen=gen, profile=node.profile, sort_keys=node.profile == "current")
    )


def _get_transaction_count(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_address, raw_block = arity(params, 2, 2)
    if not isinstance(raw_address, str):
        raise _invalid(0, f"json: cannot unmarshal {_go_type(raw_address)} into Go value of type string")
    number = block_number_or_hash(node, raw_block)
    address = address_param(raw_address)
    count = node.chain.transaction_count(node.shard, address, number)
    return encode(hexq(count) if gen == 1 else count)


def _get_pending_cx_receipts(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    proofs = [cx_proof_obj(p) for p in node.chain.pending_cx_receipts(node.shard)]
    # today's node sends each proof through NewStructuredResponse (keys sorted at every depth);
    # the early-2020 node sent the proof structs as they are
    return encode([structured(p) for p in proofs] if node.profile == "current" else proofs)


def _get_cx_receipt_by_hash(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    """The receipt as the DESTINATION shard processed it: the node reads ``cxLookupKey``, which
    only the destination writes (core/rawdb ``WriteCxLookupEntries`` over a block's incoming
    receipts), so ``blockHash`` / ``blockNumber`` are the destination block that credited it;
    the source shard, and the destination before that block, answer ``null``."""
    (raw_hash,) = arity(params, 1, 1)
    tx = node.chain.find_transaction(hash_param(raw_hash, 0))
    if tx is None or not tx.is_cross_shard or tx.to is None or not tx.success or tx.to_shard_id != node.shard:
        return _NULL
    credited = tx.block_number + CX_PENDING_BLOCKS
    if credited > node.head:
        return _NULL
    block = node.chain.block(node.shard, credited)
    num = hexq if gen == 1 else (lambda v: v)
    obj = {
        "blockHash": block.hash,
        "blockNumber": num(credited),
        "hash": tx.hash,
        "from": _one(tx.sender),
        "to": _one(tx.to),
        "shardID": tx.shard_id,
        "toShardID": tx.to_shard_id,
        "value": num(tx.value),
    }
    # today's node: NewStructuredResponse (keys sorted); the early-2020 node: its RPCCXReceipt struct
    return encode(structured(obj) if node.profile == "current" else obj)


register("getTransactionByHash", _get_transaction_by_hash)
register("getStakingTransactionByHash", _get_staking_transaction_by_hash)
register("getTransactionCount", _get_transaction_count)
register("getPendingCXReceipts", _get_pending_cx_receipts)
register("getCXReceiptByHash", _get_cx_receipt_by_hash)
