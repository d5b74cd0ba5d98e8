"""hmyframe: Harmony blockchain data as exact, typed pandas DataFrames.

Quick tour::

    import hmyframe
    tx = hmyframe.transactions(0, 999, rpc="devnet")      # a DataFrame, value exact in atto
    vals = hmyframe.validators(rpc="devnet")             # the validator snapshot at the head
    hmyframe.schema("transactions")                      # columns, Arrow types, descriptions

Every fetcher has an async twin in :mod:`hmyframe.aio`. Fetched ranges are cached as Parquet
under ``data/`` (see :mod:`hmyframe.cache`), so a range is fetched once; :func:`read` reads a
cache or export folder back; :func:`export` writes chain slices to disk (on a Dask cluster with
``client=``, see :mod:`hmyframe.scale`). Analysis lives in :mod:`hmyframe.metrics` (pure functions),
:mod:`hmyframe.plot` (matplotlib) and :mod:`hmyframe.report` (one-file HTML reports);
:func:`staking_history` fetches validator snapshots epoch by epoch.
"""

from __future__ import annotations

from hmyframe import aio
from hmyframe.amounts import to_one
from hmyframe.api import *  # noqa: F403  (every public fetcher, sync)
from hmyframe.api import staking_history as staking_history
from hmyframe.cache import Cache
from hmyframe.datasets import DATASETS, Dataset, to_pandas
from hmyframe.engine import FetchOptions, NotFoundWarning, Session, StakingHistory
from hmyframe.engine._public import REGISTRY as _REGISTRY
from hmyframe.engine._public import sync_twin as _sync_twin
from hmyframe.errors import HmyframeError
from hmyframe.export import export as _export
from hmyframe.reader import read
from hmyframe.rpc import Client, RetryPolicy

__version__ = "0.1.0"

__all__ = [
    "DATASETS",
    "Cache",
    "Client",
    "FetchOptions",
    "HmyframeError",
    "NotFoundWarning",
    "RetryPolicy",
    "Session",
    "StakingHistory",
    "__version__",
    "aio",
    "dataset",
    "export",
    "read",
    "schema",
    "staking_history",
    "to_one",
    "to_pandas",
    *_REGISTRY,
]


def dataset(name: str) -> Dataset:
    """The dataset called ``name``: its schema, sort order, source and conversion.

    Parameters
    ----------
    name
        A dataset name (``hmyframe.DATASETS`` lists them).

    Returns
    -------
    hmyframe.datasets.Dataset

    Raises
    ------
    ConfigError
        If there is no such dataset; the message lists the valid names.
    """
    from hmyframe.datasets import get

    return get(name)


#: ``hmyframe.export(...)``: exports to Parquet / CSV, in this process or on a Dask cluster
#: (``client=``); the module of the same name stays importable (``from hmyframe.export import ...``).
export = _sync_twin(_export)

#: Subpackages loaded on first use (``hmyframe.plot`` imports matplotlib).
_LAZY = ("metrics", "plot", "report")


def __getattr__(name: str) -> object:
    """``hmyframe.metrics``, ``hmyframe.plot`` and ``hmyframe.report`` without importing them
    (and matplotlib) with every ``import hmyframe``."""
    if name in _LAZY:
        import importlib

        return importlib.import_module(f"hmyframe.{name}")
    raise AttributeError(f"module 'hmyframe' has no attribute {name!r}")


def schema(name: str) -> object:
    """The Arrow schema of dataset ``name`` (column names, types and one-line descriptions).

    Parameters
    ----------
    name
        A dataset name (``hmyframe.DATASETS`` lists them).

    Returns
    -------
    pyarrow.Schema
    """
    return dataset(name).schema
