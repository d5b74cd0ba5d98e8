"""``validators``: one row per validator per snapshot (both validator-information formats)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hmyframe._lazy import lazy_module
from hmyframe.errors import ResponseShapeError

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import (
    Bad,
    Where,
    address_arrays,
    amount_array,
    as_dict,
    as_list,
    bool_array,
    dec_amount_array,
    int_array,
    parse_amount,
    ratio_arrays,
    string_array,
)
from ._decode import require
from ._validators import DecodedValidators, array_length, decode_validators, pick, snapshot

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = lazy_module("pyarrow.compute")  # (a ~0.1 s import: only once a table is built)

NAME = "validators"
_BLS_KEY = re.compile(r"(?:0x)?[0-9a-fA-F]{96}")
_BLS_KEY_RE = "^(?:0x)?[0-9a-fA-F]{96}$"

SCHEMA = pa.schema(
    [
        shared("snapshot_block"),
        shared("snapshot_epoch"),
        shared("validator_address"),
        shared("validator_address_hex"),
        column("name", pa.string(), "Validator name."),
        column("identity", pa.string(), "Identity text."),
        column("website", pa.string(), "Website."),
        column("security_contact", pa.string(), "Security contact."),
        column("details", pa.string(), "Free-form details."),
        column("rate", pa.float64(), "Current commission rate as a fraction."),
        column("rate_dec", pa.string(), "Current commission rate, exact 18-decimal text as sent."),
        column("max_rate", pa.float64(), "Maximum commission rate."),
        column("max_rate_dec", pa.string(), "Maximum commission rate, exact 18-decimal text."),
        column("max_change_rate", pa.float64(), "Maximum commission change per epoch."),
        column(
            "max_change_rate_dec", pa.string(), "Maximum commission change per epoch, exact 18-decimal text."
        ),
        column("min_self_delegation", AMOUNT, "Minimum self delegation in atto, exact."),
        one_column("min_self_delegation", "Minimum self delegation in ONE as float64 (convenience)."),
        column("max_total_delegation", AMOUNT, "Maximum total delegation in atto, exact."),
        one_column("max_total_delegation", "Maximum total delegation in ONE as float64 (convenience)."),
        column(
            "total_delegation",
            AMOUNT,
            "Total delegated (self included) in atto, exact (early-2020 format: the sum of the listed delegations).",
        ),
        one_column("total_delegation", "Total delegated in ONE as float64 (convenience)."),
        column("delegation_count", pa.int64(), "Number of delegations listed (self delegation included)."),
        column("bls_key_count", pa.int64(), "Number of BLS public keys."),
        column("bls_public_keys", pa.string(), "BLS public keys, comma-separated."),
        column(
            "is_active",
            pa.bool_(),
            "Active (current: active-status == 'active'; early-2020: validator.active).",
        ),
        column(
            "active_status",
            pa.string(),
            "active-status as sent (active, inactive, banned...); null in the early-2020 format.",
        ),
        column(
            "epos_status",
            pa.string(),
            "epos-status as sent (currently elected, eligible..., not eligible...).",
        ),
        column("booted_status", pa.string(), "booted-status as sent (null when the node sends null)."),
        column(
            "is_banned",
            pa.bool_(),
            "Banned for double signing (early-2020: validator.banned; current: a 'banned' status).",
        ),
        column("is_elected", pa.bool_(), "currently-in-committee; null in the early-2020 format."),
        column(
            "epos_winning_stake",
            AMOUNT,
            "Winning stake in the EPoS auction in atto (rounded to the atto); null if none.",
        ),
        one_column("epos_winning_stake", "Winning stake in ONE as float64 (convenience)."),
        column(
            "epoch_signing_percentage", pa.float64(), "Share of blocks signed in the current epoch (0..1)."
        ),
        column("epoch_blocks_signed", pa.int64(), "Blocks signed in the current epoch."),
        column("epoch_blocks_to_sign", pa.int64(), "Blocks to sign in the current epoch."),
        column(
            "lifetime_blocks_signed",
            pa.int64(),
            "Blocks signed over the validator's life (early-2020: availability).",
        ),
        column(
            "lifetime_blocks_to_sign",
            pa.int64(),
            "Blocks to sign over the validator's life (early-2020: availability).",
        ),
        column(
            "lifetime_reward",
            AMOUNT,
            "Lifetime accumulated reward in atto, exact; null in the early-2020 format.",
        ),
        one_column("lifetime_reward", "Lifetime accumulated reward in ONE as float64 (convenience)."),
        column(
            "apr",
            pa.float64(),
            "Lifetime annual percentage return as a fraction; null in the early-2020 format.",
        ),
        column("creation_height", pa.int64(), "Block height at which the validator was created."),
        column("update_height", pa.int64(), "Block height of the last update."),
        column(
            "last_epoch_in_committee", pa.int64(), "Last epoch in which the validator was in the committee."
        ),
    ]
)


_NONE = type(None)


def _status_flags(active_status: Any, epos_status: Any) -> tuple[bool | None, bool | None]:
    if not isinstance(active_status, str):
        return None, None
    banned = "banned" in active_status or (isinstance(epos_status, str) and "banned" in epos_status)
    if active_status == "active":
        return True, banned
    if active_status == "inactive" or banned:
        return False, banned
    return None, None  # "unknown"


# long: the table of the dataset's columns, one entry each
def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded validator pages (deduplicated by address)."""
    data = require(decoded, DecodedValidators, NAME, "validators")
    where = Where.of(NAME, data.paths)
    if data.records:
        raise_records(data)
    fast = _current_rows(data.entries, ctx)
    cols, v_, key_lists = fast if fast is not None else _rows(data.entries, ctx, where)
    _check_bls_keys(key_lists, where)
    cols["bls_public_keys"] = [",".join(keys) for keys in key_lists]

    def of(key: str) -> list[Any]:
        return [v.get(key) for v in v_]

    address, address_hex = address_arrays(of("address"), where, "validator.address", required=True)
    rate, rate_dec = ratio_arrays(of("rate"), where, "validator.rate", required=True)
    max_rate, max_rate_dec = ratio_arrays(of("max-rate"), where, "validator.max-rate", required=True)
    change, change_dec = ratio_arrays(
        of("max-change-rate"), where, "validator.max-change-rate", required=True
    )
    signing_pct, _ = ratio_arrays(
        cols["epoch_signing_percentage"],
        where,
        "current-epoch-signing-percent.current-epoch-signing-percentage",
    )
    apr, _ = ratio_arrays(cols["apr"], where, "lifetime.apr")
    return {
        "snapshot_block": int_array(
            cols["snapshot_block"], where, "current-epoch-performance.block", parsed=True
        ),
        "snapshot_epoch": int_array(
            cols["snapshot_epoch"], where, "current-epoch-performance.epoch", parsed=True
        ),
        "validator_address": address,
        "validator_address_hex": address_hex,
        "name": string_array(of("name"), where, "validator.name"),
        "identity": string_array(of("identity"), where, "validator.identity"),
        "website": string_array(of("website"), where, "validator.website"),
        "security_contact": string_array(of("security-contact"), where, "validator.security-contact"),
        "details": string_array(of("details"), where, "validator.details"),
        "rate": rate,
        "rate_dec": rate_dec,
        "max_rate": max_rate,
        "max_rate_dec": max_rate_dec,
        "max_change_rate": change,
        "max_change_rate_dec": change_dec,
        "min_self_delegation": amount_array(
            of("min-self-delegation"), where, "validator.min-self-delegation"
        ),
        "max_total_delegation": amount_array(
            of("max-total-delegation"), where, "validator.max-total-delegation"
        ),
        "total_delegation": amount_array(cols["total_delegation"], where, "total-delegation"),
        "delegation_count": pa.array(cols["delegation_count"], type=pa.int64()),
        "bls_key_count": pa.array(cols["bls_key_count"], type=pa.int64()),
        "bls_public_keys": pa.array(cols["bls_public_keys"], type=pa.string()),
        "is_active": bool_array(cols["is_active"], where, "validator.active"),
        "active_status": string_array(cols["active_status"], where, "active-status"),
        "epos_status": string_array(cols["epos_status"], where, "epos-status"),
        "booted_status": string_array(cols["booted_status"], where, "booted-status"),
        "is_banned": bool_array(cols["is_banned"], where, "validator.banned"),
        "is_elected": bool_array(cols["is_elected"], where, "currently-in-committee"),
        "epos_winning_stake": dec_amount_array(cols["epos_winning_stake"], where, "epos-winning-stake"),
        "epoch_signing_percentage": signing_pct,
        "epoch_blocks_signed": int_array(
            cols["epoch_blocks_signed"], where, "current-epoch-signing-percent.current-epoch-signed"
        ),
        "epoch_blocks_to_sign": int_array(
            cols["epoch_blocks_to_sign"], where, "current-epoch-signing-percent.current-epoch-to-sign"
        ),
        "lifetime_blocks_signed": int_array(cols["lifetime_blocks_signed"], where, "lifetime.blocks.signed"),
        "lifetime_blocks_to_sign": int_array(
            cols["lifetime_blocks_to_sign"], where, "lifetime.blocks.to-sign"
        ),
        "lifetime_reward": amount_array(cols["lifetime_reward"], where, "lifetime.reward-accumulated"),
        "apr": apr,
        "creation_height": int_array(of("creation-height"), where, "validator.creation-height"),
        "update_height": int_array(of("update-height"), where, "validator.update-height"),
        "last_epoch_in_committee": int_array(
            of("last-epoch-in-committee"), where, "validator.last-epoch-in-committee"
        ),
    }


