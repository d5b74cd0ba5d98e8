"""hmyframe: Harmony blockchain data as exact, typed pandas DataFrames.

Quick tour::

    import hmyframe
    tx = hmyframe.transactions(0, 999, rpc="devnet")      # a DataFrame, value exact in atto
    vals = hmyframe.validators(rpc="devnet")             # the validator snapshot at the head
    hmyframe.schema("transactions")                      # columns, Arrow types, descriptions
    swaps = hmyframe.events("uniswap_v2_pair", 0, 999, event="Swap", rpc="devnet")  # decoded logs

Every function here has its async twin in :mod:`hmyframe.aio` (the list of them; each function
here is made from it). Fetched ranges are cached as Parquet
under ``data/`` (see :mod:`hmyframe.cache`), so a range is fetched once; :func:`read` reads a
cache or export folder back. Analysis lives in :mod:`hmyframe.metrics` (pure functions),
:mod:`hmyframe.plot` (matplotlib) and :mod:`hmyframe.report` (one-file HTML reports);
:func:`staking_history` fetches validator snapshots epoch by epoch; :func:`events` and :func:`calls`
decode contract logs and calls by an ABI (:mod:`hmyframe.abi`).

``import hmyframe`` loads none of that: each name is imported on first use (pandas when a
DataFrame is made, matplotlib when a plot is drawn), so scripts and the command line start fast.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

from hmyframe._version import __version__ as __version__

if TYPE_CHECKING:
    from hmyframe import abi as abi
    from hmyframe import aio as aio
    from hmyframe import metrics as metrics
    from hmyframe import plot as plot
    from hmyframe import report as report
    from hmyframe._twins import *  # noqa: F403  (the blocking twin of each function of hmyframe.aio)
    from hmyframe.amounts import to_one as to_one
    from hmyframe.amounts import to_units as to_units
    from hmyframe.cache import Cache as Cache
    from hmyframe.datasets import DATASETS as DATASETS
    from hmyframe.datasets import Dataset
    from hmyframe.datasets import to_pandas as to_pandas
    from hmyframe.engine import FetchOptions as FetchOptions
    from hmyframe.engine import Session as Session
    from hmyframe.engine import StakingHistory as StakingHistory
    from hmyframe.errors import CacheWarning as CacheWarning
    from hmyframe.errors import FollowWarning as FollowWarning
    from hmyframe.errors import HmyframeError as HmyframeError
    from hmyframe.errors import NonStandardTokenWarning as NonStandardTokenWarning
    from hmyframe.errors import NotFoundWarning as NotFoundWarning
    from hmyframe.query import sql as sql
    from hmyframe.reader import read as read
    from hmyframe.rpc import Client as Client
    from hmyframe.rpc import RetryPolicy as RetryPolicy


#: Where each name other than the public functions comes from (imported on first use).
_HOMES = {
    "abi": "hmyframe.abi",
    "aio": "hmyframe.aio",
    "metrics": "hmyframe.metrics",
    "plot": "hmyframe.plot",
    "report": "hmyframe.report",
    "to_one": "hmyframe.amounts",
    "to_units": "hmyframe.amounts",
    "Cache": "hmyframe.cache",
    "DATASETS": "hmyframe.datasets",
    "to_pandas": "hmyframe.datasets",
    "FetchOptions": "hmyframe.engine",
    "Session": "hmyframe.engine",
    "StakingHistory": "hmyframe.engine",
    "HmyframeError": "hmyframe.errors",
    "CacheWarning": "hmyframe.errors",
    "FollowWarning": "hmyframe.errors",
    "NonStandardTokenWarning": "hmyframe.errors",
    "NotFoundWarning": "hmyframe.errors",
    "read": "hmyframe.reader",
    "sql": "hmyframe.query",
    "Client": "hmyframe.rpc",
    "RetryPolicy": "hmyframe.rpc",
}
#: Subpackages, bound as modules rather than taken from them.
_MODULES = ("abi", "aio", "metrics", "plot", "report")


def _functions() -> tuple[str, ...]:
    """The public functions: the blocking twin of each of :data:`hmyframe.aio.FUNCTIONS`
    (:mod:`hmyframe._twins`)."""
    functions: tuple[str, ...] = importlib.import_module("hmyframe.aio").FUNCTIONS
    return functions


def _public_names() -> list[str]:
    homes = [n for n in _HOMES if n not in ("metrics", "plot", "report")]
    return ["__version__", "dataset", "schema", *homes, *_functions()]


def __getattr__(name: str) -> Any:
    """Every public name, imported on first use (see the module docstring)."""
    if name == "__all__":
        value: Any = _public_names()
    elif name in _MODULES:
        value = importlib.import_module(f"hmyframe.{name}")
    elif name in _HOMES:
        value = getattr(importlib.import_module(_HOMES[name]), name)
    elif name.startswith("_"):
        raise AttributeError(f"module 'hmyframe' has no attribute {name!r}")
    elif name in _functions():
        value = getattr(importlib.import_module("hmyframe._twins"), name)
    elif importlib.util.find_spec(f"hmyframe.{name}") is not None:
        value = importlib.import_module(f"hmyframe.{name}")  # a subpackage (hmyframe.engine...)
    else:
        raise AttributeError(f"module 'hmyframe' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_public_names(), *_MODULES})


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
