"""``undelegations``: one row per pending undelegation in a validator snapshot."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import Where, address_arrays, amount_array, as_list, int_array, one_float_array, parse_ints
from ._decode import require
from ._validators import DecodedValidators, decode_validators, delegation_rows, flat_delegations, pick

NAME = "undelegations"

SCHEMA = pa.schema(
    [
        shared("snapshot_block"),
        shared("snapshot_epoch"),
        shared("validator_address"),
        shared("validator_address_hex"),
        shared("delegator_address"),
        shared("delegator_address_hex"),
        column("undelegation_index", pa.int64(), "Position in the delegation's undelegation list."),
        column("amount", AMOUNT, "Amount being undelegated in atto, exact."),
        one_column("amount", "Amount in ONE as float64 (convenience)."),
        column(
            "epoch",
            pa.int64(),
            "Epoch in which the undelegation was made (funds unlock after the lock period).",
        ),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded validator pages (or delegation-method records).

    Reads ``undelegations`` / ``Undelegations`` with ``amount`` / ``Amount`` and
    ``epoch`` / ``Epoch``.
    """
    data = require(decoded, DecodedValidators, NAME, "validators")
    paths: list[str] = []
    blocks: list[int | None] = []
    epochs: list[int | None] = []
    validators: list[Any] = []
    delegators: list[Any] = []
    index: list[int] = []
    items: list[dict[str, Any]] = []
    flat = flat_delegations(data, ctx, NAME)
    if flat is not None:  # the same rows, visiting only delegations with pending undelegations
        for i, pending in enumerate(flat.undelegations):
            if pending is None or (type(pending) is list and not pending):
                continue
            owner = Where.of(NAME, [flat.path(i)])
            for j, u in enumerate(as_list(pending, owner, 0, "undelegations")):
                path = f"{flat.path(i)}.undelegations[{j}]"
                if not isinstance(u, dict):
                    Where.of(NAME, [path]).fail(0, "", u, "an undelegation object")
                paths.append(path)
                blocks.append(flat.snapshot_block[i])
                epochs.append(flat.snapshot_epoch[i])
                validators.append(flat.validator[i])
                delegators.append(flat.delegator[i])
                index.append(j)
                items.append(u)
    for r in [] if flat is not None else delegation_rows(data, ctx, NAME):
        owner = Where.of(NAME, [r.path])
        for j, u in enumerate(
            as_list(pick(r.delegation, "undelegations", "Undelegations"), owner, 0, "undelegations")
        ):
            path = f"{r.path}.undelegations[{j}]"
            if not isinstance(u, dict):
                Where.of(NAME, [path]).fail(0, "", u, "an undelegation object")
            paths.append(path)
            blocks.append(r.snapshot_block)
            epochs.append(r.snapshot_epoch)
            validators.append(r.validator)
            delegators.append(
                pick(r.delegation, "delegator-address", "delegator_address", "delegatorAddress")
            )
            index.append(j)
            items.append(u)
    where = Where.of(NAME, paths)
    amounts = parse_ints([pick(u, "amount", "Amount") for u in items], where, "amount", required=True)
    validator, validator_hex = address_arrays(validators, where, "validator_address", required=True)
    delegator, delegator_hex = address_arrays(delegators, where, "delegator-address", required=True)
    return {
        "snapshot_block": pa.array(blocks, type=pa.int64()),
        "snapshot_epoch": pa.array(epochs, type=pa.int64()),
        "validator_address": validator,
        "validator_address_hex": validator_hex,
        "delegator_address": delegator,
        "delegator_address_hex": delegator_hex,
        "undelegation_index": pa.array(index, type=pa.int64()),
        "amount": amount_array(amounts, where, "amount", parsed=True),
        "amount_one": one_float_array(amounts),
        "epoch": int_array([pick(u, "epoch", "Epoch") for u in items], where, "epoch", required=True),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per pending undelegation in a validator snapshot: exact amount and the epoch it was made.",
    schema=SCHEMA,
    sort_by=("snapshot_block", "validator_address", "delegator_address", "undelegation_index"),
    source="validators",
    methods=(
        "hmy(v2)_getAllValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getDelegationsByValidator / ByDelegator(ByBlockNumber) / ByDelegatorAndValidator",
    ),
    builder=build,
    decoder=decode_validators,
    summary="Every pending undelegation at ``block`` (default: the head).",
)
