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
    "forms_of_bytes",
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
# vectorised codec (numpy over (n, 42) arrays of character codes)
# ---------------------------------------------------------------------------------------
#
# Everything here works on whole columns: ``n`` addresses of 42 ASCII characters are an
# ``(n, 42)`` uint8 array (a view of an Arrow string buffer, or of joined Python strings). Table
# look-ups on bytes go through ``bytes.translate`` (a C loop, far faster than numpy fancy
# indexing on uint8), hex digits are computed arithmetically, and the checksum uses that the
# bech32 polymod is affine over GF(2): the final state is a constant XOR one table entry per
# input byte, so a checksum costs 26 gathers per row instead of 38 sequential shift steps.
# Rows that do not pass (bad character, checksum, prefix; also upper-case bech32, which is
# valid but rare) are flagged; callers re-examine them with the scalar codec, which accepts
# what is valid and gives the precise reason for what is not.

U8 = npt.NDArray[np.uint8]
U32 = npt.NDArray[np.uint32]
Mask = npt.NDArray[np.bool_]

_CHARSET_CODES = np.frombuffer(_CHARSET.encode(), dtype=np.uint8)
_ONE1_CODES = np.frombuffer(b"one1", dtype=np.uint8)
#: ``bytes.translate`` tables: lower-case bech32 character -> 5-bit value (255 for anything
#: else), and 5-bit value -> character.
_TO_SYMBOL = bytes(_CHARSET_INDEX.get(chr(b), 255) for b in range(256))
_TO_CHAR = bytes(_CHARSET.encode()[b] if b < 32 else ord("?") for b in range(256))
# Polymod state after the human-readable part, shared by every address.
_HRP_STATE = _polymod(_hrp_expand(HRP))


def _zero_steps(state: U32, steps: int) -> list[U32]:
    """States after 0, 1, ... ``steps`` polymod steps on zero symbols, from each of ``state``."""
    gen = np.zeros(32, dtype=np.uint32)
    for top in range(32):
        for bit in range(5):
            if (top >> bit) & 1:
                gen[top] ^= _GENERATOR[bit]
    out = [state]
    for _ in range(steps):
        chk = out[-1]
        out.append(((chk & np.uint32(0x1FFFFFF)) << np.uint32(5)) ^ gen[chk >> np.uint32(25)])
    return out


@lru_cache(maxsize=8)
def _symbol_tables(length: int) -> tuple[U32, int]:
    """``(tables, constant)``: polymod of the HRP then ``length`` symbols ``s`` is
    ``constant ^ tables[0, s[0]] ^ ... ^ tables[length - 1, s[length - 1]]``."""
    after = _zero_steps(np.arange(32, dtype=np.uint32), length - 1)
    tables = np.stack(after[::-1])  # the symbol at position i is followed by length-1-i steps
    constant = int(_zero_steps(np.array([_HRP_STATE], dtype=np.uint32), length)[-1][0])
    return tables, constant


