"""The exact-integer pandas extension array: one design behind the ``atto`` and ``uint256`` dtypes.

One job: exact integer arithmetic in pandas. Values are Python ints in an object array with a
missing-value mask; every operation below is exact. A dtype is this design parameterised by its
storage (:class:`hmyframe._intarrow.IntStorage`: its Arrow type and the integers it can hold);
the public dtypes are declared in :mod:`hmyframe.amounts` (``atto``: ``decimal128(38, 0)``;
``uint256``: digit strings, 0 .. 2**256 - 1). Combining two of them (arithmetic, concatenation)
gives the wider one: ``atto + uint256`` is ``uint256``.

What works on an exact-integer column, exactly:

* ``+``, ``-``, ``*``, ``//``, ``%`` with another exact-integer column or with integers, unary
  ``-`` and ``abs()``; comparisons (also with floats, compared exactly) give a boolean column;
* ``sum``, ``min``, ``max``, ``prod``, ``cumsum``, ``cummin``, ``cummax``, ``diff``,
  ``sort_values``, ``rank``, ``value_counts``, ``isin``, ``unique``, ``drop_duplicates``,
  ``merge`` on or beside it, ``groupby(...).sum() / min() / max() / cumsum() / first()``;
* ``mean``, ``median``, ``std``, ``var``, ``quantile`` and ``describe()`` are computed from the
  exact integers and returned as correctly rounded floats (they are ratios);
* ``/`` gives ``float64`` (each quotient correctly rounded), so ``df.value / 10**18`` is ONE.

Where numbers leave the exact world, they become ``float64``: ``np.asarray(column)`` (what
NumPy functions, ``pd.cut``, histograms and matplotlib see), ``astype(float)``, ``np.log10``.
Such a float carries the amount to 15-16 significant digits. ``column.to_numpy()`` and
``column.tolist()`` give the exact Python integers. ``nlargest`` / ``nsmallest`` select through
that float view (pandas has no other route), so two amounts closer than one part in 10**16 keep
their original order there; ``sort_values`` orders exactly.

The range of the storage is checked where values leave for Arrow (``pa.Table.from_pandas``,
``df.to_parquet``: a value outside raises :class:`~hmyframe.errors.AmountError` naming it, never
a silent change) and, for a storage that says so (``uint256``), where they enter. Results of
arithmetic are exact Python ints in memory (a difference may be negative) until they leave.
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator
from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Self, cast

import numpy as np
import pandas as pd
import pyarrow as pa
from pandas.api.extensions import (
    ExtensionArray,
    ExtensionDtype,
    no_default,
    take,
)
from pandas.api.indexers import check_array_indexer

from hmyframe._intarrow import DECIMAL128, IntStorage, ints_from_arrow
from hmyframe.errors import AmountError, short_repr

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["ExactIntArray", "ExactIntDtype", "ExactIntType"]

_EXACT_FLOAT = 2**53
_EXPECTED = "an integer amount (int, integral Decimal, digit string, or a float holding an exact integer)"


class ExactIntDtype(ExtensionDtype):  # type: ignore[misc]  # pandas is untyped here
    """An exact-integer dtype: Python ints stored in Arrow as :attr:`storage` says.

    Subclasses (the public dtypes of :mod:`hmyframe.amounts`) set :attr:`name`,
    :attr:`storage` and their array class; they take no parameters.
    """

    name = "exactint"
    type = int
    kind = "O"
    na_value = pd.NA
    _is_numeric = True
    #: the Arrow type and range of this dtype
    storage: IntStorage = DECIMAL128
    _array_type: builtins.type[ExactIntArray]
    #: the Arrow extension type a frame's column becomes (``pa.Table.from_pandas``)
    arrow_extension: ExactIntType

    @classmethod
    def construct_array_type(cls) -> builtins.type[ExactIntArray]:
        """The array class of this dtype."""
        return cls._array_type

    @classmethod
    def construct_from_string(cls, string: str) -> Self:
        """The dtype from its name, or from the alias its storage has in hmyframe's files.

        The alias (:attr:`IntStorage.file_alias`, e.g. ``"V16"`` for ``atto``) is what the
        pandas metadata of a cache or export file names: pandas without hmyframe reads it as a
        NumPy dtype that pyarrow ignores (exact ``Decimal`` values / strings); this dtype
        claims it, so ``pd.read_parquet`` gives this dtype.
        """
        if not isinstance(string, str):
            raise TypeError(f"'construct_from_string' expects a string, got {type(string)}")
        if string in (cls.name, cls.storage.file_alias):
            return cls()
        raise TypeError(f"Cannot construct a '{cls.__name__}' from '{string}'")

    def __from_arrow__(self, array: pa.Array | pa.ChunkedArray) -> ExactIntArray:
        """Build this dtype's array from Arrow integers, ``decimal(P, 0)`` or digit strings."""
        return self.construct_array_type()._from_arrow(array)

    def _get_common_dtype(self, dtypes: list[Any]) -> Any:
        # exact integers with integers (numpy, nullable, Arrow ints or scale-0 decimals) stay
        # exact integers, of the widest exact-integer dtype among them
        widest: ExactIntDtype = self
        for dtype in dtypes:
            if isinstance(dtype, ExactIntDtype):
                if dtype.storage.rank > widest.storage.rank:
                    widest = dtype
                continue
            if isinstance(dtype, pd.ArrowDtype):
                t = dtype.pyarrow_dtype
                if pa.types.is_integer(t) or (pa.types.is_decimal(t) and t.scale == 0):
                    continue
                return None
            if getattr(dtype, "kind", None) in ("i", "u"):
                continue
            return None
        return widest


