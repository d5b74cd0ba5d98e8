"""Block-range fetching: one driver for every dataset keyed by block.

The driver names no dataset: what to ask and how to convert the answers comes from the range
sources (:mod:`hmyframe.datasets.sources`), each declaring the datasets its answers fill, the
detail each needs, its calls for a chunk, its transform, the tables of the same blocks its
conversion needs and how far behind the head its blocks are complete.

1. The range is compared with the cache; only the missing blocks are fetched (a fully cached
   range sends no request at all).
2. Missing blocks are cut into chunks aligned on multiples of ``chunk_size``; chunks are fetched
   ``max_concurrent_chunks`` at a time, each source's calls for a chunk all in flight together
   under the client's bound.
3. A chunk asks each source for what the wanted datasets need (the union of their
   :attr:`~hmyframe.datasets.sources.Fill.detail`), and builds from the answers every dataset the
   source fills with that detail (one fetch of full blocks makes blocks, transactions and
   staking transactions). A dataset whose conversion needs another one's table of the same
   blocks (:attr:`~hmyframe.datasets.sources.Fill.needs`) gets it from the cache, or has it
   built in the same chunk: every source's calls go out at once (traces with their blocks),
   and a piece is converted once the tables it needs are built (dependency order); only a
   source that plans from those tables (receipts, by the blocks' hashes) sends its calls after.
   A table a conversion merely checks against (:attr:`~hmyframe.datasets.sources.Fill.uses`:
   logs against receipts) is waited for only when it is built in the same chunk, and left out
   if its source fails. A needed *side table* (:attr:`~hmyframe.datasets.sources.Fill.side`:
   the headers' hash lists logs are resolved through) is built in the chunk and never written,
   unless the datasets it stands for are all at hand (:func:`~hmyframe.datasets.sources.chunk_needs`).
4. **Pipeline.** Each piece of a chunk (one ``getBlocks`` answer, a batch of ``trace_block``
   answers) is converted as soon as it arrives, off the event loop: in a conversion thread
   (:data:`~hmyframe.engine._workers.CONVERT_THREADS`), or in a pool of worker processes with
   ``FetchOptions.convert_processes`` (other cores; a worker that dies fails its chunk with a
   :class:`~hmyframe.errors.ConversionWorkerError`, nothing of it kept). A writer thread then
   puts the chunk's pieces together, checks and writes them. So requests keep going out and
   answers keep arriving while earlier ones are converted and written. Each table is
   checked (rows only of the chunk's blocks; each block exactly once for a one-row-per-block
   dataset) and written to the cache atomically, only for the blocks the cache still lacks,
   before the chunk counts as done: an interrupted fetch resumes where it stopped, and a chunk
   is never half-written. A chunk open for a while (under a low node rate limit), or failing
   for its endpoint, keeps the pieces it converted in hidden piece files
   (:mod:`hmyframe.engine._keep`): a rerun asks the node only for the blocks they lack. What is held meanwhile is bounded in bytes
   (:class:`~hmyframe.engine._hand.Hand`): pieces in hand go to the oldest chunk first, answers
   in hand and converted tables not yet written have a ceiling, and ``blocks_per_request`` is
   lowered where answers seen were large, or where the node's rate limit asks for smaller
   requests (:mod:`hmyframe.rpc.window`); the files do not depend on it.
5. A call the node refuses may switch the source to another plan (its ``fallback``), and a
   transform may ask for the chunk to be fetched again with other settings
   (:class:`~hmyframe.datasets.sources.Refetch`); either is kept for the rest of the fetch.
6. Results are read back in block order, so they are the same whatever order answers arrived in.
7. A chunk that fails does not cost the others (:func:`~hmyframe.engine._chunks.run_chunks`): the
   error raised at the end names the blocks not fetched, and a rerun fetches only those. The
   endpoints are checked to serve this chain before anything is written.

Several shards (``shard="all"`` or a list) are fetched concurrently by :func:`fetch_shards`,
each resolved, fetched and cached as a fetch of one shard; the tables are concatenated in shard
order.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hmyframe import _provenance
from hmyframe._lazy import lazy_module
from hmyframe._spans import block_slice, merge
from hmyframe._tasks import gather_or_raise
from hmyframe.datasets import sources
from hmyframe.datasets.sources import RANGE_DATASETS, Answers, ChunkRequest, Piece, RangeSource, Refetch
from hmyframe.engine._blocks import resolve_range
from hmyframe.engine._chunks import run_chunks
from hmyframe.engine._hand import Hand
from hmyframe.engine._keep import KeptPieces
from hmyframe.engine._origin import of_session
from hmyframe.engine._prefetch import prefetch_range
from hmyframe.engine._session import Session, block_arg
from hmyframe.engine._workers import (
    SMALL_PIECE,
    ChunkJob,
    PieceJob,
    assemble_chunk,
    convert_piece,
    convert_pieces,
    converter_for,
    get_dataset,
    write_chunk,
)
from hmyframe.errors import ConfigError, ConversionWorkerError, HmyframeError, ResponseShapeError, short_repr
from hmyframe.rpc import call_cost, endpoint_fault

if TYPE_CHECKING:
    import pyarrow as pa

else:
    pa = lazy_module("pyarrow")

__all__ = [
    "RANGE_DATASETS",
    "fetch_range",
    "fetch_shards",
    "plan_range",
    "prefetch_range",
    "split_aligned",
]


ProgressFn = Callable[[int], None]

#: Pieces fetched beyond ``max_in_flight`` before earlier ones are converted (per shard):
#: enough to keep requests going out while the converter catches up, not every chunk's answers.
PIECES_AHEAD = 2


def split_aligned(gaps: Iterable[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """Cut inclusive block ranges at multiples of ``size``.

    >>> split_aligned([(5, 25)], 10)
    [(5, 9), (10, 19), (20, 25)]
    """
    out: list[tuple[int, int]] = []
    for start, end in gaps:
        cursor = start
        while cursor <= end:
            stop = min(end, (cursor // size + 1) * size - 1)
            out.append((cursor, stop))
            cursor = stop + 1
    return out


# --------------------------------------------------------------------------- the driver


class _RangeFetch:
    """One call of :func:`fetch_range` (the state shared by its chunks)."""

    def __init__(
        self,
        session: Session,
        names: Sequence[str],
        shard: int,
        progress: ProgressFn | None,
        converter: concurrent.futures.Executor,
        writer: concurrent.futures.Executor,
    ) -> None:
        self.session = session
        self.names = list(dict.fromkeys(names))
        self.shard = shard
        self.progress = progress
        self.tails = 0  # the chunk size when a follower writes (fetch_range's `tails`)
        # pieces are converted by `converter` (threads or worker processes) as they arrive;
        # chunks are put together, checked and written by `writer` (a thread of this process)
        self.converter = converter
        self.writer = writer
        self.chain_id = ""
        # where the chunks come from, by whether their source asks the trace endpoint
        self.sources: dict[bool, _provenance.Provenance] = {}
        self.asking: dict[bool, asyncio.Future[_provenance.Provenance]] = {}  # (being asked)
        # what each source learnt from earlier chunks (fallbacks, refetches)
        self.states: dict[str, dict[str, Any]] = {}
        self.memory: dict[str, list[tuple[int, pa.Table]]] = {n: [] for n in self.names}
        # answers fetched and not yet converted, and converted tables not yet written, bounded
        # in bytes, the oldest chunk first: every chunk in flight piling up its answers, then its
        # tables, was the peak of a long export's memory (see _hand)
        self.hand = Hand(session.options.max_in_flight + PIECES_AHEAD)
        self.opened: dict[int, float] = {}  # open chunk -> when it opened (its pieces kept after a while)

    def missing(self, name: str, start: int, end: int) -> list[tuple[int, int]]:
        cache = self.session.cache
        if cache is None:
            return [(start, end)]
        return cache.missing(self.chain_id, get_dataset(name), self.shard, start, end)

    @staticmethod
    async def _run(executor: concurrent.futures.Executor, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)

    async def chunk(self, start: int, end: int) -> None:
        self.hand.open(start)
        self.opened.setdefault(start, time.monotonic())
        try:
            await self._chunk(start, end)
        finally:
            self.hand.close(start)
            self.opened.pop(start, None)

    def kept_pieces(
        self, source: RangeSource, request: ChunkRequest, builds: Iterable[str]
    ) -> KeptPieces | None:
        """Where ``source``'s pieces of the chunk of ``request`` are kept while it is fetched
        (:mod:`hmyframe.engine._keep`); ``None`` without a cache, or for a follower's writes."""
        cache = self.session.cache
        if cache is None or self.tails:
            return None
        trace = source.trace_endpoint

        def provenance() -> _provenance.Provenance | None:
            known = self.sources.get(trace)
            asked = self.asking.get(trace)
            if known is None and asked is not None and asked.done() and not asked.cancelled():
                known = None if asked.exception() is not None else asked.result()
            return None if known is None else known.now()

        opened = self.opened.get(request.first, time.monotonic())
        return KeptPieces(
            cache,
            self.chain_id,
            self.shard,
            request.first,
            request.last,
            builds,
            self.writer,
            opened,
            provenance,
        )

    async def _chunk(self, start: int, end: int) -> None:
        wanted = [n for n in self.names if self.missing(n, start, end)]
        if not wanted:
            return
        cache = self.session.cache
        known: dict[str, bool] = {}

        def cached(name: str) -> bool:
            if name not in known:
                known[name] = cache is not None and not self.missing(name, start, end)
            return known[name]

        # (a side table is needed where the datasets it stands in for are not all at hand)
        needs = sources.chunk_needs(wanted, cached)
        build = dict.fromkeys(wanted)
        needed: dict[str, pa.Table] = {}
        for name in wanted:
            for need in needs[name]:
                if need in build or need in needed:
                    continue
                if cache is not None and not sources.fill_of(need).side and cached(need):
                    needed[need] = await self._run(
                        self.writer,
                        cache.read_range,
                        self.chain_id,
                        get_dataset(need),
                        self.shard,
                        start,
                        end,
                    )
                else:
                    build[need] = None  # built first, in this chunk
        # every source's calls go out at once; a source whose conversion needs another's table
        # of this chunk waits for it (converted in dependency order), and so does its plan when
        # the plan takes its params from that table
        wants = {
            name: (*needs.get(name, sources.fill_of(name).needs), *sources.fill_of(name).uses)
            for name in build
        }
        loop = asyncio.get_running_loop()
        made: dict[str, asyncio.Future[pa.Table]] = {
            n: loop.create_future()
            for name in build
            for n in needs.get(name, sources.fill_of(name).needs)
            if n not in needed
        }
        # a table a conversion checks against when it is built in this chunk (Fill.uses)
        for name in build:
            for n in sources.fill_of(name).uses:
                if n in build and n not in made:
                    made[n] = loop.create_future()

        def built(tables: Mapping[str, pa.Table]) -> None:
            for name, table in tables.items():
                if name in made and not made[name].done():
                    made[name].set_result(table)

        failures: list[BaseException] = []

        async def one(source: RangeSource, names: list[str]) -> None:
            pending = {n: made[n] for name in names for n in wants[name] if n in made}
            try:
                tables = await self.run_source(source, names, start, end, needed, pending, built)
            except Exception as error:  # noqa: BLE001 (any failure must release those waiting)
                failures.append(error)
                for name in source.fills:  # the sources waiting for these tables fail too
                    if name in made and not made[name].done():
                        made[name].set_exception(error)
                        made[name].exception()  # (retrieved: waiting sources re-raise it)
                return
            for name, table in tables.items():
                if name in self.memory and cache is None:
                    self.memory[name].append((start, table))

        # a source that fails costs no other: what the others built is kept (written)
        await asyncio.gather(*(one(source, names) for source, names in _in_order(build, wants)))
        if failures:
            raise failures[0]
        if self.progress is not None:
            self.progress(end - start + 1)

    async def run_source(
        self,
        source: RangeSource,
        names: Sequence[str],
        start: int,
        end: int,
        needed: Mapping[str, pa.Table],
        pending: Mapping[str, asyncio.Future[pa.Table]],
        built: Callable[[Mapping[str, pa.Table]], None],
    ) -> dict[str, pa.Table]:
        """Fetch one source's answers for blocks ``start..end``, converting each piece as it arrives.

        ``needed`` holds the tables its datasets need that are at hand (read from the cache);
        ``pending`` those still being built in this chunk by other sources: the calls go out
        at once (unless the source plans from its needed tables), each piece's conversion
        waits for them. ``built`` is given the chunk's checked tables before they are written.

        Each attempt is a :class:`_SourceChunk`; a call the node refuses may switch the source
        to its fallback, and a transform may ask for the chunk again with other settings
        (:class:`~hmyframe.datasets.sources.Refetch`): either is kept in the source's state for
        the rest of the fetch, and the chunk is tried again with it.
        """
        # a table its conversions only check against (Fill.uses) is left out if its source fails
        optional = {n for name in names for n in sources.fill_of(name).uses} - {
            n for name in names for n in sources.fill_of(name).needs
        }
        if pending and source.plans_from_needed:
            needed = {**needed, **await _tables(pending, optional)}
            pending = {}
        options = self.session.options
        state = self.states.setdefault(source.name, {})
        detail = frozenset().union(*(source.fills[n].detail for n in names))
        endpoint = await self.session.client.endpoint_url(self.shard, trace=source.trace_endpoint)
        for _attempt in range(8):
            request = ChunkRequest(
                first=start,
                last=end,
                detail=detail,
                rpc=self.session.methods,
                blocks_per_request=options.blocks_per_request,
                strategy=options.strategy,
                state=dict(state),
                needed=needed,
            )
            attempt = _SourceChunk(self, source, request, pending, optional, endpoint)
            try:
                parts = await attempt.parts()
            except concurrent.futures.BrokenExecutor as error:
                if not _worker_died(error):
                    raise
                raise ConversionWorkerError(
                    f"a conversion worker process died converting blocks {start}..{end} of shard "
                    f"{self.shard} ({source.name}: {str(error) or 'killed'}); nothing of these blocks was kept"
                ) from None
            except Refetch as refetch:
                if all(request.state.get(k) == v for k, v in refetch.state.items()):
                    raise ResponseShapeError(
                        source.name,
                        "answers",
                        refetch.reason,
                        f"answers that fetching again with {short_repr(refetch.state)} can convert",
                    ) from None
                state.update(refetch.state)
                continue
            except HmyframeError as error:
                update = source.fallback(request.state, error) if source.fallback is not None else None
                if update is None:
                    raise
                state.update(update)
                continue
            return await self._write(source, start, end, parts, attempt.builds, built, attempt.kept)
        raise ResponseShapeError(source.name, "answers", f"blocks {start}..{end}", "a plan that converges")

    async def _write(
        self,
        source: RangeSource,
        start: int,
        end: int,
        parts: list[dict[str, pa.Table]],
        builds: Iterable[str],
        built: Callable[[Mapping[str, pa.Table]], None],
        kept: KeptPieces | None = None,
    ) -> dict[str, pa.Table]:
        """Put a source's parts of the chunk together, check them, hand them to ``built`` (others'
        conversions wait for these, not for their writing) and write them; the chunk's kept
        pieces are then removed (:mod:`hmyframe.engine._keep`)."""
        provenance = await self._provenance(source.trace_endpoint)
        job = ChunkJob(
            shard=self.shard,
            first=start,
            last=end,
            parts=parts,
            per_block=frozenset(n for n in builds if source.fills[n].per_block),
            cache=self.session.cache,
            chain_id=self.chain_id,
            provenance=provenance if kept is None else kept.chunk_provenance(provenance),
            tails=self.tails,
        )
        try:
            tables: dict[str, pa.Table] = await self._run(self.writer, assemble_chunk, job)
            built(tables)
            await self._run(self.writer, write_chunk, job, tables)
        except BaseException as error:
            if kept is not None:
                kept.failed(error)
            raise
        if kept is not None:
            kept.drop()
        return tables

    def ask_provenance(self, chunks: Sequence[tuple[int, int]]) -> None:
        """Ask where the chunks will come from (the node's version: one request) with their first
        data requests, so the first chunk's write does not wait a round trip for it."""
        if self.session.cache is None or not chunks:
            return
        for trace in {source.trace_endpoint for source, _ in _in_order(self.names)}:
            if trace not in self.asking:
                task = asyncio.ensure_future(of_session(self.session, self.shard, trace=trace))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (awaited at the write)
                self.asking[trace] = task

    async def _provenance(self, trace: bool) -> _provenance.Provenance | None:
        """The provenance of a chunk fetched now (``None`` without a cache: nothing is written)."""
        if self.session.cache is None:
            return None
        if trace not in self.sources:
            asked = self.asking.pop(trace, None)
            self.sources[trace] = await (asked or of_session(self.session, self.shard, trace=trace))
        return self.sources[trace].now()

    async def _piece(self, piece: Piece) -> tuple[bytes, ...]:
        return tuple(await gather_or_raise(self._call(call) for call in piece.calls))

    async def _call(self, call: sources.Call) -> bytes:
        """The answer to ``call``: the one asked with the first contact if any (``_prefetch``)."""
        session = self.session
        guessed = (
            await session.take_prefetched(self.shard, call.method, call.params)
            if session.prefetched
            else None
        )
        if isinstance(guessed, bytes):
            return guessed  # (a guess that failed is asked again: its error may not last)
        client = self.session.client
        return await client.request_raw(call.method, list(call.params), shard=self.shard, trace=call.trace)

    def result(self, name: str, start: int, end: int) -> pa.Table:
        dataset = get_dataset(name)
        cache = self.session.cache
        if cache is not None:
            return cache.read_range(self.chain_id, dataset, self.shard, start, end)
        parts = [t for _, t in sorted(self.memory[name], key=lambda item: item[0])]
        return pa.concat_tables(parts) if parts else dataset.schema.empty_table()


