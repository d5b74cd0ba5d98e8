"""``receipts``: one row per transaction receipt, plain and staking: outcome, gas, exact fee."""

from __future__ import annotations

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import constant
from ._convert import (
    Bad,
    Where,
    address_columns,
    amount_array,
    hash_array,
    int_array,
    parse_int,
    parse_ints,
)
from ._receiptlogs import DecodedReceipts, decode_receipts, require

NAME = "receipts"

#: The staking receipt's ``type``: the node's Directive number (staking/types/messages.go).
DIRECTIVES = ("CreateValidator", "EditValidator", "Delegate", "Undelegate", "CollectRewards")
_ZERO_ADDRESS = "0x" + "0" * 40

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("shard_id"),
        shared("transaction_hash"),
        column(
            "eth_hash",
            pa.string(),
            "0x Ethereum-form hash of the transaction (from its block); null for staking transactions.",
        ),
        column(
            "transaction_index",
            pa.int64(),
            "Position in the block as the receipt gives it (staking receipts count after the plain ones).",
        ),
        column(
            "status",
            pa.bool_(),
            "True if the transaction succeeded; null in receipts that carry only a root.",
        ),
        column("gas_used", pa.int64(), "Gas used by this transaction."),
        column(
            "cumulative_gas_used", pa.int64(), "Gas used in the block up to and including this transaction."
        ),
        shared(
            "gas_price",
            "Gas price in atto per gas unit, exact: the transaction's (the receipt's effectiveGasPrice only "
            "when the transaction is not at hand).",
        ),
        one_column("gas_price", "Gas price in ONE per gas unit as float64 (convenience)."),
        column("fee", AMOUNT, "Fee paid in atto, exact: gas_used x gas_price."),
        one_column("fee", "Fee in ONE as float64 (convenience; use fee for exact sums)."),
        shared("from_address", "Sender, one1 bech32 (the node's from, or sender in a staking receipt)."),
        shared("from_address_hex"),
        shared(
            "to_address", "Receiver, one1 bech32; null for a contract creation and a staking transaction."
        ),
        shared(
            "to_address_hex",
            "Receiver, lower-case 0x hex; null for a contract creation and a staking transaction.",
        ),
        column(
            "contract_address",
            pa.string(),
            "Contract created, one1 bech32; null when none (the node's zero address or null).",
        ),
        column("contract_address_hex", pa.string(), "Contract created, lower-case 0x hex; null when none."),
        column("log_count", pa.int64(), "Number of logs the transaction emitted."),
        column("is_staking", pa.bool_(), "True for a staking transaction's receipt."),
        column(
            "directive",
            pa.string(),
            "Staking directive (CreateValidator, EditValidator, Delegate, Undelegate, CollectRewards); null for plain ones.",
        ),
    ]
)


def _directives(values: list[object], staking: list[bool], where: Where) -> list[str | None]:
    """The receipts' ``type`` (v1 hex, v2 number, or a directive name) as the directive's name."""
    out: list[str | None] = []
    expected = f"a staking directive number 0..{len(DIRECTIVES) - 1} or name"
    for i, (v, is_staking) in enumerate(zip(values, staking, strict=True)):
        if v is None or not is_staking:
            out.append(None)
        elif v in DIRECTIVES:
            out.append(v)
        else:
            try:
                n = parse_int(v)
            except Bad:
                where.fail(i, "type", v, expected)
            if not 0 <= n < len(DIRECTIVES):
                where.fail(i, "type", v, expected)
            out.append(DIRECTIVES[n])
    return out


