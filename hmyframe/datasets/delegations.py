"""``delegations``: one row per (validator, delegator) delegation in a validator snapshot."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import Where, address_arrays, amount_array, as_list, int_array, one_float_array, parse_ints
from ._decode import require
from ._validators import (
    DecodedValidators,
    FlatDelegations,
    decode_validators,
    delegation_rows,
    flat_delegations,
    pick,
)

NAME = "delegations"

SCHEMA = pa.schema(
    [
        shared("snapshot_block"),
        shared("snapshot_epoch"),
        shared("validator_address"),
        shared("validator_address_hex"),
        shared("delegator_address"),
        shared("delegator_address_hex"),
        column(
            "delegation_index",
            pa.int64(),
            "Position in the validator's delegation list (0 is the self delegation); null from delegation methods.",
        ),
        column("amount", AMOUNT, "Delegated amount in atto, exact."),
        one_column("amount", "Delegated amount in ONE as float64 (convenience)."),
        column("reward", AMOUNT, "Unclaimed reward in atto, exact."),
        one_column("reward", "Unclaimed reward in ONE as float64 (convenience)."),
        column("undelegation_count", pa.int64(), "Number of pending undelegations."),
        column("undelegating_amount", AMOUNT, "Sum of the pending undelegations in atto, exact."),
        one_column(
            "undelegating_amount", "Sum of the pending undelegations in ONE as float64 (convenience)."
        ),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded validator pages (or delegation-method records).

    Key spellings of both the validator-information format (``delegator-address``,
    ``undelegations``, ``amount``) and the delegation methods (``delegator_address``,
    ``Undelegations``, ``Amount``) are read.
    """
    data = require(decoded, DecodedValidators, NAME, "validators")
    flat = flat_delegations(data, ctx, NAME)
    if flat is not None:
        return _build_flat(flat)
    rows = delegation_rows(data, ctx, NAME)
    where = Where.of(NAME, [r.path for r in rows])
    amounts = parse_ints(
        [pick(r.delegation, "amount", "Amount") for r in rows], where, "amount", required=True
    )
    counts: list[int] = []
    pending: list[int] = []
    for i, r in enumerate(rows):
        undelegations = as_list(
            pick(r.delegation, "undelegations", "Undelegations"), where, i, "undelegations"
        )
        sub = Where.of(NAME, [f"{r.path}.undelegations[{j}]" for j in range(len(undelegations))])
        for j, u in enumerate(undelegations):
            if not isinstance(u, dict):
                sub.fail(j, "", u, "an undelegation object")
        values = parse_ints(
            [pick(u, "amount", "Amount") for u in undelegations], sub, "amount", required=True
        )
        counts.append(len(undelegations))
        pending.append(sum(v for v in values if v is not None))
    validator, validator_hex = address_arrays(
        [r.validator for r in rows], where, "validator_address", required=True
    )
    delegator, delegator_hex = address_arrays(
        [_delegator(r.delegation) for r in rows], where, "delegator-address", required=True
    )
    return {
        "snapshot_block": pa.array([r.snapshot_block for r in rows], type=pa.int64()),
        "snapshot_epoch": pa.array([r.snapshot_epoch for r in rows], type=pa.int64()),
        "validator_address": validator,
        "validator_address_hex": validator_hex,
        "delegator_address": delegator,
        "delegator_address_hex": delegator_hex,
        "delegation_index": int_array([r.index for r in rows], where, "index", parsed=True),
        "amount": amount_array(amounts, where, "amount", parsed=True),
        "amount_one": one_float_array(amounts),
        "reward": amount_array(
            [pick(r.delegation, "reward", "Reward") for r in rows], where, "reward", required=True
        ),
        "undelegation_count": pa.array(counts, type=pa.int64()),
        "undelegating_amount": amount_array(pending, where, "undelegations", parsed=True),
    }


def _build_flat(flat: FlatDelegations) -> dict[str, pa.Array]:
    """:func:`build` over :func:`flat_delegations` (the same columns, checks and messages)."""
    where = Where(NAME, flat.path)
    amounts = parse_ints(flat.amount, where, "amount", required=True)
    unds = flat.undelegations
    counts: list[int] = [0] * len(unds)
    pending: list[int] = [0] * len(unds)
    for i, u in enumerate(unds):
        if u is None or (type(u) is list and not u):
            continue  # the usual case: nothing pending
        undelegations = as_list(u, where, i, "undelegations")
        sub = Where(NAME, flat.undelegation_paths(i))
        for j, x in enumerate(undelegations):
            if not isinstance(x, dict):
                sub.fail(j, "", x, "an undelegation object")
        values = parse_ints(
            [pick(x, "amount", "Amount") for x in undelegations], sub, "amount", required=True
        )
        counts[i] = len(undelegations)
        pending[i] = sum(v for v in values if v is not None)
    validator, validator_hex = address_arrays(flat.validator, where, "validator_address", required=True)
    delegator, delegator_hex = address_arrays(flat.delegator, where, "delegator-address", required=True)
    return {
        "snapshot_block": pa.array(flat.snapshot_block, type=pa.int64()),
        "snapshot_epoch": pa.array(flat.snapshot_epoch, type=pa.int64()),
        "validator_address": validator,
        "validator_address_hex": validator_hex,
        "delegator_address": delegator,
        "delegator_address_hex": delegator_hex,
        "delegation_index": int_array(flat.index, where, "index", parsed=True),
        "amount": amount_array(amounts, where, "amount", parsed=True),
        "amount_one": one_float_array(amounts),
        "reward": amount_array(flat.reward, where, "reward", required=True),
        "undelegation_count": pa.array(counts, type=pa.int64()),
        "undelegating_amount": amount_array(pending, where, "undelegations", parsed=True),
    }


def _delegator(d: dict[str, Any]) -> Any:
    return pick(d, "delegator-address", "delegator_address", "delegatorAddress")


DATASET = Dataset(
    name=NAME,
    description="One row per delegation in a validator snapshot: exact amount, unclaimed reward, pending undelegations.",
    schema=SCHEMA,
    sort_by=("snapshot_block", "validator_address", "delegator_address"),
    source="validators",
    methods=(
        "hmy(v2)_getAllValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getDelegationsByValidator / ByDelegator(ByBlockNumber) / ByDelegatorAndValidator",
    ),
    builder=build,
    decoder=decode_validators,
    summary="Every delegation at ``block`` (default: the head): one row per (validator, delegator).",
)