def _rows(
    entries: list[dict[str, Any]], ctx: ConvertContext, where: Where
) -> tuple[dict[str, list[Any]], list[dict[str, Any]], list[list[Any]]]:
    """Per-row values of every shape :func:`decode_validators` accepts, row by row: (columns
    filled here, each row's ``validator`` object, each row's BLS keys); the first bad value
    raises, named."""
    cols: dict[str, list[Any]] = {f.name: [] for f in SCHEMA}
    v_: list[dict[str, Any]] = []
    key_lists: list[list[Any]] = []
    for row, entry in enumerate(entries):
        v = as_dict(entry["validator"], where, row, "validator", nullable=False)
        assert v is not None
        v_.append(v)
        block, epoch = snapshot(entry, ctx, where, row)
        cols["snapshot_block"].append(block)
        cols["snapshot_epoch"].append(epoch)
        perf = as_dict(entry.get("current-epoch-performance"), where, row, "current-epoch-performance")
        signing_key = "current-epoch-performance.current-epoch-signing-percent"
        signing = as_dict((perf or {}).get("current-epoch-signing-percent"), where, row, signing_key)
        if signing is None:  # early-2020 format
            signing_key = "current-epoch-signing-percent"
            signing = as_dict(entry.get("current-epoch-signing-percent"), where, row, signing_key)
        signing = signing or {}
        cols["epoch_signing_percentage"].append(
            pick(signing, "current-epoch-signing-percentage", "percentage")
        )
        cols["epoch_blocks_signed"].append(signing.get("current-epoch-signed"))
        cols["epoch_blocks_to_sign"].append(signing.get("current-epoch-to-sign"))
        lifetime = as_dict(entry.get("lifetime"), where, row, "lifetime")
        availability = as_dict(v.get("availability"), where, row, "validator.availability")
        if lifetime is not None:
            blocks = as_dict(lifetime.get("blocks"), where, row, "lifetime.blocks") or {}
            cols["lifetime_blocks_signed"].append(blocks.get("signed"))
            cols["lifetime_blocks_to_sign"].append(blocks.get("to-sign"))
            cols["lifetime_reward"].append(lifetime.get("reward-accumulated"))
            cols["apr"].append(lifetime.get("apr"))
        else:
            avail = availability or {}
            cols["lifetime_blocks_signed"].append(avail.get("num-blocks-signed"))
            cols["lifetime_blocks_to_sign"].append(pick(avail, "num-blocks-to-sign", "num-of-blocks-to-sign"))
            cols["lifetime_reward"].append(None)
            cols["apr"].append(None)
        active_status = entry.get("active-status")
        epos_status = entry.get("epos-status")
        is_active, is_banned = _status_flags(active_status, epos_status)
        if "active" in v:  # early-2020 format
            is_active = v["active"]
        if "banned" in v:
            is_banned = v["banned"]
        cols["is_active"].append(is_active)
        cols["is_banned"].append(is_banned)
        cols["active_status"].append(active_status)
        cols["epos_status"].append(epos_status)
        cols["booted_status"].append(entry.get("booted-status"))
        cols["is_elected"].append(entry.get("currently-in-committee"))
        total = entry.get("total-delegation")
        if total is None and "total-delegation" not in entry:
            # the early-2020 format has no total but lists every delegation: their exact sum
            total = _delegated(v, where, row)
        cols["total_delegation"].append(total)
        cols["epos_winning_stake"].append(entry.get("epos-winning-stake"))
        keys = as_list(v.get("bls-public-keys"), where, row, "validator.bls-public-keys")
        key_lists.append(keys)
        cols["bls_key_count"].append(len(keys))
        count = array_length(v, "delegations")
        if type(count) is not int:
            count = len(as_list(count, where, row, "validator.delegations"))
        cols["delegation_count"].append(count)

    return cols, v_, key_lists


