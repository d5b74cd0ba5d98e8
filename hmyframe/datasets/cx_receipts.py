"""``cx_receipts``: one row per cross-shard receipt (pending proofs, or receipts by hash)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from hmyframe.errors import ResponseShapeError

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import (
    Where,
    address_arrays,
    amount_array,
    as_dict,
    as_list,
    hash_array,
    int_array,
    one_float_array,
    parse_ints,
)
from ._decode import decode_json, payload_path
from ._validators import pick

NAME = "cx_receipts"

SCHEMA = pa.schema(
    [
        shared("block_number", "Block of the source shard that produced the receipt."),
        shared("block_hash", "0x hash of that source block."),
        shared("shard_id", "Source shard of the transfer."),
        shared("to_shard_id"),
        shared("epoch", "Epoch of the source block (from the proof header); null when not sent."),
        column(
            "receipt_index",
            pa.int64(),
            "Position of the receipt in its proof; null for a receipt fetched by hash.",
        ),
        shared("transaction_hash"),
        shared("from_address"),
        shared("from_address_hex"),
        shared("to_address"),
        shared("to_address_hex"),
        column("amount", AMOUNT, "Amount moved across shards in atto, exact."),
        one_column("amount", "Amount in ONE as float64 (convenience)."),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded receipt payloads.

    Accepts ``getPendingCXReceipts`` answers (arrays of proofs: ``receipts`` + ``merkleProof`` +
    ``header``, receipt keys ``txHash`` / ``amount``) and ``getCXReceiptByHash`` answers (flat
    ``hash`` / ``value`` objects); ``null`` payloads give nothing.
    """
    if not isinstance(decoded, list):
        raise ResponseShapeError(NAME, "payloads", decoded, "the decoded list of payloads")
    paths: list[str] = []
    receipts: list[dict[str, Any]] = []
    numbers: list[Any] = []
    hashes: list[Any] = []
    epochs: list[Any] = []
    index: list[int | None] = []
    for i, payload in enumerate(decoded):
        if payload is None:
            continue
        elements = [payload] if isinstance(payload, dict) else payload
        if not isinstance(elements, list):
            raise ResponseShapeError(NAME, payload_path(i), payload, "an array of cross-shard receipt proofs")
        for j, element in enumerate(elements):
            path = payload_path(i) if isinstance(payload, dict) else payload_path(i, f"[{j}]")
            here = Where.of(NAME, [path])
            proof = as_dict(element, here, 0, "", nullable=False)
            assert proof is not None
            if "receipts" in proof:
                merkle = as_dict(proof.get("merkleProof"), here, 0, "merkleProof") or {}
                header = as_dict(proof.get("header"), here, 0, "header") or {}
                for k, receipt in enumerate(
                    as_list(proof.get("receipts"), here, 0, "receipts", nullable=False)
                ):
                    rpath = f"{path}.receipts[{k}]"
                    receipts.append(as_dict(receipt, Where.of(NAME, [rpath]), 0, "", nullable=False) or {})
                    paths.append(rpath)
                    numbers.append(pick(merkle, "blockNum") if merkle else header.get("number"))
                    hashes.append(pick(merkle, "blockHash") if merkle else header.get("hash"))
                    epochs.append(header.get("epoch"))
                    index.append(k)
            else:
                receipts.append(proof)
                paths.append(path)
                numbers.append(proof.get("blockNumber"))
                hashes.append(proof.get("blockHash"))
                epochs.append(None)
                index.append(None)
    where = Where.of(NAME, paths)
    amounts = parse_ints([pick(r, "amount", "value") for r in receipts], where, "amount", required=True)
    from_one, from_hex = address_arrays([r.get("from") for r in receipts], where, "from", required=True)
    to_one, to_hex = address_arrays([r.get("to") for r in receipts], where, "to")
    return {
        "block_number": int_array(numbers, where, "merkleProof.blockNum", required=True),
        "block_hash": hash_array(hashes, where, "merkleProof.blockHash", required=True),
        "shard_id": int_array(
            [r.get("shardID") for r in receipts], where, "shardID", required=True, type_=pa.int32()
        ),
        "to_shard_id": int_array(
            [r.get("toShardID") for r in receipts], where, "toShardID", required=True, type_=pa.int32()
        ),
        "epoch": int_array(epochs, where, "header.epoch"),
        "receipt_index": pa.array(index, type=pa.int64()),
        "transaction_hash": hash_array(
            [pick(r, "txHash", "hash") for r in receipts], where, "txHash", required=True
        ),
        "from_address": from_one,
        "from_address_hex": from_hex,
        "to_address": to_one,
        "to_address_hex": to_hex,
        "amount": amount_array(amounts, where, "amount", parsed=True),
        "amount_one": one_float_array(amounts),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per cross-shard receipt: source block and shard, destination shard, parties, exact amount.",
    schema=SCHEMA,
    sort_by=("block_number", "shard_id", "transaction_hash"),
    source="cx_receipts",
    methods=("hmy(v2)_getPendingCXReceipts", "hmy(v2)_getCXReceiptByHash"),
    builder=build,
    decoder=decode_json,
)