class _SourceChunk:
    """One attempt at one source's answers for one chunk: its pieces asked, converted as they
    arrive (off the event loop), and returned as the chunk's parts.

    A piece of a source without needed tables is asked in requests sized by the answers seen so
    far (:meth:`~hmyframe.engine._hand.Hand.step`) and put back together; a small answer of a
    source with ``merge_pieces`` waits for the chunk's other small ones (its slot freed) and
    they are converted together, paying the fixed cost once. A piece whose conversion needs
    tables still being built in this chunk (``pending``) waits for them. Made afresh for each
    attempt of :meth:`_RangeFetch.run_source`, which retries outside it.
    """

    def __init__(
        self,
        fetch: _RangeFetch,
        source: RangeSource,
        request: ChunkRequest,
        pending: Mapping[str, asyncio.Future[pa.Table]],
        optional: set[str],
        endpoint: str,
    ) -> None:
        self.fetch = fetch
        self.source = source
        self.request = request
        self.pending = pending
        self.optional = optional  # pending tables only checked against: left out if they fail
        self.endpoint = endpoint
        self.builds = source.builds_for(request.detail)
        # (the pieces, the tables' layout, stay the option's whatever the requests' size)
        self.sized = not any(f.needs for f in source.fills.values())
        self.small: dict[int, PieceJob] = {}  # piece index -> its job, converted with the others
        self.kept = fetch.kept_pieces(source, request, self.builds)

    async def parts(self) -> list[dict[str, pa.Table]]:
        """The converted tables of every piece of the chunk, in piece order."""
        plan = self.source.plan(self.request)
        if self.kept is not None:
            await self.kept.load()
        try:
            got = await gather_or_raise(self._piece_tables(i, piece) for i, piece in enumerate(plan))
            if self.small:
                order = sorted(self.small)
                converted = await self.fetch._run(
                    self.fetch.converter, convert_pieces, [self.small[i] for i in order]
                )
                for i, part in zip(order, converted, strict=True):
                    got[i] = part
        except BaseException as error:
            if self.kept is not None:
                await self._keep_small(plan, error)
                self.kept.failed(error)
            raise
        return [part for part in got if part is not None]

    async def _keep_small(self, plan: Sequence[Piece], error: BaseException) -> None:
        """The small answers held for converting together, converted to be kept (the chunk failed
        for its endpoint: what arrived is kept)."""
        if not self.small or not endpoint_fault(error) or self.kept is None:
            return
        order = sorted(self.small)
        try:
            converted = await self.fetch._run(
                self.fetch.converter, convert_pieces, [self.small[i] for i in order]
            )
        except Exception:  # noqa: BLE001 (answers that do not convert are not kept)
            return
        for i, tables in zip(order, converted, strict=True):
            self.kept.converted(plan[i].first, plan[i].last, tables)

    def _converted(self, piece: Piece, tables: Mapping[str, pa.Table]) -> None:
        if self.kept is not None:
            self.kept.converted(piece.first, piece.last, tables)

    async def _piece_tables(self, index: int | None, piece: Piece) -> dict[str, pa.Table] | None:
        kept = self.kept
        if kept is not None and kept.held:
            spans = kept.covering(piece.first, piece.last)
            if spans:
                return await self._with_kept(piece, spans)
        return await self._fresh_tables(index, piece)

    async def _with_kept(self, piece: Piece, held: list[tuple[int, int]]) -> dict[str, pa.Table]:
        """``piece``'s tables from its kept spans ``held`` and its other blocks asked (the gaps,
        planned as pieces of their own), put back together as one array a column."""
        assert self.kept is not None
        parts: list[dict[str, pa.Table]] = []
        cursor = piece.first
        for a, b in [*held, (piece.last + 1, piece.last)]:
            if a > cursor:  # a gap: asked
                gap = replace(self.request, first=cursor, last=a - 1, blocks_per_request=a - cursor)
                got = await gather_or_raise(self._fresh_tables(None, sub) for sub in self.source.plan(gap))
                parts.extend(part for part in got if part is not None)
            if b >= a:
                parts.append(await self.kept.tables(a, b))
            cursor = b + 1
        names = dict.fromkeys(n for part in parts for n in part)
        return {n: pa.concat_tables([part[n] for part in parts if n in part]).combine_chunks() for n in names}

    async def _fresh_tables(self, index: int | None, piece: Piece) -> dict[str, pa.Table] | None:
        request = self.request
        if self.pending:  # (bounded by its chunk; a slot held while waiting could starve its blocks)
            payloads = await self.fetch._piece(piece)
            have = {**request.needed, **await _tables(self.pending, self.optional)}
            tables = await self._convert(piece, payloads, have)
            self._converted(piece, tables)
            return tables
        if not self.sized:
            return await self._sub_tables(piece, index)
        return await self._sized_tables(piece, index)

    def _step(self, piece: Piece) -> int:
        """Blocks per request for ``piece`` now: answers of about ``piece_bytes`` (cut only when its
        requests are at most half of it: each has a fixed cost), and no more of the node's calls
        than the endpoint's window advises once the node showed a rate limit (:mod:`hmyframe.rpc.window`)."""
        blocks = piece.last - piece.first + 1
        step = self.fetch.hand.step(self.source.name, blocks)
        if 2 * step > blocks:
            step = blocks
        if piece.calls:
            advised = self.fetch.session.client.request_calls(self.endpoint, piece.calls[0].method)
            if advised is not None:
                cost = sum(call_cost(c.method, c.params) for c in piece.calls)
                step = min(step, max(1, int(advised * blocks / cost)))
        return step

    async def _sized_tables(self, piece: Piece, index: int | None) -> dict[str, pa.Table] | None:
        """A piece of a source without needed tables, asked whole or in requests of :meth:`_step`
        blocks (decided again once it has its place in hand: the window may have shrunk
        meanwhile; a request still too large for the window when it leaves is cut by the client),
        put back together as one array a column, as the piece asked at once makes it: the files
        do not change."""
        step = self._step(piece)
        if step >= piece.last - piece.first + 1:
            return await self._sub_tables(piece, index, sized=True)
        subs = self.source.plan(
            replace(self.request, first=piece.first, last=piece.last, blocks_per_request=step)
        )
        subparts = await gather_or_raise(self._sized_tables(sub, None) for sub in subs)
        whole = [part for part in subparts if part is not None]  # (never merged: no index)
        names = dict.fromkeys(n for part in whole for n in part)
        return {n: pa.concat_tables([part[n] for part in whole if n in part]).combine_chunks() for n in names}

    async def _sub_tables(
        self, piece: Piece, index: int | None = None, *, sized: bool = False
    ) -> dict[str, pa.Table] | None:
        hand = self.fetch.hand
        ticket = await hand.take(
            self.source.name, self.request.first, piece.first, piece.last - piece.first + 1
        )
        if sized and self._step(piece) < piece.last - piece.first + 1:
            hand.give_back(ticket)  # the window shrank while it waited for its place: cut it now
            return await self._sized_tables(piece, index)
        try:
            payloads = await self.fetch._piece(piece)
            size = sum(map(len, payloads))
            hand.answered(ticket, size)
            held = self.source.merge_pieces and size <= SMALL_PIECE
            if held and index is not None and not (self.kept is not None and self.kept.due()):
                # (but a slow chunk converts each as it comes, to keep it)
                self.small[index] = self._job(piece, payloads, self.request.needed)
                return None  # (converted with the chunk's other small answers, its slot freed)
            tables = await self._convert(piece, payloads, self.request.needed)
            del payloads  # (the answers are free once converted, before the slot is)
            hand.converted(ticket, sum(t.nbytes for t in tables.values()))
            self._converted(piece, tables)
            return tables
        finally:
            hand.give_back(ticket)

    def _job(self, piece: Piece, payloads: tuple[bytes, ...], have: Mapping[str, pa.Table]) -> PieceJob:
        answers = Answers(
            shard=self.fetch.shard,
            first=piece.first,
            last=piece.last,
            detail=self.request.detail,
            state=self.request.state,
            builds=self.builds,
            calls=piece.calls,
            payloads=payloads,
            needed={n: block_slice(t, piece.first, piece.last) for n, t in have.items()},
            endpoint=self.endpoint,
        )
        return PieceJob(self.source.transform, answers)

    async def _convert(
        self, piece: Piece, payloads: tuple[bytes, ...], have: Mapping[str, pa.Table]
    ) -> dict[str, pa.Table]:
        job = self._job(piece, payloads, have)
        tables: dict[str, pa.Table] = await self.fetch._run(self.fetch.converter, convert_piece, job)
        return tables


