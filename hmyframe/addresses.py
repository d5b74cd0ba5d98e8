"""Harmony addresses: ``one1...`` (bech32) <-> ``0x...`` (hex), scalar and vectorised.

A Harmony address is 20 raw bytes. The node shows it as BIP-173 **bech32** (not bech32m)
with the human-readable part ``one`` over the 20 bytes regrouped 8 -> 5 bits: ``one1`` then 32
data characters then 6 checksum characters, 42 characters in all. The same 20 bytes in hex are
``0x`` + 40 hex digits (any case is accepted on input; output is lower case).

Scalar functions (:func:`to_hex`, :func:`to_one`, :func:`is_address`) use a cached pure-Python
codec. The ``*_many`` functions deduplicate their input and, for more than a few distinct
values, run the codec in numpy over a 2-D array of character codes (5-bit lookup, vectorised
polymod checksum, bit regrouping), which converts millions of addresses per second.

Every function raises :class:`~hmyframe.errors.AddressError` naming the value and the reason
(bad checksum, bad character, wrong length, wrong human-readable part, mixed case). ``None``
and ``""`` pass through the ``*_many`` functions as ``None`` (a contract creation has no ``to``).

Examples
--------
>>> to_hex("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9")
'0xebcd16e8c1d8f493ba04e99a56474122d81a9c58'
>>> to_one("0xA5241513DA9F4463F1d4874b548dFBAC29D91f34")
'one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from hmyframe.errors import AddressError

__all__ = [
    "HRP",
    "ZERO_ADDRESS_HEX",
    "ZERO_ADDRESS_ONE",
    "is_address",
    "normalize_many",
    "to_hex",
    "to_hex_many",
    "to_one",
    "to_one_many",
]

#: Human-readable part of Harmony bech32 addresses.
HRP = "one"
#: The all-zero address in both forms.
ZERO_ADDRESS_HEX = "0x0000000000000000000000000000000000000000"
ZERO_ADDRESS_ONE = "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz"

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_INDEX = {c: i for i, c in enumerate(_CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
_BECH32_CONST = 1  # BIP-173; bech32m would be 0x2BC830A3
_ONE_LEN = 42  # "one1" + 32 data + 6 checksum
_HEX_RE = re.compile(r"0[xX][0-9a-fA-F]{40}")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]*")
#: Below this many distinct values the cached scalar codec is faster than numpy.
_VECTOR_MIN = 48


# ---------------------------------------------------------------------------------------
# scalar codec
# ---------------------------------------------------------------------------------------


def _polymod(values: Iterable[int], start: int = 1) -> int:
    chk = start
    for v in values:
        top = chk >> 25
        chk = ((chk & 0x1FFFFFF) << 5) ^ v
        for i in range(5):
            if (top >> i) & 1:
                chk ^= _GENERATOR[i]
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _regroup(data: Iterable[int], from_bits: int, to_bits: int, pad: bool) -> list[int] | None:
    """Regroup bit groups; ``None`` if non-zero padding is left over (when ``pad`` is false)."""
    acc = 0
    bits = 0
    out: list[int] = []
    maxv = (1 << to_bits) - 1
    for value in data:
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & maxv)
    if pad:
        if bits:
            out.append((acc << (to_bits - bits)) & maxv)
    elif bits >= from_bits or ((acc << (to_bits - bits)) & maxv):
        return None
    return out


def _encode_one(raw: bytes) -> str:
    data = _regroup(raw, 8, 5, pad=True)
    assert data is not None  # padding is always allowed when encoding
    chk = _polymod([*_hrp_expand(HRP), *data, 0, 0, 0, 0, 0, 0]) ^ _BECH32_CONST
    tail = [(chk >> 5 * (5 - i)) & 31 for i in range(6)]
    return HRP + "1" + "".join(_CHARSET[d] for d in (*data, *tail))


def _decode_one(text: str) -> bytes:
    """Decode a bech32 ``one1`` address to its 20 bytes, or raise :class:`AddressError`."""
    if not text.isascii():
        raise AddressError(text, "contains non-ASCII characters")
    lower = text.lower()
    if text != lower and text != text.upper():
        raise AddressError(text, "mixed upper and lower case (bech32 must be all one case)")
    sep = lower.rfind("1")
    if sep < 1:
        raise AddressError(text, "no '1' separator after a human-readable part")
    hrp, data_part = lower[:sep], lower[sep + 1 :]
    for pos, char in enumerate(data_part, start=sep + 1):
        if char not in _CHARSET_INDEX:
            raise AddressError(text, f"bad character {char!r} at position {pos} (not in the bech32 alphabet)")
    if len(data_part) < 6:
        raise AddressError(text, "too short for a bech32 checksum")
    if hrp != HRP:
        raise AddressError(text, f"wrong human-readable part {hrp!r} (expected {HRP!r})")
    data = [_CHARSET_INDEX[c] for c in data_part]
    if _polymod([*_hrp_expand(hrp), *data]) != _BECH32_CONST:
        raise AddressError(text, "bad bech32 checksum")
    raw = _regroup(data[:-6], 5, 8, pad=False)
    if raw is None or len(raw) != 20:
        n = len(data) - 6
        raise AddressError(text, f"wrong length: {n} data characters (expected 32, i.e. 20 bytes)")
    return bytes(raw)


def _decode_hex(text: str) -> bytes:
    if _HEX_RE.fullmatch(text):
        return bytes.fromhex(text[2:])
    if text[:2] in ("0x", "0X"):
        digits = text[2:]
        if not _HEX_DIGITS.fullmatch(digits):
            bad = next(c for c in digits if c not in "0123456789abcdefABCDEF")
            raise AddressError(text, f"bad character {bad!r} in hex address")
        raise AddressError(text, f"wrong length: {len(digits)} hex digits (expected 40)")
    raise AddressError(text, "neither a one1 bech32 address nor a 0x hex address")


@lru_cache(maxsize=1 << 16)
def _pair(text: str) -> tuple[str, str]:
    """``(one1, 0x)`` forms of a valid address; raises :class:`AddressError`."""
    if text[:2] in ("0x", "0X"):
        raw = _decode_hex(text)
        return _encode_one(raw), "0x" + raw.hex()
    if len(text) == 40 and _HEX_DIGITS.fullmatch(text):
        raise AddressError(text, "40 hex digits without the 0x prefix")
    if "1" in text:
        raw = _decode_one(text)
        return text.lower(), "0x" + raw.hex()
    raise AddressError(text, "neither a one1 bech32 address nor a 0x hex address")


def _check_str(value: object) -> str:
    if not isinstance(value, str):
        raise AddressError(value, f"expected a string, got {type(value).__name__}")
    if not value:
        raise AddressError(value, "empty string")
    return value


def to_hex(addr: str) -> str:
    """Return the lower-case ``0x`` form of a ``one1`` or ``0x`` address.

    Parameters
    ----------
    addr
        A bech32 ``one1...`` address or a ``0x``-prefixed 40-hex-digit address (any case).

    Returns
    -------
    str
        ``0x`` followed by 40 lower-case hex digits.

    Raises
    ------
    AddressError
        If ``addr`` is not a valid address (the message gives the reason).
    """
    return _pair(_check_str(addr))[1]


def to_one(addr: str) -> str:
    """Return the bech32 ``one1...`` form of a ``one1`` or ``0x`` address.

    Parameters
    ----------
    addr
        A bech32 ``one1...`` address or a ``0x``-prefixed 40-hex-digit address (any case).

    Returns
    -------
    str
        The 42-character lower-case ``one1...`` address.

    Raises
    ------
    AddressError
        If ``addr`` is not a valid address (the message gives the reason).
    """
    return _pair(_check_str(addr))[0]


def is_address(text: object) -> bool:
    """Tell whether ``text`` is a valid ``one1`` or ``0x`` address (never raises).

    Parameters
    ----------
    text
        Anything.

    Returns
    -------
    bool
        True for a string that :func:`to_hex` accepts.
    """
    if not isinstance(text, str) or not text:
        return False
    try:
        _pair(text)
    except AddressError:
        return False
    return True


# ---------------------------------------------------------------------------------------
# vectorised codec (numpy over arrays of character codes)
# ---------------------------------------------------------------------------------------

U8 = npt.NDArray[np.uint8]

_LUT5 = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(_CHARSET):
    _LUT5[ord(_c)] = _i
_LUT16 = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate("0123456789abcdef"):
    _LUT16[ord(_c)] = _i
    _LUT16[ord(_c.upper())] = _i
_CHARSET_CODES = np.frombuffer(_CHARSET.encode(), dtype=np.uint8)
_HEX_CODES = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_ONE1_CODES = np.frombuffer(b"one1", dtype=np.uint8)
# XOR of the generator words selected by each 5-bit "top" value of the polymod state.
_GEN_TABLE = np.zeros(32, dtype=np.uint32)
for _top in range(32):
    for _bit in range(5):
        if (_top >> _bit) & 1:
            _GEN_TABLE[_top] ^= _GENERATOR[_bit]
# Polymod state after the human-readable part, shared by every address.
_HRP_STATE = _polymod(_hrp_expand(HRP))


def _polymod_rows(groups: U8) -> npt.NDArray[np.uint32]:
    """Polymod of ``hrp_expand('one') + row`` for every row of 5-bit ``groups``."""
    cols = np.ascontiguousarray(groups.T, dtype=np.uint32)
    chk = np.full(groups.shape[0], _HRP_STATE, dtype=np.uint32)
    top = np.empty_like(chk)
    for col in cols:
        np.right_shift(chk, 25, out=top)
        np.bitwise_and(chk, 0x1FFFFFF, out=chk)
        np.left_shift(chk, 5, out=chk)
        np.bitwise_xor(chk, col, out=chk)
        np.bitwise_xor(chk, _GEN_TABLE[top], out=chk)
    return chk


def _bytes_to_groups(raw: U8) -> U8:
    """(n, 20) bytes -> (n, 32) 5-bit groups (every 5 bytes give 8 groups)."""
    n = raw.shape[0]
    b = raw.reshape(n, 4, 5)
    b0, b1, b2, b3, b4 = (b[:, :, k] for k in range(5))
    out = np.empty((n, 4, 8), dtype=np.uint8)
    out[:, :, 0] = b0 >> 3
    out[:, :, 1] = ((b0 & 7) << 2) | (b1 >> 6)
    out[:, :, 2] = (b1 >> 1) & 31
    out[:, :, 3] = ((b1 & 1) << 4) | (b2 >> 4)
    out[:, :, 4] = ((b2 & 15) << 1) | (b3 >> 7)
    out[:, :, 5] = (b3 >> 2) & 31
    out[:, :, 6] = ((b3 & 3) << 3) | (b4 >> 5)
    out[:, :, 7] = b4 & 31
    return out.reshape(n, 32)


def _groups_to_bytes(groups: U8) -> U8:
    """(n, 32) 5-bit groups -> (n, 20) bytes (every 8 groups give 5 bytes)."""
    n = groups.shape[0]
    g = groups.reshape(n, 4, 8)
    g0, g1, g2, g3, g4, g5, g6, g7 = (g[:, :, k] for k in range(8))
    out = np.empty((n, 4, 5), dtype=np.uint8)
    out[:, :, 0] = (g0 << 3) | (g1 >> 2)
    out[:, :, 1] = ((g1 & 3) << 6) | (g2 << 1) | (g3 >> 4)
    out[:, :, 2] = ((g3 & 15) << 4) | (g4 >> 1)
    out[:, :, 3] = ((g4 & 1) << 7) | (g5 << 2) | (g6 >> 3)
    out[:, :, 4] = ((g6 & 7) << 5) | g7
    return out.reshape(n, 20)


def _hex_codes(raw: U8) -> U8:
    """(n, 20) bytes -> (n, 42) character codes of ``0x`` + 40 lower-case hex digits."""
    chars = np.empty((raw.shape[0], 42), dtype=np.uint8)
    chars[:, 0] = ord("0")
    chars[:, 1] = ord("x")
    chars[:, 2::2] = _HEX_CODES[raw >> 4]
    chars[:, 3::2] = _HEX_CODES[raw & 15]
    return chars


def _one_codes(raw: U8) -> U8:
    """(n, 20) bytes -> (n, 42) character codes of the ``one1`` bech32 form."""
    n = raw.shape[0]
    groups = _bytes_to_groups(raw)
    padded = np.zeros((n, 38), dtype=np.uint8)
    padded[:, :32] = groups
    chk = _polymod_rows(padded) ^ np.uint32(_BECH32_CONST)
    chars = np.empty((n, _ONE_LEN), dtype=np.uint8)
    chars[:, :4] = _ONE1_CODES
    chars[:, 4:36] = _CHARSET_CODES[groups]
    for i in range(6):
        chars[:, 36 + i] = _CHARSET_CODES[(chk >> np.uint32(5 * (5 - i))) & np.uint32(31)]
    return chars


def _rows_to_str(chars: U8) -> list[str]:
    n, width = chars.shape
    text = chars.tobytes().decode("ascii")
    return [text[i : i + width] for i in range(0, n * width, width)]


def _codes(texts: list[str]) -> U8:
    return np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8).reshape(len(texts), 42)


def _vector_one_to_hex(texts: list[str]) -> tuple[list[str], list[bool]]:
    """Decode 42-character ASCII ``one1`` candidates in bulk: ``0x`` forms and a validity mask.

    Invalid rows (bad checksum or character, mixed case, wrong prefix) hold garbage and are
    re-examined by the scalar codec, which gives the precise reason.
    """
    codes = _codes(texts)
    upper = (codes >= ord("A")) & (codes <= ord("Z"))
    lower = (codes >= ord("a")) & (codes <= ord("z"))
    mixed = np.logical_and(upper.any(axis=1), lower.any(axis=1))
    lowered = np.where(upper, codes | 0x20, codes).astype(np.uint8)
    groups = _LUT5[lowered[:, 4:]]
    ok = (groups != 255).all(axis=1) & (lowered[:, :4] == _ONE1_CODES).all(axis=1) & ~mixed
    groups &= 31
    ok &= _polymod_rows(groups) == _BECH32_CONST
    raw = _groups_to_bytes(np.ascontiguousarray(groups[:, :32]))
    return _rows_to_str(_hex_codes(raw)), ok.tolist()


def _vector_hex_to_one(texts: list[str]) -> tuple[list[str], list[bool]]:
    """Encode 42-character ASCII ``0x`` candidates in bulk: ``one1`` forms and a validity mask."""
    codes = _codes(texts)
    nibbles = _LUT16[codes[:, 2:]]
    ok = (nibbles != 255).all(axis=1)
    raw = ((nibbles[:, 0::2] << 4) | (nibbles[:, 1::2] & 15)).astype(np.uint8)
    return _rows_to_str(_one_codes(raw)), ok.tolist()


def _distinct(values: Sequence[str | None]) -> list[str]:
    """Distinct non-empty values, in first-seen order; non-strings raise :class:`AddressError`."""
    if not set(map(type, values)) <= {str, type(None)}:
        bad = next(v for v in values if v is not None and type(v) is not str)
        raise AddressError(bad, f"expected a string, got {type(bad).__name__}")
    return [v for v in dict.fromkeys(values) if v is not None and v != ""]


def _lookup(values: Sequence[str | None], pairs: dict[str, tuple[str, str]], which: int) -> list[str | None]:
    table: dict[str | None, str | None] = {k: v[which] for k, v in pairs.items()}
    table[None] = None
    table[""] = None
    return list(map(table.__getitem__, values))


def _pairs_for(uniques: list[str]) -> dict[str, tuple[str, str]]:
    """Map each distinct address text to its ``(one1, 0x)`` pair; raise on the first bad one."""
    if len(uniques) < _VECTOR_MIN:
        return {text: _pair(text) for text in uniques}
    shaped = [t for t in uniques if len(t) == 42]
    rest = [t for t in uniques if len(t) != 42]
    if shaped and not "".join(shaped).isascii():
        rest.extend(t for t in shaped if not t.isascii())
        shaped = [t for t in shaped if t.isascii()]
    hexes = [t for t in shaped if t[:2] in ("0x", "0X")]
    ones = [t for t in shaped if t[:2] not in ("0x", "0X")]
    result: dict[str, tuple[str, str]] = {}
    if ones:
        hex_out, ok = _vector_one_to_hex(ones)
        for text, hex_text, good in zip(ones, hex_out, ok, strict=True):
            if good:
                result[text] = (text.lower(), hex_text)
            else:
                rest.append(text)
    if hexes:
        one_out, ok = _vector_hex_to_one(hexes)
        for text, one_text, good in zip(hexes, one_out, ok, strict=True):
            if good:
                result[text] = (one_text, text.lower())
            else:
                rest.append(text)
    for text in rest:  # raises with the precise reason
        result[text] = _pair(text)
    return result


def normalize_many(values: Sequence[str | None]) -> tuple[list[str | None], list[str | None]]:
    """Convert many addresses to both forms at once.

    Parameters
    ----------
    values
        ``one1`` or ``0x`` strings; ``None`` and ``""`` are passed through as ``None``.

    Returns
    -------
    tuple of two lists
        ``(one1_forms, hex_forms)``, aligned with ``values``.

    Raises
    ------
    AddressError
        For the first invalid value; its ``value`` attribute is the offending text.
    """
    pairs = _pairs_for(_distinct(values))
    return _lookup(values, pairs, 0), _lookup(values, pairs, 1)


def to_hex_many(values: Sequence[str | None]) -> list[str | None]:
    """Vectorised :func:`to_hex`: ``None`` / ``""`` map to ``None``.

    Parameters
    ----------
    values
        ``one1`` or ``0x`` strings (or ``None`` / ``""``).

    Returns
    -------
    list of str or None
        Lower-case ``0x`` forms, aligned with ``values``.

    Raises
    ------
    AddressError
        For the first invalid value.
    """
    return _lookup(values, _pairs_for(_distinct(values)), 1)


def to_one_many(values: Sequence[str | None]) -> list[str | None]:
    """Vectorised :func:`to_one`: ``None`` / ``""`` map to ``None``.

    Parameters
    ----------
    values
        ``one1`` or ``0x`` strings (or ``None`` / ``""``).

    Returns
    -------
    list of str or None
        ``one1`` forms, aligned with ``values``.

    Raises
    ------
    AddressError
        For the first invalid value.
    """
    return _lookup(values, _pairs_for(_distinct(values)), 0)
