"""The range part of a distributed export: plan here, one Dask task per chunk, progress here."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from hmyframe._tasks import gather_or_raise
from hmyframe.cache import Cache
from hmyframe.engine import Session, plan_range, run_chunks
from hmyframe.errors import ClusterError, ConfigError
from hmyframe.scale._cluster import dask_distributed, worker_threads
from hmyframe.scale._tasks import ChunkResult, ChunkTask, ErrorRecord, close_sessions, run_chunk

__all__ = ["export_ranges"]


async def _plan(
    session: Session, names: Sequence[str], start: object, end: object, shard: int
) -> tuple[tuple[int, int], list[tuple[int, int]]]:
    """The block range ``start``/``end`` resolve to on ``shard``, and its chunks missing from the output."""
    assert session.cache is not None
    block_range, _, chunks = await plan_range(session, names, start, end, shard)
    return block_range, chunks


def _output_root(cache: Cache) -> str:
    """The output as workers name it: an absolute path (the same on every machine) or a URL."""
    return os.path.abspath(cache.root) if cache.files.local else cache.url()


async def export_ranges(
    session: Session,
    client: Any,
    names: Sequence[str],
    start: object,
    end: object,
    shards: Sequence[int],
    *,
    progress: Callable[[int], None] | None = None,
    on_plan: Callable[[int], None] | None = None,
) -> dict[int, tuple[int, int]]:
    """Export blocks ``start..end`` of ``shards`` for ``names`` as Dask tasks on ``client``'s cluster.

    The missing chunks are planned here against the session's cache (the output), then each
    becomes one task (:func:`~hmyframe.scale._tasks.run_chunk`). Chunks that fail do not cost
    the others: as in a local export, the error raised at the end names the blocks not
    exported, and running again resumes.

    Parameters
    ----------
    session
        The open session of the export (its cache is the output; its endpoints, options and
        chain are handed to the tasks).
    client
        A running, synchronous ``distributed.Client``.
    names, start, end, shards
        Range datasets and the range, as for :func:`~hmyframe.engine.fetch_shards`.
    progress
        Called with the blocks each chunk fetched, as chunks complete.
    on_plan
        Called once per shard with the blocks to fetch.

    Returns
    -------
    dict[int, (int, int)]
        The block range of each shard.
    """
    cache = session.cache
    if cache is None:
        raise ConfigError("a distributed export writes to an output folder: it needs a cache")
    await session.chain_id(verify=True)  # about to write: the endpoints still serve this chain
    ranges: dict[int, tuple[int, int]] = {}
    plans: dict[int, list[tuple[int, int]]] = {}
    for shard in shards:
        ranges[shard], plans[shard] = await _plan(session, names, start, end, shard)
        if on_plan is not None:
            on_plan(sum(b - a + 1 for a, b in plans[shard]))
    if not any(plans.values()):
        return ranges
    token = secrets.token_hex(4)
    tasks, lease = _tasks(session, client, names, plans, token)
    results = _Results(client, tasks, token)
    try:
        await gather_or_raise(
            run_chunks(chunks, results.fetch_of(shard, progress), len(chunks), shard=shard, cached=True)
            for shard, chunks in plans.items()
            if chunks
        )
    finally:
        client.cancel(results.futures)  # nothing when all are done; stops the rest after an error
        await results.pumping
        if lease is not None:
            lease.close()
        with contextlib.suppress(Exception):  # a worker gone meanwhile has nothing open
            client.run(close_sessions, token)
        cache.remove_orphans(await session.chain_id())  # of workers that died while writing
    return ranges


def _tasks(
    session: Session, client: Any, names: Sequence[str], plans: dict[int, list[tuple[int, int]]], token: str
) -> tuple[list[ChunkTask], Any]:
    """One task per planned chunk, and the rate-limit lease the tasks share (``None`` without a
    ``requests_per_second``: then each worker's share of it is the whole)."""
    assert session.cache is not None
    rpc, trace_rpc = session.endpoint_spec()
    output = _output_root(session.cache)
    options = session.options
    lease: Any = None
    leases = 1
    threads = worker_threads(client)  # waits for a first worker (a clear error if none comes)
    rps = options.requests_per_second
    if rps is not None:
        leases = max(1, threads)
        lease = dask_distributed().Semaphore(max_leases=leases, name=f"hmyframe-export-{token}")
        options = options.with_(requests_per_second=rps / leases)
    tasks = [
        ChunkTask(
            token,
            tuple(names),
            shard,
            a,
            b,
            rpc if isinstance(rpc, str) else tuple(rpc),
            trace_rpc,
            output,
            options,
            lease,
            leases,
        )
        for shard, chunks in plans.items()
        for a, b in chunks
    ]
    return tasks, lease


class _Results:
    """The tasks submitted to the cluster, and their results handed to the event loop as they
    complete (the client's blocking API is waited on in a thread)."""

    def __init__(self, client: Any, tasks: list[ChunkTask], token: str) -> None:
        keys = [f"hmyframe-chunk-{t.shard}-{t.start}-{t.end}-{token}" for t in tasks]
        self.futures = client.map(run_chunk, tasks, key=keys, pure=False)
        self.loop = asyncio.get_running_loop()
        self.waiters: dict[str, asyncio.Future[ChunkResult]] = {
            key: self.loop.create_future() for key in keys
        }
        self.by_chunk = {(t.shard, t.start, t.end): key for t, key in zip(tasks, keys, strict=True)}
        self.pumping = self.loop.run_in_executor(None, self._pump)

    def _settle(self, key: str, result: ChunkResult) -> None:
        if not self.waiters[key].done():
            self.waiters[key].set_result(result)

    def _pump(self) -> None:
        """Wait for the tasks in a thread, handing each result to the loop."""
        for future in dask_distributed().as_completed(self.futures):
            try:
                result = future.result()
            except BaseException as exc:  # noqa: BLE001  (a worker that kept dying, a cancelled task...)
                result = ChunkResult(0, ErrorRecord.of(exc))
            if not isinstance(result, ChunkResult):
                result = ChunkResult(
                    0, ErrorRecord.of(ClusterError(f"task {future.key} returned {result!r}"))
                )
            self.loop.call_soon_threadsafe(self._settle, future.key, result)

    def fetch_of(
        self, shard: int, progress: Callable[[int], None] | None
    ) -> Callable[[int, int], Awaitable[None]]:
        """What :func:`~hmyframe.engine.run_chunks` runs for a chunk of ``shard``: its task's
        result, raised as the error it records or counted as progress."""

        async def fetch(a: int, b: int) -> None:
            result = await self.waiters[self.by_chunk[(shard, a, b)]]
            if result.error is not None:
                raise result.error.error()
            if progress is not None and result.fetched:
                progress(result.fetched)

        return fetch
