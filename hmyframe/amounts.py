"""Exact amounts in pandas: the ``atto``, ``uint256`` and ``int256`` dtypes, and conversions to ONE / units.

Amounts on Harmony are integers of atto (1 ONE = 10**18 atto); the whole supply is about
1.4e28 atto, beyond what ``int64`` (9.2e18) or a ``float64`` (exact to 2**53) can hold. pandas,
however, computes poorly on Arrow decimals: ``a + b`` widens the precision until it overflows at
38 digits, and ``cumsum``, ``nlargest`` and ``describe`` are not supported at all. So in
DataFrames every exact amount column has one of three dtypes, all the one exact-integer extension
array of :mod:`hmyframe._exactint` (what it supports is listed there) with a different storage:

``"atto"`` (:class:`AttoDtype`)
    Native amounts, stakes and gas prices. Arrow and Parquet type ``decimal128(38, 0)``; a
    value of more than 38 digits raises :class:`~hmyframe.errors.AmountError` naming it when it
    is converted to Arrow (``pa.Table.from_pandas``, ``df.to_parquet``), never a silent change.
``"uint256"`` (:class:`Uint256Dtype`)
    Token amounts and token ids (an EVM ``uint256``: 0 .. 2**256 - 1, 78 digits, beyond
    ``decimal256``'s 76). Arrow and Parquet type ``string`` of base-10 digits (exact, and plain
    text to pyarrow, polars, DuckDB and Dask; why in :mod:`hmyframe._intarrow`). A negative value
    or one above 2**256 - 1 raises :class:`~hmyframe.errors.AmountError` naming it, both when it
    enters the dtype and when it leaves for Arrow.
``"int256"`` (:class:`Int256Dtype`)
    Signed 256-bit integers: decoded ``intN`` contract arguments (:func:`hmyframe.events`).
    Arrow and Parquet type ``string`` of base-10 digits with a ``-`` before negative values;
    a value outside -2**255 .. 2**255 - 1 raises :class:`~hmyframe.errors.AmountError` naming
    it, when it enters the dtype and when it leaves for Arrow.

Arithmetic mixing two of them gives the later in this list, exactly: ``fee + token_amount`` is
``uint256``; ``int256`` with either of the others is ``int256`` (a signed column is what a
difference of amounts is). The values themselves are exact Python integers whatever the dtype
says: the dtype's range is checked where they enter it and where they leave for Arrow.

Round trips: pickle and ``DataFrame.copy`` keep both dtypes. Arrow and files:

* ``pa.Table.from_pandas(df)`` (so ``df.to_parquet`` / ``df.to_feather``) makes the Arrow
  extension types :class:`AttoType` (``hmyframe.atto`` over ``decimal128(38, 0)``),
  :class:`Uint256Type` (``hmyframe.uint256`` over digit strings) and :class:`Int256Type`
  (``hmyframe.int256`` over signed digit strings), registered with pyarrow when
  this module is imported: ``pd.read_parquet`` / ``pd.read_feather`` then give the dtypes back.
  pandas without hmyframe cannot read such a file (pyarrow names the dtype in the file's pandas
  metadata, GH-39914) unless given ``dtype_backend="pyarrow"``; pyarrow, polars and DuckDB read
  the storage. With a schema (``pa.Table.from_pandas(df, schema=dataset.schema)``, how hmyframe
  writes) the columns are the plain storage.
* Cache and export files are plain (no extension type); their pandas metadata names exact
  columns by an alias each dtype claims (:attr:`~hmyframe._intarrow.IntStorage.file_alias`),
  so ``pd.read_parquet`` gives these dtypes once this module is imported, and exact
  ``Decimal`` values / digit strings without it (:mod:`hmyframe._pandas_meta`).

For ONE, use the ``*_one`` float column each dataset puts beside an amount, or :func:`to_one`;
for a token's units, :func:`to_units` with the token's ``decimals``.
"""

from __future__ import annotations

import numbers
from decimal import Decimal, localcontext
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.extensions import register_extension_dtype

from hmyframe._exactint import ExactIntArray, ExactIntDtype, ExactIntType, _from_values, _is_na
from hmyframe._intarrow import DECIMAL128, DECIMAL_STRING, SIGNED_DECIMAL_STRING
from hmyframe.errors import AmountError, short_repr