_FAST_COLUMNS = (
    "snapshot_block",
    "snapshot_epoch",
    "epoch_signing_percentage",
    "epoch_blocks_signed",
    "epoch_blocks_to_sign",
    "lifetime_blocks_signed",
    "lifetime_blocks_to_sign",
    "lifetime_reward",
    "apr",
)


def _current_rows(
    entries: list[dict[str, Any]], ctx: ConvertContext
) -> tuple[dict[str, list[Any]], list[dict[str, Any]], list[list[Any]]] | None:
    """What :func:`_rows` gives, one field at a time over all rows, for the current format
    only: every nested member a JSON object where :func:`_rows` takes one, ``lifetime``
    present, no early-2020 key, snapshot numbers plain ints. Anything else gives ``None``
    (then :func:`_rows` runs and names what is wrong), so both paths accept the same input."""
    dict_ = dict
    v_: list[Any] = [e.get("validator") for e in entries]
    perfs: list[Any] = [e.get("current-epoch-performance") for e in entries]
    lifetimes: list[Any] = [e.get("lifetime") for e in entries]
    if not {type(x) for x in (*v_, *lifetimes)} <= {dict_} or not set(map(type, perfs)) <= {dict_, _NONE}:
        return None
    # a validator out of the committee has no performance: its signing columns are null, as in
    # :func:`_rows`, unless the entry has the early-2020 key :func:`_rows` reads instead
    empty: dict[str, Any] = {}
    if any(
        p is None and e.get("current-epoch-signing-percent") is not None
        for p, e in zip(perfs, entries, strict=True)
    ):
        return None
    signings: list[Any] = [empty if p is None else p.get("current-epoch-signing-percent") for p in perfs]
    blocks: list[Any] = [lt.get("blocks") for lt in lifetimes]
    keys: list[Any] = [v.get("bls-public-keys") for v in v_]
    if not {type(x) for x in (*signings, *blocks)} <= {dict_} or not set(map(type, keys)) <= {list}:
        return None
    for v in v_:
        if "active" in v or "banned" in v or v.get("availability") is not None:
            return None
    if not all("total-delegation" in e for e in entries):
        return None
    counts = [array_length(v, "delegations") for v in v_]
    if not set(map(type, counts)) <= {int}:
        return None
    n = len(entries)
    snapshot_blocks: list[Any] = [ctx.snapshot_block] * n
    snapshot_epochs: list[Any] = [ctx.snapshot_epoch] * n
    if ctx.snapshot_block is None or ctx.snapshot_epoch is None:
        if ctx.snapshot_block is None:
            snapshot_blocks = [None if p is None else p.get("block") for p in perfs]
        if ctx.snapshot_epoch is None:
            snapshot_epochs = [None if p is None else p.get("epoch") for p in perfs]
        numbers = [x for x in (*snapshot_blocks, *snapshot_epochs) if x is not None]
        if not set(map(type, numbers)) <= {int} or (numbers and min(numbers) < 0):
            return None  # hex text, a float, a negative number...: parsed (or refused) row by row
    active = [e.get("active-status") for e in entries]
    epos = [e.get("epos-status") for e in entries]
    flags = list(map(_status_flags, active, epos))
    cols: dict[str, list[Any]] = dict(
        zip(
            _FAST_COLUMNS,
            (
                snapshot_blocks,
                snapshot_epochs,
                [pick(s, "current-epoch-signing-percentage", "percentage") for s in signings],
                [s.get("current-epoch-signed") for s in signings],
                [s.get("current-epoch-to-sign") for s in signings],
                [b.get("signed") for b in blocks],
                [b.get("to-sign") for b in blocks],
                [lt.get("reward-accumulated") for lt in lifetimes],
                [lt.get("apr") for lt in lifetimes],
            ),
            strict=True,
        )
    )
    cols["is_active"] = [f[0] for f in flags]
    cols["is_banned"] = [f[1] for f in flags]
    cols["active_status"] = active
    cols["epos_status"] = epos
    cols["booted_status"] = [e.get("booted-status") for e in entries]
    cols["is_elected"] = [e.get("currently-in-committee") for e in entries]
    cols["total_delegation"] = [e["total-delegation"] for e in entries]
    cols["epos_winning_stake"] = [e.get("epos-winning-stake") for e in entries]
    cols["bls_key_count"] = list(map(len, keys))
    cols["delegation_count"] = counts
    return cols, v_, keys