def _worker_died(error: BaseException) -> bool:
    """Whether ``error`` is a process pool's (a conversion worker died). Its module, and
    multiprocessing with it, is only imported where worker processes were made: a fetch
    converting in threads never loads them (a few ms of every start)."""
    process = sys.modules.get("concurrent.futures.process")
    return process is not None and isinstance(error, process.BrokenProcessPool)


def _wants(name: str) -> tuple[str, ...]:
    """The tables dataset ``name``'s conversion waits for when built in the same chunk."""
    fill = sources.fill_of(name)
    return (*fill.needs, *fill.uses)


async def _tables(pending: Mapping[str, asyncio.Future[pa.Table]], optional: set[str]) -> dict[str, pa.Table]:
    """The tables of ``pending`` once built; an ``optional`` one (a Fill.uses) whose source
    failed is left out (that failure is its own source's error), any other failure re-raised."""
    out: dict[str, pa.Table] = {}
    for name, table in pending.items():
        try:
            out[name] = await table
        except Exception:
            if name not in optional:
                raise
    return out


def _in_order(
    build: Iterable[str], wants: Mapping[str, tuple[str, ...]] | None = None
) -> list[tuple[RangeSource, list[str]]]:
    """The sources filling ``build``, each with its datasets, those needed by others first
    (``wants``: what each waits for in this chunk, if not :func:`_wants`)."""
    groups: dict[str, tuple[RangeSource, list[str]]] = {}
    for name in build:
        source = sources.source_of(name)
        groups.setdefault(source.name, (source, []))[1].append(name)
    ordered: list[tuple[RangeSource, list[str]]] = []
    pending = dict(groups)
    while pending:
        for key, (source, names) in list(pending.items()):
            needs = {n for name in names for n in (wants[name] if wants else _wants(name))}
            if not any(
                n in other_names for other, (_, other_names) in pending.items() if other != key for n in needs
            ):
                ordered.append((source, names))
                del pending[key]
                break
        else:
            raise ConfigError(f"range sources need each other's tables: {', '.join(pending)}")
    return ordered