class ExactIntType(pa.ExtensionType):  # type: ignore[misc]  # pyarrow is untyped here
    """The Arrow extension type of an exact-integer dtype: ``hmyframe.<name>`` over its storage.

    What ``pa.Table.from_pandas(df)`` (so ``df.to_parquet``, ``df.to_feather``) makes of an
    ``atto`` / ``uint256`` column, so that pyarrow, and through it ``pd.read_parquet``, gives the
    dtype back wherever :mod:`hmyframe.amounts` is imported (it registers both types). A reader
    without hmyframe sees the plain storage (``decimal128(38, 0)``, digit strings). Subclasses
    set :attr:`dtype_class`; the type has no parameters.
    """

    dtype_class: builtins.type[ExactIntDtype]

    def __init__(self) -> None:
        dtype = self.dtype_class()
        super().__init__(dtype.storage.arrow_type, f"hmyframe.{dtype.name}")

    def __arrow_ext_serialize__(self) -> bytes:
        return b""

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type: pa.DataType, serialized: bytes) -> ExactIntType:
        made = cls()
        if not storage_type.equals(made.storage_type):
            raise TypeError(f"{made.extension_name} is stored as {made.storage_type}, got {storage_type}")
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), ()

    def __hash__(self) -> int:  # Dask looks types up in dicts
        return hash(self.extension_name)

    def to_pandas_dtype(self) -> ExactIntDtype:
        """The pandas dtype of this type's columns (``atto``, ``uint256``)."""
        return self.dtype_class()


# ---------------------------------------------------------------------------------------
# scalar and bulk coercion
# ---------------------------------------------------------------------------------------


def _is_na(v: object) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT


def _coerce(v: object) -> int | None:
    """One value as an exact int, or ``None`` for a missing value; else :class:`AmountError`."""
    if type(v) is int:
        return v
    if _is_na(v):
        return None
    if isinstance(v, bool | np.bool_):
        raise AmountError(f"expected {_EXPECTED}, got the boolean {v!r}")
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, Decimal):
        if v.is_finite() and v == v.to_integral_value():
            return int(v)
        raise AmountError(f"expected {_EXPECTED}, got the Decimal {v}")
    if isinstance(v, float | np.floating):
        f = float(v)
        if math.isnan(f):
            return None
        if f.is_integer() and abs(f) <= _EXACT_FLOAT:
            return int(f)
        raise AmountError(
            f"expected {_EXPECTED}, got the float {f!r} (floats beyond 2**53 or with a fraction are not exact)"
        )
    if isinstance(v, str):
        text = v.strip().replace("_", "")
        try:
            if text.lower().startswith(("0x", "-0x")):
                return int(text, 16)
            if text.lstrip("+-").isdigit():
                return int(text)
        except ValueError:
            pass
        raise AmountError(f"expected {_EXPECTED}, got the string {short_repr(v)}")
    raise AmountError(f"expected {_EXPECTED}, got {short_repr(v)}")


