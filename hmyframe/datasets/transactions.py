"""``transactions``: one row per plain (non-staking) transaction."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import gather, shard_column, tx_common_columns
from ._convert import address_arrays, amount_array, hash_array, hex_data_array, one_float_array, parse_ints
from ._decode import DecodedBlocks, Tx, decode_blocks, require

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


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads."""
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    gathered = gather(data, NAME, staking=False)
    rows: list[Tx] = gathered.rows
    where = gathered.where
    # this table's fields first, in one sweep over the rows (tx_common_columns does the same)
    receivers = [t.to for t in rows]
    values_raw = [t.value for t in rows]
    shards = [t.shardID for t in rows]
    to_shards = [t.toShardID for t in rows]
    eth_hashes = [t.ethHash for t in rows]
    inputs = [t.input for t in rows]
    cols = tx_common_columns(gathered, data.blocks, ctx)
    to_one, to_hex = address_arrays(receivers, where, "to")
    values = parse_ints(values_raw, where, "value", required=True)
    value = amount_array(values, where, "value", parsed=True)
    shard = shard_column(shards, where, "shardID", ctx.shard_id)
    to_shard = shard_column(to_shards, where, "toShardID", None)
    cols.update(
        {
            "eth_hash": hash_array(eth_hashes, where, "ethHash", checked=True),
            "to_address": to_one,
            "to_address_hex": to_hex,
            "value": value,
            "value_one": one_float_array(values, exact=value),
            "input": hex_data_array(inputs, where, "input", required=True, checked=True),
            "shard_id": shard,
            "to_shard_id": to_shard,
            "is_cross_shard": pc.not_equal(shard, to_shard),
            "is_contract_creation": to_one.is_null(),  # to is "" or null
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
