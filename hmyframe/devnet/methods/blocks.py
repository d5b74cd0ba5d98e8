"""Block reads: ``blockNumber``, blocks by number / hash / range, transactions by block and
index, per-block counts, signers, epochs (RPC notes §1.1-§1.2, §3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hmyframe.addresses import to_one as _one
from hmyframe.devnet.limits import PER_BLOCK
from hmyframe.devnet.methods._table import EMPTY_LIST as _EMPTY_LIST
from hmyframe.devnet.methods._table import NULL as _NULL
from hmyframe.devnet.methods._table import Handler, register
from hmyframe.devnet.model import Block
from hmyframe.devnet.params import (
    _LATEST,
    _MISSING,
    _PENDING,
    ERR_CRASHED,
    ERR_PENDING,
    BlockArgs,
    BlockArgsError,
    RpcFault,
    _invalid,
    arity,
    block_args_object,
    block_number_param,
    hash_param,
    index_param,
    int_param,
)
from hmyframe.devnet.render import Gen, encode, hexq, staking_transaction_obj, transaction_obj

if TYPE_CHECKING:
    from hmyframe.devnet.shard import ShardState

__all__ = ["GET_BLOCKS_LIMIT", "block_for_index", "block_number_or_hash"]

#: ``getBlocks``: ``end - start`` may be at most this (so 1025 blocks per call).
GET_BLOCKS_LIMIT = 1024
#: The namespace of each generation (whose limiter bucket a block of ``getBlocks`` waits on).
_NAMESPACE: dict[int, str] = {1: "hmy", 2: "hmyv2"}


def _block_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    head = node.head
    return encode(hexq(head) if gen == 1 else head)


def _opts(node: ShardState, gen: Gen, value: Any) -> BlockArgs:
    """``getBlockByNumber``/``getBlockByHash`` param 1 (``getBlockOptions``)."""
    if gen == 1:
        if not isinstance(value, bool):
            raise RpcFault(-32000, "invalid type for block arguments")
        return BlockArgs(full_tx=value, incl_staking=True, with_signers=False)
    try:
        return block_args_object(value, default_incl_staking=node.profile == "legacy")
    except BlockArgsError as exc:
        raise RpcFault(-32000, str(exc)) from None


async def _get_block_by_number(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_number, raw_opts = arity(params, 2, 2)
    number = block_number_param(raw_number, 0)
    args = _opts(node, gen, raw_opts)
    number = node.resolve(number)
    await node.read_cost()
    return node.block_bytes(number, gen, args)


async def _get_block_by_hash(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_hash, raw_opts = arity(params, 2, 2)
    block_hash = hash_param(raw_hash, 0)
    args = _opts(node, gen, raw_opts)
    block = node.own_block_by_hash(block_hash)
    if block is None:
        return _NULL
    await node.read_cost()
    return node.block_bytes(block.number, gen, args)


async def _get_blocks(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    raw_start, raw_end, raw_args = arity(params, 2, 3)
    start = block_number_param(raw_start, 0)
    end = block_number_param(raw_end, 1)
    args: BlockArgs | None = None
    if raw_args is not _MISSING and raw_args is not None:
        try:
            args = block_args_object(raw_args, default_incl_staking=node.profile == "legacy")
        except BlockArgsError as exc:
            raise _invalid(2, str(exc)) from None
    head = node.head
    if start == _PENDING or end == _PENDING:
        raise RpcFault(-32000, ERR_PENDING)
    start = head if start == _LATEST else start
    end = head if end == _LATEST else end
    if end - start > GET_BLOCKS_LIMIT:
        raise RpcFault(-32000, f"GetBlocks query must be smaller than size {GET_BLOCKS_LIMIT}")
    end = min(end, head)
    if start > end:
        return _EMPTY_LIST
    if args is None:
        # the node dereferences the nil *BlockArgs; the panic is recovered as this error
        raise RpcFault(-32000, ERR_CRASHED)
    parts = []
    for number in range(start, end + 1):
        if node.rpc_limiter is not None:  # each block through the limited GetBlockByNumber
            await node.rpc_limiter.wait(f"{_NAMESPACE[gen]}_{PER_BLOCK}")
        await node.read_cost()
        parts.append(node.block_bytes(number, gen, args))
    return b"[" + b",".join(parts) + b"]"


def _block_for_index(node: ShardState, raw_block: Any, by_hash: bool) -> Block | None:
    if by_hash:
        return node.own_block_by_hash(hash_param(raw_block, 0))
    number = block_number_param(raw_block, 0)
    if number == _PENDING:
        raise RpcFault(-32000, ERR_PENDING)
    head = node.head
    number = head if number == _LATEST else number
    return node.chain.block(node.shard, number) if number <= head else None


def _tx_by_block_and_index(by_hash: bool) -> Handler:
    def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        raw_block, raw_index = arity(params, 2, 2)
        index = index_param(raw_index, 1, gen, node.profile)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None or index >= len(block.transactions):
            return _NULL
        tx = block.transactions[index]
        return encode(transaction_obj(tx, gen=gen, profile=node.profile, sort_keys=node.profile == "current"))

    return handler


def _staking_tx_by_block_and_index(by_hash: bool) -> Handler:
    def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        raw_block, raw_index = arity(params, 2, 2)
        index = index_param(raw_index, 1, gen, node.profile)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None or index >= len(block.staking_transactions):
            return _NULL
        stx = block.staking_transactions[index]
        return encode(
            staking_transaction_obj(stx, gen=gen, profile=node.profile, sort_keys=node.profile == "current")
        )

    return handler


def _tx_count_in_block(by_hash: bool) -> Handler:
    def handler(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
        (raw_block,) = arity(params, 1, 1)
        block = _block_for_index(node, raw_block, by_hash)
        if block is None:
            return _NULL
        count = len(block.transactions)
        return encode(hexq(count) if gen == 1 else count)

    return handler


def _block_number_or_hash(node: ShardState, value: Any) -> int:
    """``rpc.BlockNumberOrHash`` (param 1 of getTransactionCount, call, getCode) -> an existing
    block number."""
    if isinstance(value, dict):
        if "blockHash" in value and "blockNumber" in value:
            raise _invalid(1, "cannot specify both BlockHash and BlockNumber, choose one or the other")
        if "blockHash" in value:
            value = value["blockHash"]
        elif "blockNumber" in value:
            value = value["blockNumber"]
        else:
            raise _invalid(1, "invalid input")
    if isinstance(value, str) and len(value) == 66 and value[:2] in ("0x", "0X"):
        block = node.own_block_by_hash(hash_param(value, 1))
        if block is None:
            raise RpcFault(-32000, "header for hash not found")
        return block.number
    number = block_number_param(value, 1)
    head = node.head
    if number in (_LATEST, _PENDING):
        return head
    if number > head:
        raise RpcFault(-32000, "state not found")
    return number


def _get_block_signers(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    (raw_number,) = arity(params, 1, 1)
    number = node.resolve(block_number_param(raw_number, 0))
    signers = node.chain.signers(node.shard, number)
    if signers is None:
        raise RpcFault(-32000, f"GetSigners: getSignerData: block number {number + 1} not found")
    return encode([_one(a) for a in signers])


def _get_epoch(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    arity(params, 0, 0)
    epoch = node.chain.epoch_of(node.head)
    return encode(hexq(epoch) if gen == 1 else epoch)


def _epoch_last_block(node: ShardState, gen: Gen, params: list[Any]) -> bytes:
    # the node's handler takes a uint64 epoch (a JSON number, in v1 too) and answers the
    # schedule's last block as a JSON number in both generations, whether or not the epoch
    # has been reached (beacon shard only)
    (raw_epoch,) = arity(params, 1, 1)
    epoch = int_param(raw_epoch, 0, "uint64")
    if epoch >= 2**64:
        raise _invalid(0, f"json: cannot unmarshal number {epoch} into Go value of type uint64")
    return encode((node.chain.epoch_first_block(epoch + 1) - 1) % 2**64)


#: Shared with the other method modules.
block_for_index = _block_for_index
block_number_or_hash = _block_number_or_hash

register("blockNumber", _block_number)
register("getBlockByNumber", _get_block_by_number)
register("getBlockByHash", _get_block_by_hash)
register("getBlocks", _get_blocks)
register("getTransactionByBlockNumberAndIndex", _tx_by_block_and_index(False))
register("getTransactionByBlockHashAndIndex", _tx_by_block_and_index(True))
register("getStakingTransactionByBlockNumberAndIndex", _staking_tx_by_block_and_index(False))
register("getStakingTransactionByBlockHashAndIndex", _staking_tx_by_block_and_index(True))
register("getBlockTransactionCountByNumber", _tx_count_in_block(False))
register("getBlockTransactionCountByHash", _tx_count_in_block(True))
register("getBlockSigners", _get_block_signers)
register("getEpoch", _get_epoch)
register("epochLastBlock", _epoch_last_block, beacon_only=True)