def _from_values(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(data, mask)`` from any sequence of amounts: object ints (0 where missing) and a mask."""
    if isinstance(values, ExactIntArray):
        return values._data.copy(), values._mask.copy()
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return ints_from_arrow(values)
    if isinstance(values, pd.Series | pd.Index):
        values = values.array
    if isinstance(values, pd.arrays.ArrowExtensionArray):
        return ints_from_arrow(values._pa_array)
    if isinstance(values, ExtensionArray):
        mask = np.asarray(values.isna(), dtype=bool)
        objs = values.to_numpy(dtype=object, na_value=None)
        return _from_values_objects(objs, mask)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        if values.dtype.kind in "iu":
            return values.astype(object), np.zeros(len(values), dtype=bool)
        if values.dtype.kind == "f":
            mask = np.isnan(values)
            good = values[~mask]
            bad = (good != np.round(good)) | (np.abs(good) > _EXACT_FLOAT)
            if bad.any():
                _coerce(float(good[np.argmax(bad)]))  # raises, naming the value
            data = np.zeros(len(values), dtype=object)
            data[~mask] = good.astype(np.int64).astype(object)
            return data, mask
    objs = np.empty(len(values), dtype=object)
    objs[:] = list(values)
    return _from_values_objects(objs, None)


def _from_values_objects(objs: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    n = len(objs)
    data = np.zeros(n, dtype=object)
    out_mask = np.zeros(n, dtype=bool) if mask is None else mask.copy()
    for i, v in enumerate(objs):
        if out_mask[i]:
            continue
        c = _coerce(v)
        if c is None:
            out_mask[i] = True
        else:
            data[i] = c
    return data, out_mask


# ---------------------------------------------------------------------------------------
# the array
# ---------------------------------------------------------------------------------------


class ExactIntArray(ExtensionArray):  # type: ignore[misc]  # pandas is untyped here
    """An array of exact integers (Python ints, with a missing-value mask).

    Subclasses set :attr:`_dtype` (an :class:`ExactIntDtype`); see :mod:`hmyframe.amounts`.
    """

    _dtype: ExactIntDtype

    __array_priority__ = 1000  # numpy defers binary operators to ours
    # pandas arrays of lower priority (Arrow-backed ints among them) defer to ours, so
    # ``gas * gas_price`` is computed here, exactly, whichever side the atto column is on
    __pandas_priority__ = 1500

    def __init__(self, data: np.ndarray, mask: np.ndarray) -> None:
        if data.dtype != object or mask.dtype != bool or data.shape != mask.shape or data.ndim != 1:
            raise AmountError(
                f"{type(self).__name__} needs a 1-D object array of ints and a bool mask of the same length"
            )
        self._data = data
        self._mask = mask

    # -- construction ----------------------------------------------------------------

    @classmethod
    def _from_sequence(cls, scalars: Any, *, dtype: Any = None, copy: bool = False) -> Self:
        data, mask = _from_values(scalars)
        return cls._checked(data, mask)

    @classmethod
    def _checked(cls, data: np.ndarray, mask: np.ndarray) -> Self:
        """An array of ``data``, range-checked if the storage checks values on entry."""
        storage = cls._dtype.storage
        if storage.checked_on_entry:
            storage.check(data, mask, f"{cls._dtype.name} value")
        return cls(data, mask)

    @classmethod
    def _from_scalars(cls, scalars: Any, *, dtype: Any) -> Self:
        # pandas casts the result of a pointwise function (Series.map, apply) back through
        # here: only integers (and missing values) stay amounts; text or floats do not
        objs = list(scalars)
        for v in objs:
            if isinstance(v, bool | np.bool_) or not (_is_na(v) or isinstance(v, numbers.Integral)):
                raise TypeError(f"not an integer amount: {short_repr(v)}")
        return cls._from_sequence(objs)

    @classmethod
    def _from_sequence_of_strings(cls, strings: Any, *, dtype: Any = None, copy: bool = False) -> Self:
        return cls._from_sequence(strings)

    @classmethod
    def _from_factorized(cls, values: np.ndarray, original: ExactIntArray) -> Self:
        return cls._from_sequence(values)

    @classmethod
    def _from_arrow(cls, array: pa.Array | pa.ChunkedArray) -> Self:
        data, mask = ints_from_arrow(array)
        return cls._checked(data, mask)

    # -- the ExtensionArray interface ------------------------------------------------

    @property
    def dtype(self) -> ExactIntDtype:
        """The dtype of this array (``atto``, ``uint256``)."""
        return self._dtype

    def __len__(self) -> int:
        return len(self._data)

    def __iter__(self) -> Iterator[Any]:
        for v, m in zip(self._data.tolist(), self._mask.tolist(), strict=True):
            yield pd.NA if m else v

    def __getitem__(self, item: Any) -> Any:
        if isinstance(item, numbers.Integral | np.integer):
            i = int(item)
            return pd.NA if self._mask[i] else self._data[i]
        item = check_array_indexer(self, item)
        return type(self)(self._data[item], self._mask[item])

    def __setitem__(self, key: Any, value: Any) -> None:
        key = check_array_indexer(self, key)
        data: Any
        mask: Any
        if pd.api.types.is_list_like(value) and not isinstance(value, str):
            data, mask = _from_values(value)
        else:
            c = _coerce(value)
            data, mask = (0, True) if c is None else (c, False)
        storage = self._dtype.storage
        if storage.checked_on_entry:
            storage.check(
                np.atleast_1d(np.asarray(data, dtype=object)),
                np.atleast_1d(mask),
                f"{self._dtype.name} value",
            )
        self._data[key] = data
        self._mask[key] = mask

    @property
    def nbytes(self) -> int:
        """Memory held: the pointer and flag arrays plus the integer objects (estimated)."""
        return int(self._data.nbytes + self._mask.nbytes + 32 * len(self))

    def isna(self) -> np.ndarray:
        """Boolean mask of missing values."""
        return self._mask.copy()

    def take(self, indices: Sequence[int], *, allow_fill: bool = False, fill_value: Any = None) -> Self:
        """Elements at ``indices`` (``-1`` gives ``fill_value`` when ``allow_fill``)."""
        fill = None if fill_value is None or _is_na(fill_value) else _coerce(fill_value)
        data = take(self._data, indices, allow_fill=allow_fill, fill_value=0 if fill is None else fill)
        mask = take(self._mask, indices, allow_fill=allow_fill, fill_value=fill is None)
        return type(self)(np.asarray(data, dtype=object), np.asarray(mask, dtype=bool))

    def copy(self) -> Self:
        """A copy."""
        return type(self)(self._data.copy(), self._mask.copy())

    @classmethod
    def _concat_same_type(cls, to_concat: Sequence[ExactIntArray]) -> Self:
        if not to_concat:
            return cls(np.zeros(0, dtype=object), np.zeros(0, dtype=bool))
        return cls(
            np.concatenate([a._data for a in to_concat]).astype(object, copy=False),
            np.concatenate([a._mask for a in to_concat]),
        )

    def _values_for_argsort(self) -> np.ndarray:
        return self._data  # exact ints; missing entries are placed by pandas from the mask

    def _values_for_factorize(self) -> tuple[np.ndarray, Any]:
        values = self._data.copy()
        values[self._mask] = None
        return values, None

    def _formatter(self, boxed: bool = False) -> Callable[[Any], str | None]:
        return lambda v: "<NA>" if v is pd.NA else str(v)

    # -- conversions -----------------------------------------------------------------

    def _floats(self) -> np.ndarray:
        """Correctly rounded float64 of each value (NaN where missing)."""
        out = np.array([float(v) for v in self._data.tolist()], dtype=np.float64)
        out[self._mask] = np.nan
        return out

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if dtype is not None and np.dtype(dtype) == object:
            return self.to_numpy(dtype=object)
        if dtype is None or np.dtype(dtype).kind == "f":
            return self._floats().astype(dtype or np.float64, copy=False)
        return self.to_numpy(dtype=dtype)

    def to_numpy(self, dtype: Any = None, copy: bool = False, na_value: Any = pd.NA) -> np.ndarray:
        """Exact Python ints in an object array by default (``na_value`` where missing)."""
        if na_value is no_default:
            na_value = pd.NA
        if dtype is None or np.dtype(dtype) == object:
            out = self._data.copy()
            out[self._mask] = na_value
            return out
        np_dtype = np.dtype(dtype)
        if np_dtype.kind == "f":
            out = self._floats().astype(np_dtype)
            if na_value is not pd.NA and not _is_na(na_value):
                out[self._mask] = na_value
            return out
        if np_dtype.kind in "iu":
            if self._mask.any() and (na_value is pd.NA or _is_na(na_value)):
                raise AmountError(
                    f"cannot convert an {self._dtype.name} column with missing values to {np_dtype}"
                )
            info = np.iinfo(np_dtype)
            valid = self._data[~self._mask]
            if len(valid) and (min(valid) < info.min or max(valid) > info.max):
                raise AmountError(
                    f"an {self._dtype.name} value does not fit {np_dtype}: {max(valid, key=abs)}"
                )
            out = self._data.copy()
            out[self._mask] = na_value if self._mask.any() else 0
            return out.astype(np_dtype)
        return np.asarray(self.to_numpy(dtype=object, na_value=None), dtype=np_dtype)

    def astype(self, dtype: Any, copy: bool = True) -> Any:
        """Convert: ``float`` (correctly rounded), ``object`` (exact ints), other integer or
        extension dtypes (exact where they can hold the values), Arrow decimals, strings."""
        dtype = pd.api.types.pandas_dtype(dtype)
        if isinstance(dtype, ExactIntDtype):
            if type(dtype) is type(self._dtype):
                return self.copy() if copy else self
            return dtype.construct_array_type()._checked(self._data.copy(), self._mask.copy())
        if isinstance(dtype, pd.ArrowDtype):
            arrow = self._storage_arrow()
            try:
                return pd.array(arrow.cast(dtype.pyarrow_dtype), dtype=dtype)
            except pa.ArrowInvalid as exc:
                raise AmountError(f"cannot convert {self._dtype.name} values to {dtype}: {exc}") from None
        if isinstance(dtype, pd.StringDtype):
            return pd.array(
                [None if m else str(v) for v, m in zip(self._data, self._mask, strict=True)], dtype
            )
        if isinstance(dtype, ExtensionDtype):
            objs = self.to_numpy(dtype=object, na_value=None)
            if dtype.kind == "f":
                objs = self.to_numpy(dtype=np.float64, na_value=np.nan)
            return dtype.construct_array_type()._from_sequence(objs, dtype=dtype, copy=False)
        if dtype.kind in "US":
            return np.array(
                [str(v) if not m else "<NA>" for v, m in zip(self._data, self._mask, strict=True)]
            )
        return self.to_numpy(dtype=dtype, na_value=np.nan if dtype.kind == "f" else pd.NA)

    def _storage_arrow(self) -> pa.Array:
        """The values as the dtype's plain Arrow storage; a value out of its range raises."""
        return self._dtype.storage.to_arrow(self._data, self._mask)

    def __arrow_array__(self, type: pa.DataType | None = None) -> pa.Array:
        """This array in Arrow, exactly: the dtype's extension type, or the ``type`` asked for.

        Without ``type`` (``pa.array(column)``, ``pa.Table.from_pandas(df)``, ``df.to_parquet``)
        the :class:`ExactIntType` (``hmyframe.atto`` over ``decimal128(38, 0)``,
        ``hmyframe.uint256`` over digit strings), which reads back as this dtype; with a
        ``type`` (a schema: how hmyframe writes its own files), that type, e.g. the plain
        storage. A value the storage cannot hold (``atto``: more than 38 digits) raises.
        """
        storage = self._dtype.storage
        arr = self._storage_arrow()
        if type is None or type.equals(self._dtype.arrow_extension):
            return pa.ExtensionArray.from_storage(self._dtype.arrow_extension, arr)
        if not type.equals(storage.arrow_type):
            try:
                return arr.cast(type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
                raise AmountError(
                    f"cannot convert {self._dtype.name} values to Arrow {type}: {exc}"
                ) from None
        return arr

    # -- exact set operations ---------------------------------------------------------

    def isin(self, values: Any) -> np.ndarray:
        """Exact membership test (missing values match a missing value in ``values``)."""
        wanted: set[int] = set()
        has_na = False
        for v in values if pd.api.types.is_list_like(values) else [values]:
            try:
                c = _coerce(v)
            except AmountError:
                continue  # a value that is no integer matches nothing
            if c is None:
                has_na = True
            else:
                wanted.add(c)
        out = np.fromiter((v in wanted for v in self._data.tolist()), dtype=bool, count=len(self))
        out[self._mask] = has_na
        return out

    def value_counts(self, dropna: bool = True) -> pd.Series:
        """Exact counts of each value."""
        counts: dict[int, int] = {}
        for v in self._data[~self._mask].tolist():
            counts[v] = counts.get(v, 0) + 1
        keys = list(counts)
        index_data = np.empty(len(keys), dtype=object)
        index_data[:] = keys
        idx_arr = type(self)(index_data, np.zeros(len(keys), dtype=bool))
        values = list(counts.values())
        n_na = int(self._mask.sum())
        if not dropna and n_na:
            idx_arr = type(self)._concat_same_type([idx_arr, type(self)._from_sequence([None])])
            values.append(n_na)
        return pd.Series(values, index=pd.Index(idx_arr), dtype="Int64", name="count")

    def searchsorted(self, value: Any, side: str = "left", sorter: Any = None) -> Any:
        """Exact positions (the array must be sorted, missing values last)."""
        data = self._data[~self._mask]
        if pd.api.types.is_list_like(value):
            needles, _ = _from_values(value)
            return np.searchsorted(data, needles, side=side, sorter=sorter)  # type: ignore[call-overload]
        c = _coerce(value)
        return np.searchsorted(data, c, side=side, sorter=sorter)  # type: ignore[call-overload]

    # -- arithmetic --------------------------------------------------------------------

    def _operand(self, other: Any) -> tuple[Any, Any, bool] | None:
        """``(values, mask, exact)`` of an operand, or ``None`` if we do not handle it."""
        if isinstance(other, pd.Series | pd.Index | pd.DataFrame):
            return None  # pandas unboxes and aligns first
        if isinstance(other, ExactIntArray):
            return other._data, other._mask, True
        if _is_na(other):
            return 0, True, True
        if isinstance(other, bool | np.bool_):
            return None
        if isinstance(other, numbers.Integral):
            return int(other), False, True
        if isinstance(other, Decimal) and other.is_finite() and other == other.to_integral_value():
            return int(other), False, True
        if isinstance(other, float | np.floating | Fraction | Decimal):
            return other, False, False
        if isinstance(other, np.ndarray | ExtensionArray | list | tuple):
            arr = other
            if isinstance(arr, list | tuple):
                arr = np.asarray(arr)
            if len(arr) != len(self):
                raise AmountError(f"operands have different lengths: {len(self)} and {len(arr)}")
            kind = arr.dtype.kind if isinstance(arr, np.ndarray) else getattr(arr.dtype, "kind", "O")
            if kind == "b":
                return None
            if kind == "f":
                floats = np.asarray(arr, dtype=np.float64) if isinstance(arr, np.ndarray) else None
                if floats is None:
                    assert isinstance(arr, ExtensionArray)
                    floats = arr.to_numpy(dtype=np.float64, na_value=np.nan)
                return floats, np.isnan(floats), False
            data, mask = _from_values(arr)
            return data, mask, True
        return None

    def _arith(self, other: Any, op: Callable[[Any, Any], Any], name: str) -> Any:
        got = self._operand(other)
        if got is None:
            return NotImplemented
        values, other_mask, exact = got
        mask = self._mask | other_mask
        # the result has the wider of the two exact-integer dtypes (atto with uint256: uint256)
        cls: type[ExactIntArray] = type(self)
        if isinstance(other, ExactIntArray) and other._dtype.storage.rank > self._dtype.storage.rank:
            cls = type(other)
        reflected = name.startswith("r")
        base = name[1:] if reflected else name
        if base == "truediv" or not exact:
            return _float_result(self._data, values, mask, op, reflected)
        with np.errstate(all="ignore"):
            if base in ("floordiv", "mod"):
                divisor = self._data if reflected else values
                zero = divisor == 0
                if np.any(zero):  # n // 0 and n % 0 are missing, not an exception
                    mask = mask | zero
                    divisor = np.where(zero, 1, divisor) if isinstance(divisor, np.ndarray) else 1
                    if reflected:
                        return _masked(cls, op(divisor, values), mask)
                    return _masked(cls, op(self._data, divisor), mask)
            if base == "pow":
                exponent = self._data if reflected else values
                if np.any(np.asarray(exponent < 0)):
                    return _float_result(self._data, values, mask, op, reflected)
            return _masked(cls, op(self._data, values), mask)

    def __add__(self, other: Any) -> Any:
        return self._arith(other, operator.add, "add")

    def __radd__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b + a, "radd")

    def __sub__(self, other: Any) -> Any:
        return self._arith(other, operator.sub, "sub")

    def __rsub__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b - a, "rsub")

    def __mul__(self, other: Any) -> Any:
        return self._arith(other, operator.mul, "mul")

    def __rmul__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b * a, "rmul")

    def __floordiv__(self, other: Any) -> Any:
        return self._arith(other, operator.floordiv, "floordiv")

    def __rfloordiv__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b // a, "rfloordiv")

    def __mod__(self, other: Any) -> Any:
        return self._arith(other, operator.mod, "mod")

    def __rmod__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b % a, "rmod")

    def __pow__(self, other: Any) -> Any:
        return self._arith(other, operator.pow, "pow")

    def __rpow__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b**a, "rpow")

    def __truediv__(self, other: Any) -> Any:
        return self._arith(other, operator.truediv, "truediv")

    def __rtruediv__(self, other: Any) -> Any:
        return self._arith(other, lambda a, b: b / a, "rtruediv")

    def __neg__(self) -> Self:
        return type(self)(-self._data, self._mask.copy())

    def __pos__(self) -> Self:
        return self.copy()

    def __abs__(self) -> Self:
        return type(self)(np.abs(self._data), self._mask.copy())

    def _compare(self, other: Any, op: Callable[[Any, Any], Any]) -> Any:
        got = self._operand(other)
        if got is None:
            return NotImplemented
        values, other_mask, _exact = got
        result = np.asarray(op(self._data, values), dtype=bool)  # Python compares int/float exactly
        return pd.arrays.BooleanArray(result, np.asarray(self._mask | other_mask, dtype=bool))

    def __eq__(self, other: object) -> Any:
        return self._compare(other, operator.eq)

    def __ne__(self, other: object) -> Any:
        return self._compare(other, operator.ne)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, operator.ge)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method == "__call__" and not kwargs:
            exact = _EXACT_UFUNCS.get(ufunc.__name__)
            if exact is not None and len(inputs) == 2:
                a, b = inputs
                return exact(a, b)
            if ufunc is np.negative:
                return -self
            if ufunc is np.absolute:
                return abs(self)
            if ufunc is np.positive:
                return self.copy()
        # everything else (logs, sqrt, trigonometry...) on the float view
        floats = [np.asarray(x, dtype=np.float64) if isinstance(x, ExactIntArray) else x for x in inputs]
        return getattr(ufunc, method)(*floats, **kwargs)

    # -- reductions and accumulations --------------------------------------------------

    def _valid(self) -> list[int]:
        return cast("list[int]", self._data[~self._mask].tolist())

    def _reduce(self, name: str, *, skipna: bool = True, keepdims: bool = False, **kwargs: Any) -> Any:
        if not skipna and self._mask.any():
            result: Any = pd.NA
        else:
            result = _reduce_ints(name, self._valid(), kwargs, self._dtype.name)
        if not keepdims:
            return result
        if isinstance(result, int) or result is pd.NA:
            return type(self)(*_from_values([result]))  # results are not range-checked
        return np.array([result], dtype=np.float64 if not isinstance(result, bool) else bool)

    def _accumulate(self, name: str, *, skipna: bool = True, **kwargs: Any) -> Self:
        step = _ACCUMULATORS.get(name)
        if step is None:
            raise AmountError(
                f"the {self._dtype.name} dtype does not support {name}; use the *_one float column"
            )
        out = np.zeros(len(self), dtype=object)
        mask = self._mask.copy()
        running: int | None = None
        broken = False
        for i, (v, m) in enumerate(zip(self._data.tolist(), self._mask.tolist(), strict=True)):
            if m or broken:
                if not skipna:
                    broken = True
                    mask[i] = True
                continue
            running = v if running is None else step(running, v)
            out[i] = running
        return type(self)(out, mask)

    def _quantile(self, qs: npt.NDArray[np.float64], interpolation: str) -> np.ndarray:
        values = sorted(self._valid())
        return np.array([_quantile_of_sorted(values, float(q), interpolation) for q in qs], dtype=np.float64)

    def _groupby_op(
        self,
        *,
        how: str,
        has_dropped_na: bool,
        min_count: int,
        ngroups: int,
        ids: npt.NDArray[np.intp],
        **kwargs: Any,
    ) -> Any:
        if how in ("first", "last"):
            return super()._groupby_op(
                how=how,
                has_dropped_na=has_dropped_na,
                min_count=min_count,
                ngroups=ngroups,
                ids=ids,
                **kwargs,
            )
        ids = np.asarray(ids)
        if how in ("cumsum", "cumprod", "cummin", "cummax"):
            step = _ACCUMULATORS[how]
            skipna = kwargs.get("skipna", True)
            out = np.zeros(len(self), dtype=object)
            mask = self._mask.copy() | (ids < 0)
            running: dict[int, int] = {}
            broken: set[int] = set()
            for i, (g, v, m) in enumerate(
                zip(ids.tolist(), self._data.tolist(), self._mask.tolist(), strict=True)
            ):
                if g < 0:
                    continue
                if m or g in broken:
                    if not skipna:
                        broken.add(g)
                        mask[i] = True
                    continue
                running[g] = v if g not in running else step(running[g], v)
                out[i] = running[g]
            return type(self)(out, mask)
        groups: list[list[int]] = [[] for _ in range(ngroups)]
        has_na = [False] * ngroups
        for g, v, m in zip(ids.tolist(), self._data.tolist(), self._mask.tolist(), strict=True):
            if g < 0:
                continue
            if m:
                has_na[g] = True
            else:
                groups[g].append(v)
        skipna = kwargs.pop("skipna", True)
        results = []
        for g, values in enumerate(groups):
            if (not skipna and has_na[g]) or (how in ("sum", "prod") and len(values) < max(min_count, 0)):
                results.append(pd.NA)
            else:
                results.append(_reduce_ints(how, values, kwargs, self._dtype.name))
        if how in ("sum", "prod", "min", "max"):
            return type(self)(*_from_values(results))
        if how in ("any", "all"):
            return np.array([bool(r) if r is not pd.NA else False for r in results])
        return np.array([np.nan if r is pd.NA else r for r in results], dtype=np.float64)


