"""The hot path: many 32-byte words at once (numpy over Arrow buffers) -> exact typed columns.

One job: decode the one-word ABI values of many logs or calls together. A column of ``0x`` hex
text whose rows have one length (a topic, the data of a static event) is read straight from the
Arrow string buffer as an ``(n, width)`` byte matrix (one ``binascii.unhexlify`` over the
whole buffer: C speed); each argument is a ``(n, 32)`` slice of it, checked and converted in bulk:

* ``uintN`` / ``intN``: the padding checked for the whole column at once (``uint8`` with
  non-zero high bytes, ``int8`` not sign-extended: out of range); values that fit 64 bits (most
  amounts are small) become Python ints through one ``astype(object)`` of a big-endian view,
  the others through ``int.from_bytes`` on each 32-byte row;
* ``address``: the first 12 bytes must be zero; the 20 others become ``one1`` and ``0x`` text
  through :func:`hmyframe.addresses.forms_of_bytes` (vectorised bech32);
* ``bool``: 0 or 1; ``bytesN`` / ``function``: right padding zero, lower-case hex text.

Every checker returns a row mask of values out of range, so a bad row is dropped and listed
(never a wrong row, never an exception): the caller turns the mask into reasons.
"""

from __future__ import annotations

import binascii
import functools
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hmyframe.addresses import forms_of_bytes

if TYPE_CHECKING:
    import numpy.typing as npt

    U8 = npt.NDArray[np.uint8]
    Mask = npt.NDArray[np.bool_]

__all__ = [
    "fixed_hex",
    "fixed_strings",
    "hex_codes",
    "ints_of_words",
    "word_problems",
]

_WORD = 32
#: hex digit value of each byte (255: not a hex digit)
_NIBBLE = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _NIBBLE[_c] = _i
for _i, _c in enumerate(b"ABCDEF"):
    _NIBBLE[_c] = 10 + _i
_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_SIGNED_FROM_BYTES = functools.partial(int.from_bytes, byteorder="big", signed=True)
#: From this many addresses, a column is converted one distinct address at a time.
_DEDUPE_FROM = 4096


def _string_buffers(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, bytes)`` of a string array (int64 offsets whatever the array's width)."""
    n = len(array)
    if pa.types.is_large_string(array.type):
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int64, count=n + 1, offset=array.offset * 8)
    else:
        offsets = np.frombuffer(array.buffers()[1], dtype=np.int32, count=n + 1, offset=array.offset * 4)
    data = array.buffers()[2]
    values = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, dtype=np.uint8)
    return offsets.astype(np.int64, copy=False), values


