"""Decoding validator-information pages, shared by ``validators``, ``voting_power``,
``delegations`` and ``undelegations``.

A page is the ``result`` of ``getAllValidatorInformation(ByBlockNumber)`` (an array, possibly
``[]``), or of ``getValidatorInformation(ByBlockNumber)`` (one object). Both formats are read:

* current: ``{"validator": {...}, "current-epoch-performance": ..., "metrics": ...,
  "lifetime": ..., "epos-status": ..., ...}``;
* early-2020 (the spec's): ``{"validator": {..., "availability", "active", "banned"},
  "current-epoch-signing-percent": ..., "current-epoch-voting-power": [...]}``, whose array
  elements may be wrapped as ``{"id", "jsonrpc", "result": {...}}``.

Elements of the delegation methods (``getDelegationsByValidator`` and friends:
``{"validator_address", "delegator_address", "amount", "reward", "Undelegations"}``) are also
accepted; they feed ``delegations`` and ``undelegations`` only.

**Deduplication.** A validator whose address appears more than once across the pages of one
conversion (a node that numbers pages from 1 repeats a page, or pages overlap while the set
changes) is kept once, at its first occurrence; delegation records are kept once per
(validator, delegator).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hmyframe.addresses import to_hex
from hmyframe.errors import AddressError, ResponseShapeError

from ._base import ConvertContext
from ._convert import Bad, Where, as_dict, as_list, parse_int
from ._decode import decode_json, payload_path

__all__ = [
    "DecodedValidators",
    "DelegationRow",
    "decode_validators",
    "delegation_rows",
    "pick",
    "snapshot",
]


@dataclass
class DecodedValidators:
    """Decoded validator pages.

    Attributes
    ----------
    entries, paths
        One validator-information object per distinct validator (unwrapped), and its path.
    records, record_paths
        Delegation-method records (one per distinct validator/delegator pair), and their paths.
    duplicates
        How many repeated validators / records were dropped.
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)
    record_paths: list[str] = field(default_factory=list)
    duplicates: int = 0


def pick(d: dict[str, Any], *names: str) -> Any:
    """The value of the first of ``names`` present in ``d`` (key spellings vary), else ``None``."""
    for name in names:
        if name in d:
            return d[name]
    return None


def _address_key(value: Any, what: str, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise ResponseShapeError(what, path, value, "an address (one1 bech32 or 0x hex)")
    try:
        return to_hex(value)
    except AddressError as exc:
        raise ResponseShapeError(what, path, value, f"a valid address ({exc.reason})") from None


def decode_validators(payloads: Sequence[bytes], what: str = "validators") -> DecodedValidators:
    """Decode validator pages (see the module docs for the accepted shapes).

    Parameters
    ----------
    payloads
        Raw JSON ``result`` bytes, one page each.
    what
        Name used in error messages.

    Returns
    -------
    DecodedValidators
    """
    out = DecodedValidators()
    seen: set[str] = set()
    seen_pairs: set[tuple[str, str]] = set()
    for i, page in enumerate(decode_json(payloads, what)):
        if page is None:
            continue
        if isinstance(page, dict):
            elements = [(payload_path(i), page)]
        elif isinstance(page, list):
            elements = [(payload_path(i, f"[{j}]"), e) for j, e in enumerate(page)]
        else:
            raise ResponseShapeError(what, payload_path(i), page, "an array of validator information objects")
        for path, element in elements:
            if not isinstance(element, dict):
                raise ResponseShapeError(what, path, element, "a validator information object")
            if (
                "validator" not in element
                and isinstance(element.get("result"), dict)
                and "jsonrpc" in element
            ):
                element = element["result"]  # early-2020 docs: {"id", "jsonrpc", "result": {...}}
                path += ".result"
            if "validator" in element:
                validator = element["validator"]
                if not isinstance(validator, dict):
                    raise ResponseShapeError(what, path + ".validator", validator, "a JSON object")
                key = _address_key(validator.get("address"), what, path + ".validator.address")
                if key in seen:
                    out.duplicates += 1
                    continue
                seen.add(key)
                out.entries.append(element)
                out.paths.append(path)
            elif "validator_address" in element or "validatorAddress" in element:
                v = _address_key(
                    pick(element, "validator_address", "validatorAddress"), what, path + ".validator_address"
                )
                d = _address_key(
                    pick(element, "delegator_address", "delegatorAddress", "delegator-address"),
                    what,
                    path + ".delegator_address",
                )
                if (v, d) in seen_pairs:
                    out.duplicates += 1
                    continue
                seen_pairs.add((v, d))
                out.records.append(element)
                out.record_paths.append(path)
            else:
                shown = {k: element[k] for k in list(element)[:6]}
                raise ResponseShapeError(
                    what, path, shown, "a validator information object (with a 'validator' key)"
                )
    return out


def _opt_int(v: Any, where: Where, row: int, name: str) -> int | None:
    if v is None:
        return None
    try:
        return parse_int(v)
    except Bad as exc:
        where.fail(row, name, v, exc.expected)


def snapshot(
    entry: dict[str, Any], ctx: ConvertContext, where: Where, row: int
) -> tuple[int | None, int | None]:
    """(snapshot block, snapshot epoch): the context's, else ``current-epoch-performance``'s."""
    block, epoch = ctx.snapshot_block, ctx.snapshot_epoch
    if block is None or epoch is None:
        perf = as_dict(entry.get("current-epoch-performance"), where, row, "current-epoch-performance")
        if perf is not None:
            if block is None:
                block = _opt_int(perf.get("block"), where, row, "current-epoch-performance.block")
            if epoch is None:
                epoch = _opt_int(perf.get("epoch"), where, row, "current-epoch-performance.epoch")
    return block, epoch


@dataclass
class DelegationRow:
    """One delegation with its provenance (validator-info element or delegation record)."""

    path: str
    validator: Any
    delegation: dict[str, Any]
    index: int | None
    snapshot_block: int | None
    snapshot_epoch: int | None


def delegation_rows(decoded: DecodedValidators, ctx: ConvertContext, what: str) -> list[DelegationRow]:
    """Every delegation of the decoded pages, in page order."""
    rows: list[DelegationRow] = []
    where = Where.of(what, decoded.paths)
    for row, entry in enumerate(decoded.entries):
        validator = as_dict(entry["validator"], where, row, "validator", nullable=False)
        assert validator is not None
        block, epoch = snapshot(entry, ctx, where, row)
        for j, d in enumerate(as_list(validator.get("delegations"), where, row, "validator.delegations")):
            path = f"{decoded.paths[row]}.validator.delegations[{j}]"
            if not isinstance(d, dict):
                raise ResponseShapeError(what, path, d, "a delegation object")
            rows.append(DelegationRow(path, validator.get("address"), d, j, block, epoch))
    for path, record in zip(decoded.record_paths, decoded.records, strict=True):
        validator_address = pick(record, "validator_address", "validatorAddress")
        rows.append(
            DelegationRow(path, validator_address, record, None, ctx.snapshot_block, ctx.snapshot_epoch)
        )
    return rows
