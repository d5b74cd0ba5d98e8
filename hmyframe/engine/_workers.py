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
import dataclasses
import importlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hmyframe import _provenance
from hmyframe._lazy import arrow_system_allocator, give_back_freed, lazy_module
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
    "SMALL_PIECE",
    "ChunkJob",
    "PieceJob",
    "assemble_chunk",
    "convert_piece",
    "convert_pieces",
    "converter_for",
    "finish_chunk",
    "get_dataset",
    "write_chunk",
]

#: Conversion threads of one fetch (per shard). Conversion holds the interpreter lock for most
#: of its time, so more threads would not convert faster, only hold more chunks' decoded answers
#: at once (``bench/export_memory.py``): one keeps the event loop free to fetch meanwhile.
CONVERT_THREADS = 1

#: Answers of a piece up to this many bytes are small: the engine converts a chunk's small
#: pieces together (:func:`convert_pieces`) once they have all arrived, instead of each as it
#: arrives. A conversion has a fixed cost (about 0.7 ms for the blocks source: ~40 columns,
#: each built and checked), which ten near-empty 100-block answers paid ten times per chunk;
#: held until the chunk's last answer, small answers cost at most ``SMALL_PIECE`` bytes each.
SMALL_PIECE = 1 << 20


def get_dataset(name: str) -> Any:
    """Dataset ``name``, or the side table of that name (its pieces are kept like a dataset's)."""
    from hmyframe import datasets as ds
    from hmyframe.datasets.sources import side_tables

    return ds.side_table(name) if name in side_tables() else ds.get(name)


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
    from hmyframe.datasets import gc_paused

    # (the whole transform: decoding allocates a container per JSON object, and with the
    # collector running those allocations trigger collections that walk every tracked object)
    with gc_paused():
        tables = dict(_transform(job.transform)(job.answers))
    give_back_freed(sum(map(len, job.answers.payloads)))  # (what the decoding freed)
    return tables


def convert_pieces(jobs: Sequence[PieceJob]) -> list[dict[str, pa.Table]]:
    """Pieces of one chunk, in block order, converted as :func:`convert_piece` would, each run of
    contiguous pieces in one call of its transform (for a source with ``merge_pieces``).

    A run's calls and answers are joined into one :class:`Answers`, converted once, and each
    table is cut back into the pieces' blocks by ``block_number`` (zero-copy slices): for
    answers of the blocks asked, each piece's tables hold the same rows, and its Arrow chunk
    the same boundaries, as converting it alone gives (the Parquet writer cuts pages where
    chunks end, so the files are the same). An answer holding another piece's blocks has them
    cut into that piece: the chunk then holds the same rows, and its checks
    (:func:`assemble_chunk`) fail the same way. Where the cut cannot be made (rows outside the
    run's blocks, a table not in block order, a null block number) or the joined conversion
    fails, each piece of the run is converted alone, so errors (and
    :class:`~hmyframe.datasets.sources.Refetch`) are those of the piece.

    Returns
    -------
    list[dict[str, pyarrow.Table]]
        Each piece's tables, in the order of ``jobs``.
    """
    out: list[dict[str, pa.Table]] = []
    for run in _runs(jobs):
        cut = _convert_run(run) if len(run) > 1 else None
        out.extend(cut if cut is not None else (convert_piece(job) for job in run))
    return out


def _runs(jobs: Sequence[PieceJob]) -> list[list[PieceJob]]:
    """``jobs`` cut where a piece does not continue the previous one's blocks, or cannot join it."""
    runs: list[list[PieceJob]] = []
    for job in jobs:
        if runs:
            prev = runs[-1][-1]
            a, b = prev.answers, job.answers
            if (
                prev.transform == job.transform
                and b.first == a.last + 1
                and not a.needed
                and not b.needed
                and (a.shard, a.detail, a.state, a.builds, a.endpoint)
                == (b.shard, b.detail, b.state, b.builds, b.endpoint)
            ):
                runs[-1].append(job)
                continue
        runs.append([job])
    return runs


def _convert_run(run: Sequence[PieceJob]) -> list[dict[str, pa.Table]] | None:
    """Contiguous pieces converted in one call, cut back per piece; ``None``: convert each alone."""
    answers = [job.answers for job in run]
    joined = dataclasses.replace(
        answers[0],
        last=answers[-1].last,
        calls=tuple(itertools.chain.from_iterable(a.calls for a in answers)),
        payloads=tuple(itertools.chain.from_iterable(a.payloads for a in answers)),
    )
    try:
        tables = convert_piece(PieceJob(run[0].transform, joined))
    except Exception:  # noqa: BLE001 (each piece alone then raises its own error, as it would have)
        return None
    lasts = [a.last for a in answers]
    out: list[dict[str, pa.Table]] = [{} for _ in run]
    for name, table in tables.items():
        bounds = _piece_bounds(table, answers[0].first, lasts)
        if bounds is None:
            return None
        for piece, (start, stop) in zip(out, itertools.pairwise(bounds), strict=True):
            piece[name] = table.slice(start, stop - start)
    return out


def _piece_bounds(table: pa.Table, first: int, lasts: Sequence[int]) -> list[int] | None:
    """Row offsets cutting ``table`` (in block order) into blocks ``first..lasts[0]``,
    ``lasts[0]+1..lasts[1]``...; ``None`` unless every row falls in one of them."""
    import numpy as np

    if "block_number" not in table.column_names:
        return None
    column = table["block_number"]
    if column.null_count:
        return None
    numbers = column.to_numpy()
    if len(numbers) and (numbers[0] < first or numbers[-1] > lasts[-1] or (np.diff(numbers) < 0).any()):
        return None
    return [0, *np.searchsorted(numbers, lasts, side="right").tolist()]


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
    when part of the chunk was cached by an earlier, narrower fetch), a side table never
    (:attr:`~hmyframe.datasets.sources.Fill.side`); call it only once every table of the chunk
    passed its checks.
    """
    cache = job.cache
    if cache is not None:
        chunk = None
        if job.tails:
            low = job.first // job.tails * job.tails
            chunk = (low, low + job.tails - 1)
        for name, table in tables.items():
            if sources.fill_of(name).side:
                continue
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
    import multiprocessing  # (only for worker processes)

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