def _check_names(names: Sequence[str]) -> None:
    if not names:
        raise ConfigError("no dataset given")
    for name in names:
        if name not in RANGE_DATASETS:
            raise ConfigError(
                f"dataset {short_repr(name)} is not fetched by block range; range datasets: {', '.join(RANGE_DATASETS)}"
            )


async def plan_range(
    session: Session, names: Sequence[str], start: object, end: object, shard: int
) -> tuple[tuple[int, int], str, list[tuple[int, int]]]:
    """The blocks ``start`` / ``end`` resolve to on ``shard``, the chain id, and the chunks to fetch.

    Before any chunk is planned for fetching, the endpoint that will be written from is checked
    to serve the chain its cached id names, the range is checked to end at a fetchable block,
    and the endpoints are reached (a missing trace endpoint is reported before anything is
    written).

    Raises
    ------
    ConfigError
        Bad dataset or range, or a range beyond the last fetchable block.
    """
    _check_names(names)
    await session.identify([shard])
    offset, reason = sources.head_offset(names)
    a, b = await resolve_range(session, start, end, shard, end_offset=offset, end_reason=reason)
    cache = session.cache
    chain_id = await session.chain_id()

    def gaps_of(chain: str) -> list[tuple[int, int]]:
        if cache is None:
            return [(a, b)]
        return merge(g for name in names for g in cache.missing(chain, get_dataset(name), shard, a, b))

    gaps = gaps_of(chain_id)
    if gaps and cache is not None:
        # about to write: make sure the URL still serves the chain its cached id names
        checked = await session.chain_id(verify=True)
        if checked != chain_id:
            chain_id = checked
            gaps = gaps_of(chain_id)
    if not gaps:
        return (a, b), chain_id, []
    head = await session.head(shard)
    limit = head - offset
    if b > limit:
        why = f" ({reason})" if reason else ""
        raise ConfigError(
            f"end block {b} is beyond the last fetchable block {limit} of shard {shard}{why}; the head is {head}"
        )
    # the endpoints are checked (and a missing trace endpoint reported) before anything is written
    await session.client.endpoint_url(shard)
    for source, wanted in _in_order(names):
        if source.trace_endpoint and (
            cache is None or any(cache.missing(chain_id, get_dataset(n), shard, a, b) for n in wanted)
        ):
            await session.client.endpoint_url(shard, trace=True)
    return (a, b), chain_id, split_aligned(gaps, session.options.chunk_size)