__all__ = [
    "ATTO_PER_ONE",
    "INT256_MAX",
    "INT256_MIN",
    "UINT256_MAX",
    "AttoArray",
    "AttoDtype",
    "AttoType",
    "Int256Array",
    "Int256Dtype",
    "Int256Type",
    "Uint256Array",
    "Uint256Dtype",
    "Uint256Type",
    "to_one",
    "to_units",
]

#: atto per ONE.
ATTO_PER_ONE = 10**18
#: The largest value of the ``uint256`` dtype.
UINT256_MAX = 2**256 - 1
#: The smallest and the largest value of the ``int256`` dtype.
INT256_MIN = -(2**255)
INT256_MAX = 2**255 - 1


@register_extension_dtype
class AttoDtype(ExactIntDtype):
    """The pandas dtype of exact amounts in atto (exact Python integers); its name is ``"atto"``.

    ``pd.Series([10**27, 5], dtype="atto")`` makes one; hmyframe's fetchers give every exact
    native amount column this dtype. Arrow type ``decimal128(38, 0)``.
    """

    name = "atto"
    storage = DECIMAL128


class AttoArray(ExactIntArray):
    """An array of exact amounts in atto (Python integers, with a missing-value mask).

    Make one with ``pd.array(values, dtype="atto")``; see :mod:`hmyframe._exactint`.
    """

    _dtype = AttoDtype()


@register_extension_dtype
class Uint256Dtype(ExactIntDtype):
    """The pandas dtype of exact unsigned 256-bit integers (token amounts and ids): ``"uint256"``.

    ``pd.Series([0, 2**256 - 1], dtype="uint256")`` makes one. Values are exact Python ints in
    0 .. 2**256 - 1 (others raise :class:`~hmyframe.errors.AmountError`); Arrow type ``string``
    of base-10 digits.
    """

    name = "uint256"
    storage = DECIMAL_STRING


class Uint256Array(ExactIntArray):
    """An array of exact unsigned 256-bit integers (Python ints, with a missing-value mask).

    Make one with ``pd.array(values, dtype="uint256")``; see :mod:`hmyframe._exactint`.
    """

    _dtype = Uint256Dtype()


@register_extension_dtype
class Int256Dtype(ExactIntDtype):
    """The pandas dtype of exact signed 256-bit integers (decoded ``intN`` arguments): ``"int256"``.

    ``pd.Series([-(2**255), 2**255 - 1], dtype="int256")`` makes one. Values are exact Python ints
    in -2**255 .. 2**255 - 1 (others raise :class:`~hmyframe.errors.AmountError`); Arrow type
    ``string`` of base-10 digits, ``-`` before a negative value.
    """

    name = "int256"
    storage = SIGNED_DECIMAL_STRING


class Int256Array(ExactIntArray):
    """An array of exact signed 256-bit integers (Python ints, with a missing-value mask).

    Make one with ``pd.array(values, dtype="int256")``; see :mod:`hmyframe._exactint`.
    """

    _dtype = Int256Dtype()


class AttoType(ExactIntType):
    """The Arrow extension type ``hmyframe.atto`` (storage ``decimal128(38, 0)``) of ``atto`` columns."""

    dtype_class = AttoDtype


class Uint256Type(ExactIntType):
    """The Arrow extension type ``hmyframe.uint256`` (storage: digit strings) of ``uint256`` columns."""

    dtype_class = Uint256Dtype


class Int256Type(ExactIntType):
    """The Arrow extension type ``hmyframe.int256`` (storage: signed digit strings) of ``int256`` columns."""

    dtype_class = Int256Dtype


AttoDtype._array_type = AttoArray
Uint256Dtype._array_type = Uint256Array
Int256Dtype._array_type = Int256Array


def _register_arrow_types() -> None:
    """Register the extension types with pyarrow (again after a reload: the newest classes)."""
    for dtype_class, arrow_type in (
        (AttoDtype, AttoType()),
        (Uint256Dtype, Uint256Type()),
        (Int256Dtype, Int256Type()),
    ):
        dtype_class.arrow_extension = arrow_type
        try:
            pa.unregister_extension_type(arrow_type.extension_name)
        except (KeyError, pa.ArrowKeyError):
            pass
        pa.register_extension_type(arrow_type)


_register_arrow_types()


