"""``hmyframe.read(..., engine="dask")``: a dataset on disk as a Dask DataFrame, one partition per file."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import pandas as pd

from hmyframe import datasets as ds
from hmyframe._exactint import ExactIntArray, ExactIntDtype
from hmyframe._parts import Part
from hmyframe.amounts import AttoDtype, Int256Dtype, Uint256Dtype
from hmyframe.errors import ConfigError

__all__ = ["read_dask"]

_registered = False


def _register_atto() -> None:
    """Teach Dask to make example values of the exact-integer dtypes (``atto``, ``uint256``, ``int256``).

    Dask needs them to infer results (it looks up the dtype's exact class: each is registered).
    """
    global _registered
    if _registered:
        return
    extensions: Any = importlib.import_module("dask.dataframe.extensions")

    def _nonempty(dtype: ExactIntDtype) -> ExactIntArray:
        return dtype.construct_array_type()._from_sequence([1, None], dtype=dtype)

    for dtype_class in (AttoDtype, Uint256Dtype, Int256Dtype):
        extensions.make_array_nonempty.register(dtype_class)(_nonempty)
    _registered = True


def _frame(part: Part) -> pd.DataFrame:
    """One partition: the rows of one file, with the dtypes of a fetch."""
    return ds.to_pandas(part.table())


def read_dask(parts: Sequence[Part], dataset: ds.Dataset) -> Any:
    """A lazy Dask DataFrame of ``parts`` (one partition each), with ``dataset``'s dtypes.

    Each partition's index starts at 0 (``reset_index(drop=True)`` after ``compute()`` gives
    the pandas engine's index). Exact amounts keep the ``atto`` dtype in the partitions and in
    the ``meta``; sums and group sums are exact Python integers. ``describe()`` of an ``atto``
    column is not supported by Dask (its percentiles need NumPy numbers): use its ``*_one``
    column.
    """
    try:
        dd: Any = importlib.import_module("dask.dataframe")
    except ImportError:
        raise ConfigError("engine='dask' needs Dask: pip install 'hmyframe[dask]'") from None
    _register_atto()
    meta = ds.to_pandas(dataset.schema.empty_table())
    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_map(
        _frame, list(parts), meta=meta, label=f"hmyframe-read-{dataset.name}", enforce_metadata=False
    )