async def fetch_range(
    session: Session,
    names: Sequence[str],
    start: object,
    end: object,
    shard: int = 0,
    *,
    progress: ProgressFn | None = None,
    on_plan: Callable[[int], None] | None = None,
    collect: bool = True,
    tails: bool = False,
) -> dict[str, pa.Table]:
    """Fetch (or read from the cache) blocks ``start..end`` of ``shard`` for each dataset.

    Parameters
    ----------
    session
        An open :class:`~hmyframe.engine.Session`.
    names
        Datasets among :data:`RANGE_DATASETS`.
    start, end
        Inclusive block range: block numbers, times or relative specs (see
        :mod:`hmyframe.engine._blocks`); ``end=None`` means the shard's head (less the
        datasets' :attr:`~hmyframe.datasets.sources.Fill.head_offset`: ``head - 1`` for
        ``signers``, block N's signers being known from block N+1).
    shard
        Shard id.
    progress
        Called with the number of blocks of each chunk as it completes.
    on_plan
        Called once with the number of blocks that will be fetched (0 for a cache hit).
    collect
        Return the tables (read back from the cache). ``False`` only fills the cache and
        returns ``{}``, keeping memory flat for exports of any length (needs a cache).
    tails
        A follower's write: blocks short of their chunk's end go to the chunk's tail file,
        rewritten in place as blocks arrive and renamed to the chunk's range file once
        complete (:meth:`~hmyframe.cache.Cache.write_range`).

    Returns
    -------
    dict[str, pyarrow.Table]
        One table per requested dataset, rows in block order.

    Raises
    ------
    ConfigError
        Bad range or dataset, or a range beyond the head.
    """
    _check_names(names)
    shard = block_arg(shard, "shard")
    if not collect and session.cache is None:
        raise ConfigError("collect=False needs a cache to write to")
    prefetch_range(session, names, start, end, [shard])  # (the first data requests leave now)
    (start, end), chain_id, chunks = await plan_range(session, names, start, end, shard)
    if on_plan is not None:
        on_plan(sum(b - a + 1 for a, b in chunks))
    # (no chunk to fetch: idle thread pools, which start no thread)
    converter = converter_for(session) if chunks else concurrent.futures.ThreadPoolExecutor(1)
    writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="hmyframe-write")
    with converter, writer:
        job = _RangeFetch(session, names, shard, progress, converter, writer)
        job.chain_id = chain_id
        job.tails = session.options.chunk_size if tails else 0
        job.ask_provenance(chunks)
        try:
            await run_chunks(
                chunks,
                job.chunk,
                session.options.max_concurrent_chunks,
                shard=shard,
                cached=session.cache is not None,
            )
        finally:
            for asked in job.asking.values():  # (no chunk got to its write)
                asked.cancel()
        if not collect:
            return {}
        return {name: job.result(name, start, end) for name in job.names}