def _statuses(values: list[int | None], where: Where) -> list[bool | None]:
    if not set(values) <= {0, 1, None}:
        bad = next(i for i, v in enumerate(values) if v not in (0, 1, None))
        where.fail(bad, "status", values[bad], "0 or 1")
    return [None if v is None else v == 1 for v in values]


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from :func:`~hmyframe.datasets._receiptlogs.decode_receipts` output.

    Gas price and Ethereum hash come from ``decoded.tx_info`` (the blocks' transactions); without
    it the gas price is the receipt's ``effectiveGasPrice`` and the Ethereum hash is null.
    """
    data = require(decoded, DecodedReceipts, NAME, "receipts")
    receipts = data.receipts
    where = Where.of(NAME, data.paths)
    n = len(receipts)
    hashes = hash_array([r.transactionHash for r in receipts], where, "transactionHash", required=True)
    keys: list[str] = hashes.to_pylist()
    if data.staking_hashes is not None:
        staking = [h in data.staking_hashes for h in keys]
    else:
        staking = [r.from_ is None and (r.sender is not None or r.type is not None) for r in receipts]
    gas_used = parse_ints([r.gasUsed for r in receipts], where, "gasUsed", required=True)
    info = [data.tx_info.get(h) for h in keys]
    effective = parse_ints([r.effectiveGasPrice for r in receipts], where, "effectiveGasPrice")
    prices = [e if i is None or i[1] is None else i[1] for i, e in zip(info, effective, strict=True)]
    fees = [None if p is None or g is None else p * g for p, g in zip(prices, gas_used, strict=True)]
    contracts = [
        None if isinstance(c, str) and c.lower() == _ZERO_ADDRESS else c
        for c in (r.contractAddress for r in receipts)
    ]
    (from_one, from_hex), (to_one, to_hex), (c_one, c_hex) = address_columns(
        [
            ([r.sender if r.from_ is None else r.from_ for r in receipts], "from", True),
            ([r.to for r in receipts], "to", False),
            (contracts, "contractAddress", False),
        ],
        where,
    )
    logs = [r.logs for r in receipts]
    if None in logs:
        where.fail(logs.index(None), "logs", None, "an array of logs ([] when none)")
    statuses = parse_ints([r.status for r in receipts], where, "status")
    return {
        "block_number": int_array([r.blockNumber for r in receipts], where, "blockNumber", required=True),
        "block_hash": hash_array([r.blockHash for r in receipts], where, "blockHash", required=True),
        "shard_id": constant(ctx.shard_id, n, pa.int32()),
        "transaction_hash": hashes,
        "eth_hash": pa.array([None if i is None else i[0] for i in info], type=pa.string()),
        "transaction_index": int_array(
            [r.transactionIndex for r in receipts], where, "transactionIndex", required=True
        ),
        "status": pa.array(_statuses(statuses, where), type=pa.bool_()),
        "gas_used": int_array(gas_used, where, "gasUsed", parsed=True),
        "cumulative_gas_used": int_array(
            [r.cumulativeGasUsed for r in receipts], where, "cumulativeGasUsed", required=True
        ),
        "gas_price": amount_array(prices, where, "effectiveGasPrice", parsed=True),
        "fee": amount_array(fees, where, "gasUsed x gasPrice", parsed=True),
        "from_address": from_one,
        "from_address_hex": from_hex,
        "to_address": to_one,
        "to_address_hex": to_hex,
        "contract_address": c_one,
        "contract_address_hex": c_hex,
        "log_count": pa.array([len(x) for x in logs], type=pa.int64()),  # type: ignore[arg-type]
        "is_staking": pa.array(staking, type=pa.bool_()),
        "directive": pa.array(_directives([r.type for r in receipts], staking, where), type=pa.string()),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per transaction receipt, plain and staking: status, gas used, exact fee, created contract, log count.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_index"),
    source="receipts",
    methods=("hmy(v2)_getBlockReceipts", "hmy(v2)_getTransactionReceipt"),
    builder=build,
    decoder=decode_receipts,
    summary="Receipts (status, gas used, exact fee) of every transaction of blocks ``start..end``.",
    notes=(
        "Receipts come from ``getBlockReceipts`` (one call per block with transactions), or batched "
        "``getTransactionReceipt`` calls on a node without it (or whose ``getBlockReceipts`` crashes: it does "
        "on a block an ``eth_getLogs`` touched, see ``sources._receipts_fallback``); they are checked against their blocks "
        "(block hash, transaction set, gas used summing to the block's gasUsed) before anything is cached."
    ),
)