_EXACT_UFUNCS: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "floor_divide": operator.floordiv,
    "remainder": operator.mod,
    "true_divide": operator.truediv,
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
}

_ACCUMULATORS: dict[str, Callable[[int, int], int]] = {
    "cumsum": operator.add,
    "cumprod": operator.mul,
    "cummin": min,
    "cummax": max,
}


def _masked(cls: type[ExactIntArray], data: Any, mask: np.ndarray | bool) -> ExactIntArray:
    arr = np.asarray(data, dtype=object)
    m = np.broadcast_to(np.asarray(mask, dtype=bool), arr.shape).copy()
    if m.any():
        arr = arr.copy()
        arr[m] = 0
    return cls(arr, m)


def _float_result(
    data: np.ndarray, values: Any, mask: np.ndarray | bool, op: Callable[[Any, Any], Any], reflected: bool
) -> np.ndarray:
    """An operation leaving the integers (``/``, a float operand): float64, NaN where missing."""
    out = np.empty(len(data), dtype=np.float64)
    m = np.broadcast_to(np.asarray(mask, dtype=bool), out.shape)
    other = np.broadcast_to(np.asarray(values, dtype=object), out.shape) if np.ndim(values) else None
    for i, a in enumerate(data.tolist()):
        if m[i]:
            out[i] = np.nan
            continue
        b = values if other is None else other[i]
        try:
            out[i] = float(op(a, b))
        except ZeroDivisionError:
            numerator = float(b if reflected else a)
            out[i] = np.nan if numerator == 0 else math.copysign(math.inf, numerator)
        except OverflowError:
            out[i] = math.inf
    return out


