"""``tokens``: token contract metadata at a block (``name``, ``symbol``, ``decimals``, ``totalSupply``).

Read with contract calls (``hmy_call`` / ``hmyv2_call`` / ``eth_call``) and ``getCode``, one set
per (token, block). Each payload is one call's answer: its ``result`` (a JSON string of 0x hex)
or, for a call that reverted, ``{"error": {"code": 3, "message": "execution reverted: ..."}}``.
``ConvertContext.token_calls`` says which ``(address, block, function)`` each payload answers;
the rows are the distinct ``(address, block)`` pairs.

How answers become values (what the node returns, ``rpc/harmony/contract.go``):

* ``"0x"`` (no data): the function does not exist, reverted without a reason, or the account
  has no code; the value is null and the reason says ``"decimals() missing"`` (or, when
  ``getCode`` is ``"0x"``, only ``"no contract code"`` for the whole row).
* a revert with a reason (JSON-RPC error 3): null, ``"name() reverted: <reason>"``.
* ``name`` / ``symbol``: an ABI ``string``, or exactly one 32-byte word (the older ``bytes32``
  convention: right-padded with zero bytes, which are stripped); bytes that are not UTF-8 give
  null and ``"name not UTF-8"``; other shapes give null and a reason naming the length.
* ``decimals`` and ``totalSupply``: the first 32-byte word as an unsigned integer, exact
  (``total_supply`` is a ``uint256`` column); ``decimals`` above 255 (the HRC-20 type is
  ``uint8``) gives null and ``"decimals() out of range: N"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ConfigError, ResponseShapeError, short_repr

from ._base import ConvertContext, Dataset, column, per_payload, shared, uint256_column
from ._blockrows import constant
from ._decode import decode_json, payload_path

__all__ = ["FUNCTIONS", "NAME", "SCHEMA", "SELECTORS", "build", "token_metadata"]

NAME = "tokens"

#: What a token row is read with, in reason order: ``getCode``, then the four metadata calls.
FUNCTIONS: Final = ("getCode", "name", "symbol", "decimals", "totalSupply")
#: The 4-byte selectors (keccak-256 of the signature) of the metadata calls.
SELECTORS: Final = {
    "name": "0x06fdde03",
    "symbol": "0x95d89b41",
    "decimals": "0x313ce567",
    "totalSupply": "0x18160ddd",
}
_MAX_DECIMALS: Final = 255

SCHEMA = pa.schema(
    [
        column("address", pa.string(), "Token contract, one1 bech32."),
        column("address_hex", pa.string(), "Token contract, lower-case 0x hex."),
        shared("block_number", "Block at which the metadata was read."),
        shared("shard_id"),
        column(
            "name", pa.string(), "name(): an ABI string or a bytes32 as UTF-8 text; null when unreadable."
        ),
        column(
            "symbol", pa.string(), "symbol(): an ABI string or a bytes32 as UTF-8 text; null when unreadable."
        ),
        column("decimals", pa.int32(), "decimals() (0 .. 255); null when missing, reverted or out of range."),
        uint256_column(
            "total_supply",
            "totalSupply() in the token's smallest unit, exact uint256 as base-10 digits; null when unreadable.",
        ),
        column(
            "is_contract",
            pa.bool_(),
            "The address has code at that block (getCode); null when the node does not serve getCode.",
        ),
        column(
            "reason",
            pa.string(),
            'Why values are null, \'; \'-separated ("name() reverted: ...", "decimals() missing"); null when none.',
        ),
    ]
)


@dataclass(frozen=True)
class _Failed:
    """A call that answered with an error (a revert): its code and the node's message."""

    code: int
    message: str

    def reason(self, function: str) -> str:
        text = self.message
        for prefix in ("execution reverted: ", "execution reverted"):
            if text.startswith(prefix):
                text = text[len(prefix) :]
                break
        if self.code != 3:
            return f"{function}() failed: [{self.code}] {self.message}"
        return f"{function}() reverted: {text}" if text else f"{function}() reverted"


_Answer = bytes | _Failed


def _answer(value: object, where: str) -> _Answer:
    """One payload: the call's return bytes, or its error."""
    if isinstance(value, str):
        digits = value[2:] if value[:2] in ("0x", "0X") else None
        if digits is not None and len(digits) % 2 == 0:
            try:
                return bytes.fromhex(digits)
            except ValueError:
                pass
        raise ResponseShapeError(NAME, where, value, "0x hex bytes")
    error = value.get("error") if isinstance(value, dict) else None
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        if isinstance(code, int) and not isinstance(code, bool) and isinstance(message, str):
            return _Failed(code, message)
    raise ResponseShapeError(NAME, where, value, 'a 0x hex string or {"error": {"code", "message"}}')


def _abi_string(data: bytes) -> bytes | None:
    """The bytes of an ABI-encoded ``string`` return value (``None`` if it is not one)."""
    if len(data) < 64:
        return None
    offset = int.from_bytes(data[:32], "big")
    if offset % 32 or offset + 32 > len(data):
        return None
    length = int.from_bytes(data[offset : offset + 32], "big")
    start = offset + 32
    if start + length > len(data):
        return None
    return data[start : start + length]


def _data(function: str, answer: _Answer | None) -> tuple[bytes | None, str | None]:
    """``(return data, None)`` of an answer that has some, else ``(None, reason)``."""
    if answer is None:
        return None, f"{function}() not asked"
    if isinstance(answer, _Failed):
        return None, answer.reason(function)
    if not answer:
        return None, f"{function}() missing"
    return answer, None


