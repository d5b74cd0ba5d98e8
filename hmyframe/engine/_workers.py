"""What runs off the event loop in a block-range fetch: converting pieces, finishing chunks.

The driver (:mod:`hmyframe.engine._ranges`) hands each piece of answers to a converter
(:func:`converter_for`: a thread, or ``FetchOptions.convert_processes`` worker processes) as a
:class:`PieceJob`, run by :func:`convert_piece`; then each chunk's tables to a writer thread as
a :class:`ChunkJob`, run by :func:`finish_chunk` (check, then write to the cache). The jobs are
picklable and this module names nothing of the event loop, so a worker process imports only
what converting needs (pyarrow and the datasets, loaded by :func:`_warm` when it starts).
"""

from __future__ import annotations

import concurrent.futures
import importlib
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hmyframe import _provenance
from hmyframe._lazy import arrow_system_allocator, lazy_module
from hmyframe._spans import rows_between
from hmyframe.datasets import sources
from hmyframe.datasets.sources import Answers
from hmyframe.errors import ResponseShapeError

if TYPE_CHECKING:
    import pyarrow as pa

    from hmyframe.cache import Cache
    from hmyframe.engine._session import Session
else:
    pa = lazy_module("pyarrow")

__all__ = [
    "CONVERT_THREADS",
    "ChunkJob",
    "PieceJob",
    "assemble_chunk",
    "convert_piece",
    "converter_for",
    "finish_chunk",
    "get_dataset",
    "write_chunk",
]

#: Conversion threads of one fetch (per shard). Conversion holds the interpreter lock for most
#: of its time, so more threads would not convert faster, only hold more chunks' decoded answers
#: at once (``bench/export_memory.py``): one keeps the event loop free to fetch meanwhile.
CONVERT_THREADS = 1


def get_dataset(name: str) -> Any:
    from hmyframe import datasets as ds

    return ds.get(name)


def _transform(path: str) -> Callable[[Answers], Mapping[str, pa.Table]]:
    module, _, function = path.partition(":")
    found: Callable[[Answers], Mapping[str, pa.Table]] = getattr(importlib.import_module(module), function)
    return found


def _check_blocks(table: pa.Table, start: int, end: int, name: str, shard: int) -> None:
    """A one-row-per-block table of a chunk must hold each block of ``start..end`` exactly once."""
    numbers = table["block_number"].to_pylist()
    if numbers != list(range(start, end + 1)):
        got = sorted(set(numbers))
        missing = sorted(set(range(start, end + 1)) - set(got))
        extra = sorted(set(got) - set(range(start, end + 1)))
        dup = len(numbers) - len(got)
        raise ResponseShapeError(
            name,
            name,
            f"shard {shard} blocks {start}..{end}: missing {missing[:5]}, unexpected {extra[:5]}, duplicates {dup}",
            "each requested block exactly once",
        )


def _check_within(table: pa.Table, start: int, end: int, name: str) -> None:
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return
    col = table["block_number"]
    lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
    if lo is None or hi is None or lo < start or hi > end:
        raise ResponseShapeError(name, "block_number", (lo, hi), f"rows of blocks {start}..{end} only")


@dataclass(frozen=True)
class PieceJob:
    """One piece of a source's plan with its answers: what a conversion worker is given (picklable).

    Attributes
    ----------
    transform
        The source's ``"module:function"`` transform.
    answers
        The piece's answers (``needed`` cut to the piece's blocks).
    """

    transform: str
    answers: Answers


def convert_piece(job: PieceJob) -> dict[str, pa.Table]:
    """One piece's answers through its source's transform (in a conversion thread or process).

    Raises
    ------
    Refetch
        From the transform: the chunk must be asked again.
    HmyframeError
        Answers that cannot make the tables.
    """
    return dict(_transform(job.transform)(job.answers))


