"""``staking_transactions``: one row per staking transaction, its directive flattened."""

from __future__ import annotations

import re

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import constant, gather, tx_common_columns
from ._convert import (
    Where,
    address_arrays,
    amount_array,
    one_float_array,
    parse_ints,
    scaled_rate_arrays,
    string_array,
)
from ._decode import DecodedBlocks, StakingMsg, StakingTx, decode_blocks, require

NAME = "staking_transactions"
_BLS_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{96}")

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("transaction_index"),
        shared("transaction_hash"),
        shared("timestamp"),
        shared("shard_id"),
        shared("from_address"),
        shared("from_address_hex"),
        column("gas", pa.int64(), "Gas limit given by the sender."),
        shared("gas_price"),
        one_column("gas_price", "Gas price in ONE per gas unit as float64 (convenience)."),
        shared("nonce"),
        column(
            "directive",
            pa.string(),
            "CreateValidator, EditValidator, Delegate, Undelegate or CollectRewards.",
        ),
        shared("validator_address"),
        shared("validator_address_hex"),
        shared("delegator_address"),
        shared("delegator_address_hex"),
        column("amount", AMOUNT, "Amount in atto (CreateValidator self-stake, Delegate, Undelegate), exact."),
        one_column("amount", "Amount in ONE as float64 (convenience)."),
        column(
            "commission_rate",
            pa.float64(),
            "Commission rate as a fraction (EditValidator: 0 when unchanged, as the node sends it).",
        ),
        column(
            "commission_rate_dec",
            pa.string(),
            "Commission rate, exact 18-decimal text (the node sends a 1e18-scaled integer).",
        ),
        column("max_commission_rate", pa.float64(), "Maximum commission rate (CreateValidator)."),
        column("max_commission_rate_dec", pa.string(), "Maximum commission rate, exact 18-decimal text."),
        column("max_change_rate", pa.float64(), "Maximum commission change per epoch (CreateValidator)."),
        column(
            "max_change_rate_dec", pa.string(), "Maximum commission change per epoch, exact 18-decimal text."
        ),
        column(
            "min_self_delegation",
            AMOUNT,
            "Minimum self delegation in atto, exact (EditValidator: null when unchanged).",
        ),
        one_column("min_self_delegation", "Minimum self delegation in ONE as float64 (convenience)."),
        column(
            "max_total_delegation",
            AMOUNT,
            "Maximum total delegation in atto, exact (EditValidator: null when unchanged).",
        ),
        one_column("max_total_delegation", "Maximum total delegation in ONE as float64 (convenience)."),
        column("name", pa.string(), "Validator name (Create/EditValidator)."),
        column("identity", pa.string(), "Validator identity text."),
        column("website", pa.string(), "Validator website."),
        column("security_contact", pa.string(), "Validator security contact."),
        column("details", pa.string(), "Validator details text."),
        column(
            "slot_pub_keys", pa.string(), "CreateValidator BLS keys, comma-separated (96 hex digits each)."
        ),
        column("slot_pub_key_to_add", pa.string(), "EditValidator: BLS key added, if any."),
        column("slot_pub_key_to_remove", pa.string(), "EditValidator: BLS key removed, if any."),
    ]
)


def _keys(msgs: list[StakingMsg | None], where: Where) -> pa.Array:
    out: list[str | None] = []
    for i, m in enumerate(msgs):
        keys = None if m is None else m.slotPubKeys
        if keys is None:
            out.append(None)
            continue
        for k in keys:
            if not _BLS_KEY.fullmatch(k):
                where.fail(i, "msg.slotPubKeys", k, "a BLS public key of 96 hex digits")
        out.append(",".join(keys))
    return pa.array(out, type=pa.string())


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads."""
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    gathered = gather(data, NAME, staking=True)
    rows: list[StakingTx] = gathered.rows
    where = gathered.where
    cols = tx_common_columns(gathered, data.blocks, ctx)
    msgs = [t.msg for t in rows]
    empty = StakingMsg()
    m = [empty if v is None else v for v in msgs]
    validator, validator_hex = address_arrays([x.validatorAddress for x in m], where, "msg.validatorAddress")
    delegator, delegator_hex = address_arrays([x.delegatorAddress for x in m], where, "msg.delegatorAddress")
    amounts = parse_ints([x.amount for x in m], where, "msg.amount")
    rate, rate_dec = scaled_rate_arrays([x.commissionRate for x in m], where, "msg.commissionRate")
    max_rate, max_rate_dec = scaled_rate_arrays(
        [x.maxCommissionRate for x in m], where, "msg.maxCommissionRate"
    )
    change, change_dec = scaled_rate_arrays([x.maxChangeRate for x in m], where, "msg.maxChangeRate")
    cols.update(
        {
            "shard_id": constant(ctx.shard_id, len(rows), pa.int32()),
            "directive": string_array([t.type for t in rows], where, "type", required=True),
            "validator_address": validator,
            "validator_address_hex": validator_hex,
            "delegator_address": delegator,
            "delegator_address_hex": delegator_hex,
            "amount": amount_array(amounts, where, "msg.amount", parsed=True),
            "amount_one": one_float_array(amounts),
            "commission_rate": rate,
            "commission_rate_dec": rate_dec,
            "max_commission_rate": max_rate,
            "max_commission_rate_dec": max_rate_dec,
            "max_change_rate": change,
            "max_change_rate_dec": change_dec,
            "min_self_delegation": amount_array(
                [x.minSelfDelegation for x in m], where, "msg.minSelfDelegation"
            ),
            "max_total_delegation": amount_array(
                [x.maxTotalDelegation for x in m], where, "msg.maxTotalDelegation"
            ),
            "name": string_array([x.name for x in m], where, "msg.name", checked=True),
            "identity": string_array([x.identity for x in m], where, "msg.identity", checked=True),
            "website": string_array([x.website for x in m], where, "msg.website", checked=True),
            "security_contact": string_array(
                [x.securityContact for x in m], where, "msg.securityContact", checked=True
            ),
            "details": string_array([x.details for x in m], where, "msg.details", checked=True),
            "slot_pub_keys": _keys(msgs, where),
            "slot_pub_key_to_add": string_array(
                [x.slotPubKeyToAdd for x in m], where, "msg.slotPubKeyToAdd", checked=True
            ),
            "slot_pub_key_to_remove": string_array(
                [x.slotPubKeyToRemove for x in m], where, "msg.slotPubKeyToRemove", checked=True
            ),
        }
    )
    return cols


DATASET = Dataset(
    name=NAME,
    description="One row per staking transaction: directive, validator / delegator, exact amounts, rates, descriptive fields.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_index", "transaction_hash"),
    source="blocks",
    methods=(
        "hmy(v2)_getBlocks / getBlockByNumber / getBlockByHash (fullTx, inclStaking)",
        "hmy(v2)_getStakingTransactionByHash",
        "hmy(v2)_pendingStakingTransactions",
        "hmy(v2)_getStakingTransactionsHistory (fullTx)",
    ),
    builder=build,
    decoder=decode_blocks,
    summary="Staking transactions of blocks ``start..end``: one row per staking transaction.",
    notes="Staking transactions exist on shard 0 only.",
)