def _reduce_ints(name: str, values: list[int], kwargs: dict[str, Any], dtype_name: str) -> Any:
    n = len(values)
    if name == "sum":
        return sum(values) if n >= kwargs.get("min_count", 0) else pd.NA
    if name == "prod":
        return math.prod(values) if n >= kwargs.get("min_count", 0) else pd.NA
    if name in ("min", "max"):
        return (min if name == "min" else max)(values) if n else pd.NA
    if name == "any":
        return any(values)
    if name == "all":
        return all(values)
    if name == "mean":
        return sum(values) / n if n else np.nan  # int / int: correctly rounded
    if name == "median":
        return _quantile_of_sorted(sorted(values), 0.5, "linear") if n else np.nan
    if name in ("var", "std", "sem"):
        ddof = int(kwargs.get("ddof", 1))
        if n - ddof <= 0:
            return np.nan
        total = sum(values)
        squares = sum(v * v for v in values)
        variance = Fraction(n * squares - total * total, n * (n - ddof))
        if name == "var":
            return float(variance)
        std = math.sqrt(float(variance))
        return std if name == "std" else std / math.sqrt(n)
    if name in ("skew", "kurt"):
        floats = pd.Series([float(v) for v in values], dtype=np.float64)
        return float(floats.skew() if name == "skew" else floats.kurt())
    raise AmountError(f"the {dtype_name} dtype does not support {name}; use the *_one float column")


def _quantile_of_sorted(values: list[int], q: float, interpolation: str) -> float:
    if not values:
        return math.nan
    position = Fraction(q) * (len(values) - 1)
    lo = math.floor(position)
    hi = math.ceil(position)
    a, b = values[lo], values[hi]
    frac = position - lo
    if interpolation == "lower":
        return float(a)
    if interpolation == "higher":
        return float(b)
    if interpolation == "nearest":
        return float(a if frac < Fraction(1, 2) or (frac == Fraction(1, 2) and lo % 2 == 0) else b)
    if interpolation == "midpoint":
        return float(Fraction(a + b, 2))
    return float(a + (b - a) * frac)
