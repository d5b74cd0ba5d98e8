"""``blocks``: one row per block header."""

from __future__ import annotations

import pyarrow as pa

from ._base import ConvertContext, Dataset, column, shared
from ._blockrows import constant
from ._convert import (
    Where,
    address_arrays,
    bloom_array,
    hash_array,
    hex_data_array,
    int_array,
    timestamp_array,
)
from ._decode import DecodedBlocks, decode_blocks, require

NAME = "blocks"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        column("parent_hash", pa.string(), "0x hash of the parent block."),
        shared("timestamp"),
        column("epoch", pa.int64(), "Epoch of the block; null in the early-2020 format, which lacks it."),
        column("view_id", pa.int64(), "Consensus view id; null in the early-2020 format, which lacks it."),
        shared("shard_id"),
        column(
            "miner",
            pa.string(),
            "Block leader (current nodes) or coinbase (early-2020), one1; null if the node sent ''.",
        ),
        column("miner_hex", pa.string(), "The miner, lower-case 0x hex."),
        column("size", pa.int64(), "Block size in bytes."),
        column("gas_limit", pa.int64(), "Maximum gas allowed in the block."),
        column("gas_used", pa.int64(), "Gas used by all transactions of the block."),
        column(
            "transaction_count",
            pa.int64(),
            "Number of (plain) transactions; null if the answer omitted the list.",
        ),
        column(
            "staking_transaction_count",
            pa.int64(),
            "Number of staking transactions; null if the answer omitted the list (note: v2 without inclStaking sends []).",
        ),
        column(
            "signer_count",
            pa.int64(),
            "Entries of the node's signers list (one per signing BLS key) when the answer carried them "
            "(withSigners); null from hmyframe's fetchers, which keep rows independent of fetch history: "
            "sum the signers dataset's key_count instead.",
        ),
        column("state_root", pa.string(), "0x root of the state trie after the block."),
        column("transactions_root", pa.string(), "0x root of the transaction trie."),
        column("receipts_root", pa.string(), "0x root of the receipt trie."),
        column(
            "logs_bloom",
            pa.string(),
            "0x 256-byte bloom (512 hex digits) of the addresses and topics of every log of the block; "
            "all zeros when it has none; null if the answer lacks it. hmyframe checks fetched logs against it.",
        ),
        column("extra_data", pa.string(), "Extra data of the header, 0x hex."),
        column(
            "vrf",
            pa.string(),
            "0x VRF output of the block; null when absent (early formats, or the zero hash).",
        ),
    ]
)


def _count(lists: list[list[object] | None]) -> pa.Array:
    return pa.array([None if v is None else len(v) for v in lists], type=pa.int64())


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads."""
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    blocks = data.blocks
    where = Where.of(NAME, data.block_paths)
    miner, miner_hex = address_arrays([b.miner for b in blocks], where, "miner")
    return {
        # the spec allows a pending block: number and hash null
        "block_number": int_array([b.number for b in blocks], where, "number"),
        "block_hash": hash_array([b.hash for b in blocks], where, "hash", checked=True),
        "parent_hash": hash_array(
            [b.parentHash for b in blocks], where, "parentHash", required=True, checked=True
        ),
        "timestamp": timestamp_array([b.timestamp for b in blocks], where, "timestamp", required=True),
        "epoch": int_array([b.epoch for b in blocks], where, "epoch"),
        "view_id": int_array([b.viewID for b in blocks], where, "viewID"),
        "shard_id": constant(ctx.shard_id, len(blocks), pa.int32()),
        "miner": miner,
        "miner_hex": miner_hex,
        "size": int_array([b.size for b in blocks], where, "size", required=True),
        "gas_limit": int_array([b.gasLimit for b in blocks], where, "gasLimit", required=True),
        "gas_used": int_array([b.gasUsed for b in blocks], where, "gasUsed", required=True),
        "transaction_count": _count([b.transactions for b in blocks]),  # type: ignore[misc]
        "staking_transaction_count": _count([b.stakingTransactions for b in blocks]),  # type: ignore[misc]
        "signer_count": _count([b.signers for b in blocks]),
        "state_root": hash_array(
            [b.stateRoot for b in blocks], where, "stateRoot", required=True, checked=True
        ),
        "transactions_root": hash_array(
            [b.transactionsRoot for b in blocks], where, "transactionsRoot", required=True, checked=True
        ),
        "receipts_root": hash_array(
            [b.receiptsRoot for b in blocks], where, "receiptsRoot", required=True, checked=True
        ),
        "logs_bloom": bloom_array([b.logsBloom for b in blocks], where, "logsBloom", checked=True),
        "extra_data": hex_data_array([b.extraData for b in blocks], where, "extraData", checked=True),
        "vrf": hash_array([b.vrf for b in blocks], where, "vrf", zero_is_null=True, checked=True),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per block: header fields, leader, gas, and transaction / staking / signer counts.",
    schema=SCHEMA,
    sort_by=("block_number",),
    source="blocks",
    methods=("hmy(v2)_getBlocks", "hmy(v2)_getBlockByNumber", "hmy(v2)_getBlockByHash"),
    builder=build,
    decoder=decode_blocks,
    summary="Blocks ``start..end`` of ``shard``: one row per block.",
    notes="Blocks alone are asked without their transactions (headers and transaction hashes), a fraction of the bytes of full blocks; the counts are the same.",
)
