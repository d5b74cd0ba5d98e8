"""Dask clusters for the distributed tests (worker processes on this machine, or threads).

``cluster`` is one ``LocalCluster`` of 2 worker processes (1 thread each) for the module that
asks for it; tests that kill a worker start their own. Workers are separate processes, so they
reach the test's devnets over real HTTP on 127.0.0.1 like any client.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")


def local_cluster(**kwargs: Any) -> Any:
    """A LocalCluster whose HTTP server takes a free port (none to collide with), quiet."""
    options: dict[str, Any] = {
        "n_workers": 2,
        "threads_per_worker": 1,
        "processes": True,
        "dashboard_address": ":0",
        "silence_logs": 40,
    }
    options.update(kwargs)
    return distributed.LocalCluster(**options)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A client of a LocalCluster with 2 worker processes of 1 thread (shared by a module)."""
    with local_cluster() as made, distributed.Client(made) as client:
        yield client
