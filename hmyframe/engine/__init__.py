"""The fetch engine: sessions, the block-range driver, snapshots and lookups.

The public coroutines made from it live in :mod:`hmyframe.aio` (one line there binds each
public name to its template in :mod:`hmyframe.engine._public`); this package holds the
machinery, which names no dataset: what to fetch and how comes from the datasets' declarations
(:mod:`hmyframe.datasets.sources`). Importing it loads neither pandas nor pyarrow.
"""

from hmyframe.datasets.sources import RANGE_DATASETS as RANGE_DATASETS
from hmyframe.datasets.sources import SNAPSHOT_DATASETS as SNAPSHOT_DATASETS
from hmyframe.engine._session import DEFAULT_RPC as DEFAULT_RPC
from hmyframe.engine._session import DEFAULT_TRACE_RPC as DEFAULT_TRACE_RPC
from hmyframe.engine._session import FetchOptions as FetchOptions
from hmyframe.engine._session import Session as Session
from hmyframe.engine._session import default_devnet as default_devnet

__all__ = [
    "DEFAULT_RPC",
    "DEFAULT_TRACE_RPC",
    "RANGE_DATASETS",
    "SNAPSHOT_DATASETS",
    "FetchOptions",
    "Session",
    "default_devnet",
]