@dataclass(frozen=True)
class ChunkJob:
    """A chunk's converted pieces, and what to do with the tables.

    Attributes
    ----------
    shard, first, last
        The chunk.
    parts
        Each piece's tables, in block order.
    per_block
        Datasets checked to hold each block of the chunk exactly once.
    cache, chain_id
        Where the tables are written (only blocks the cache lacks); ``None``: not written.
    provenance
        Where and when the chunk was fetched (recorded in each file's footer).
    tails
        The chunk size when a follower writes (``0`` otherwise): blocks short of their
        chunk's end go to the chunk's tail (:meth:`~hmyframe.cache.Cache.write_range`).
    """

    shard: int
    first: int
    last: int
    parts: Sequence[Mapping[str, pa.Table]]
    per_block: frozenset[str]
    cache: Cache | None
    chain_id: str
    provenance: _provenance.Provenance | None = None
    tails: int = 0


def finish_chunk(job: ChunkJob) -> dict[str, pa.Table]:
    """Put a chunk's pieces together, check the tables and write them (in the writer thread).

    :func:`assemble_chunk`, then :func:`write_chunk`.

    Returns
    -------
    dict[str, pyarrow.Table]
        Every dataset's table of the chunk.
    """
    tables = assemble_chunk(job)
    write_chunk(job, tables)
    return tables


def assemble_chunk(job: ChunkJob) -> dict[str, pa.Table]:
    """Put a chunk's pieces together and check the tables (nothing written yet).

    Each dataset's pieces are concatenated in block order and checked (rows only of the
    chunk's blocks; each block exactly once for a one-row-per-block dataset).

    Returns
    -------
    dict[str, pyarrow.Table]
        Every dataset's table of the chunk.
    """
    names = list(dict.fromkeys(name for part in job.parts for name in part))
    tables: dict[str, pa.Table] = {}
    for name in names:
        pieces = [part[name] for part in job.parts if name in part]
        table = pieces[0] if len(pieces) == 1 else pa.concat_tables(pieces)
        _check_within(table, job.first, job.last, name)
        if name in job.per_block:
            _check_blocks(table, job.first, job.last, name, job.shard)
        tables[name] = table
    return tables


def write_chunk(job: ChunkJob, tables: Mapping[str, pa.Table]) -> None:
    """Write a chunk's checked tables (:func:`assemble_chunk`) to the cache, if any.

    Every table is written for the blocks the cache lacks (so cache files never overlap, also
    when part of the chunk was cached by an earlier, narrower fetch); call it only once every
    table of the chunk passed its checks.
    """
    cache = job.cache
    if cache is not None:
        chunk = None
        if job.tails:
            low = job.first // job.tails * job.tails
            chunk = (low, low + job.tails - 1)
        for name, table in tables.items():
            dataset = get_dataset(name)
            for a, b in cache.missing(job.chain_id, dataset, job.shard, job.first, job.last):
                part = table if (a, b) == (job.first, job.last) else rows_between(table, a, b)
                cache.write_range(job.chain_id, dataset, job.shard, a, b, part, job.provenance, chunk=chunk)


def _warm() -> None:
    """Runs first in each conversion worker process: the transforms' imports (pyarrow, the datasets)."""
    arrow_system_allocator()
    for source in sources.RANGE_SOURCES.values():
        _transform(source.transform)


def _context() -> Any:
    """Workers forked from a fork server that has imported what converting needs.

    The fork server is a fresh interpreter (it inherits none of this process's threads,
    pyarrow's pools included, so forking from it is safe); it imports pyarrow and the datasets
    once, and each worker is a fork of it, so N workers pay those imports once, not N times.
    Where there is no fork server (not POSIX), each worker is spawned and imports them itself.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        [__name__, *(s.transform.partition(":")[0] for s in sources.RANGE_SOURCES.values())]
    )
    return context


def converter_for(session: Session) -> concurrent.futures.Executor:
    """Where a fetch's pieces are converted (see :mod:`hmyframe.engine._ranges`, point 4)."""
    processes = session.options.convert_processes
    if processes:
        pool = concurrent.futures.ProcessPoolExecutor(processes, mp_context=_context(), initializer=_warm)
        pool.submit(int)  # start the workers now, while the first requests are in flight
        return pool
    return concurrent.futures.ThreadPoolExecutor(CONVERT_THREADS, thread_name_prefix="hmyframe-convert")
