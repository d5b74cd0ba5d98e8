"""``transactions``: one row per plain (non-staking) transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hmyframe._lazy import lazy_module

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import CommonFields, TxRows, common_fields, gather, shard_column, tx_common_columns
from ._convert import amount_array, hash_array, hex_data_array, one_float_array
from ._decode import DecodedBlocks, Tx, decode_blocks, require

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = lazy_module("pyarrow.compute")  # (a ~0.1 s import: only once a table is built)

NAME = "transactions"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("transaction_index"),
        shared("transaction_hash"),
        column(
            "eth_hash",
            pa.string(),
            "0x Ethereum-form hash of the same transaction; null from nodes older than 2021-04.",
        ),
        shared("timestamp"),
        shared("from_address"),
        shared("from_address_hex"),
        shared("to_address"),
        shared("to_address_hex"),
        column("value", AMOUNT, "Value transferred in atto (1e-18 ONE), exact."),
        one_column("value", "Value in ONE as float64 (convenience; use value for exact sums)."),
        column("gas", pa.int64(), "Gas limit given by the sender."),
        shared("gas_price"),
        one_column("gas_price", "Gas price in ONE per gas unit as float64 (convenience)."),
        shared("nonce"),
        column("input", pa.string(), "Call data, 0x hex."),
        shared(
            "shard_id",
            "Shard the transaction was sent on (its shardID; the answering node's shard when absent).",
        ),
        shared("to_shard_id"),
        column(
            "is_cross_shard",
            pa.bool_(),
            "True when to_shard_id differs from shard_id; null when to_shard_id is unknown.",
        ),
        column(
            "is_contract_creation",
            pa.bool_(),
            "True when the transaction has no receiver (to is '' or null).",
        ),
    ]
)


def _sweep(data: DecodedBlocks, gathered: TxRows) -> tuple[CommonFields, tuple[list[Any], ...]]:
    """Every field of every row, in one pass over the rows: each struct is read while it is in
    cache (markedly faster than a list comprehension per field over rows that fill the cache),
    and whether each row repeats its block's number, time and hash is checked on the way, so
    those need no list of their own."""
    rows = gathered.rows
    n = len(rows)
    empty: list[Any] = [None] * n
    indexes, hashes, senders, gas, gas_prices = (empty.copy() for _ in range(5))
    nonces, receivers, values, shards = (empty.copy() for _ in range(4))
    to_shards, eth_hashes, inputs = (empty.copy() for _ in range(3))
    repeats = not gathered.loose
    i = 0
    for block in data.blocks if repeats else ():
        number, stamp, block_hash = block.number, block.timestamp, block.hash
        for t in block.transactions or ():
            if t.blockNumber != number or t.timestamp != stamp or t.blockHash != block_hash:  # type: ignore[union-attr]
                repeats = False
            indexes[i] = t.transactionIndex  # type: ignore[union-attr]
            hashes[i] = t.hash  # type: ignore[union-attr]
            senders[i] = t.from_  # type: ignore[union-attr]
            gas[i] = t.gas  # type: ignore[union-attr]
            gas_prices[i] = t.gasPrice  # type: ignore[union-attr]
            nonces[i] = t.nonce  # type: ignore[union-attr]
            receivers[i] = t.to  # type: ignore[union-attr]
            values[i] = t.value  # type: ignore[union-attr]
            shards[i] = t.shardID  # type: ignore[union-attr]
            to_shards[i] = t.toShardID  # type: ignore[union-attr]
            eth_hashes[i] = t.ethHash  # type: ignore[union-attr]
            inputs[i] = t.input  # type: ignore[union-attr]
            i += 1
    if repeats:
        common = CommonFields(None, None, indexes, None, hashes, senders, gas, gas_prices, nonces)
        return common, (receivers, values, shards, to_shards, eth_hashes, inputs)
    # some row has no block or differs from it: every field from the gathered rows
    common = common_fields(rows)
    tx: list[Tx] = rows
    mine = ([t.to for t in tx], [t.value for t in tx], [t.shardID for t in tx], [t.toShardID for t in tx])
    return common, (*mine, [t.ethHash for t in tx], [t.input for t in tx])


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads."""
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    gathered = gather(data, NAME, staking=False)
    where = gathered.where
    typed = gathered.typed
    fields, (receivers, values_raw, shards, to_shards, eth_hashes, inputs) = _sweep(data, gathered)
    cols = tx_common_columns(
        gathered, data.blocks, ctx, fields, addresses=[("to_address", receivers, "to", False)]
    )
    value = amount_array(values_raw, where, "value", required=True, typed=typed)
    shard = shard_column(shards, where, "shardID", ctx.shard_id, typed=typed)
    to_shard = shard_column(to_shards, where, "toShardID", None, typed=typed)
    cols.update(
        {
            "eth_hash": hash_array(eth_hashes, where, "ethHash", checked=True),
            "value": value,
            "value_one": one_float_array(values_raw, exact=value),
            "input": hex_data_array(inputs, where, "input", required=True, checked=True),
            "shard_id": shard,
            "to_shard_id": to_shard,
            "is_cross_shard": pc.not_equal(shard, to_shard),
            "is_contract_creation": cols["to_address"].is_null(),  # to is "" or null
        }
    )
    return cols


DATASET = Dataset(
    name=NAME,
    description="One row per plain transaction: parties (one1 + hex), exact value and gas price, shards, flags.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_index", "transaction_hash"),
    source="blocks",
    methods=(
        "hmy(v2)_getBlocks / getBlockByNumber / getBlockByHash (fullTx)",
        "hmy(v2)_getTransactionByHash",
        "hmy(v2)_pendingTransactions",
    ),
    builder=build,
    decoder=decode_blocks,
    summary="Plain transactions of blocks ``start..end`` of ``shard``: one row per transaction.",
)
