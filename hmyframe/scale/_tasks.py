"""One chunk of an export as a Dask task, and how the workers share the endpoints' rate limits.

:func:`run_chunk` runs on a worker: it calls :func:`~hmyframe.engine.fetch_range`
for the chunk's blocks with ``collect=False`` in a :class:`~hmyframe.engine.Session` on the
endpoints and the output the task names, so the chunk is fetched, converted, checked and
written exactly as in a local export (what another writer already published is not fetched
again). Each worker thread keeps its session for the rest of the export (on one event loop
per worker process), so the chain check, the head and the shard URLs are asked once per
thread, as a local export asks them once. It never raises an hmyframe error:
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
import time
from dataclasses import dataclass, field, replace
from typing import Any

from hmyframe import errors
from hmyframe.cache import Cache
from hmyframe.engine import FetchOptions, Session, fetch_range
from hmyframe.errors import ClusterError, HmyframeError

__all__ = ["ChunkResult", "ChunkTask", "ErrorRecord", "close_sessions", "run_chunk"]


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


@dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to export one chunk (picklable).

    Attributes
    ----------
    export
        The export's token (its workers' sessions are kept under it).
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

    export: str
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


#: What :func:`~hmyframe.engine.run_chunks` appends to the error of a fetch; the task's
#: fetch is one chunk, and the export appends the account of all its chunks itself.
_ONE_CHUNK_TAIL = re.compile(
    r"; \d+ of \d+ chunks? were fetched and are kept in the cache; blocks not fetched .*\Z", re.S
)

#: Seconds after which a session no task used is closed (its export ended without saying so).
IDLE_SESSION = 120.0

_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
#: Open sessions of this worker process by (export, task thread), with their last use.
_sessions: dict[tuple[str, int], tuple[Session, float]] = {}


def _worker_loop() -> asyncio.AbstractEventLoop:
    """This process's event loop for task sessions (a daemon thread), started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None or _loop.is_closed():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="hmyframe-tasks", daemon=True).start()
            _loop = loop
        return _loop


async def _session(task: ChunkTask, thread: int) -> Session:
    """The session of ``task``'s export for the calling task thread, opened on first use.

    A worker thread keeps one session per export: its client has learnt the chain (checked
    once, as a local export does), the head and the shard URLs, and its cache remembers the
    footers it verified, so each further chunk costs only its own requests. Sessions left
    idle (an export that ended without :func:`close_sessions`) are closed.
    """
    now = time.monotonic()
    for key, (old, used) in list(_sessions.items()):
        if now - used > IDLE_SESSION:
            del _sessions[key]
            await old.__aexit__(None, None, None)
    key = (task.export, thread)
    known = _sessions.get(key)
    if known is not None:
        _sessions[key] = (known[0], now)
        return known[0]
    rpc: str | list[str] = task.rpc if isinstance(task.rpc, str) else list(task.rpc)
    session = Session(rpc, trace_rpc=task.trace_rpc, cache=Cache(task.output), options=task.options)
    await session.__aenter__()
    _sessions[key] = (session, now)
    return session


async def _close(export: str) -> None:
    for key in [k for k in _sessions if k[0] == export]:
        session, _ = _sessions.pop(key)
        await session.__aexit__(None, None, None)


def close_sessions(export: str) -> None:
    """Close this process's sessions of ``export`` (run on every worker when it ends)."""
    if _loop is not None and not _loop.is_closed():
        asyncio.run_coroutine_threadsafe(_close(export), _loop).result(timeout=60)


async def _fetch(task: ChunkTask, thread: int) -> int:
    fetched = 0

    def count(blocks: int) -> None:
        nonlocal fetched
        fetched += blocks

    rps = task.options.requests_per_second
    if task.lease is not None and rps:
        await asyncio.sleep(1.0 / rps)  # start with this share's token spent (module docstring)
    session = await _session(task, thread)
    await fetch_range(session, task.names, task.start, task.end, task.shard, progress=count, collect=False)
    return fetched


def _run(task: ChunkTask) -> int:
    future = asyncio.run_coroutine_threadsafe(_fetch(task, threading.get_ident()), _worker_loop())
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Export one chunk (the Dask task). Never raises an hmyframe error: it is returned."""
    try:
        if task.lease is None:
            return ChunkResult(_run(task))
        with task.lease:
            return ChunkResult(_run(task))
    except HmyframeError as exc:
        record = ErrorRecord.of(exc)
        return ChunkResult(0, replace(record, message=_ONE_CHUNK_TAIL.sub("", record.message)))
