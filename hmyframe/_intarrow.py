"""Exact integers between Python and Arrow: the storages of the exact-integer dtypes.

One job: move exact Python integers (an object array plus a missing-value mask, the layout of
:class:`hmyframe._exactint.ExactIntArray`) to and from Arrow arrays, exactly, and check the range
a storage can hold. Each exact-integer dtype names one :class:`IntStorage`:

* :data:`DECIMAL128` — ``decimal128(38, 0)``, signed, at most 38 decimal digits: the ``atto``
  dtype (every Harmony amount, stake and gas price; the supply is ~29 digits). Converted through
  the two 64-bit words of each value, without a Python object per row where values fit int64.
* :data:`DECIMAL_STRING` — ``string`` of base-10 digits, 0 .. 2**256 - 1: the ``uint256`` dtype
  (token amounts and ids, which the EVM lets reach 78 digits). Arrow's widest decimal,
  ``decimal256(76, 0)``, stops at 76 digits, and no engine has a native 256-bit integer that
  pyarrow, polars and DuckDB all read; a ``fixed_size_binary(32)`` would be exact but reads as
  opaque bytes everywhere. Decimal digits are exact, what the JSON and every explorer show, the
  same text a CSV export writes, and read as plain strings by pyarrow, polars, DuckDB and Dask
  (``CAST(amount AS HUGEINT)`` / ``DECIMAL(38, 0)`` in DuckDB, ``int(x)`` in Python, where the
  values fit). Canonical form: no sign, no leading zeros, no separators.
* :data:`SIGNED_DECIMAL_STRING` — the same digit strings with a ``-`` for negative values,
  -2**255 .. 2**255 - 1: the ``int256`` dtype (decoded ``intN`` contract arguments, e.g. a
  pool's signed price tick or a balance delta). Same reasons as above: 77 digits and a sign
  fit no Arrow decimal. Canonical form: ``-`` only before a non-zero value, no leading zeros.

Reading (:func:`ints_from_arrow`) accepts any exact Arrow form of integers (integers, decimals
of scale 0, digit strings, nulls) whatever the storage, so an ``atto`` column can become
``uint256`` and back; the range is checked by the storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import pyarrow as pa

from hmyframe.errors import AmountError, short_repr

__all__ = ["DECIMAL128", "DECIMAL_STRING", "SIGNED_DECIMAL_STRING", "IntStorage", "ints_from_arrow"]

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class IntStorage:
    """How one exact-integer dtype is stored in Arrow, and the integers it can hold.

    Attributes
    ----------
    label
        The storage in messages (``"decimal128(38, 0)"``, ``"uint256"``).
    arrow_type
        The Arrow (and Parquet) type of a column.
    low, high
        The smallest and largest integer the storage holds (both included).
    expected
        What a value must be, for error messages (``"at most 38 decimal digits"``).
    rank
        Width order: combining two exact-integer dtypes gives the one of higher rank.
    checked_on_entry
        Whether values are range-checked when they enter the dtype (construction, assignment),
        not only when they leave it for Arrow.
    file_alias
        The ``numpy_type`` a cache or export file's pandas metadata gives a column of this
        storage (:mod:`hmyframe._pandas_meta`): a raw-bytes NumPy dtype of the value's width
        (``"V16"``: a ``decimal128`` is 16 bytes; ``"V32"``: 256 bits) that pandas parses but
        pyarrow does not use, so plain pandas reads exact ``Decimal`` values / strings, while
        the dtype (when :mod:`hmyframe.amounts` is imported) claims the alias and pandas reads
        the column as that dtype. (An ``object`` spelling such as ``"<O"`` would not do: pandas
        rejects every ``object`` spelling but ``"object"`` / ``"O"``.)
    """

    label: str
    arrow_type: pa.DataType
    low: int
    high: int
    expected: str
    rank: int
    checked_on_entry: bool
    file_alias: str

    def check(self, data: np.ndarray, mask: np.ndarray, what: str) -> None:
        """Raise :class:`AmountError` naming the first value (and its row) outside the range."""
        valid = data[~mask]
        if len(valid) == 0:
            return
        lo_v, hi_v = min(valid), max(valid)
        if lo_v >= self.low and hi_v <= self.high:
            return
        bad = hi_v if hi_v > self.high else lo_v
        row = int(np.flatnonzero((data == bad) & ~mask)[0])
        raise AmountError(f"{what} {bad} (row {row}) does not fit {self.label}: expected {self.expected}")

    def to_arrow(self, data: np.ndarray, mask: np.ndarray) -> pa.Array:
        """Exact ints -> an array of :attr:`arrow_type`; a value out of range raises."""
        self.check(data, mask, "amount")
        if pa.types.is_decimal128(self.arrow_type):
            return _to_decimal128(data, mask, self.arrow_type)
        return pa.array(
            [None if m else str(v) for v, m in zip(data.tolist(), mask.tolist(), strict=True)],
            type=self.arrow_type,
        )


#: ``decimal128(38, 0)``: the ``atto`` dtype's storage (signed, at most 38 digits).
DECIMAL128 = IntStorage(
    label="decimal128(38, 0)",
    arrow_type=pa.decimal128(38, 0),
    low=-(10**38) + 1,
    high=10**38 - 1,
    expected="at most 38 decimal digits",
    rank=0,
    checked_on_entry=False,
    file_alias="V16",
)

#: base-10 digit strings: the ``uint256`` dtype's storage (0 .. 2**256 - 1).
DECIMAL_STRING = IntStorage(
    label="uint256",
    arrow_type=pa.string(),
    low=0,
    high=2**256 - 1,
    expected="an unsigned 256-bit integer, 0 .. 2**256 - 1",
    rank=1,
    checked_on_entry=True,
    file_alias="V32",
)

#: signed base-10 digit strings: the ``int256`` dtype's storage (-2**255 .. 2**255 - 1).
SIGNED_DECIMAL_STRING = IntStorage(
    label="int256",
    arrow_type=pa.string(),
    low=-(2**255),
    high=2**255 - 1,
    expected="a signed 256-bit integer, -2**255 .. 2**255 - 1",
    rank=2,
    checked_on_entry=True,
    # 32 bytes as well; "|V32" (NumPy's spelling of the same raw-bytes type with its byte-order
    # mark) keeps it apart from uint256's "V32" while plain pandas still parses it
    file_alias="|V32",
)


def ints_from_arrow(array: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """``(data, mask)`` of exact ints from Arrow integers, ``decimal(P, 0)``, digit strings or nulls."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks != 1 else array.chunk(0)
    if isinstance(array, pa.ExtensionArray):
        array = array.storage
    t = array.type
    n = len(array)
    mask = (
        np.asarray(array.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if array.null_count
        else np.zeros(n, dtype=bool)
    )
    data: np.ndarray
    if pa.types.is_decimal(t) and t.scale == 0:
        if pa.types.is_decimal128(t):
            words = np.frombuffer(
                array.buffers()[1], dtype=np.uint64, count=2 * n, offset=array.offset * 16
            ).reshape(n, 2)
            data = _words_to_ints(words)
        else:  # decimal256 and narrower decimals: through Python (rare)
            data = np.array([0 if v is None else int(v) for v in array.to_pylist()] + [0], dtype=object)[:n]
    elif pa.types.is_integer(t):
        data = array.fill_null(0).to_numpy(zero_copy_only=False).astype(object)
    elif pa.types.is_string(t) or pa.types.is_large_string(t):
        data = np.zeros(n, dtype=object)
        for i, text in enumerate(array.to_pylist()):
            if text is not None:
                data[i] = _digits(text)
    elif pa.types.is_null(t):
        data = np.zeros(n, dtype=object)
    else:
        raise AmountError(
            f"an exact integer column needs Arrow integers, decimal(P, 0) or digit strings, got {t}"
        )
    data = np.asarray(data, dtype=object)
    if mask.any():
        data[mask] = 0
    return data, mask


def _digits(text: str) -> int:
    """A base-10 digit string (optional ``-``) as an int; anything else raises :class:`AmountError`."""
    body = text[1:] if text[:1] == "-" else text
    if not (body.isascii() and body.isdigit()):
        raise AmountError(f"expected a string of base-10 digits, got {short_repr(text)}")
    return int(text)


def _words_to_ints(words: np.ndarray) -> np.ndarray:
    """Little-endian 128-bit two's complement words ``(n, 2)`` of uint64 -> object array of ints."""
    lo = words[:, 0]
    hi = words[:, 1].view(np.int64)
    lo_signed = lo.view(np.int64)
    if bool((hi == (lo_signed >> 63)).all()):  # every value fits int64: the usual case
        return lo_signed.astype(object)
    return cast("np.ndarray", lo.astype(object) + (hi.astype(object) << 64))


def _to_decimal128(data: np.ndarray, mask: np.ndarray, arrow_type: pa.DataType) -> pa.Array:
    """Exact ints (already range-checked) -> ``decimal128(P, 0)`` through two 64-bit words each."""
    n = len(data)
    valid = data[~mask]
    if len(valid) == 0:
        return pa.nulls(n, type=arrow_type) if n else pa.array([], type=arrow_type)
    lo_v, hi_v = min(valid), max(valid)
    words = np.empty((n, 2), dtype=np.uint64)
    filled = data if not mask.any() else np.where(mask, 0, data)
    if lo_v >= _INT64_MIN and hi_v <= _INT64_MAX:
        small = filled.astype(np.int64)
        words[:, 0] = small.view(np.uint64)
        words[:, 1] = (small >> 63).view(np.uint64)
    else:
        words[:, 0] = (filled & _MASK64).astype(np.uint64)
        words[:, 1] = (filled >> 64).astype(np.int64).view(np.uint64)
    validity = None
    if mask.any():
        validity = pa.array(~mask, type=pa.bool_()).buffers()[1]
    return pa.Array.from_buffers(
        arrow_type, n, [validity, pa.py_buffer(words.tobytes())], null_count=int(mask.sum())
    )
