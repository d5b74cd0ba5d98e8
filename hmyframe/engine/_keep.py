"""A chunk's converted pieces kept in the cache while it is fetched: resume by piece.

A chunk is written only when all of it has arrived and passed its checks. Under a node rate
limit of 5 calls/s a chunk of 1,000 blocks takes 200 s, and a failure (an endpoint gone for
longer than the retries, a time budget spent, the process killed) lost every piece of it. Now
the converted tables of its pieces go to piece files (:mod:`hmyframe.cache._pieces`: hidden,
atomic, self-checking, never read as cache):

* **when a chunk has been open :data:`KEEP_AFTER` seconds** (10 s), every piece it converts
  from then on, with those converted before: a fetch that ends any way at all, a kill included,
  keeps them. A chunk that completes sooner (any chunk without a low limit) writes no piece;
* **when a chunk fails for its endpoint** (:func:`~hmyframe.rpc.endpoint_fault`: a status,
  a timeout, a reset, a rate refusal past the retries), every piece it had converted.

A rerun (or the same fetch's next attempt at the chunk) takes the blocks its pieces hold from
them and asks the node only for the rest: the requests of a piece are the gaps between its kept
parts. The parts are put back together as one array a column, as the piece asked at once makes
them, so the files are the same as a clean fetch's. The chunk's write takes them in and removes
them (in the writer thread, after their own writes: it runs one job at a time, in order); its
provenance names every fetch its rows came from. A chunk that fails for a bad answer keeps
nothing (its pieces are removed): a chunk with a bad answer caches nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from hmyframe import _provenance
from hmyframe._lazy import lazy_module
from hmyframe.engine._workers import get_dataset
from hmyframe.errors import HmyframeError
from hmyframe.rpc import endpoint_fault

if TYPE_CHECKING:
    import pyarrow as pa

    from hmyframe.cache import Cache
else:
    pa = lazy_module("pyarrow")

__all__ = ["KEEP_AFTER", "KeptPieces"]

_log = logging.getLogger("hmyframe")

#: Seconds a chunk is open before its converted pieces are kept as they arrive.
KEEP_AFTER = 10.0


class KeptPieces:
    """The kept pieces of one source's chunk (see the module docstring).

    Parameters
    ----------
    cache, chain_id, shard
        Where the pieces are kept.
    first, last
        The chunk.
    builds
        The datasets a piece of the source converts to: a piece is kept, and taken, for all of
        them.
    writer
        The fetch's writer thread (piece files are written, read and removed there).
    opened
        When the chunk opened (``time.monotonic()``).
    provenance
        The provenance of what this fetch asks (``None``: not known yet).
    """

    def __init__(
        self,
        cache: Cache,
        chain_id: str,
        shard: int,
        first: int,
        last: int,
        builds: Iterable[str],
        writer: concurrent.futures.Executor,
        opened: float,
        provenance: Callable[[], _provenance.Provenance | None],
    ) -> None:
        self.cache = cache
        self.chain_id = chain_id
        self.shard = shard
        self.first = first
        self.last = last
        self.builds = tuple(builds)
        self.writer = writer
        self.opened = opened
        self.provenance = provenance
        self.held: dict[tuple[int, int], dict[str, Any]] = {}  # span -> dataset -> piece file
        self.taken: list[dict[str, str]] = []  # provenance records of the pieces taken
        self.arrived: dict[tuple[int, int], Mapping[str, pa.Table]] = {}  # converted, not kept yet
        self.keeping = False
        self.touched = False  # pieces were found or kept: remove them after the chunk's write

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    # ------------------------------------------------------------------ taking

    async def load(self) -> None:
        """Find the pieces kept of this chunk: spans held for every dataset of ``builds``."""
        self.held = await self._run(self._find)
        self.touched = bool(self.held)

    def _find(self) -> dict[tuple[int, int], dict[str, Any]]:
        spans: dict[tuple[int, int], dict[str, Any]] = {}
        for name in self.builds:
            found = self.cache.pieces.held(
                self.chain_id, get_dataset(name), self.shard, self.first, self.last
            )
            for a, b, path in found:
                spans.setdefault((a, b), {})[name] = path
        return {span: paths for span, paths in spans.items() if len(paths) == len(self.builds)}

    def covering(self, first: int, last: int) -> list[tuple[int, int]]:
        """The kept spans inside blocks ``first..last``, in block order."""
        return sorted(span for span in self.held if first <= span[0] and span[1] <= last)

    async def tables(self, first: int, last: int) -> dict[str, pa.Table]:
        """The tables of the kept span ``first..last`` (read in the writer thread)."""
        paths = self.held.pop((first, last))
        read = await self._run(self._read, paths)
        tables: dict[str, pa.Table] = {}
        for name, (table, record) in read.items():
            tables[name] = table
            if record not in self.taken:
                self.taken.append(record)
        return tables

    def _read(self, paths: Mapping[str, Any]) -> dict[str, tuple[pa.Table, dict[str, str]]]:
        return {name: self.cache.pieces.read(get_dataset(name), path) for name, path in paths.items()}

    def chunk_provenance(self, current: _provenance.Provenance | None) -> _provenance.Provenance | None:
        """The chunk's provenance: this fetch's, and every earlier one its kept pieces came from."""
        if not self.taken:
            return current
        mine = _provenance.from_footer(_provenance.footer(current)) if current is not None else {}
        return _provenance.of_files([*self.taken, mine])

    # ------------------------------------------------------------------ keeping

    def due(self) -> bool:
        """Whether the chunk is old enough for its pieces to be kept as they are converted (then
        a small answer is converted as it arrives, not held to be converted with the others)."""
        if not self.keeping and time.monotonic() - self.opened >= KEEP_AFTER:
            self.keeping = True
        return self.keeping

    def converted(self, first: int, last: int, tables: Mapping[str, pa.Table]) -> None:
        """A piece of blocks ``first..last`` was converted: kept now if the chunk is old enough
        (with those converted before), else remembered in case the chunk fails."""
        self.arrived[(first, last)] = tables
        if self.due():
            self.keep()

    def keep(self) -> None:
        """Hand every converted piece not kept yet to the writer thread (it writes them before
        anything submitted after: the chunk's own write and the removal of its pieces)."""
        arrived, self.arrived = self.arrived, {}
        if arrived:
            self.touched = True
            self.writer.submit(self._write, arrived, self.provenance())

    def _write(
        self,
        arrived: Mapping[tuple[int, int], Mapping[str, pa.Table]],
        provenance: _provenance.Provenance | None,
    ) -> None:
        for (a, b), tables in arrived.items():
            for name, table in tables.items():
                if name not in self.builds:
                    continue
                try:
                    self.cache.pieces.write(
                        self.chain_id, get_dataset(name), self.shard, a, b, table, provenance
                    )
                except HmyframeError as exc:  # (a piece not kept is asked again: nothing is lost)
                    _log.debug("hmyframe: piece %d..%d of %s not kept: %s", a, b, name, exc)

    def failed(self, error: BaseException) -> None:
        """The source's chunk failed with ``error``: keep what arrived if the endpoint is to blame
        (or the fetch was cancelled), else remove every piece of the chunk."""
        if endpoint_fault(error) or isinstance(error, asyncio.CancelledError | KeyboardInterrupt):
            self.keep()
        else:
            self.arrived = {}
            self.touched = True
            self.drop()

    def drop(self) -> None:
        """Remove the chunk's pieces (after its write, or for a bad answer), in the writer thread."""
        if self.touched:
            self.writer.submit(self._drop)

    def _drop(self) -> None:
        for name in self.builds:
            self.cache.pieces.drop(self.chain_id, name, self.shard, self.first, self.last)