async def fetch_shards(
    session: Session,
    names: Sequence[str],
    start: object,
    end: object,
    shards: Sequence[int],
    *,
    progress: ProgressFn | None = None,
    on_plan: Callable[[int], None] | None = None,
    collect: bool = True,
) -> tuple[dict[int, tuple[int, int]], dict[str, pa.Table]]:
    """:func:`fetch_range` on several shards at once (each resolved, fetched and cached alone).

    Parameters
    ----------
    shards
        Shard ids (fetched concurrently; the tables are concatenated in this order).
    session, names, start, end, progress, on_plan, collect
        As for :func:`fetch_range`; ``on_plan`` is called once per shard.

    Returns
    -------
    (dict[int, (int, int)], dict[str, pyarrow.Table])
        The block range each shard's ``start`` / ``end`` resolved to, and one table per dataset
        (``{}`` when ``collect`` is false).
    """
    _check_names(names)
    shards = [block_arg(shard, "shard") for shard in shards]
    if not shards:
        raise ConfigError("no shard given")
    prefetch_range(session, names, start, end, shards)  # (the first data requests leave now)
    await session.identify(shards)
    offset, reason = sources.head_offset(names)
    ranges: dict[int, tuple[int, int]] = {}

    async def one(shard: int) -> dict[str, pa.Table]:
        a, b = await resolve_range(session, start, end, shard, end_offset=offset, end_reason=reason)
        ranges[shard] = (a, b)
        return await fetch_range(
            session, names, a, b, shard, progress=progress, on_plan=on_plan, collect=collect
        )

    results = await gather_or_raise(one(shard) for shard in shards)
    ordered = {shard: ranges[shard] for shard in shards}
    if not collect:
        return ordered, {}
    return ordered, {
        name: pa.concat_tables([r[name] for r in results]) if len(results) > 1 else results[0][name]
        for name in results[0]
    }