def fixed_hex(
    array: pa.Array | pa.ChunkedArray, nbytes: int, skip: int = 0, exact: bool = True
) -> tuple[U8, Mask]:
    """Bytes ``skip .. skip + nbytes`` of each row of ``0x`` hex text, as an ``(n, nbytes)`` matrix.

    Parameters
    ----------
    array
        ``0x`` hex texts (topics, log data, call input).
    nbytes
        Bytes to read from each row.
    skip
        Bytes to pass over first (a call's 4-byte selector).
    exact
        Whether a row must hold exactly ``skip + nbytes`` bytes (else at least that many).

    Returns
    -------
    tuple
        ``(matrix, ok)``: rows where ``ok`` is false (null, too short or long, no ``0x``, not
        hex) hold zeros.
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if not (pa.types.is_string(array.type) or pa.types.is_large_string(array.type)):
        array = array.cast(pa.string())
    n = len(array)
    width = 2 + 2 * (skip + nbytes)
    if n == 0:
        return np.zeros((0, nbytes), dtype=np.uint8), np.zeros(0, dtype=bool)
    offsets, values = _string_buffers(array)
    lengths = np.diff(offsets)
    ok = lengths == width if exact else lengths >= width
    if array.null_count:
        ok &= np.asarray(array.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if ok.all() and (lengths == width).all() and offsets[-1] - offsets[0] == n * width:
        rows = values[offsets[0] : offsets[-1]].reshape(n, width)
    else:
        rows = np.zeros((n, width), dtype=np.uint8)
        starts = offsets[:-1][ok]
        rows[ok] = values[starts[:, None] + np.arange(width)]
    rows = rows[:, np.r_[0:2, 2 + 2 * skip : width]] if skip else rows
    ok &= (rows[:, 0] == ord("0")) & ((rows[:, 1] | 0x20) == ord("x"))
    idx = np.flatnonzero(ok)
    digits = rows[:, 2:] if len(idx) == n else rows[idx, 2:]
    try:  # one copy of the digits, one pass of C over them
        raw = binascii.unhexlify(np.ascontiguousarray(digits).data)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == len(idx) * nbytes:
        decoded = np.frombuffer(raw, dtype=np.uint8).reshape(len(idx), nbytes)
    else:  # some row is not hex: nibble by nibble, to find which
        nibbles = _NIBBLE[digits]
        hexed = ~(nibbles == 255).any(axis=1)
        decoded = (nibbles[:, 0::2] << 4) | (nibbles[:, 1::2] & 15)
        decoded[~hexed] = 0
        ok[idx[~hexed]] = False
    if len(idx) == n and ok.all():
        return np.ascontiguousarray(decoded), ok
    matrix = np.zeros((n, nbytes), dtype=np.uint8)
    matrix[idx] = decoded
    return matrix, ok


def word_problems(words: U8, kind: str, size: int) -> Mask:
    """Rows of ``(n, 32)`` words that are out of range for the elementary type ``kind``/``size``."""
    n = len(words)
    bad: Any
    if kind in ("uint", "int"):
        pad = _WORD - size // 8
        if not pad:
            return np.zeros(n, dtype=bool)
        high = words[:, :pad]
        if kind == "uint":
            bad = high.any(axis=1)
        else:  # the high bytes repeat the sign bit of the N-bit value
            negative = words[:, pad] >= 0x80
            bad = np.where(negative, (high != 0xFF).any(axis=1), high.any(axis=1))
    elif kind == "address":
        bad = words[:, :12].any(axis=1)
    elif kind == "bool":
        bad = words[:, :31].any(axis=1) | (words[:, 31] > 1)
    elif size < _WORD:  # bytesN, function: zero right padding
        bad = words[:, size:].any(axis=1)
    else:
        return np.zeros(n, dtype=bool)
    return np.asarray(bad, dtype=bool)


def ints_of_words(words: U8, signed: bool) -> np.ndarray:
    """Exact Python ints (an object array) of ``(n, 32)`` big-endian words, two's complement if
    ``signed``. Values that fit 64 bits go through one ``astype(object)``; others one by one."""
    n = len(words)
    words = np.ascontiguousarray(words)
    high = words[:, :24]
    if signed:
        low = words[:, 24:].copy().view(">i8").ravel()
        negative = words[:, 24] >= 0x80
        small = np.asarray(np.where(negative, (high == 0xFF).all(axis=1), ~high.any(axis=1)), dtype=bool)
    else:
        low = words[:, 24:].copy().view(">u8").ravel()
        small = np.asarray(~high.any(axis=1), dtype=bool)
    if small.all():
        return low.astype(object)
    out = np.empty(n, dtype=object)
    if small.any():
        out[small] = low[small].astype(object)
    big = np.ascontiguousarray(words[~small]).view("V32").ravel().tolist()
    values = list(map(_SIGNED_FROM_BYTES if signed else int.from_bytes, big))
    holder = np.empty(len(values), dtype=object)
    holder[:] = values
    out[~small] = holder
    return out


def hex_codes(raw: U8) -> U8:
    """``(n, k)`` bytes -> ``(n, 2 + 2k)`` character codes of ``0x`` + lower-case hex."""
    n, k = raw.shape
    codes = np.empty((n, 2 + 2 * k), dtype=np.uint8)
    codes[:, 0] = ord("0")
    codes[:, 1] = ord("x")
    codes[:, 2::2] = _DIGITS[raw >> 4]
    codes[:, 3::2] = _DIGITS[raw & 15]
    return codes


def fixed_strings(codes: U8) -> pa.Array:
    """An Arrow string array of ``(n, width)`` ASCII character codes (one buffer, no copy per row)."""
    n, width = codes.shape
    offsets = np.arange(n + 1, dtype=np.int64) * width
    if n * width < 2**31:
        return pa.Array.from_buffers(
            pa.string(), n, [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(codes.tobytes())]
        )
    large = pa.Array.from_buffers(
        pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(codes.tobytes())]
    )
    return large.cast(pa.string())


def address_strings(raw: U8) -> tuple[pa.Array, pa.Array]:
    """``(one1, 0x)`` Arrow string arrays of ``(n, 20)`` address bytes.

    Addresses repeat (routers, pairs, tokens): a large column is dictionary-encoded first
    (Arrow's hash table, C++), each distinct address converted once, and the texts taken back.
    """
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    n = len(raw)
    if n >= _DEDUPE_FROM:
        column = pa.FixedSizeBinaryArray.from_buffers(pa.binary(20), n, [None, pa.py_buffer(raw)])
        encoded = pc.dictionary_encode(column)
        distinct = encoded.dictionary
        if len(distinct) <= n // 2:
            unique = np.frombuffer(
                distinct.buffers()[1], dtype=np.uint8, count=20 * len(distinct), offset=20 * distinct.offset
            ).reshape(-1, 20)
            ones, hexes = forms_of_bytes(unique)
            return fixed_strings(ones).take(encoded.indices), fixed_strings(hexes).take(encoded.indices)
    ones, hexes = forms_of_bytes(raw)
    return fixed_strings(ones), fixed_strings(hexes)
