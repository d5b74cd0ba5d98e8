"""Column builders shared by every dataset: raw JSON values -> validated Arrow arrays.

Each builder takes a list of raw values (as decoded from JSON: ``int``, ``str``, ``Decimal``
for numbers written with a fraction or exponent, ``bool``, ``None``...), a :class:`Where` that
names the rows, and the field name. It accepts every encoding the node uses for that kind of
value (v1 hex quantity, v2 JSON number, decimal string, CLI-mangled ``3.46e+19``) and raises
:class:`~hmyframe.errors.ResponseShapeError` naming the dataset, the path of the offending value
and what was expected.

Exactness: integers are parsed with ``int`` (hex or decimal text) or taken from the exact
``Decimal`` of a JSON number's text; nothing goes through a float except the ``float64``
convenience and ratio columns, which are converted from the exact text / integer with one
correctly rounded operation.

The scalar parsers the builders fall back on row by row, :class:`Bad` and :class:`Where` are
plain Python in :mod:`._parse` (re-exported here).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hmyframe._lazy import lazy_module
from hmyframe.addresses import normalize_codes, normalize_many
from hmyframe.errors import AddressError

from ._parse import (
    AMOUNT_LIMIT,
    Bad,
    Where,
    as_dict,
    as_list,
    parse_amount,
    parse_dec_amount,
    parse_int,
    parse_ratio,
)
from ._types import AMOUNT, TIMESTAMP

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = lazy_module("pyarrow.compute")  # (a ~0.1 s import: only once a table is built)

__all__ = [
    "AMOUNT_LIMIT",
    "INT64_MAX",
    "Bad",
    "Where",
    "address_arrays",
    "address_columns",
    "amount_array",
    "as_dict",
    "as_list",
    "bloom_array",
    "bool_array",
    "dec_amount_array",
    "hash_array",
    "hex_data_array",
    "int_array",
    "one_float_array",
    "one_from_exact",
    "parse_amount",
    "parse_dec_amount",
    "parse_int",
    "parse_ints",
    "parse_ratio",
    "ratio_arrays",
    "scaled_rate_arrays",
    "string_array",
    "timestamp_array",
]

INT64_MAX = (1 << 63) - 1
ATTO_PER_ONE = 10**18
_HASH_RE = "^0x[0-9a-fA-F]{64}$"
_HEXDATA_RE = "^0x[0-9a-fA-F]*$"
_BLOOM_RE = "^0x[0-9a-fA-F]{512}$"
ZERO_HASH = "0x" + "0" * 64


# ---------------------------------------------------------------------------------------
# column builders
#
# Each builder first tries a bulk path: one C-level pass to build the Arrow array (pyarrow's
# own type checks, numpy over the buffers for the value checks). Anything the bulk path does
# not accept, it leaves to the row-by-row path below it, which accepts the same values and
# names the first bad one. The two give identical arrays (tests/datasets/test_ds_columns.py).
# ---------------------------------------------------------------------------------------

_NONE = type(None)
#: What building an Arrow array from Python values raises for a value of the wrong kind.
_ARROW_REJECTS = (pa.ArrowException, TypeError, ValueError, OverflowError)


def parse_ints(
    values: Sequence[Any],
    where: Where,
    name: str,
    *,
    required: bool = False,
    parse: Callable[[object], int] = parse_int,
    expected: str = "",
) -> list[int | None]:
    """Parse a column of integer-like values; ``None`` stays ``None`` unless ``required``."""
    if parse is parse_int:
        kinds = set(map(type, values))
        has_null = _NONE in kinds
        kinds.discard(_NONE)
        if not (required and has_null):
            if kinds <= {int}:
                return values if type(values) is list else list(values)
            if kinds == {str}:  # v1 / trace hex quantities, validated in bulk
                strings = [v for v in values if v is not None] if has_null else values
                if _all_hex(strings):
                    if has_null:
                        return [None if v is None else int(v, 16) for v in values]
                    return [int(v, 16) for v in values]
    out: list[int | None] = []
    append = out.append
    for i, v in enumerate(values):
        if v is None:
            if required:
                where.fail(i, name, v, expected or "a value (the field is missing or null)")
            append(None)
            continue
        try:
            append(parse(v))
        except Bad as exc:
            where.fail(i, name, v, expected or exc.expected)
    return out


def _all_hex(values: Sequence[str]) -> bool:
    ok = pc.match_substring_regex(pa.array(values, type=pa.string()), "^0[xX][0-9a-fA-F]{1,64}$")
    return bool(pc.all(ok).as_py())


def _check_range(
    ints: Sequence[int | None], where: Where, name: str, lo: int, hi: int, expected: str
) -> None:
    present = [v for v in ints if v is not None]
    if not present or (min(present) >= lo and max(present) <= hi):
        return
    for i, v in enumerate(ints):
        if v is not None and not lo <= v <= hi:
            where.fail(i, name, v, expected)


Words = npt.NDArray[np.uint64]
_LIMIT_HI, _LIMIT_LO = divmod(AMOUNT_LIMIT, 1 << 64)
_MASK64 = (1 << 64) - 1


def _int_words(values: Sequence[Any], parsed: bool) -> tuple[Words, pa.Buffer | None] | None:
    """Bulk path of every integer column: ``(n, 2)`` little-endian 64-bit words (low, high)
    of each value and the validity buffer (``None``: no nulls), if every value is ``None``, a
    Python int in ``0 .. 2**128 - 1``, or a ``0x`` hex quantity of 1 to 32 digits; else ``None``.

    Unparsed values go through Arrow's type inference, which yields int64 only when every value
    is a Python int (a bool or a Decimal gives another type, or raises) and string only when
    every value is a ``str`` (or ``None``).
    """
    try:
        arr = pa.array(values, type=pa.int64()) if parsed else pa.array(values)
    except OverflowError:  # an int beyond int64 (or below): split the Python ints
        return _big_int_words(values, parsed)
    except _ARROW_REJECTS:
        return None
    n = len(arr)
    if arr.type == pa.string():
        return _hex_words(arr, values)
    if arr.type == pa.null():
        return np.zeros((n, 2), dtype=np.uint64), pa.py_buffer(np.zeros((n + 7) // 8, dtype=np.uint8))
    if arr.type != pa.int64():
        return None
    if n and arr.null_count < n and pc.min(arr).as_py() < 0:
        return None
    words = np.zeros((n, 2), dtype=np.uint64)
    validity, data = arr.buffers()
    words[:, 0] = np.frombuffer(data, dtype=np.uint64, count=n + arr.offset)[arr.offset :]
    if arr.null_count:
        words[:, 0][arr.is_null().to_numpy(zero_copy_only=False)] = 0
        validity = arr.is_valid().buffers()[1]
    return words, (validity if arr.null_count else None)


def _big_int_words(values: Sequence[Any], parsed: bool) -> tuple[Words, pa.Buffer | None] | None:
    if not parsed and not set(map(type, values)) <= {int, _NONE}:
        return None
    n = len(values)
    validity = None
    dense: Sequence[Any] = values
    if None in values:
        mask = np.fromiter((v is not None for v in values), dtype=bool, count=n)
        validity = pa.py_buffer(np.packbits(mask, bitorder="little"))
        dense = [0 if v is None else v for v in values]
    words = np.empty((n, 2), dtype=np.uint64)
    try:
        obj = np.array(dense, dtype=object)
        words[:, 0] = (obj & _MASK64).astype(np.uint64)
        words[:, 1] = (obj >> 64).astype(np.uint64)  # raises for a negative value or >= 2**128
    except (OverflowError, TypeError):
        return None
    return words, validity


def _hex_words(arr: pa.Array, values: Sequence[Any]) -> tuple[Words, pa.Buffer | None] | None:
    """Words of ``0x`` hex quantities of 1 to 32 digits (either case): checked by one regex
    over the Arrow array, then parsed by ``int`` (faster than any numpy digit arithmetic)."""
    ok = pc.match_substring_regex(arr, "^0[xX][0-9a-fA-F]{1,32}$")
    if pc.all(pc.fill_null(ok, True)).as_py() is False:
        return None
    if arr.null_count:
        ints: list[int | None] = [None if v is None else int(v, 16) for v in values]
    else:
        ints = list(map(int, values, repeat(16)))
    return _int_words(ints, parsed=True)


def _typed_int64(values: Sequence[Any]) -> npt.NDArray[np.int64] | None:
    """Bulk path of a column known to hold only ``int``, ``str`` and ``None``: the values as
    int64 if all are ints in range (``array`` raises for ``None``, a string or a big int).

    Never give it unchecked values: ``array`` would take ``True`` as 1.
    """
    try:
        return np.frombuffer(array("q", values), dtype=np.int64)
    except (TypeError, OverflowError):
        return None


def _typed_words(values: Sequence[Any], required: bool) -> tuple[Words, pa.Buffer | None] | None:
    """:func:`_int_words` for a column known to hold only ``int``, ``str`` and ``None``."""
    ints = _typed_int64(values)
    if ints is not None:
        if len(ints) and ints.min() < 0:
            return None
        words = np.zeros((len(ints), 2), dtype=np.uint64)
        words[:, 0] = ints
        return words, None
    bulk = _big_int_words(values, parsed=True)  # big ints split exactly; a string gives None
    if bulk is not None and required and bulk[1] is not None:
        return None  # a null in a required column: the row path names it
    return bulk


def _int_column(
    words: Words, validity: pa.Buffer | None, arrow_type: pa.DataType, hi: int
) -> pa.Array | None:
    """An int64 (or int32) array of the low words, if every value fits ``0..hi``."""
    n = len(words)
    if n and (words[:, 1].any() or int(words[:, 0].max()) > hi):
        return None
    low = np.ascontiguousarray(words[:, 0]).view(np.int64)
    arr = pa.Array.from_buffers(pa.int64(), n, [validity, pa.py_buffer(low)])
    return arr if arrow_type == pa.int64() else arr.cast(arrow_type)


def int_array(
    values: Sequence[Any],
    where: Where,
    name: str,
    *,
    required: bool = False,
    type_: pa.DataType | None = None,
    parsed: bool = False,
    typed: bool = False,
) -> pa.Array:
    """Integer quantities (hex, number, decimal text) -> non-negative ``int64`` (or ``type_``).

    ``typed``: the values are known to be ``int``, ``str`` or ``None`` (from a typed decoder),
    so a column of plain ints is taken in one C pass without looking at each value's type.
    """
    arrow_type = type_ or pa.int64()
    hi = 2**31 - 1 if arrow_type == pa.int32() else INT64_MAX
    if typed:
        column = _typed_int64(values)
        if column is not None and (not len(column) or (column.min() >= 0 and column.max() <= hi)):
            arr = pa.Array.from_buffers(pa.int64(), len(column), [None, pa.py_buffer(column)])
            return arr if arrow_type == pa.int64() else arr.cast(arrow_type)
    bulk = None if required and None in values else _int_words(values, parsed)
    if bulk is not None:
        arr = _int_column(*bulk, arrow_type, hi)
        if arr is not None:
            return arr
    ints = list(values) if parsed else parse_ints(values, where, name, required=required)
    _check_range(ints, where, name, 0, hi, f"a non-negative integer that fits {arrow_type}")
    return pa.array(ints, type=arrow_type)


def _validity(mask: list[bool]) -> pa.Buffer | None:
    if all(mask):
        return None
    bits: pa.Buffer = pa.array(mask, type=pa.bool_()).buffers()[1]
    return bits


def _below_amount_limit(words: Words) -> bool:
    hi, lo = words[:, 1], words[:, 0]
    return not ((hi > _LIMIT_HI) | ((hi == _LIMIT_HI) & (lo >= _LIMIT_LO))).any()


def amount_array(
    values: Sequence[Any],
    where: Where,
    name: str,
    *,
    required: bool = False,
    parsed: bool = False,
    typed: bool = False,
) -> pa.Array:
    """Exact atto amounts -> ``decimal128(38, 0)``; more than 38 digits raises.

    ``typed``: as for :func:`int_array`.
    """
    bulk = _typed_words(values, required) if typed else None
    if bulk is None:
        bulk = None if required and None in values else _int_words(values, parsed)
    if bulk is None or not _below_amount_limit(bulk[0]):
        ints = values if parsed else parse_ints(values, where, name, required=required)
        _check_range(
            ints,
            where,
            name,
            0,
            AMOUNT_LIMIT - 1,
            "a non-negative amount of at most 38 decimal digits (decimal128(38, 0))",
        )
        bulk = _amount_words_slow(ints)
    words, validity = bulk
    return pa.Array.from_buffers(AMOUNT, len(values), [validity, pa.py_buffer(words)])


def _decimal_texts(texts: Sequence[Any], nulls: int, int_digits: int, *, whole: bool = False) -> bool:
    """Whether every string of ``texts`` (all ``str`` or ``None``, ``nulls`` of them ``None``)
    is ``[0-9]{1,int_digits}\\.[0-9]{18}`` (``.0{18}`` when ``whole``), checked with a few
    C-level string operations over all of them (an Arrow regex costs several times more on
    the short columns of a validator page). ``False`` means "not shown": the caller's regex
    decides (a sign, for instance, is left to it)."""
    present: Sequence[str] = [t for t in texts if t is not None] if nulls else texts
    if not present:
        return True
    lengths = set(map(len, present))
    if min(lengths) < 20 or max(lengths) > int_digits + 19:
        return False
    joined = "".join(present)
    if not joined.isascii() or joined.count(".") != len(present):
        return False
    if whole:
        if {t[-19:] for t in present} != {".000000000000000000"}:
            return False
    elif {t[-19] for t in present} != {"."}:
        return False
    # nothing but digits and those dots (bytes: no Unicode lookups)
    return not joined.encode("ascii").translate(None, b"0123456789.")


def dec_amount_array(values: Sequence[Any], where: Where, name: str) -> pa.Array:
    """``numeric.Dec`` stakes in atto (18-decimal strings) -> ``decimal128(38, 0)``, rounded
    half-even; whole numbers (the usual ``"N.000000000000000000"``) in bulk through Arrow."""
    arr = _strings(values, False)
    if arr is not None:
        if _decimal_texts(values, arr.null_count, 38, whole=True):
            return pc.utf8_slice_codeunits(arr, 0, -19).cast(AMOUNT)
        whole = pc.match_substring_regex(arr, r"^[0-9]{1,38}\.0{18}$")
        if pc.all(pc.fill_null(whole, True)).as_py() is not False:
            digits = pc.utf8_slice_codeunits(arr, 0, -19)
            return digits.cast(AMOUNT)
    ints: list[int | None] = []
    for i, v in enumerate(values):
        try:
            ints.append(None if v is None else parse_dec_amount(v))
        except Bad as exc:
            where.fail(i, name, v, exc.expected)
    return amount_array(ints, where, name, parsed=True)


def _amount_words_slow(ints: Sequence[int | None]) -> tuple[Words, pa.Buffer | None]:
    n = len(ints)
    dense = [0 if v is None else v for v in ints]
    words = np.empty((n, 2), dtype=np.uint64)
    words[:, 0] = np.fromiter((v & _MASK64 for v in dense), dtype=np.uint64, count=n)
    words[:, 1] = np.fromiter((v >> 64 for v in dense), dtype=np.uint64, count=n)
    return words, _validity([v is not None for v in ints])


# float64 ONE from exact atto: one correctly rounded division. The bulk path divides in
# numpy's long double (64-bit significand on x86-64, 113 on IEEE quad): both conversions of
# the 64-bit words are exact, so the quotient is within 2 long-double ulps (< 2**-62 relative)
# of the exact one, and rounding it to float64 gives the correctly rounded result unless it
# lies that close to a point halfway between two float64 values; those rows (about 1 in 100),
# and powers of two, are divided exactly in Python.
_LONG_DOUBLE_OK = np.finfo(np.longdouble).nmant in (63, 112)


def one_float_array(ints: Sequence[Any], *, exact: pa.Array | None = None) -> pa.Array:
    """Atto amounts -> ONE as float64 (one correctly rounded division; a convenience column).

    Parameters
    ----------
    ints
        Exact atto amounts (``None`` for null), as parsed ints or as the raw values
        :func:`amount_array` accepts.
    exact
        The ``decimal128`` array :func:`amount_array` built from the same values, if at hand:
        its words are reused instead of read again.
    """
    n = len(ints)
    if exact is not None and exact.type == AMOUNT and len(exact) == n:
        return one_from_exact(exact)
    bulk = _int_words(ints, parsed=False) if _LONG_DOUBLE_OK else None
    if bulk is None:
        values = [None if v is None else parse_int(v) for v in ints]
        return pa.array([None if v is None else v / ATTO_PER_ONE for v in values], type=pa.float64())
    words, validity = bulk
    return pa.Array.from_buffers(pa.float64(), n, [validity, pa.py_buffer(_atto_to_one(words))])


def one_from_exact(exact: pa.Array | pa.ChunkedArray) -> pa.Array:
    """ONE as float64 from an exact ``decimal128(38, 0)`` atto column, read from its words."""
    if isinstance(exact, pa.ChunkedArray):
        exact = pa.concat_arrays(exact.chunks) if exact.num_chunks else pa.array([], type=AMOUNT)
    if exact.offset:
        exact = pa.concat_arrays([exact])  # a compact copy starting at offset 0
    n = len(exact)
    validity, data = exact.buffers()
    words = np.frombuffer(data, dtype=np.uint64, count=2 * n).reshape(n, 2)
    if not _LONG_DOUBLE_OK or (words[:, 1] >> np.uint64(63)).any():  # negative: not an amount
        return pa.array(
            [None if v is None else int(v) / ATTO_PER_ONE for v in exact.to_pylist()], type=pa.float64()
        )
    ones = _atto_to_one(words)
    return pa.Array.from_buffers(
        pa.float64(), n, [validity if exact.null_count else None, pa.py_buffer(ones)]
    )


def _atto_to_one(words: Words) -> npt.NDArray[np.float64]:
    if not len(words) or (not words[:, 1].any() and int(words[:, 0].max()) < 2**53):
        # every value is a float64 exactly, like 10**18: one IEEE division, correctly rounded
        return words[:, 0].astype(np.float64) / np.float64(ATTO_PER_ONE)
    ld = np.longdouble
    quotient = (words[:, 1].astype(ld) * ld(2.0**64) + words[:, 0].astype(ld)) / ld(ATTO_PER_ONE)
    out = quotient.astype(np.float64)
    rest = np.abs((quotient - out.astype(ld)).astype(np.float64))  # exact: a few bits
    near_half = np.abs(rest - np.spacing(out) * 0.5) <= out * 2.0**-60
    unsure = np.flatnonzero((near_half | (np.frexp(out)[0] == 0.5)) & (out != 0))
    for i in unsure.tolist():
        out[i] = ((int(words[i, 1]) << 64) | int(words[i, 0])) / ATTO_PER_ONE
    return out


def timestamp_array(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False, parsed: bool = False
) -> pa.Array:
    """Unix seconds (hex or number) -> ``timestamp[ms, tz=UTC]``."""
    bulk = None if required and None in values else _int_words(values, parsed)
    secs = None if bulk is None else _int_column(*bulk, pa.int64(), INT64_MAX // 1000)
    if secs is None:
        ints = list(values) if parsed else parse_ints(values, where, name, required=required)
        _check_range(ints, where, name, 0, INT64_MAX // 1000, "unix seconds (a non-negative integer)")
        secs = pa.array(ints, type=pa.int64())
    ms = pc.multiply(secs, pa.scalar(1000, pa.int64()))
    return ms.cast(TIMESTAMP)


def _check_types(
    values: Sequence[Any], where: Where, name: str, type_: type, expected: str, required: bool
) -> None:
    for i, v in enumerate(values):
        if v is None:
            if required:
                where.fail(i, name, v, expected + " (the field is missing or null)")
        elif type(v) is not type_:
            where.fail(i, name, v, expected)


def _strings(values: Sequence[Any], required: bool) -> pa.Array | None:
    """Bulk path: ``values`` as an Arrow string array, if all are ``str`` (or ``None`` when allowed)."""
    try:
        arr = pa.array(values, type=pa.string())
    except _ARROW_REJECTS:
        return None
    if required and arr.null_count:
        return None
    return arr


def string_array(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False, checked: bool = False
) -> pa.Array:
    """Free text -> ``string`` (type-checked unless ``checked``)."""
    arr = _strings(values, required)
    if arr is not None:
        return arr
    _check_types(values, where, name, str, "a string", required)
    return pa.array(values, type=pa.string())


def bool_array(values: Sequence[Any], where: Where, name: str, *, required: bool = False) -> pa.Array:
    """JSON booleans -> ``bool``."""
    try:
        arr = pa.array(values, type=pa.bool_())
    except _ARROW_REJECTS:
        arr = None
    if arr is None or (required and arr.null_count):
        _check_types(values, where, name, bool, "true or false", required)
        arr = pa.array(values, type=pa.bool_())
    return arr


def _regex_array(
    values: Sequence[Any], where: Where, name: str, pattern: str, expected: str, required: bool, checked: bool
) -> pa.Array:
    if not checked or required:
        _check_types(values, where, name, str, expected, required)
    arr = pa.array(values, type=pa.string())
    ok = pc.match_substring_regex(arr, pattern)
    if pc.all(pc.fill_null(ok, True)).as_py() is not False:  # null for an empty column
        return arr
    bad = next(i for i, good in enumerate(ok.to_pylist()) if good is False)
    raise where.error(bad, name, values[bad], expected)


def bloom_array(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False, checked: bool = False
) -> pa.Array:
    """0x 256-byte log blooms -> lower-case ``string`` (``0x`` + 512 hex digits)."""
    arr = _strings(values, required)
    if arr is not None and _hex_strings_ok(arr, width=514, upper=False):
        return arr
    arr = _regex_array(values, where, name, _BLOOM_RE, "a 0x-prefixed 256-byte log bloom", required, checked)
    return pc.utf8_lower(arr)


def _buffers(arr: pa.Array) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """Offsets (starting at 0) and data bytes of a string array."""
    n = len(arr)
    if arr.offset:
        arr = pa.concat_arrays([arr])  # a compact copy starting at offset 0
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1)
    size = int(offsets[-1])
    data = np.frombuffer(data_buf, dtype=np.uint8, count=size) if size else np.zeros(0, dtype=np.uint8)
    return offsets, data


def hash_array(
    values: Sequence[Any],
    where: Where,
    name: str,
    *,
    required: bool = False,
    zero_is_null: bool = False,
    checked: bool = False,
) -> pa.Array:
    """0x 32-byte hashes -> lower-case ``string``; the zero hash becomes null if asked."""
    arr = _strings(values, required)
    # the usual case, checked in bulk without a regex
    if arr is not None and _hex_strings_ok(arr, width=66, upper=False):
        return _zero_to_null(arr) if zero_is_null else arr
    arr = _regex_array(values, where, name, _HASH_RE, "a 0x-prefixed 32-byte hex hash", required, checked)
    arr = pc.utf8_lower(arr)
    return _zero_to_null(arr) if zero_is_null else arr


def _hex_digits(data: npt.NDArray[np.uint8], *, upper: bool) -> npt.NDArray[np.bool_]:
    """Which bytes are hex digits (lower case, or either case if ``upper``), in SIMD-friendly numpy."""
    letters = (data | np.uint8(0x20)) if upper else data
    return ((data - np.uint8(48)) < 10) | ((letters - np.uint8(97)) < 6)


def _prefixed(data: npt.NDArray[np.uint8], starts: npt.NDArray[np.int32]) -> bool:
    return bool((data[starts] == ord("0")).all() and (data[starts + 1] == ord("x")).all())


def _hex_strings_ok(arr: pa.Array, *, width: int | None, upper: bool) -> bool:
    """True if every non-null entry is ``0x`` + hex digits (vectorised).

    ``width``: the exact length of every entry (``0x`` included), or None for any length >= 2;
    ``upper``: whether upper-case digits are allowed.
    """
    if arr.null_count:
        arr = arr.drop_null()
    n = len(arr)
    if not n:
        return True
    offsets, data = _buffers(arr)
    lengths = np.diff(offsets)
    if not ((lengths == width).all() if width is not None else (lengths >= 2).all()):
        return False
    if not _prefixed(data, offsets[:-1]):
        return False
    # every byte but the 'x' of each row is a hex digit
    return int(np.count_nonzero(_hex_digits(data, upper=upper))) == len(data) - n


def _zero_to_null(arr: pa.Array) -> pa.Array:
    if not pc.any(pc.equal(arr, ZERO_HASH)).as_py():
        return arr
    return pc.if_else(pc.equal(arr, ZERO_HASH), pa.scalar(None, pa.string()), arr)


def hex_data_array(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False, checked: bool = False
) -> pa.Array:
    """0x-prefixed hex bytes (input, output, extra data) -> ``string``, as sent."""
    arr = _strings(values, required)
    if arr is not None and _hex_strings_ok(arr, width=None, upper=True):
        return arr
    return _regex_array(values, where, name, _HEXDATA_RE, "0x-prefixed hex data", required, checked)


def address_arrays(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False
) -> tuple[pa.Array, pa.Array]:
    """one1 or 0x addresses -> (one1 column, 0x column); ``""`` and null give null."""
    bulk = _address_bulk(values, required)
    if bulk is not None:
        return bulk
    kinds = set(map(type, values))
    if not kinds <= {str, _NONE} or (required and (_NONE in kinds or "" in values)):
        for i, v in enumerate(values):
            if v is None or v == "":
                if required:
                    where.fail(i, name, v, "an address (one1 bech32 or 0x hex)")
            elif type(v) is not str:
                where.fail(i, name, v, "an address string (one1 bech32 or 0x hex)")
    try:
        ones, hexes = normalize_many(values)
    except AddressError as exc:
        bad = next(i for i, v in enumerate(values) if v == exc.value)
        where.fail(bad, name, exc.value, f"a valid address ({exc.reason})")
    return pa.array(ones, type=pa.string()), pa.array(hexes, type=pa.string())


def address_columns(
    parts: Sequence[tuple[Sequence[Any], str, bool]], where: Where
) -> list[tuple[pa.Array, pa.Array]]:
    """Several address columns of the same rows, each given as ``(values, field name,
    required)`` -> ``(one1 column, 0x column)`` for each, as :func:`address_arrays` gives them;
    in bulk, the distinct addresses of all the columns are converted once."""
    if len(parts) > 1:
        bulk = _address_bulk(list(chain.from_iterable(values for values, _, _ in parts)), False)
        if bulk is not None:
            out: list[tuple[pa.Array, pa.Array]] = []
            start = 0
            for values, _, required in parts:
                one, hex_ = bulk[0].slice(start, len(values)), bulk[1].slice(start, len(values))
                if required and one.null_count:
                    break
                out.append((one, hex_))
                start += len(values)
            else:
                return out
    return [address_arrays(values, where, name, required=required) for values, name, required in parts]


def _address_bulk(values: Sequence[Any], required: bool) -> tuple[pa.Array, pa.Array] | None:
    """Bulk path: every value a 42-character lower-case ``one1`` or ``0x`` address (or
    ``None`` / ``""``, which give null, unless ``required``). The distinct values (Arrow's
    dictionary encoding) are converted in numpy over the Arrow buffer, then spread back;
    ``None`` if anything needs the row-by-row path."""
    arr = _strings(values, required)
    if arr is None:
        return None
    encoded = arr.dictionary_encode()
    distinct = encoded.dictionary
    offsets, data = _buffers(distinct)
    lengths = np.diff(offsets)
    present = lengths != 0  # "" gives null, like None
    if present.all():
        validity = None
        if not (lengths == 42).all():
            return None
    elif required or not ((lengths == 42) | ~present).all():
        return None
    else:
        validity = pa.py_buffer(np.packbits(present, bitorder="little"))
    codes = data.reshape(-1, 42)
    ones, hexes, ok = normalize_codes(codes)
    if not ok.all():
        return None
    m = len(distinct)
    offsets_buf = distinct.buffers()[1]
    hex_col = pa.Array.from_buffers(pa.string(), m, [validity, offsets_buf, pa.py_buffer(hexes)])
    if validity is None and np.array_equal(ones, codes):  # the input already is the one1 column
        return arr, hex_col.take(encoded.indices)
    one_col = pa.Array.from_buffers(pa.string(), m, [validity, offsets_buf, pa.py_buffer(ones)])
    return one_col.take(encoded.indices), hex_col.take(encoded.indices)


def ratio_arrays(
    values: Sequence[Any], where: Where, name: str, *, required: bool = False
) -> tuple[pa.Array, pa.Array]:
    """``numeric.Dec`` ratios -> (float64, exact 18-decimal text)."""
    arr = _strings(values, required)
    if arr is not None:  # the node's form, "0.100000000000000000": kept as sent, parsed by Arrow
        if _decimal_texts(values, arr.null_count, 60):
            return arr.cast(pa.float64()), arr
        ok = pc.match_substring_regex(arr, r"^-?[0-9]{1,60}\.[0-9]{18}$")
        if pc.all(pc.fill_null(ok, True)).as_py() is not False:
            return arr.cast(pa.float64()), arr
    floats: list[float | None] = []
    texts: list[str | None] = []
    for i, v in enumerate(values):
        if v is None:
            if required:
                where.fail(i, name, v, "a decimal string (the field is missing or null)")
            floats.append(None)
            texts.append(None)
            continue
        try:
            f, t = parse_ratio(v)
        except Bad as exc:
            where.fail(i, name, v, exc.expected)
        floats.append(f)
        texts.append(t)
    return pa.array(floats, type=pa.float64()), pa.array(texts, type=pa.string())


def scaled_rate_arrays(values: Sequence[Any], where: Where, name: str) -> tuple[pa.Array, pa.Array]:
    """1e18-scaled integer rates (staking messages) -> (float64, exact 18-decimal text)."""
    ints = parse_ints(values, where, name)
    _check_range(ints, where, name, 0, AMOUNT_LIMIT - 1, "a non-negative 1e18-scaled integer rate")
    floats = [None if v is None else v / ATTO_PER_ONE for v in ints]
    texts = [None if v is None else f"{v // ATTO_PER_ONE}.{v % ATTO_PER_ONE:018d}" for v in ints]
    return pa.array(floats, type=pa.float64()), pa.array(texts, type=pa.string())