def _delegated(v: dict[str, Any], where: Where, row: int) -> int:
    """Exact sum of the amounts of a validator's listed delegations (self delegation included)."""
    total = 0
    for i, d in enumerate(as_list(v.get("delegations"), where, row, "validator.delegations")):
        name = f"validator.delegations[{i}].amount"
        amount = d.get("amount") if isinstance(d, dict) else None
        try:
            total += parse_amount(amount)
        except Bad as exc:
            where.fail(row, name, amount, exc.expected)
    return total


def _check_bls_keys(key_lists: list[list[Any]], where: Where) -> None:
    """Every key 96 hex digits (``0x`` allowed): checked in bulk, then the first bad one is
    looked for only if there is one.

    The usual case (no prefix) is one ``bytes.fromhex`` of all keys joined: it takes hex digits
    of either case and ASCII whitespace, so keys of 96 characters each that give 48 bytes each
    are hex digits only. Keys with a prefix go through one Arrow regex.
    """
    flat = [k for keys in key_lists for k in keys]
    try:
        ok = set(map(len, flat)) <= {96} and len(bytes.fromhex("".join(flat))) == 48 * len(flat)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        try:
            arr = pa.array(flat, type=pa.string())
            ok = not arr.null_count and pc.all(pc.match_substring_regex(arr, _BLS_KEY_RE)).as_py() is True
        except (pa.ArrowException, TypeError):
            ok = False
    if not ok:
        for row, keys in enumerate(key_lists):
            for k in keys:
                if not isinstance(k, str) or not _BLS_KEY.fullmatch(k):
                    where.fail(row, "validator.bls-public-keys", k, "BLS public keys of 96 hex digits")


def raise_records(data: DecodedValidators) -> None:
    """Delegation-method records cannot make validator rows: say so."""
    raise ResponseShapeError(
        NAME,
        data.record_paths[0],
        data.records[0],
        "a validator information object (this is a delegation record; use the delegations dataset)",
    )


DATASET = Dataset(
    name=NAME,
    description="One row per validator per snapshot: description, commission, stake, status, signing, APR (deduplicated by address).",
    schema=SCHEMA,
    sort_by=("snapshot_block", "validator_address"),
    source="validators",
    methods=(
        "hmy(v2)_getAllValidatorInformation(ByBlockNumber)",
        "hmy(v2)_getValidatorInformation(ByBlockNumber)",
    ),
    builder=build,
    decoder=decode_validators,
    summary="Every validator at ``block`` (default: the head): one row per validator.",
    notes="All pages of ``getAllValidatorInformationByBlockNumber`` at that one block, paced so the node's limiter is never tripped. Percentages and rates are fractions 0..1.",
)
