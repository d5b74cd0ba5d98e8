"""The devnet node's JSON-RPC param decoding and errors, as the Go node (its fork of
go-ethereum's ``rpc`` package) does them.

Positional arguments with ``missing value for required argument N`` / ``too many arguments,
want at most N`` (-32602), Go ``encoding/json``-style messages for wrong types, the node's
``BlockNumber`` (hex string, JSON integer, decimal string, ``latest``/``earliest``/``pending``,
-1), go-ethereum's ``rpc.BlockNumber`` (trace methods), Go ``common.Hash``, case-insensitive
``BlockArgs`` keys (RPC notes §1.2, §1.5, §2, §3, §4). A bad param raises :class:`RpcFault`
with the node's code and message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hmyframe.addresses import to_hex as parse_address
from hmyframe.devnet.render import Gen, Profile
from hmyframe.errors import AddressError

__all__ = [
    "ERR_CRASHED",
    "ERR_NOT_BEACON",
    "ERR_PENDING",
    "ERR_TOO_HIGH",
    "LATEST",
    "MISSING",
    "PENDING",
    "BlockArgs",
    "BlockArgsError",
    "RpcFault",
    "address_param",
    "arity",
    "block_args_object",
    "block_number_param",
    "bytes_param",
    "eth_block_number_param",
    "go_type_of",
    "hash_param",
    "index_param",
    "int_param",
    "invalid",
]

ERR_TOO_HIGH = "requested block number greater than current block number"
ERR_NOT_BEACON = "cannot call this rpc on non beaconchain node"
ERR_PENDING = "pending block number not implemented"
ERR_CRASHED = "method handler crashed"


class RpcFault(Exception):  # internal: never leaves the server
    """A JSON-RPC error answer: the node's ``code`` and ``message``."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --------------------------------------------------------------------------------------------
# param decoding
# --------------------------------------------------------------------------------------------

_MISSING: Any = object()
#: What :func:`arity` pads absent optional arguments with.
MISSING = _MISSING
_LATEST = -1
_PENDING = -2
#: What :func:`block_number_param` returns for ``latest`` and ``pending``.
LATEST = _LATEST
PENDING = _PENDING
_INT64_MAX = 2**63 - 1


def _go_type(value: object) -> str:
    """The JSON kind Go names in ``json: cannot unmarshal <kind> into ...``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _invalid(index: int, message: str) -> RpcFault:
    return RpcFault(-32602, f"invalid argument {index}: {message}")


def arity(params: list[Any], required: int, maximum: int) -> list[Any]:
    """Check the number of positional arguments; pad optional ones with a sentinel."""
    if len(params) > maximum:
        raise RpcFault(-32602, f"too many arguments, want at most {maximum}")
    if len(params) < required:
        raise RpcFault(-32602, f"missing value for required argument {len(params)}")
    return params + [_MISSING] * (maximum - len(params))


def _decode_hex_uint64(text: str) -> int:
    """``hexutil.DecodeUint64``; raises ValueError with the Go message."""
    if text == "":
        raise ValueError("empty hex string")
    if not text.startswith(("0x", "0X")):
        raise ValueError("hex string without 0x prefix")
    digits = text[2:]
    if digits == "":
        raise ValueError('hex string "0x"')
    if len(digits) > 1 and digits[0] == "0":
        raise ValueError("hex number with leading zero digits")
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError("invalid hex string")
    if len(digits) > 16:
        raise ValueError("hex number > 64 bits")
    return int(digits, 16)


def block_number_param(value: Any, index: int) -> int:
    """Harmony's ``BlockNumber``: hex string, JSON integer, decimal string, latest/earliest/
    pending, -1. Returns the number, ``-1`` for latest or ``-2`` for pending."""
    if isinstance(value, bool) or value is None or isinstance(value, list | dict):
        raise _invalid(index, "hex string without 0x prefix")
    if isinstance(value, float):
        if not value.is_integer():
            raise _invalid(index, "hex string without 0x prefix")
        value = int(value)
    if isinstance(value, int):
        number = value
    else:
        text = str(value).strip()
        if text == "earliest":
            return 0
        if text == "latest":
            return _LATEST
        if text == "pending":
            return _PENDING
        try:
            number = (
                int(text, 10) if text.lstrip("-").isdigit() and text.isascii() else _decode_hex_uint64(text)
            )
        except ValueError as exc:
            raise _invalid(index, str(exc)) from None
    if number == -1:
        return _LATEST
    if number == -2:
        return _PENDING
    if number < 0:
        raise _invalid(index, "hex string without 0x prefix")
    if number > _INT64_MAX:
        raise _invalid(index, "block number larger than int64")
    return number


def eth_block_number_param(value: Any, index: int) -> int:
    """go-ethereum's ``rpc.BlockNumber`` (trace methods): strings only, hex numbers."""
    if not isinstance(value, str):
        raise _invalid(index, "hex string without 0x prefix")
    text = value.strip()
    if text == "earliest":
        return 0
    if text in ("latest", "finalized", "safe"):
        return _LATEST
    if text == "pending":
        return _PENDING
    try:
        number = _decode_hex_uint64(text)
    except ValueError as exc:
        raise _invalid(index, str(exc)) from None
    if number > _INT64_MAX:
        raise _invalid(index, "block number larger than int64")
    return number