@lru_cache(maxsize=1)
def _byte_tables() -> tuple[U32, U32, int]:
    """Tables over an address's 20 bytes and 6 checksum symbols (the 38-symbol polymod).

    Returns ``(byte_tables (20, 256), checksum_tables (6, 32), constant)``: byte ``j`` holds
    data bits ``8j .. 8j+7`` (most significant first) of the 32 five-bit data symbols.
    """
    sym, constant = _symbol_tables(38)
    bit_effect = np.zeros(160, dtype=np.uint32)  # contribution of each single data bit
    for p in range(160):
        bit_effect[p] = sym[p // 5, 1 << (4 - p % 5)]
    values = np.arange(256)
    byte_tables = np.zeros((20, 256), dtype=np.uint32)
    for j in range(20):
        for k in range(8):  # bit k of the byte (7 = most significant) is data bit 8j + 7 - k
            byte_tables[j, ((values >> k) & 1) == 1] ^= bit_effect[8 * j + 7 - k]
    return byte_tables, np.ascontiguousarray(sym[32:]), constant


def _xor_gather(tables: U32, index: U8) -> U32:
    """XOR over columns ``i`` of ``tables[i, index[:, i]]`` (index converted once to intp)."""
    cols = np.ascontiguousarray(index.T, dtype=np.intp)
    acc = np.zeros(index.shape[0], dtype=np.uint32)
    for table, col in zip(tables, cols, strict=True):
        np.bitwise_xor(acc, table.take(col), out=acc)
    return acc


def _polymod_rows(groups: U8) -> U32:
    """Polymod of ``hrp_expand('one') + row`` for every row of 5-bit ``groups``."""
    tables, constant = _symbol_tables(groups.shape[1])
    return _xor_gather(tables, groups) ^ np.uint32(constant)


def _translate(codes: U8, table: bytes) -> U8:
    out = np.frombuffer(np.ascontiguousarray(codes).tobytes().translate(table), dtype=np.uint8)
    return out.reshape(codes.shape)


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
    nibbles = np.empty((raw.shape[0], 40), dtype=np.uint8)
    nibbles[:, 0::2] = raw >> 4
    nibbles[:, 1::2] = raw & 15
    chars = np.empty((raw.shape[0], 42), dtype=np.uint8)
    chars[:, 0] = ord("0")
    chars[:, 1] = ord("x")
    # '0'..'9' are 48..57; 'a'..'f' are 97..102 = nibble + 48 + 39
    chars[:, 2:] = nibbles + np.uint8(48) + (nibbles > 9).astype(np.uint8) * np.uint8(39)
    return chars


def _one_codes(raw: U8) -> U8:
    """(n, 20) bytes -> (n, 42) character codes of the ``one1`` bech32 form."""
    n = raw.shape[0]
    byte_tables, _, constant = _byte_tables()
    chk = _xor_gather(byte_tables, raw) ^ np.uint32(constant ^ _BECH32_CONST)
    symbols = np.empty((n, 38), dtype=np.uint8)
    symbols[:, :32] = _bytes_to_groups(raw)
    for i in range(6):
        symbols[:, 32 + i] = (chk >> np.uint32(5 * (5 - i))) & np.uint32(31)
    chars = np.empty((n, _ONE_LEN), dtype=np.uint8)
    chars[:, :4] = _ONE1_CODES
    chars[:, 4:] = _translate(symbols, _TO_CHAR)
    return chars


def _column32(codes: U8, start: int) -> npt.NDArray[np.uint32]:
    """Characters ``start .. start+3`` of every row as one little-endian uint32 (a strided view)."""
    return np.ndarray(
        (codes.shape[0],),
        dtype="<u4",
        buffer=codes,
        offset=start * codes.strides[1],
        strides=(codes.strides[0],),
    )


_ONE1_WORD = int.from_bytes(b"one1", "little")


def _row_mask(bad: Mask) -> Mask:
    """Per-row validity from a per-character "bad" mask (reduced only when something is bad)."""
    if not bad.any():
        return np.ones(bad.shape[0], dtype=bool)
    good: Mask = np.logical_not(bad.any(axis=1))
    return good


def _decode_one_rows(codes: U8) -> tuple[U8, Mask]:
    """(n, 42) lower-case ``one1`` candidates -> (20 bytes each, validity)."""
    codes = np.ascontiguousarray(codes)
    n = codes.shape[0]
    symbols = _translate(codes, _TO_SYMBOL)
    ok = _column32(codes, 0) == _ONE1_WORD
    # with the prefix right, 'o' and '1' are the only two non-bech32 characters of a good row
    if np.count_nonzero(symbols > 31) != 2 * n:
        bad = symbols > 31
        bad[:, :4] = False
        ok &= _row_mask(bad)
        symbols = symbols & np.uint8(31)
    raw = _groups_to_bytes(np.ascontiguousarray(symbols[:, 4:36]))
    byte_tables, check_tables, constant = _byte_tables()
    chk = _xor_gather(byte_tables, raw) ^ _xor_gather(check_tables, symbols[:, 36:])
    ok &= chk == np.uint32(constant ^ _BECH32_CONST)
    return raw, ok


def _decode_hex_rows(codes: U8) -> tuple[U8, Mask]:
    """(n, 42) ``0x`` candidates (hex digits in any case) -> (20 bytes each, validity)."""
    n = codes.shape[0]
    ok = (_column32(codes, 0) & 0xDFFF) == int.from_bytes(b"0X", "little")
    digits = np.ascontiguousarray(codes[:, 2:]).tobytes()
    try:
        raw = bytes.fromhex(digits.decode("ascii"))  # C speed; skips whitespace, hence the length test
    except (UnicodeDecodeError, ValueError):
        raw = b""
    if len(raw) == 20 * n:
        return np.frombuffer(raw, dtype=np.uint8).reshape(n, 20), ok
    # some row is bad: find which, row by row (rare; the caller then asks the scalar codec why)
    rows = np.frombuffer(digits, dtype=np.uint8).reshape(n, 40)
    good = np.isin(rows, np.frombuffer(b"0123456789abcdefABCDEF", dtype=np.uint8)).all(axis=1)
    out = np.zeros((n, 20), dtype=np.uint8)
    if good.any():
        picked = np.ascontiguousarray(rows[good]).tobytes().decode("ascii")
        out[good] = np.frombuffer(bytes.fromhex(picked), dtype=np.uint8).reshape(-1, 20)
    return out, ok & good


def normalize_codes(codes: U8) -> tuple[U8, U8, Mask]:
    """Both forms of ``n`` 42-character addresses given as an ``(n, 42)`` array of ASCII codes.

    Parameters
    ----------
    codes
        Each row a lower-case ``one1`` address or a ``0x`` address (hex digits in any case);
        the two kinds may be mixed.

    Returns
    -------
    tuple
        ``(one1 codes, 0x codes, ok)``: two ``(n, 42)`` uint8 arrays of lower-case character
        codes and a boolean mask. Rows where ``ok`` is false hold garbage; give those texts to
        :func:`to_hex` for the verdict (upper-case bech32 is valid but not handled here).
    """
    n = codes.shape[0]
    is_hex = codes[:, 1] != ord("n")  # "one1..." vs "0x..."; anything else fails either way
    if not is_hex.any():
        raw, ok = _decode_one_rows(codes)
        return np.ascontiguousarray(codes), _hex_codes(raw), ok
    if is_hex.all():
        raw, ok = _decode_hex_rows(codes)
        return _one_codes(raw), _hex_codes(raw), ok
    ones = np.empty((n, _ONE_LEN), dtype=np.uint8)
    hexes = np.empty((n, _ONE_LEN), dtype=np.uint8)
    ok = np.empty(n, dtype=bool)
    for rows in (np.flatnonzero(is_hex), np.flatnonzero(~is_hex)):
        ones[rows], hexes[rows], ok[rows] = normalize_codes(codes[rows])
    return ones, hexes, ok


def forms_of_bytes(raw: U8) -> tuple[U8, U8]:
    """Both forms of ``n`` addresses given as an ``(n, 20)`` byte array (decoded ABI words).

    Parameters
    ----------
    raw
        Each row the 20 bytes of one address.

    Returns
    -------
    tuple
        ``(one1 codes, 0x codes)``: two ``(n, 42)`` uint8 arrays of ASCII character codes (the
        ``one1`` form, and ``0x`` with lower-case hex).
    """
    if raw.ndim != 2 or raw.shape[1] != 20:
        raise AddressError(raw.shape, "expected an (n, 20) array of address bytes")
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if raw.shape[0] == 0:
        empty = np.zeros((0, _ONE_LEN), dtype=np.uint8)
        return empty, empty.copy()
    return _one_codes(raw), _hex_codes(raw)


def _codes(texts: list[str]) -> U8:
    return np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8).reshape(len(texts), 42)


def _rows_to_str(chars: U8) -> list[str]:
    n, width = chars.shape
    text = chars.tobytes().decode("ascii")
    return [text[i : i + width] for i in range(0, n * width, width)]


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
    result: dict[str, tuple[str, str]] = {}
    if shaped:
        ones, hexes, ok = normalize_codes(_codes(shaped))
        for text, one_text, hex_text, good in zip(
            shaped, _rows_to_str(ones), _rows_to_str(hexes), ok.tolist(), strict=True
        ):
            if good:
                result[text] = (one_text, hex_text)
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