def _text(function: str, answer: _Answer | None) -> tuple[str | None, str | None]:
    """``(text, reason)`` of a ``name()`` / ``symbol()`` answer."""
    data, why = _data(function, answer)
    if data is None:
        return None, why
    raw = data.rstrip(b"\0") if len(data) == 32 else _abi_string(data)
    if raw is None:
        return None, f"{function}() returned {len(data)} bytes, neither an ABI string nor a bytes32"
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError:
        return None, f"{function} not UTF-8"


def _uint(function: str, answer: _Answer | None) -> tuple[int | None, str | None]:
    """``(value, reason)`` of a ``decimals()`` / ``totalSupply()`` answer (its first word)."""
    data, why = _data(function, answer)
    if data is None:
        return None, why
    if len(data) < 32:
        return None, f"{function}() returned {len(data)} bytes, not a uint256"
    return int.from_bytes(data[:32], "big"), None


def _calls(calls: Sequence[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    out = []
    for k, call in enumerate(calls):
        item: object = call
        if (
            not isinstance(item, (tuple, list))
            or len(item) != 3
            or type(item[1]) is not int
            or item[1] < 0
            or item[2] not in FUNCTIONS
        ):
            raise ConfigError(
                f"{NAME}: ConvertContext.token_calls[{k}] must be (address, block number, one of "
                f"{', '.join(FUNCTIONS)}), got {short_repr(call)}"
            )
        out.append((str(item[0]), item[1], str(item[2])))
    return out


def token_metadata(tokens: pa.Table) -> dict[tuple[int, str], tuple[int, str | None, str | None, int | None]]:
    """Each token of ``tokens`` (this dataset) by ``(shard_id, lower-case 0x address)``: ``(block,
    name, symbol, decimals)`` of its row of the highest block (a token read at several)."""
    meta: dict[tuple[int, str], tuple[int, str | None, str | None, int | None]] = {}
    for shard, address, block, name, symbol, decimals in zip(
        *(
            tokens[c].to_pylist()
            for c in ("shard_id", "address_hex", "block_number", "name", "symbol", "decimals")
        ),
        strict=True,
    ):
        key = (shard, address.lower())
        if key not in meta or block >= meta[key][0]:
            meta[key] = (block, name, symbol, decimals)
    return meta


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded call answers (see the module docs)."""
    decoded, given = per_payload(
        NAME, decoded, ctx.token_calls, "token_calls", "(address, block, function)", "given"
    )
    calls = _calls(given)
    _, hexes = normalize_many([c[0] for c in calls])  # AddressError (a ConfigError) if bad
    rows: dict[tuple[str, int], dict[str, _Answer]] = {}
    for k, (value, (_, block, function), address) in enumerate(zip(decoded, calls, hexes, strict=True)):
        if address is None:
            raise ConfigError(f"{NAME}: ConvertContext.token_calls[{k}] has no address: {calls[k]!r}")
        rows.setdefault((address, block), {})[function] = _answer(value, payload_path(k))
    columns: dict[str, list[object]] = {name: [] for name in SCHEMA.names}
    for (address, block), answers in rows.items():
        code = answers.get("getCode")
        is_contract = None if code is None or isinstance(code, _Failed) else bool(code)
        name, name_why = _text("name", answers.get("name"))
        symbol, symbol_why = _text("symbol", answers.get("symbol"))
        decimals, decimals_why = _uint("decimals", answers.get("decimals"))
        if decimals is not None and decimals > _MAX_DECIMALS:
            decimals, decimals_why = None, f"decimals() out of range: {decimals}"
        supply, supply_why = _uint("totalSupply", answers.get("totalSupply"))
        reasons = [r for r in (name_why, symbol_why, decimals_why, supply_why) if r is not None]
        if is_contract is False:
            name = symbol = decimals = supply = None
            reasons = ["no contract code"]
        columns["address_hex"].append(address)
        columns["block_number"].append(block)
        columns["name"].append(name)
        columns["symbol"].append(symbol)
        columns["decimals"].append(decimals)
        columns["total_supply"].append(None if supply is None else str(supply))
        columns["is_contract"].append(is_contract)
        columns["reason"].append("; ".join(reasons) if reasons else None)
    ones, _ = normalize_many(columns["address_hex"])  # type: ignore[arg-type]
    n = len(rows)
    return {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(columns["address_hex"], type=pa.string()),
        "block_number": pa.array(columns["block_number"], type=pa.int64()),
        "shard_id": constant(ctx.shard_id, n, pa.int32()),
        "name": pa.array(columns["name"], type=pa.string()),
        "symbol": pa.array(columns["symbol"], type=pa.string()),
        "decimals": pa.array(columns["decimals"], type=pa.int32()),
        "total_supply": pa.array(columns["total_supply"], type=pa.string()),
        "is_contract": pa.array(columns["is_contract"], type=pa.bool_()),
        "reason": pa.array(columns["reason"], type=pa.string()),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per (token, block): the token's name, symbol, decimals and total supply there.",
    schema=SCHEMA,
    sort_by=("address", "block_number"),
    source="tokens",
    methods=("hmy(v2)_call", "eth_call", "hmy(v2)_getCode"),
    builder=build,
    decoder=decode_json,
    summary="Token metadata (name, symbol, decimals, total supply) at one block, by contract calls.",
    notes=(
        "Each token costs five calls (getCode, name, symbol, decimals, totalSupply), sent in "
        "JSON-RPC batches. A token's metadata at a block never changes, so rows are cached per "
        "chain, shard and block: asking again (with an explicit block) sends no request. A "
        "contract that reverts, returns a bytes32 name or symbol, a name that is not UTF-8, has "
        "no decimals() or no code gives nulls and a ``reason``, never an error."
    ),
)
