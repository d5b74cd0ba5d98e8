"""Reading exact amounts and plain numbers out of frames, whatever their dtype.

Amount columns come as the ``atto`` dtype (:mod:`hmyframe.amounts`, exact Python ints), or as
``decimal128(38, 0)`` Arrow columns (``decimal.Decimal`` scalars) from frames built straight from
Arrow; metrics read both through :func:`exact_ints`, which never passes a value through a float,
and write exact results in the ``atto`` dtype. :func:`to_one` turns exact atto into float ONE for
display (through :func:`hmyframe.to_one`).
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from hmyframe import amounts
from hmyframe.errors import ConfigError, short_repr

__all__ = [
    "ATTO_PER_ONE",
    "amount_one",
    "exact_int",
    "exact_ints",
    "exact_series",
    "floats",
    "is_missing",
    "ratio",
    "require_columns",
    "to_one",
]

#: atto per ONE (1 ONE = 10**18 atto).
ATTO_PER_ONE = 10**18

_EXACT = pa.decimal128(38, 0)


def is_missing(value: Any) -> bool:
    """True for ``None``, ``pd.NA``, ``NaT`` and float NaN."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def exact_int(value: Any, what: str = "amount") -> int:
    """One exact integer from an int, an integral ``Decimal`` or an integral float-free scalar.

    Raises
    ------
    ConfigError
        For a fractional or non-numeric value (floats are refused: they are not exact).
    """
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be an exact integer, got {short_repr(value)}")
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        raise ConfigError(f"{what} must be a whole number of atto, got {value}")
    raise ConfigError(f"{what} must be an exact integer (int or Decimal), got {short_repr(value)}")


def exact_ints(values: Any, what: str = "amount") -> list[int | None]:
    """Exact Python ints of a Series / array / iterable of amounts; missing values -> ``None``."""
    if isinstance(values, pd.Series | pd.Index):
        items: Iterable[Any] = values.to_numpy(dtype=object)
    else:
        items = values
    return [None if is_missing(v) else exact_int(v, what) for v in items]


def exact_series(values: Sequence[int | None], index: Any = None, name: str | None = None) -> pd.Series:
    """A Series of exact atto amounts, in the datasets' ``atto`` dtype."""
    return pd.Series(list(values), index=index, name=name, dtype="atto")


def to_one(values: Any) -> pd.Series:
    """Exact atto amounts -> float64 ONE (each value correctly rounded); missing -> NaN.

    :func:`hmyframe.to_one` for any column or sequence of exact amounts (``Decimal`` values of
    the Arrow columns are read exactly first); a Series keeps its index and name.
    """
    if isinstance(values, pd.Series):
        return amounts.to_one(
            pd.Series(exact_ints(values), index=values.index, name=values.name, dtype="atto")
        )
    return amounts.to_one(pd.Series(exact_ints(values), dtype="atto"))


def amount_one(frame: pd.DataFrame, column: str) -> pd.Series:
    """ONE values of an amount column: its ``<column>_one`` companion when the frame has one,
    else the exact column converted."""
    require_columns(frame, [column], "amount_one")
    companion = f"{column}_one"
    if companion in frame.columns:
        return floats(frame[companion])
    return to_one(frame[column])


def floats(values: Any) -> pd.Series:
    """A float64 Series (missing -> NaN) of any numeric Series; exact amounts are converted
    through their exact value."""
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    dtype = series.dtype
    if isinstance(dtype, pd.ArrowDtype) and pa.types.is_decimal(dtype.pyarrow_dtype):
        return pd.Series(
            [math.nan if is_missing(v) else float(v) for v in series.to_numpy(dtype=object)],
            index=series.index,
            name=series.name,
            dtype=np.float64,
        )
    return pd.Series(
        pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan),
        index=series.index,
        name=series.name,
    )


def ratio(numerator: int, denominator: int) -> float:
    """``numerator / denominator`` of exact ints as a float (NaN when the denominator is 0)."""
    if denominator == 0:
        return math.nan
    return float(Fraction(numerator, denominator))


def require_columns(frame: Any, columns: Iterable[str], what: str) -> None:
    """Raise :class:`ConfigError` naming the missing columns if ``frame`` lacks any of them."""
    if not isinstance(frame, pd.DataFrame):
        raise ConfigError(f"{what} needs a pandas DataFrame, got {short_repr(frame)}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"{what} needs the column(s) {', '.join(missing)}; the frame has {', '.join(map(str, frame.columns)) or 'no columns'}"
        )