def hash_param(value: Any, index: int) -> str:
    """Go ``common.Hash``: a 0x-prefixed 64-hex-digit string; returns it lower-case."""
    if not isinstance(value, str):
        raise _invalid(index, "json: cannot unmarshal non-string into Go value of type common.Hash")
    if not value.startswith(("0x", "0X")):
        raise _invalid(
            index, "json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash"
        )
    digits = value[2:]
    if len(digits) % 2:
        raise _invalid(
            index, "json: cannot unmarshal hex string of odd length into Go value of type common.Hash"
        )
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise _invalid(index, "json: cannot unmarshal invalid hex string into Go value of type common.Hash")
    if len(digits) != 64:
        raise _invalid(index, f"hex string has length {len(digits)}, want 64 for common.Hash")
    return "0x" + digits.lower()


def int_param(value: Any, index: int, go_type: str = "int") -> int:
    """A Go integer param (``int``/``uint64``) given as a JSON number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _invalid(index, f"json: cannot unmarshal {_go_type(value)} into Go value of type {go_type}")
    if isinstance(value, float) and not value.is_integer():
        raise _invalid(index, f"json: cannot unmarshal number {value!r} into Go value of type {go_type}")
    number = int(value)
    if go_type.startswith("uint") and number < 0:
        raise _invalid(index, f"json: cannot unmarshal number {number} into Go value of type {go_type}")
    return number


def _go_quote(text: str) -> str:
    """``strconv.Quote`` for what the node's messages quote (ASCII: as JSON escapes it)."""
    return json.dumps(text)


