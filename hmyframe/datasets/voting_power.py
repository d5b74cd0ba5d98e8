"""``voting_power``: one row per validator, shard and BLS key (or per shard, early-2020)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import (
    Bad,
    Where,
    address_arrays,
    amount_array,
    as_dict,
    as_list,
    int_array,
    parse_dec_amount,
    ratio_arrays,
    string_array,
)
from ._decode import require
from ._validators import DecodedValidators, decode_validators, snapshot

NAME = "voting_power"

SCHEMA = pa.schema(
    [
        shared("snapshot_block"),
        shared("snapshot_epoch"),
        shared("validator_address"),
        shared("validator_address_hex"),
        shared("shard_id", "Shard whose committee the key (or stake) sits in."),
        shared(
            "bls_public_key", "BLS key the row is about; null in the early-2020 format (one row per shard)."
        ),
        column("effective_stake", AMOUNT, "Effective (EPoS) stake in atto, rounded to the atto."),
        one_column("effective_stake", "Effective stake in ONE as float64 (convenience)."),
        column(
            "raw_stake",
            AMOUNT,
            "Raw stake behind the key in atto, rounded to the atto; null in the early-2020 format.",
        ),
        one_column("raw_stake", "Raw stake in ONE as float64 (convenience)."),
        column(
            "group_percent",
            pa.float64(),
            "Voting power within the shard's staked group (0..1); current format.",
        ),
        column(
            "overall_percent",
            pa.float64(),
            "Voting power within the whole shard committee (0..1); current format.",
        ),
        column("voting_power_raw", pa.float64(), "Raw voting power (0..1); early-2020 format."),
        column("voting_power_adjusted", pa.float64(), "Adjusted voting power (0..1); early-2020 format."),
        column(
            "earned_reward",
            AMOUNT,
            "Reward earned by the key in the current epoch in atto, exact; current format.",
        ),
        one_column("earned_reward", "Reward earned in the current epoch in ONE as float64 (convenience)."),
    ]
)

_FIELDS = ("effective", "raw", "group", "overall", "vp_raw", "vp_adjusted", "reward", "shard", "key")


# long: one pass over both formats' rows, then the table of the dataset's columns
def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded validator pages.

    The current format gives ``metrics.by-bls-key`` (one row per key); the early-2020 format
    gives ``current-epoch-voting-power`` (one row per shard). A validator outside the
    committee (``metrics: null``) has no rows.
    """
    data = require(decoded, DecodedValidators, NAME, "validators")
    paths: list[str] = []
    key_paths: list[str] = []
    owner_paths: list[str] = []
    blocks: list[int | None] = []
    epochs: list[int | None] = []
    owners: list[Any] = []
    values: dict[str, list[Any]] = {k: [] for k in _FIELDS}
    entry_where = Where.of(NAME, data.paths)
    for row, entry in enumerate(data.entries):
        block, epoch = snapshot(entry, ctx, entry_where, row)
        address = entry["validator"].get("address")
        metrics = as_dict(entry.get("metrics"), entry_where, row, "metrics")
        items: list[tuple[str, str]] = []
        if metrics is not None:
            for j, item in enumerate(
                as_list(metrics.get("by-bls-key"), entry_where, row, "metrics.by-bls-key")
            ):
                path = f"{data.paths[row]}.metrics.by-bls-key[{j}]"
                item = as_dict(item, Where.of(NAME, [path]), 0, "", nullable=False) or {}
                key = as_dict(item.get("key"), Where.of(NAME, [path]), 0, "key", nullable=False) or {}
                items.append((path, f"{path}.key"))
                values["effective"].append(key.get("effective-stake"))
                values["raw"].append(key.get("raw-stake"))
                values["group"].append(key.get("group-percent"))
                values["overall"].append(key.get("overall-percent"))
                values["vp_raw"].append(None)
                values["vp_adjusted"].append(None)
                values["reward"].append(item.get("earned-reward"))
                values["shard"].append(key.get("shard-id"))
                values["key"].append(key.get("bls-public-key"))
        legacy = as_list(
            entry.get("current-epoch-voting-power"), entry_where, row, "current-epoch-voting-power"
        )
        for j, item in enumerate(legacy):
            path = f"{data.paths[row]}.current-epoch-voting-power[{j}]"
            item = as_dict(item, Where.of(NAME, [path]), 0, "", nullable=False) or {}
            items.append((path, path))
            values["effective"].append(item.get("effective-stake"))
            values["raw"].append(None)
            values["group"].append(None)
            values["overall"].append(None)
            values["vp_raw"].append(item.get("voting-power-raw"))
            values["vp_adjusted"].append(item.get("voting-power-adjusted"))
            values["reward"].append(None)
            values["shard"].append(item.get("shard-id"))
            values["key"].append(None)
        for path, key_path in items:
            paths.append(path)
            key_paths.append(key_path)
            owner_paths.append(data.paths[row])
            blocks.append(block)
            epochs.append(epoch)
            owners.append(address)
    where = Where.of(NAME, paths)
    key_where = Where.of(NAME, key_paths)  # metrics rows keep stakes and shares under "key"
    effective = _dec_amounts(values["effective"], key_where, "effective-stake")
    raw = _dec_amounts(values["raw"], key_where, "raw-stake")
    group, _ = ratio_arrays(values["group"], key_where, "group-percent")
    overall, _ = ratio_arrays(values["overall"], key_where, "overall-percent")
    vp_raw, _ = ratio_arrays(values["vp_raw"], where, "voting-power-raw")
    vp_adjusted, _ = ratio_arrays(values["vp_adjusted"], where, "voting-power-adjusted")
    owner_where = Where.of(NAME, owner_paths)
    validator, validator_hex = address_arrays(owners, owner_where, "validator.address", required=True)
    return {
        "snapshot_block": int_array(blocks, where, "block", parsed=True),
        "snapshot_epoch": int_array(epochs, where, "epoch", parsed=True),
        "validator_address": validator,
        "validator_address_hex": validator_hex,
        "shard_id": int_array(values["shard"], key_where, "shard-id", required=True, type_=pa.int32()),
        "bls_public_key": string_array(values["key"], key_where, "bls-public-key"),
        "effective_stake": amount_array(effective, where, "effective-stake", parsed=True),
        "raw_stake": amount_array(raw, where, "raw-stake", parsed=True),
        "group_percent": group,
        "overall_percent": overall,
        "voting_power_raw": vp_raw,
        "voting_power_adjusted": vp_adjusted,
        "earned_reward": amount_array(values["reward"], where, "earned-reward"),
    }


def _dec_amounts(values: list[Any], where: Where, name: str) -> list[int | None]:
    out: list[int | None] = []
    for i, v in enumerate(values):
        if v is None:
            out.append(None)
            continue
        try:
            out.append(parse_dec_amount(v))
        except Bad as exc:
            where.fail(i, name, v, exc.expected)
    return out


DATASET = Dataset(
    name=NAME,
    description="Voting power per validator, shard and BLS key: effective / raw stake and group / overall percent (or the early-2020 raw / adjusted power).",
    schema=SCHEMA,
    sort_by=("snapshot_block", "validator_address", "shard_id", "bls_public_key"),
    source="validators",
    methods=(
        "hmy(v2)_getAllValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getValidatorInformation(ByBlockNumber)",
    ),
    builder=build,
    decoder=decode_validators,
    summary="Voting power per validator, shard and BLS key at ``block`` (default: the head).",
    notes="Percentages are fractions 0..1 (0.05 is 5 %).",
)
