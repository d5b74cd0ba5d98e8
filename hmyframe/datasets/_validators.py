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

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import msgspec

from hmyframe.addresses import to_hex, to_hex_many
from hmyframe.errors import AddressError, ResponseShapeError

from ._base import ConvertContext
from ._convert import Bad, Where, as_dict, as_list, parse_int
from ._decode import decode_json, payload_path

__all__ = [
    "DecodedValidators",
    "DelegationRow",
    "FlatDelegations",
    "array_length",
    "decode_validators",
    "delegation_rows",
    "flat_delegations",
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
    flat: dict[tuple[int | None, int | None], FlatDelegations | None] = field(
        default_factory=dict, repr=False, compare=False
    )


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


def _address_keys(values: list[Any]) -> list[str | None]:
    """The 0x form of every address at once (vectorised); all ``None`` when any value is not
    a valid address string, for :func:`_address_key` to name it."""
    if values and set(map(type, values)) <= {str} and all(values):
        try:
            return to_hex_many(values)
        except AddressError:
            pass
    return [None] * len(values)


# ---------------------------------------------------------------------------------------
# fast path: typed decoding that leaves the bulky members (delegation lists, metrics) as raw
# JSON until a builder reads them; any other shape goes through the plain-JSON path below
# ---------------------------------------------------------------------------------------

_ANY = msgspec.json.Decoder(float_hook=Decimal)
_UNSET: Any = msgspec.UNSET


class _LazyArray(list[Any]):
    """A JSON array kept raw until first read (a validator's delegations)."""

    __slots__ = ("_raw",)

    def __init__(self, raw: msgspec.Raw) -> None:
        super().__init__()
        self._raw: msgspec.Raw | None = raw

    def _load(self) -> None:
        if self._raw is not None:
            raw, self._raw = self._raw, None
            self.extend(_ANY.decode(raw))

    def raw_length(self) -> int:
        """Number of elements, without decoding them when still raw."""
        if self._raw is not None:
            return len(_RAW_ITEMS.decode(self._raw))
        return list.__len__(self)

    def __iter__(self) -> Iterator[Any]:
        self._load()
        return list.__iter__(self)

    def __len__(self) -> int:
        self._load()
        return list.__len__(self)

    def __getitem__(self, index: Any) -> Any:
        self._load()
        return list.__getitem__(self, index)

    def __eq__(self, other: object) -> bool:
        self._load()
        return list.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._load()
        return list.__repr__(self)


class _LazyObject(dict[str, Any]):
    """A JSON object kept raw until first read (a validator's metrics)."""

    __slots__ = ("_raw",)

    def __init__(self, raw: msgspec.Raw) -> None:
        super().__init__()
        self._raw: msgspec.Raw | None = raw

    def _load(self) -> None:
        if self._raw is not None:
            raw, self._raw = self._raw, None
            self.update(_ANY.decode(raw))

    def get(self, key: str, default: Any = None) -> Any:
        self._load()
        return dict.get(self, key, default)

    def __getitem__(self, key: str) -> Any:
        self._load()
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        self._load()
        return dict.__contains__(self, key)

    def __iter__(self) -> Iterator[str]:
        self._load()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load()
        return dict.__len__(self)

    def __eq__(self, other: object) -> bool:
        self._load()
        return dict.__eq__(self, other)

    __hash__ = None

    def __repr__(self) -> str:
        self._load()
        return dict.__repr__(self)

    def items(self) -> Any:
        self._load()
        return dict.items(self)

    def keys(self) -> Any:
        self._load()
        return dict.keys(self)

    def values(self) -> Any:
        self._load()
        return dict.values(self)


_RAW_ITEMS = msgspec.json.Decoder(list[msgspec.Raw])


def _lazy(raw: msgspec.Raw) -> Any:
    """A raw array or object as a lazily decoded list or dict; anything else decoded now."""
    first = memoryview(raw)[0] if len(raw) else 0
    if first == ord("["):
        return _LazyArray(raw)
    if first == ord("{"):
        return _LazyObject(raw)
    return _ANY.decode(raw)


def array_length(obj: dict[str, Any], key: str) -> Any:
    """``obj[key]``, or its length when it is a JSON array (not decoding still-raw elements:
    the ``validators`` table only counts delegations)."""
    value = obj.get(key)
    if isinstance(value, _LazyArray):
        return value.raw_length()
    return len(value) if isinstance(value, list) else value


_NULL_RAW = msgspec.Raw(b"null")


class _Validator(msgspec.Struct, gc=False):
    """The ``validator`` member of the current format (delegations kept raw), then the keys
    only the early-2020 format has (their presence sends the page down the plain-JSON path)."""

    address: Any = None
    name: Any = None
    identity: Any = None
    website: Any = None
    security_contact: Any = msgspec.field(default=None, name="security-contact")
    details: Any = None
    rate: Any = None
    max_rate: Any = msgspec.field(default=None, name="max-rate")
    max_change_rate: Any = msgspec.field(default=None, name="max-change-rate")
    min_self_delegation: Any = msgspec.field(default=None, name="min-self-delegation")
    max_total_delegation: Any = msgspec.field(default=None, name="max-total-delegation")
    bls_public_keys: Any = msgspec.field(default=None, name="bls-public-keys")
    delegations: msgspec.Raw = msgspec.field(default=_NULL_RAW, name="delegations")
    creation_height: Any = msgspec.field(default=None, name="creation-height")
    update_height: Any = msgspec.field(default=None, name="update-height")
    last_epoch_in_committee: Any = msgspec.field(default=None, name="last-epoch-in-committee")
    availability: Any = _UNSET
    active: Any = _UNSET
    banned: Any = _UNSET


class _Entry(msgspec.Struct, gc=False):
    """A current-format validator-information object (metrics kept raw), then the keys of the
    early-2020 format and of wrapped or delegation-method elements (the plain-JSON path's)."""

    validator: _Validator | None = None
    current_epoch_performance: Any = msgspec.field(default=None, name="current-epoch-performance")
    metrics: msgspec.Raw = msgspec.field(default=_NULL_RAW, name="metrics")
    total_delegation: Any = msgspec.field(default=None, name="total-delegation")
    currently_in_committee: Any = msgspec.field(default=None, name="currently-in-committee")
    epos_status: Any = msgspec.field(default=None, name="epos-status")
    epos_winning_stake: Any = msgspec.field(default=None, name="epos-winning-stake")
    booted_status: Any = msgspec.field(default=None, name="booted-status")
    active_status: Any = msgspec.field(default=None, name="active-status")
    lifetime: Any = None
    current_epoch_signing_percent: Any = msgspec.field(default=_UNSET, name="current-epoch-signing-percent")
    current_epoch_voting_power: Any = msgspec.field(default=_UNSET, name="current-epoch-voting-power")


_PAGE = msgspec.json.Decoder(list[_Entry] | _Entry | None, float_hook=Decimal)


def _current_names(cls: type[msgspec.Struct]) -> tuple[str, ...]:
    """JSON names of the fields before the first early-2020 one (those default to UNSET)."""
    defaults = msgspec.structs.astuple(cls())
    info: Any = msgspec.inspect.type_info(cls)
    return tuple(f.encode_name for f, d in zip(info.fields, defaults, strict=True) if d is not _UNSET)


_ENTRY_NAMES = _current_names(_Entry)
_VALIDATOR_NAMES = _current_names(_Validator)


def _current_format(entry: _Entry) -> bool:
    v = entry.validator
    return (
        v is not None
        and v.availability is _UNSET
        and v.active is _UNSET
        and v.banned is _UNSET
        and entry.current_epoch_signing_percent is _UNSET
        and entry.current_epoch_voting_power is _UNSET
    )


def _as_dict(struct: msgspec.Struct, names: tuple[str, ...], raw: str) -> dict[str, Any]:
    """The current-format members under their JSON names (absent ones as null), member ``raw``
    made lazy."""
    out = dict(zip(names, msgspec.structs.astuple(struct), strict=False))
    out[raw] = _lazy(out[raw])
    return out


def _decode_fast(payloads: Sequence[bytes], what: str) -> DecodedValidators | None:
    """Pages of current-format validator information, or ``None`` (then the plain-JSON path)."""
    out = DecodedValidators()
    seen: set[str] = set()
    for i, data in enumerate(payloads):
        try:
            page = _PAGE.decode(data)
        except (msgspec.MsgspecError, RecursionError):
            return None  # the plain-JSON path reports what is wrong (or decodes the other format)
        if page is None:
            continue
        elements = (
            [(payload_path(i), page)]
            if isinstance(page, _Entry)
            else [(payload_path(i, f"[{j}]"), e) for j, e in enumerate(page)]
        )
        if not all(map(_current_format, (e for _, e in elements))):
            return None  # early-2020, wrapped, a record, or not one at all
        keys = _address_keys([e.validator.address for _, e in elements])  # type: ignore[union-attr]
        for (path, element), key in zip(elements, keys, strict=True):
            assert element.validator is not None
            if key is None:
                key = _address_key(element.validator.address, what, path + ".validator.address")
            if key in seen:
                out.duplicates += 1
                continue
            seen.add(key)
            entry = _as_dict(element, _ENTRY_NAMES, "metrics")
            entry["validator"] = _as_dict(element.validator, _VALIDATOR_NAMES, "delegations")
            out.entries.append(entry)
            out.paths.append(path)
    return out


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
    fast = _decode_fast(payloads, what)
    if fast is not None:
        return fast
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


# ---------------------------------------------------------------------------------------
# fast path for delegations and undelegations: every validator's raw delegation list decoded
# typed (no dict per delegation), straight into flat columns shared by both builders
# ---------------------------------------------------------------------------------------


class _Delegation(msgspec.Struct, gc=False):
    """A current-format delegation; an absent member (another spelling) stays UNSET."""

    delegator: Any = msgspec.field(default=_UNSET, name="delegator-address")
    amount: Any = _UNSET
    reward: Any = _UNSET
    undelegations: Any = _UNSET


_DELEGATIONS = msgspec.json.Decoder(list[_Delegation] | None, float_hook=Decimal)


@dataclass
class FlatDelegations:
    """Every delegation of the decoded validator entries, one list per member, in page order
    (what :func:`delegation_rows` gives, without a row object per delegation).

    Attributes
    ----------
    validator, delegator, amount, reward, undelegations
        The raw values (validator: the entry's ``validator.address``).
    index
        Position in the validator's delegation list.
    snapshot_block, snapshot_epoch
        Per delegation, as :func:`snapshot` gives them for its validator.
    owner
        Row of the validator entry.
    """

    entry_paths: list[str]
    validator: list[Any]
    delegator: list[Any]
    amount: list[Any]
    reward: list[Any]
    undelegations: list[Any]
    index: list[int]
    owner: list[int]
    snapshot_block: list[int | None]
    snapshot_epoch: list[int | None]

    def path(self, row: int) -> str:
        """Path of delegation ``row`` (for error messages only)."""
        return f"{self.entry_paths[self.owner[row]]}.validator.delegations[{self.index[row]}]"

    def undelegation_paths(self, row: int) -> Callable[[int], str]:
        """``j -> path of undelegation j of delegation row`` (for error messages only)."""
        return lambda j: f"{self.path(row)}.undelegations[{j}]"


def flat_delegations(decoded: DecodedValidators, ctx: ConvertContext, what: str) -> FlatDelegations | None:
    """The delegations of current-format entries, decoded typed, or ``None`` when any entry or
    delegation needs :func:`delegation_rows` (records, a member under another spelling, a
    non-object, the plain-JSON path's entries). Computed once per context and reused."""
    if decoded.records:
        return None
    key = (ctx.snapshot_block, ctx.snapshot_epoch)
    if key in decoded.flat:
        return decoded.flat[key]
    decoded.flat[key] = flat = _flatten(decoded, ctx, what)
    return flat


def _flatten(decoded: DecodedValidators, ctx: ConvertContext, what: str) -> FlatDelegations | None:
    out = FlatDelegations(decoded.paths, [], [], [], [], [], [], [], [], [])
    where = Where.of(what, decoded.paths)
    for row, entry in enumerate(decoded.entries):
        validator = entry.get("validator")
        if type(validator) is not dict:
            return None
        raw = validator.get("delegations")
        if type(raw) is not _LazyArray or raw._raw is None:
            return None  # decoded already (or the plain-JSON path's list): the general path
        try:
            items = _DELEGATIONS.decode(raw._raw)
        except (msgspec.MsgspecError, RecursionError):
            return None  # the general path names what is wrong
        block, epoch = snapshot(entry, ctx, where, row)  # checked for every entry, as there
        if not items:
            continue
        n = len(items)
        out.validator += [validator.get("address")] * n
        out.owner += [row] * n
        out.index += range(n)
        out.snapshot_block += [block] * n
        out.snapshot_epoch += [epoch] * n
        for d in items:
            out.delegator.append(d.delegator)
            out.amount.append(d.amount)
            out.reward.append(d.reward)
            out.undelegations.append(d.undelegations)
    if any(_UNSET in values for values in (out.delegator, out.amount, out.reward, out.undelegations)):
        return None  # a member under another spelling ("Amount"...): the general path picks it
    return out