def _parse_int64(text: str, base: int) -> int:
    """Go's ``strconv.ParseInt(text, base, 64)``; raises ValueError with Go's message."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    alphabet = "0123456789abcdefABCDEF"[: base if base == 10 else 22]
    if not digits or any(c not in alphabet for c in digits):
        raise ValueError(f"strconv.ParseInt: parsing {_go_quote(text)}: invalid syntax")
    number = int(text, base)
    if not -(2**63) <= number <= _INT64_MAX:
        raise ValueError(f"strconv.ParseInt: parsing {_go_quote(text)}: value out of range")
    return number


def _transaction_index(value: Any) -> int:
    """Today's ``TransactionIndex.UnmarshalJSON`` (rpc/harmony/types.go, both generations): the
    raw JSON token, its quotes stripped, read as ``0x`` hex or else decimal by
    ``strconv.ParseInt``; a negative index wraps to a uint64 (past any block's end)."""
    # the token (a string's text between its quotes, as JSON escapes it)
    raw = json.dumps(value)[1:-1] if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    text = raw.strip()
    number = _parse_int64(text[2:], 16) if text.startswith("0x") else _parse_int64(text, 10)
    return number % 2**64


def index_param(value: Any, index: int, gen: Gen, profile: Profile = "current") -> int:
    """A transaction index (``*_get(Staking)TransactionByBlock*AndIndex``).

    ``current``: ``TransactionIndex`` in both generations (a JSON number, a ``0x`` hex string or
    a decimal string; harmony 579250a07, 2020-07-29), as mainnet answered
    ``hmyv2_getTransactionByBlockNumberAndIndex`` with ``"0x0"`` in 2023. ``legacy`` (the
    early-2020 node, internal/hmyapi at harmony a4479d62d): v1 ``hexutil.Uint`` (hex string), v2
    ``uint64`` (JSON number).
    """
    if profile == "current":
        try:
            return _transaction_index(value)
        except ValueError as exc:
            raise _invalid(index, str(exc)) from None
    if gen == 2:
        return int_param(value, index, "uint64")
    if not isinstance(value, str):
        raise _invalid(index, "json: cannot unmarshal non-string into Go value of type hexutil.Uint")
    try:
        return _decode_hex_uint64(value)
    except ValueError as exc:
        raise _invalid(index, f"json: cannot unmarshal {exc} into Go value of type hexutil.Uint") from None


def address_param(value: Any) -> str:
    """An address string (one1 or 0x) as the node's ``ParseAddr`` takes it; lower-case 0x."""
    if not isinstance(value, str):
        raise RpcFault(
            -32602,
            f"invalid argument 0: json: cannot unmarshal {_go_type(value)} into Go value of type string",
        )
    try:
        return parse_address(value)
    except AddressError:
        raise RpcFault(-32000, f"invalid address: {value}") from None


class BlockArgsError(Exception):
    """A ``BlockArgs`` value Go's ``encoding/json`` would refuse (message as Go's)."""


@dataclass(frozen=True, slots=True)
class BlockArgs:
    """Decoded ``BlockArgs``."""

    full_tx: bool = False
    incl_staking: bool = False
    with_signers: bool = False


_BLOCK_ARG_FIELDS = {
    "fulltx": "fullTx",
    "inclstaking": "inclStaking",
    "withsigners": "withSigners",
    "signers": "signers",
}


def block_args_object(value: Any, *, default_incl_staking: bool) -> BlockArgs:
    """Decode a ``BlockArgs`` JSON object as Go does (case-insensitive keys, unknown keys
    ignored, missing keys default). Raises BlockArgsError with Go's message on a wrong type."""
    if value is None:
        return BlockArgs(incl_staking=default_incl_staking)
    if not isinstance(value, dict):
        raise BlockArgsError(
            f"json: cannot unmarshal {_go_type(value)} into Go value of type common.BlockArgs"
        )
    found: dict[str, bool] = {}
    for key, item in value.items():
        field = _BLOCK_ARG_FIELDS.get(str(key).lower())
        if field is None or item is None:
            continue
        if field == "signers":
            if not isinstance(item, list) or not all(isinstance(s, str) for s in item):
                kind = _go_type(item) if not isinstance(item, list) else "number"
                raise BlockArgsError(
                    f"json: cannot unmarshal {kind} into Go struct field BlockArgs.signers of type []string"
                )
            continue
        if not isinstance(item, bool):
            raise BlockArgsError(
                f"json: cannot unmarshal {_go_type(item)} into Go struct field BlockArgs.{field} of type bool"
            )
        found[field] = item
    return BlockArgs(
        full_tx=found.get("fullTx", False),
        incl_staking=found.get("inclStaking", default_incl_staking),
        with_signers=found.get("withSigners", False),
    )


#: Public names of the helpers other modules build their own param errors with.
invalid = _invalid
go_type_of = _go_type


def bytes_param(value: Any, what: str) -> str:
    """Go ``hexutil.Bytes`` (call data): 0x-prefixed even-length hex; returns it lower-case.

    ``what`` names the Go destination in the message (e.g. ``CallArgs.data``); raises
    ValueError with Go's message (the caller wraps it into its argument's -32602).
    """
    if not isinstance(value, str):
        raise ValueError(  # noqa: TRY004  (a Go decode message, reported as the argument's error)
            f"json: cannot unmarshal {_go_type(value)} into Go struct field {what} of type hexutil.Bytes"
        )
    if not value.startswith(("0x", "0X")):
        raise ValueError(
            f"json: cannot unmarshal hex string without 0x prefix into Go struct field {what} of type hexutil.Bytes"
        )
    digits = value[2:]
    if len(digits) % 2:
        raise ValueError(
            f"json: cannot unmarshal hex string of odd length into Go struct field {what} of type hexutil.Bytes"
        )
    if any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise ValueError(
            f"json: cannot unmarshal invalid hex string into Go struct field {what} of type hexutil.Bytes"
        )
    return "0x" + digits.lower()
