"""One chunk of an export as a Dask task, and how the workers share the endpoints' rate limits.

:func:`run_chunk` runs on a worker: it opens a :class:`~hmyframe.engine.Session` on the
endpoints and the output the task names and calls
:func:`~hmyframe.engine._ranges.fetch_range` for the chunk's blocks with ``collect=False``,
so the chunk is fetched, converted, checked and written exactly as in a local export (what
another writer already published is not fetched again). It never raises an hmyframe error:
the error comes back as an :class:`ErrorRecord` (Dask pickles exceptions by their ``args``,
which would lose ours) and is raised again, with its class and message, by the client.

Rate limits across workers
    ``FetchOptions.requests_per_second`` is a limit per endpoint. With it, the export makes a
    ``distributed.Semaphore`` of L leases, L = the cluster's worker threads when the export
    starts. A task fetches only while it holds a lease, and each endpoint of its session gets
    ``requests_per_second / L``; so at most L tasks fetch at once, together within the limit,
    however many workers join later. A task waits ``L / requests_per_second`` seconds (one
    token of its share) before its first request, so a lease handed from one task to the
    next never lets two requests through in one interval: in any T seconds an endpoint gets
    at most ``requests_per_second * T + L`` requests, which a node's limiter with a burst of
    at least L never refuses. The lease of a worker that dies is freed by the scheduler after
    its lease timeout (``distributed.scheduler.locks.lease-timeout``, 30 s by default); the
    other leases keep the export going meanwhile. The client process plans before the tasks
    start and fetches snapshots after they end. Without ``requests_per_second`` there is no
    semaphore; each task keeps its client's in-flight bound (``max_in_flight``).
"""

from __future__ import annotations

import asyncio
import re
import threading
from dataclasses import dataclass, field, replace
from typing import Any

from hmyframe import errors
from hmyframe._sync import run
from hmyframe.cache import Cache
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range
from hmyframe.errors import ClusterError, HmyframeError, RateLimitError, TransportError

__all__ = ["ChunkResult", "ChunkTask", "ErrorRecord", "run_chunk"]


@dataclass(frozen=True)
class ErrorRecord:
    """An hmyframe error raised on a worker, in a form that survives pickling.

    Attributes
    ----------
    kind
        Its class name in :mod:`hmyframe.errors`.
    message
        ``str(error)``.
    attributes
        Its plain attributes (``endpoint``, ``method``, ``status``, ``code``...).
    """

    kind: str
    message: str
    attributes: dict[str, str | int | float | bool | None] = field(default_factory=dict)

    @classmethod
    def of(cls, exc: BaseException) -> ErrorRecord:
        """The record of ``exc`` (an exception that is not hmyframe's becomes a ClusterError)."""
        if not isinstance(exc, HmyframeError):
            return cls("ClusterError", f"{type(exc).__name__}: {exc}")
        kind = next(
            (k.__name__ for k in type(exc).__mro__ if getattr(errors, k.__name__, None) is k),
            "HmyframeError",
        )
        plain = {k: v for k, v in vars(exc).items() if isinstance(v, str | int | float | bool) or v is None}
        return cls(kind, str(exc), plain)

    def error(self) -> HmyframeError:
        """The error again: same class (of :mod:`hmyframe.errors`), message and attributes."""
        kind = getattr(errors, self.kind, None)
        if not (isinstance(kind, type) and issubclass(kind, HmyframeError)):
            kind = ClusterError
        exc: HmyframeError = kind.__new__(kind)
        Exception.__init__(exc, self.message)
        for name, value in self.attributes.items():
            setattr(exc, name, value)
        return exc

    @property
    def endpoint_fault(self) -> bool:
        """Whether the endpoints misbehaved (as opposed to a wrong setting, a full disk...)."""
        kind = getattr(errors, self.kind, None)
        return isinstance(kind, type) and issubclass(kind, TransportError | RateLimitError)


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to export one chunk (picklable).

    Attributes
    ----------
    names
        Range datasets.
    shard, start, end
        The chunk: blocks ``start..end`` (inclusive) of ``shard``.
    rpc, trace_rpc
        Endpoint URL(s), as :meth:`Session.endpoint_spec` gives them.
    output
        The output root: an absolute local path (a folder every worker shares) or a URL.
    options
        Fetch options, ``requests_per_second`` already divided by ``leases``.
    lease
        A ``distributed.Semaphore`` to hold while fetching, or ``None``.
    leases
        Its number of leases (1 without one).
    """

    names: tuple[str, ...]
    shard: int
    start: int
    end: int
    rpc: str | tuple[str, ...]
    trace_rpc: str | dict[int, str] | None
    output: str
    options: FetchOptions
    lease: Any = None
    leases: int = 1

    @property
    def blocks(self) -> int:
        """Blocks in the chunk."""
        return self.end - self.start + 1


@dataclass(frozen=True)
class ChunkResult:
    """What a task did: blocks fetched (0 when another writer had them), or its error."""

    fetched: int
    error: ErrorRecord | None = None


_local = threading.local()

#: What :func:`~hmyframe.engine._chunks.run_chunks` appends to the error of a fetch; the task's
#: fetch is one chunk, and the export appends the account of all its chunks itself.
_ONE_CHUNK_TAIL = re.compile(
    r"; \d+ of \d+ chunks? were fetched and are kept in the cache; blocks not fetched .*\Z", re.S
)


def _cache(output: str) -> Cache:
    """One :class:`Cache` per worker thread and output, kept across tasks: its memory of the
    footers it verified makes planning each chunk cost one listing, not one read per file."""
    caches: dict[str, Cache] | None = getattr(_local, "caches", None)
    if caches is None:
        caches = _local.caches = {}
    cache = caches.get(output)
    if cache is None:
        cache = caches[output] = Cache(output)
    return cache


async def _fetch(task: ChunkTask) -> int:
    fetched = 0

    def count(blocks: int) -> None:
        nonlocal fetched
        fetched += blocks

    rps = task.options.requests_per_second
    if task.lease is not None and rps:
        await asyncio.sleep(1.0 / rps)  # start with this share's token spent (module docstring)
    rpc: str | list[str] = task.rpc if isinstance(task.rpc, str) else list(task.rpc)
    async with Session(
        rpc, trace_rpc=task.trace_rpc, cache=_cache(task.output), options=task.options
    ) as session:
        await fetch_range(
            session, task.names, task.start, task.end, task.shard, progress=count, collect=False
        )
    return fetched


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Export one chunk (the Dask task). Never raises an hmyframe error: it is returned."""
    try:
        if task.lease is None:
            return ChunkResult(run(_fetch(task)))
        with task.lease:
            return ChunkResult(run(_fetch(task)))
    except HmyframeError as exc:
        record = ErrorRecord.of(exc)
        return ChunkResult(0, replace(record, message=_ONE_CHUNK_TAIL.sub("", record.message)))
