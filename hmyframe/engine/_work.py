"""Converting one chunk's answers into its tables, checking them and writing them: the heavy side.

A :class:`ChunkWork` receives a chunk's answers piece by piece, in any order, and converts each
piece as soon as it can (a piece whose conversion needs another table of the same blocks, such
as traces needing the transactions, waits until the pieces of that table cover its blocks).
:meth:`ChunkWork.finish` then puts each dataset's pieces together in block order, checks them
(rows only of the chunk's blocks; each block exactly once for a one-row-per-block dataset) and
writes them to the cache, atomically and only for the blocks the cache still lacks, or hands
them back when there is no cache.

A :class:`Host` keeps the chunks of one conversion process and answers the driver's messages
(see :mod:`hmyframe.engine._workers`); the same code runs in a worker process or in a thread of
the fetching process. Nothing here names a dataset: what to build comes from the
:class:`ChunkSpec`, how from the sources (:mod:`hmyframe.datasets.sources`).
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from hmyframe import datasets as ds
from hmyframe.cache import Cache
from hmyframe.datasets.sources import Answers, Call, Refetch
from hmyframe.errors import HmyframeError, ResponseShapeError

__all__ = ["ChunkResult", "ChunkSpec", "ChunkWork", "Host", "SourceJob"]


@dataclass(frozen=True)
class SourceJob:
    """One source's part of a chunk.

    Attributes
    ----------
    source
        Name of the :class:`~hmyframe.datasets.sources.RangeSource`.
    transform
        Its ``"module:function"`` transform.
    detail, state
        What its calls asked for (given to the transform).
    builds
        Datasets built from its answers.
    needs
        Tables of the same blocks its transform needs.
    endpoint
        URL its calls went to.
    """

    source: str
    transform: str
    detail: frozenset[str]
    state: Mapping[str, Any]
    builds: tuple[str, ...]
    needs: tuple[str, ...]
    endpoint: str


@dataclass(frozen=True)
class ChunkSpec:
    """Everything the conversion of one chunk needs to know (plain, picklable data).

    Attributes
    ----------
    chain_id, shard, first, last
        The chunk.
    jobs
        The sources fetched for it.
    from_cache
        Needed tables read from the cache (they are cached for the whole chunk).
    store
        Tables written to the cache (only for the blocks it lacks), or kept (no cache).
    per_block
        Datasets with exactly one row per block.
    """

    chain_id: str
    shard: int
    first: int
    last: int
    jobs: tuple[SourceJob, ...]
    from_cache: tuple[str, ...]
    store: tuple[str, ...]
    per_block: tuple[str, ...]


@dataclass
class ChunkResult:
    """What a finished chunk reports: rows per dataset, and the tables when there is no cache."""

    rows: dict[str, int] = field(default_factory=dict)
    tables: dict[str, pa.Table] | None = None


_transforms: dict[str, Callable[[Answers], Mapping[str, pa.Table]]] = {}


def _transform(path: str) -> Callable[[Answers], Mapping[str, pa.Table]]:
    function = _transforms.get(path)
    if function is None:
        module, _, name = path.partition(":")
        function = _transforms[path] = getattr(importlib.import_module(module), name)
    return function


def _covers(spans: list[tuple[int, int]], first: int, last: int) -> bool:
    cursor = first
    for a, b in sorted(spans):
        if a > cursor:
            return False
        cursor = max(cursor, b + 1)
        if cursor > last:
            return True
    return cursor > last


class ChunkWork:
    """The conversion of one chunk (see the module docstring).

    Parameters
    ----------
    spec
        What to build and store.
    cache
        Where to write (``None``: the tables are handed back).
    """

    def __init__(self, spec: ChunkSpec, cache: Cache | None) -> None:
        self.spec = spec
        self.cache = cache
        self.parts: dict[str, list[tuple[int, int, pa.Table]]] = {}
        self.pending: list[tuple[SourceJob, int, int, tuple[Call, ...], list[bytes]]] = []
        self._cached: dict[str, pa.Table] = {}
        for job in spec.jobs:
            _transform(job.transform)  # imports the module defining the source and its datasets

    # -- pieces ---------------------------------------------------------------------------

    def add(self, job_index: int, first: int, last: int, calls: tuple[Call, ...], payloads: list[bytes]) -> None:
        """One piece's answers; converted now if what it needs is there, else when it is."""
        self.pending.append((self.spec.jobs[job_index], first, last, calls, payloads))
        self._convert_ready()

    def _convert_ready(self) -> None:
        progress = True
        while progress and self.pending:
            progress = False
            for item in list(self.pending):
                job, first, last, calls, payloads = item
                needed = self._needed(job, first, last)
                if needed is None:
                    continue
                self.pending.remove(item)
                self._convert(job, first, last, calls, payloads, needed)
                progress = True

    def _needed(self, job: SourceJob, first: int, last: int) -> dict[str, pa.Table] | None:
        needed: dict[str, pa.Table] = {}
        for name in job.needs:
            if name in self.spec.from_cache:
                needed[name] = self._from_cache(name)
                continue
            parts = self.parts.get(name, [])
            if not _covers([(a, b) for a, b, _ in parts], first, last):
                return None
            chosen = [t for a, b, t in sorted(parts, key=lambda p: p[0]) if b >= first and a <= last]
            needed[name] = pa.concat_tables(chosen) if len(chosen) > 1 else chosen[0]
        return needed

    def _from_cache(self, name: str) -> pa.Table:
        table = self._cached.get(name)
        if table is None:
            assert self.cache is not None
            spec = self.spec
            table = self.cache.read_range(spec.chain_id, ds.get(name), spec.shard, spec.first, spec.last)
            self._cached[name] = table
        return table

    def _convert(
        self,
        job: SourceJob,
        first: int,
        last: int,
        calls: tuple[Call, ...],
        payloads: list[bytes],
        needed: dict[str, pa.Table],
    ) -> None:
        answers = Answers(
            shard=self.spec.shard,
            first=first,
            last=last,
            detail=job.detail,
            state=job.state,
            builds=job.builds,
            calls=calls,
            payloads=payloads,
            needed=needed,
            endpoint=job.endpoint,
        )
        tables = _transform(job.transform)(answers)
        for name in job.builds:
            self.parts.setdefault(name, []).append((first, last, tables[name]))

    # -- the end --------------------------------------------------------------------------

    def finish(self) -> ChunkResult:
        """Put the pieces together, check them and write them (or hand them back)."""
        self._convert_ready()
        spec = self.spec
        if self.pending:
            job = self.pending[0][0]
            raise ResponseShapeError(
                job.source,
                "needs",
                list(job.needs),
                f"tables of blocks {spec.first}..{spec.last} to convert its answers (not fetched)",
            )
        result = ChunkResult(tables={} if self.cache is None else None)
        for job in spec.jobs:
            for name in job.builds:
                table = self._table(name)
                _check_within(table, spec.first, spec.last, name, spec.shard)
                if name in spec.per_block:
                    _check_each_block(table, spec.first, spec.last, name, spec.shard)
                if name not in spec.store:
                    continue
                result.rows[name] = table.num_rows
                if self.cache is None:
                    assert result.tables is not None
                    result.tables[name] = table
                else:
                    self._write(name, table)
        return result

    def _table(self, name: str) -> pa.Table:
        parts = sorted(self.parts.get(name, []), key=lambda p: p[0])
        if not parts:
            return ds.get(name).schema.empty_table()
        table = pa.concat_tables([t for _, _, t in parts]) if len(parts) > 1 else parts[0][2]
        return table.combine_chunks() if len(parts) > 1 else table

    def _write(self, name: str, table: pa.Table) -> None:
        """Write the blocks of the chunk the cache lacks (files never overlap, also when part of
        the chunk was cached by an earlier, narrower fetch)."""
        assert self.cache is not None
        spec, dataset = self.spec, ds.get(name)
        for a, b in self.cache.missing(spec.chain_id, dataset, spec.shard, spec.first, spec.last):
            part = table if (a, b) == (spec.first, spec.last) else _between(table, a, b)
            self.cache.write_range(spec.chain_id, dataset, spec.shard, a, b, part)