def to_units(series: Any, decimals: Any, exact: bool = True) -> pd.Series:
    """Scale integer amounts down by ``10**decimals``: exact ``Decimal`` values by default.

    Parameters
    ----------
    series
        Integer amounts: an ``atto`` or ``uint256`` column, a column of Arrow decimals,
        integers or digit strings, or any sequence of integers (``None`` / NA for missing).
    decimals
        The token's ``decimals`` (18 for ONE): one non-negative integer, or one per row (a
        sequence or Series of the same length; a missing value gives a missing result).
    exact
        ``True`` (default): exact :class:`decimal.Decimal` values (object dtype), e.g.
        ``Decimal('1.5')`` for ``1_500_000`` at 6 decimals. ``False``: ``float64``, each value
        correctly rounded.

    Returns
    -------
    pandas.Series
        Same index and name as ``series`` (a new ``RangeIndex`` for a plain sequence).

    Raises
    ------
    AmountError
        If a value is not an integer amount, or ``decimals`` is not a non-negative integer.

    Examples
    --------
    >>> to_units(pd.Series([1_500_000, 2**256 - 1], dtype="uint256"), 6).tolist()[0]
    Decimal('1.5')
    >>> to_units([10**18], 18, exact=False).tolist()
    [1.0]
    """
    index = series.index if isinstance(series, pd.Series) else None
    name = series.name if isinstance(series, pd.Series) else None
    data, mask = _from_values(series)
    scales = _scales(decimals, len(data))
    values = data.tolist()
    if not exact:
        floats = np.array(
            [
                np.nan if m or s is None else v / s
                for v, m, s in zip(values, mask.tolist(), scales, strict=True)
            ],
            dtype=np.float64,
        )
        return pd.Series(floats, index=index, name=name, dtype=np.float64)
    out = np.empty(len(data), dtype=object)
    with localcontext() as ctx:
        # a quotient by a power of ten has the digits of the dividend: exact within this
        ctx.prec = max(100, *(len(str(abs(v))) + 2 for v in values)) if values else 100
        for i, (v, m, s) in enumerate(zip(values, mask.tolist(), scales, strict=True)):
            out[i] = None if m or s is None else Decimal(v) / Decimal(s)
    return pd.Series(out, index=index, name=name, dtype=object)


def _scales(decimals: Any, n: int) -> list[int | None]:
    """``10**decimals`` for each of ``n`` rows (``None`` where decimals is missing)."""
    if pd.api.types.is_list_like(decimals):
        given = list(decimals)
        if len(given) != n:
            raise AmountError(f"decimals has {len(given)} values for {n} amounts: expected one per amount")
        return [None if _is_na(d) else 10 ** _decimals(d) for d in given]
    return [10 ** _decimals(decimals)] * n


def _decimals(d: Any) -> int:
    if isinstance(d, bool | np.bool_) or not isinstance(d, numbers.Integral) or int(d) < 0 or int(d) > 255:
        raise AmountError(f"expected decimals as an integer 0 .. 255, got {short_repr(d)}")
    return int(d)


def to_one(series: Any, exact: bool = False) -> pd.Series:
    """Turn an atto amount column into ONE (1 ONE = 10**18 atto): :func:`to_units` at 18 decimals.

    Parameters
    ----------
    series
        Amounts in atto: an ``atto`` column, a column of Arrow decimals or integers, or any
        sequence of integers (``None`` / NA for missing values).
    exact
        ``False`` (default): ``float64``, each value correctly rounded (15-16 significant digits;
        what plots, logs, histograms and ``pd.cut`` need). ``True``: exact ``decimal.Decimal``
        values (object dtype), e.g. ``Decimal('1.000000000000000001')``.

    Returns
    -------
    pandas.Series
        Same index and name as ``series`` (a new ``RangeIndex`` for a plain sequence).

    Raises
    ------
    AmountError
        If a value is not an integer amount (a fraction, a float beyond 2**53, text).

    Examples
    --------
    >>> to_one(pd.Series([10**18, 15 * 10**17], dtype="atto")).tolist()
    [1.0, 1.5]
    >>> to_one(pd.Series([10**18 + 1], dtype="atto"), exact=True)[0]
    Decimal('1.000000000000000001')
    """
    return to_units(series, 18, exact=exact)
