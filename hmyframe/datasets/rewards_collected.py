"""``rewards_collected``: each CollectRewards staking transaction with the exact amount paid.

The transaction carries no amount: the node writes it into the staking receipt's log
(``core/evm.go`` ``CollectRewardsFn``): ``address`` the delegator, one topic
``keccak256("Harmony/CollectRewards")`` (:data:`COLLECT_REWARDS_TOPIC`), ``data`` the total
paid as ``big.Int.Bytes()``: minimal big-endian bytes, no 32-byte padding (``"0x"`` for zero).
Harmony's dashboards long showed 0 here because they read the transaction.

Each payload is one ``getTransactionReceipt`` answer of a staking transaction; a receipt
without that log (a node that wrote none) gives a null ``amount`` and says so in ``reason``.
"""

from __future__ import annotations

from typing import Any, Final

import pyarrow as pa

from hmyframe.errors import ResponseShapeError

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import constant
from ._convert import (
    Bad,
    Where,
    address_arrays,
    amount_array,
    hash_array,
    int_array,
    one_float_array,
    parse_int,
)
from ._decode import decode_json, payload_path

NAME = "rewards_collected"

#: ``staking.CollectRewardsTopic``: keccak-256 of ``Harmony/CollectRewards``.
COLLECT_REWARDS_TOPIC: Final = "0xef0a8d7b9b8cbde3c16f5ea86afc300881518ffc9f6e8c8f6984e0037eec16fb"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        column("block_hash", pa.string(), "Hash of the block holding the transaction."),
        shared("shard_id"),
        column("transaction_hash", pa.string(), "The CollectRewards staking transaction's hash."),
        column("delegator_address", pa.string(), "Delegator paid, one1 bech32."),
        column("delegator_address_hex", pa.string(), "Delegator paid, lower-case 0x hex."),
        column("amount", AMOUNT, "Rewards paid out in atto, exact (the receipt log's data)."),
        one_column("amount", "Rewards paid out in ONE as float64 (convenience)."),
        column("log_index", pa.int64(), "Position of the payout log in its block."),
        column("reason", pa.string(), "Why amount is null (no payout log in the receipt); null otherwise."),
    ]
)


def _payout(
    receipt: dict[str, Any], sender_hex: str | None, where: Where, i: int
) -> tuple[int | None, int | None]:
    """``(amount, log_index)`` of the receipt's CollectRewards log from its sender, else ``(None, None)``."""
    logs = receipt.get("logs")
    if logs is None:
        return None, None
    if not isinstance(logs, list):
        where.fail(i, "logs", logs, "a list of logs")
    for k, log in enumerate(logs):
        if not isinstance(log, dict):
            where.fail(i, f"logs[{k}]", log, "a log object")
        topics = log.get("topics")
        if not isinstance(topics, list) or not topics or not isinstance(topics[0], str):
            continue
        if topics[0].lower() != COLLECT_REWARDS_TOPIC:
            continue
        address = log.get("address")
        if sender_hex is not None and (not isinstance(address, str) or address.lower() != sender_hex):
            continue
        data = log.get("data")
        if not isinstance(data, str) or not data.startswith("0x"):
            where.fail(i, f"logs[{k}].data", data, "0x hex bytes (the amount paid)")
        try:
            amount = int(data, 16) if len(data) > 2 else 0
        except ValueError:
            where.fail(i, f"logs[{k}].data", data, "0x hex bytes (the amount paid)")
        try:
            index = parse_int(log.get("logIndex"))
        except Bad:
            where.fail(i, f"logs[{k}].logIndex", log.get("logIndex"), "a log index")
        return amount, index
    return None, None


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded staking receipts (one per payload)."""
    if not isinstance(decoded, list):
        raise ResponseShapeError(NAME, "payloads", decoded, "the decoded list of payloads")
    where = Where.of(NAME, [payload_path(i) for i in range(len(decoded))])
    for i, receipt in enumerate(decoded):
        if not isinstance(receipt, dict):
            where.fail(i, "", receipt, "a staking transaction receipt")
    receipts: list[dict[str, Any]] = decoded
    senders = [r.get("sender", r.get("from")) for r in receipts]
    ones, hexes = address_arrays(senders, where, "sender", required=True)
    paid = [_payout(r, h, where, i) for i, (r, h) in enumerate(zip(receipts, hexes.to_pylist(), strict=True))]
    amounts = [a for a, _ in paid]
    return {
        "block_number": int_array(
            [r.get("blockNumber") for r in receipts], where, "blockNumber", required=True
        ),
        "block_hash": hash_array([r.get("blockHash") for r in receipts], where, "blockHash", required=True),
        "shard_id": constant(ctx.shard_id, len(receipts), pa.int32()),
        "transaction_hash": hash_array(
            [r.get("transactionHash") for r in receipts], where, "transactionHash", required=True
        ),
        "delegator_address": ones,
        "delegator_address_hex": hexes,
        "amount": amount_array(amounts, where, "logs[].data", parsed=True),
        "amount_one": one_float_array(amounts),
        "log_index": pa.array([x for _, x in paid], type=pa.int64()),
        "reason": pa.array(
            [None if a is not None else "no CollectRewards log in the receipt" for a in amounts],
            type=pa.string(),
        ),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per CollectRewards transaction: the delegator and the exact amount paid (from the receipt's log).",
    schema=SCHEMA,
    sort_by=("block_number", "log_index"),
    source="rewards_collected",
    methods=("hmy(v2)_getTransactionReceipt (staking)", "hmy(v2)_getBlocks (staking transactions)"),
    builder=build,
    decoder=decode_json,
    summary="Every CollectRewards of a block range with the exact amount paid out (the staking receipt's log).",
    notes=(
        "The staking transactions of the range come from the (cached) ``staking_transactions`` "
        "dataset; each CollectRewards' receipt is asked for (batched) and its "
        "``keccak256('Harmony/CollectRewards')`` log decoded: data is the amount as minimal "
        "big-endian bytes."
    ),
)