def _between(table: pa.Table, lo: int, hi: int) -> pa.Table:
    column = table["block_number"]
    return table.filter(pc.and_(pc.greater_equal(column, lo), pc.less_equal(column, hi)))


def _check_within(table: pa.Table, first: int, last: int, name: str, shard: int) -> None:
    """Every row belongs to one of the chunk's blocks."""
    if table.num_rows == 0:
        return
    bounds = pc.min_max(table["block_number"]).as_py()
    lo, hi = bounds["min"], bounds["max"]
    if lo is None or hi is None or lo < first or hi > last or table["block_number"].null_count:
        raise ResponseShapeError(
            name, "block_number", (lo, hi), f"rows of blocks {first}..{last} of shard {shard} only"
        )


def _check_each_block(table: pa.Table, first: int, last: int, name: str, shard: int) -> None:
    """A one-row-per-block table holds each block of ``first..last`` exactly once."""
    numbers = table["block_number"].to_pylist()
    if numbers != list(range(first, last + 1)):
        got = sorted({n for n in numbers if n is not None})
        missing = sorted(set(range(first, last + 1)) - set(got))
        extra = sorted(set(got) - set(range(first, last + 1)))
        dup = len(numbers) - len(got)
        raise ResponseShapeError(
            name,
            "blocks",
            f"shard {shard} blocks {first}..{last}: missing {missing[:5]}, unexpected {extra[:5]}, duplicates {dup}",
            "each requested block exactly once",
        )


