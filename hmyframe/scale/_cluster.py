"""Getting a Dask client: ``--scheduler local`` (a LocalCluster) or a scheduler's address."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import Any

from hmyframe.errors import ClusterError, ConfigError, short_repr

__all__ = ["check_client", "connect", "dask_distributed", "worker_threads"]

#: Seconds to wait for a scheduler to answer, and for its first worker.
CONNECT_TIMEOUT = 60.0


def dask_distributed() -> Any:  # the package, untyped
    try:
        import distributed
    except ImportError:
        raise ConfigError(
            "distributed exports need Dask: pip install 'hmyframe[dask]' (dask, distributed, fsspec)"
        ) from None
    return distributed


def check_client(client: object) -> None:
    """Refuse what is not a running, synchronous ``distributed.Client``.

    Raises
    ------
    ConfigError
        Naming what was given and what is expected.
    """
    distributed = dask_distributed()
    if not isinstance(client, distributed.Client):
        raise ConfigError(f"client must be a dask distributed.Client, got {short_repr(client)}")
    if client.asynchronous:
        raise ConfigError(
            "client is an asynchronous distributed.Client: give a synchronous one (Client(address))"
        )
    if client.status != "running":
        raise ConfigError(f"the Dask client is not running (its status is {client.status!r})")


def worker_threads(client: Any, *, timeout: float = CONNECT_TIMEOUT) -> int:
    """Threads of all the cluster's workers, waiting up to ``timeout`` s for a first worker.

    Raises
    ------
    ClusterError
        If no worker joined the scheduler in time.
    """
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(
            f"no Dask worker joined the scheduler {client.scheduler.address} within {timeout:g} s: start "
            "workers with `dask worker ADDRESS`"
        ) from None
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return sum(int(w.get("nthreads", 1)) for w in workers.values())


@contextlib.contextmanager
def connect(scheduler: str, *, workers: int | None = None) -> Iterator[Any]:
    """A Dask client for ``--scheduler``, closed (with its LocalCluster) on exit.

    Parameters
    ----------
    scheduler
        ``"local"``: a ``LocalCluster`` of ``workers`` processes (default: one per CPU) with one
        thread each, on this machine; otherwise a scheduler address (``tcp://host:8786``).
    workers
        Worker processes of the local cluster (only with ``"local"``).

    Raises
    ------
    ConfigError
        Dask is not installed, or ``workers`` with a remote scheduler.
    ClusterError
        The scheduler cannot be reached.
    """
    distributed = dask_distributed()
    if scheduler == "local":
        n = workers if workers is not None else os.cpu_count() or 1
        if n < 1:
            raise ConfigError(f"--workers must be at least 1, got {n}")
        with (
            distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            yield client
        return
    if workers is not None:
        raise ConfigError("--workers sizes a local cluster (--scheduler local); a remote cluster has its own")
    if "://" not in scheduler and ":" not in scheduler:
        raise ConfigError(
            f"--scheduler must be 'local' or a scheduler address such as tcp://127.0.0.1:8786, got {scheduler!r}"
        )
    try:
        client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    with client:
        yield client
