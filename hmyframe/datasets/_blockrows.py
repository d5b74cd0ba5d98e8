"""Row gathering and the columns shared by ``transactions`` and ``staking_transactions``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hmyframe.errors import ResponseShapeError

from ._base import ConvertContext
from ._convert import (
    ZERO_HASH,
    Where,
    address_arrays,
    amount_array,
    hash_array,
    int_array,
    parse_ints,
    timestamp_array,
)
from ._decode import Block, DecodedBlocks, StakingTx, Tx

__all__ = ["TxRows", "constant", "gather", "shard_column", "tx_common_columns"]


def constant(value: Any, n: int, type_: pa.DataType) -> pa.Array:
    """An array of ``n`` copies of ``value``."""
    return pa.array([value] * n, type=type_)


@dataclass
class TxRows:
    """Transactions of one kind gathered from blocks and loose payloads.

    ``owner[i]`` is the index of the block holding row ``i`` (``-1`` for a loose transaction),
    ``pos[i]`` its position inside that block's list.
    """

    rows: list[Any]
    owner: list[int]
    pos: list[int]
    where: Where


def gather(decoded: DecodedBlocks, what: str, staking: bool) -> TxRows:
    """Collect full transaction objects (``staking`` selects which list) with their provenance."""
    key = "stakingTransactions" if staking else "transactions"
    rows: list[Any] = []
    owner: list[int] = []
    pos: list[int] = []
    for bi, block in enumerate(decoded.blocks):
        txs = block.stakingTransactions if staking else block.transactions
        if not txs:
            continue
        if any(type(t) is str for t in txs):
            j = next(j for j, t in enumerate(txs) if type(t) is str)
            raise ResponseShapeError(
                what,
                f"{decoded.block_paths[bi]}.{key}[{j}]",
                txs[j],
                "a full transaction object (request blocks with fullTx=true)",
            )
        rows.extend(txs)
        owner.extend([bi] * len(txs))
        pos.extend(range(len(txs)))
    loose: list[Any] = decoded.staking_txs if staking else decoded.txs
    loose_paths = decoded.staking_paths if staking else decoded.tx_paths
    for j, t in enumerate(loose):
        if type(t) is str:
            raise ResponseShapeError(
                what, loose_paths[j], t, "a full transaction object (request fullTx=true)"
            )
    rows.extend(loose)
    owner.extend([-1] * len(loose))
    pos.extend(range(len(loose)))
    block_paths = decoded.block_paths

    def path(i: int) -> str:
        b = owner[i]
        return f"{block_paths[b]}.{key}[{pos[i]}]" if b >= 0 else loose_paths[pos[i]]

    return TxRows(rows, owner, pos, Where(what, path))


def tx_common_columns(
    gathered: TxRows, blocks: list[Block], ctx: ConvertContext
) -> tuple[dict[str, pa.Array], list[int | None]]:
    """Columns every (staking) transaction has; also returns the parsed block numbers.

    A pending transaction (``blockNumber`` null) gets null block hash, index and timestamp
    (the node sends the zero hash and 0 for them). A transaction without ``timestamp`` (the
    early-2020 v1 format) takes its block's time; without ``shardID`` it takes
    ``ctx.shard_id``.
    """
    rows: list[Tx] | list[StakingTx] = gathered.rows
    owner = gathered.owner
    where = gathered.where

    numbers_raw = [t.blockNumber for t in rows]
    if None in numbers_raw:
        numbers_raw = [
            v if v is not None or owner[i] < 0 else blocks[owner[i]].number for i, v in enumerate(numbers_raw)
        ]
    numbers = parse_ints(numbers_raw, where, "blockNumber")
    pending = [v is None for v in numbers] if None in numbers else None

    stamps_raw = [t.timestamp for t in rows]
    if None in stamps_raw:
        stamps_raw = [
            v if v is not None or owner[i] < 0 else blocks[owner[i]].timestamp
            for i, v in enumerate(stamps_raw)
        ]
    stamps = parse_ints(stamps_raw, where, "timestamp")
    indexes = parse_ints([t.transactionIndex for t in rows], where, "transactionIndex")
    block_hashes: list[str | None] = [t.blockHash for t in rows]
    if pending is not None:
        stamps = [None if p else v for v, p in zip(stamps, pending, strict=True)]
        indexes = [None if p else v for v, p in zip(indexes, pending, strict=True)]
        block_hashes = [ZERO_HASH if p else v for v, p in zip(block_hashes, pending, strict=True)]

    from_one, from_hex = address_arrays([t.from_ for t in rows], where, "from", required=True)
    cols: dict[str, pa.Array] = {
        "block_number": int_array(numbers, where, "blockNumber", parsed=True),
        "block_hash": hash_array(block_hashes, where, "blockHash", zero_is_null=True, checked=True),
        "transaction_index": int_array(indexes, where, "transactionIndex", parsed=True),
        "transaction_hash": hash_array([t.hash for t in rows], where, "hash", required=True, checked=True),
        "timestamp": timestamp_array(stamps, where, "timestamp", parsed=True),
        "from_address": from_one,
        "from_address_hex": from_hex,
        "gas": int_array([t.gas for t in rows], where, "gas", required=True),
        "gas_price": amount_array([t.gasPrice for t in rows], where, "gasPrice", required=True),
        "nonce": int_array([t.nonce for t in rows], where, "nonce", required=True),
    }
    return cols, numbers


def shard_column(values: list[Any], where: Where, name: str, default: int | None) -> pa.Array:
    """A shard id column (``int32``); missing values take ``default``."""
    if default is not None and None in values:
        values = [default if v is None else v for v in values]
    return int_array(values, where, name, type_=pa.int32())