# --------------------------------------------------------------------------- the host


class Host:
    """The chunks of one conversion process (or thread), driven by messages.

    Messages (tuples) and the replies they cause:

    * ``("init", sys_path)``: see the modules the fetching process sees (:func:`prepare`);
    * ``("cache", key, cache)``: remember a :class:`~hmyframe.cache.Cache` under ``key``;
    * ``("begin", cid, spec, cache_key)``: start chunk ``cid`` (``cache_key`` ``None``: no cache);
    * ``("piece", cid, job, first, last, calls, payloads)``: one piece's answers;
    * ``("finish", cid)``: reply ``("done", cid, ChunkResult)``;
    * ``("abort", cid)``: forget the chunk.

    A failing piece or finish replies ``("failed", cid, error)`` at once (``("refetch", cid,
    state, reason)`` for :class:`~hmyframe.datasets.sources.Refetch`); the chunk's later
    messages are ignored.

    Parameters
    ----------
    reply
        Called with each reply.
    """

    def __init__(self, reply: Callable[[tuple[Any, ...]], None]) -> None:
        self.reply = reply
        self.caches: dict[int, Cache] = {}
        self.works: dict[int, ChunkWork] = {}
        self.dead: set[int] = set()

    def handle(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "init":
            prepare(message[1])
            return
        if kind == "cache":
            self.caches[message[1]] = message[2]
            return
        cid = message[1]
        if kind == "abort":
            self.works.pop(cid, None)
            self.dead.discard(cid)
            return
        if cid in self.dead:
            if kind == "finish":
                self.dead.discard(cid)
            return
        try:
            if kind == "begin":
                key = message[3]
                self.works[cid] = ChunkWork(message[2], None if key is None else self.caches[key])
            elif kind == "piece":
                self.works[cid].add(*message[2:])
            elif kind == "finish":
                result = self.works.pop(cid).finish()
                self.reply(("done", cid, result))
            else:
                raise ValueError(f"unknown message {kind!r}")
        except Refetch as exc:
            self._fail(cid, kind, ("refetch", cid, exc.state, exc.reason))
        except HmyframeError as exc:
            self._fail(cid, kind, ("failed", cid, exc))
        except Exception as exc:  # noqa: BLE001  (a bug: reported with its traceback, the fetch goes on failing)
            detail = "".join(traceback.format_exception(exc)).rstrip()
            self._fail(cid, kind, ("failed", cid, RuntimeError(f"conversion failed in process {os.getpid()}:\n{detail}")))

    def _fail(self, cid: int, kind: str, reply: tuple[Any, ...]) -> None:
        self.works.pop(cid, None)
        if kind != "finish":
            self.dead.add(cid)
        self.reply(reply)


def prepare(sys_path: list[str]) -> None:
    """Let a conversion process import what the fetching one can (its ``sys.path`` entries
    first), so the transforms of sources defined outside the package are found."""
    for entry in reversed(sys_path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
