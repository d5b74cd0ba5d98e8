"""Block-range fetching: plan chunks, fetch them concurrently, convert, cache.

One engine serves every dataset keyed by block (``blocks``, ``transactions``,
``staking_transactions``, ``signers``, ``traces``):

1. The range is compared with the cache; only the missing blocks are fetched (a fully cached
   range sends no request at all).
2. Missing blocks are cut into chunks aligned on multiples of ``chunk_size``; chunks are fetched
   ``max_concurrent_chunks`` at a time, each with ``getBlocks`` calls of
   ``blocks_per_request`` blocks (or batched ``getBlockByNumber``), all in flight together
   under the client's bound.
3. Blocks are asked with what the wanted datasets need (their ``block_detail``): full
   transactions only when a transaction table (or traces' hash resolution) needs them, signers
   only for ``signers``; ``blocks`` alone asks for headers (transaction hashes, which still
   count), a fraction of the bytes. An early-2020 node leaves the transaction list out of
   headers-only blocks: its chunk is then fetched again with full transactions (and so is the
   rest of that fetch), so the ``blocks`` table never depends on how it was fetched.
4. A chunk's blocks are decoded once and every table they can make is built from them
   (``blocks``; ``transactions`` and ``staking_transactions`` from full blocks; ``signers`` when
   asked); each table is checked (exactly the chunk's blocks, once each) and written to the cache
   atomically before the chunk counts as done. An interrupted fetch therefore resumes where it
   stopped, and a chunk is never half-written.
5. Traces come from ``trace_block`` on the trace endpoint, one call per block (batched by the
   client); the Harmony hash of each trace's transaction is resolved from the chunk's
   transactions (fetched or read from the cache).
6. Results are read back in block order, so they are the same whatever order answers arrived in.
7. A chunk that fails does not cost the others (:func:`~hmyframe.engine._chunks.run_chunks`): the
   error raised at the end names the blocks not fetched, and a rerun fetches only those. The
   endpoints are checked to serve this chain before anything is written, and traces whose block
   hashes are not their blocks' are refused.

Several shards (``shard="all"`` or a list) are fetched concurrently by :func:`fetch_shards`,
each resolved, fetched and cached as a fetch of one shard; the tables are concatenated in shard
order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import pyarrow as pa
import pyarrow.compute as pc

from hmyframe import datasets as ds
from hmyframe._tasks import gather_or_raise
from hmyframe.datasets import ConvertContext, decode_blocks, traces_context
from hmyframe.engine._blocks import resolve_range
from hmyframe.engine._chunks import check_trace_blocks, run_chunks
from hmyframe.engine._session import Session, block_arg
from hmyframe.errors import ConfigError, MethodNotFoundError, NotFoundError, ResponseShapeError, short_repr

__all__ = ["BLOCK_FAMILY", "RANGE_DATASETS", "fetch_range", "fetch_shards", "split_aligned"]

#: Datasets this engine serves: those the registry says are fetched by block range.
RANGE_DATASETS: tuple[str, ...] = tuple(n for n, d in ds.DATASETS.items() if d.fetched_by == "range")
#: Tables built from every fetched chunk of full blocks (written together: one fetch, three tables).
BLOCK_FAMILY: tuple[str, ...] = tuple(
    n for n in RANGE_DATASETS if ds.get(n).source == "blocks" and "signers" not in ds.get(n).block_detail
)

ProgressFn = Callable[[int], None]


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


def _merge(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _check_blocks(table: pa.Table, start: int, end: int, what: str, shard: int) -> None:
    """The ``blocks`` table of a chunk must hold each block of ``start..end`` exactly once."""
    numbers = table["block_number"].to_pylist()
    if numbers != list(range(start, end + 1)):
        got = sorted(set(numbers))
        missing = sorted(set(range(start, end + 1)) - set(got))
        extra = sorted(set(got) - set(range(start, end + 1)))
        dup = len(numbers) - len(got)
        raise ResponseShapeError(
            what,
            "blocks",
            f"shard {shard} blocks {start}..{end}: missing {missing[:5]}, unexpected {extra[:5]}, duplicates {dup}",
            "each requested block exactly once",
        )


def _without_signer_count(blocks: pa.Table) -> pa.Table:
    index = blocks.schema.get_field_index("signer_count")
    field = blocks.schema.field(index)
    return blocks.set_column(index, field, pa.nulls(blocks.num_rows, type=field.type))


def _between(table: pa.Table, lo: int, hi: int) -> pa.Table:
    """Rows of blocks ``lo..hi``."""
    column = table["block_number"]
    return table.filter(pc.and_(pc.greater_equal(column, lo), pc.less_equal(column, hi)))


def _check_within(table: pa.Table, start: int, end: int, name: str) -> None:
    if table.num_rows == 0:
        return
    col = table["block_number"]
    lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
    if lo is None or hi is None or lo < start or hi > end:
        raise ResponseShapeError(name, "block_number", (lo, hi), f"rows of blocks {start}..{end} only")


class _RangeFetch:
    """One call of :func:`fetch_range` (the state shared by its chunks)."""

    def __init__(
        self, session: Session, names: Sequence[str], shard: int, progress: ProgressFn | None
    ) -> None:
        self.session = session
        self.names = list(dict.fromkeys(names))
        self.shard = shard
        self.progress = progress
        self.chain_id = ""
        self.strategy = session.options.strategy
        # False once a node left the transaction list out of headers-only blocks (early-2020)
        self.headers_only = True
        self.memory: dict[str, list[tuple[int, pa.Table]]] = {n: [] for n in self.names}

    # -- what is missing ----------------------------------------------------------------

    def missing(self, name: str, start: int, end: int) -> list[tuple[int, int]]:
        cache = self.session.cache
        if cache is None:
            return [(start, end)]
        return cache.missing(self.chain_id, ds.get(name), self.shard, start, end)

    def missing_names(self, start: int, end: int) -> set[str]:
        return {n for n in self.names if self.missing(n, start, end)}

    # -- fetching -----------------------------------------------------------------------

    async def block_payloads(
        self, start: int, end: int, with_signers: bool, full_tx: bool
    ) -> tuple[list[bytes], list[bytes] | None]:
        """Blocks ``start..end`` (full transactions or their hashes), and the ``getBlockSigners``
        answers of each block when the signers are asked for but the blocks cannot carry them
        (``None`` otherwise)."""
        methods = self.session.methods
        step = self.session.options.blocks_per_request
        if self.strategy == "range":
            try:
                return await gather_or_raise(
                    methods.get_blocks_raw(
                        a,
                        min(end, a + step - 1),
                        full_tx=full_tx,
                        incl_staking=True,
                        with_signers=with_signers,
                        shard=self.shard,
                    )
                    for a in range(start, end + 1, step)
                ), None
            except MethodNotFoundError:
                # a node (or a proxy filter) without getBlocks: batched single-block calls
                self.strategy = "batch"
        # hmy_getBlockByNumber (v1) has no blockArgs, so its blocks cannot carry their signers:
        # ask hmy_getBlockSigners for each block instead (batched with the blocks)
        inline = with_signers and self.session.options.version == 2
        numbers = range(start, end + 1)
        blocks = [
            methods.get_block_by_number_raw(
                n, full_tx=full_tx, incl_staking=True, with_signers=inline, shard=self.shard
            )
            for n in numbers
        ]
        if not with_signers or inline:
            return await gather_or_raise(blocks), None
        client = self.session.client
        signers = [
            client.request_raw(methods.method("getBlockSigners"), [hex(n)], shard=self.shard) for n in numbers
        ]
        # one gather: the block and signer calls go out together (and are batched together)
        payloads = await gather_or_raise([*blocks, *signers])
        return payloads[: len(numbers)], payloads[len(numbers) :]

    async def trace_payloads(self, start: int, end: int) -> list[bytes]:
        client = self.session.client
        payloads = await gather_or_raise(
            client.trace_block_raw(n, shard=self.shard) for n in range(start, end + 1)
        )
        for number, payload in zip(range(start, end + 1), payloads, strict=True):
            if payload.strip() == b"null":
                raise NotFoundError(
                    -32000,
                    f"trace_block returned null for existing block {number}: the trace endpoint does not have "
                    "this block's traces (is it an archival/trace node for this shard?)",
                    method="trace_block",
                    params=[hex(number)],
                    endpoint=await client.endpoint_url(self.shard, trace=True),
                )
        return list(payloads)

    def store(self, name: str, start: int, end: int, table: pa.Table) -> None:
        """Keep the chunk's table: in memory, or in the cache for the blocks it lacks.

        Only the missing sub-ranges are written, so cache files never overlap (a folder read
        whole by pandas, pyarrow.dataset or DuckDB holds each block's rows once), also when a
        dataset was cached for part of the chunk by an earlier, narrower fetch.
        """
        cache = self.session.cache
        if cache is None:
            if name in self.memory:
                self.memory[name].append((start, table))
            return
        dataset = ds.get(name)
        for a, b in self.missing(name, start, end):
            part = table if (a, b) == (start, end) else _between(table, a, b)
            cache.write_range(self.chain_id, dataset, self.shard, a, b, part)

    async def chunk(self, start: int, end: int) -> None:
        wanted = self.missing_names(start, end)
        if not wanted:
            return
        from_blocks = [ds.get(name) for name in wanted if ds.get(name).source == "blocks"]
        detail = {d for dataset in from_blocks for d in dataset.block_detail}
        with_signers = "signers" in detail
        need_blocks = bool(from_blocks)
        trace_ctx: ConvertContext | None = None
        block_hashes: dict[int, str] = {}
        traces_wanted = "traces" in wanted
        # resolve trace hashes from cached transactions, if present: no block request
        if (
            traces_wanted
            and not need_blocks
            and self.session.cache is not None
            and not self.missing("transactions", start, end)
        ):
            tx = self.session.cache.read_range(self.chain_id, ds.get("transactions"), self.shard, start, end)
            trace_ctx = _traces_context_from_table(tx, self.shard)
            block_hashes = _hashes_by_number(tx)
        if traces_wanted and trace_ctx is None:
            detail |= ds.get("traces").block_detail  # hash resolution from the blocks' transactions
        if need_blocks or (traces_wanted and trace_ctx is None):
            # full transactions only when a dataset (or a trace hash resolution) needs them
            full_tx = "full_tx" in detail or not self.headers_only
            payloads, signer_payloads = await self.block_payloads(start, end, with_signers, full_tx)
            decoded = decode_blocks(payloads)
            ctx = ConvertContext(shard_id=self.shard)
            if not full_tx and any(b.transactions is None for b in decoded.blocks):
                # an early-2020 node sends no transaction list without fullTx: full blocks from now on
                self.headers_only = False
                full_tx = True
                payloads, signer_payloads = await self.block_payloads(start, end, with_signers, full_tx)
                decoded = decode_blocks(payloads)
            family = BLOCK_FAMILY if full_tx else ("blocks",)
            tables = {name: ds.get(name).build(decoded, ctx) for name in family}
            if with_signers:
                if signer_payloads is None:
                    tables["signers"] = ds.get("signers").build(decoded, ctx)
                else:
                    tables["signers"] = _signers_from_lists(
                        signer_payloads, start, end, self.shard, tables["blocks"]
                    )
            _check_blocks(tables["blocks"], start, end, "blocks", self.shard)
            block_hashes = _hashes_by_number(tables["blocks"])
            if with_signers:
                # blocks fetched withSigners carry signer_count, others not: drop it so a block's
                # row does not depend on whether its signers happened to be fetched with it
                tables["blocks"] = _without_signer_count(tables["blocks"])
            for name, table in tables.items():
                _check_within(table, start, end, name)
                if name in wanted or self.session.cache is not None:
                    self.store(name, start, end, table)  # writes only blocks not cached yet
            if traces_wanted:
                trace_ctx = traces_context(decoded, self.shard)
        if traces_wanted:
            assert trace_ctx is not None
            table = ds.get("traces").convert(await self.trace_payloads(start, end), trace_ctx)
            _check_within(table, start, end, "traces")
            url = await self.session.client.endpoint_url(self.shard, trace=True)
            check_trace_blocks(table, block_hashes, url, self.shard)
            self.store("traces", start, end, table)
        if self.progress is not None:
            self.progress(end - start + 1)

    # -- results ------------------------------------------------------------------------

    def result(self, name: str, start: int, end: int) -> pa.Table:
        dataset = ds.get(name)
        cache = self.session.cache
        if cache is not None:
            return cache.read_range(self.chain_id, dataset, self.shard, start, end)
        parts = [t for _, t in sorted(self.memory[name], key=lambda item: item[0])]
        return pa.concat_tables(parts) if parts else dataset.schema.empty_table()


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
        :mod:`hmyframe.engine._blocks`); ``end=None`` means the shard's head (``head - 1``
        when ``signers`` is asked for: the node derives block N's signers from block N+1).
    shard
        Shard id.
    progress
        Called with the number of blocks of each chunk as it completes.
    on_plan
        Called once with the number of blocks that will be fetched (0 for a cache hit).
    collect
        Return the tables (read back from the cache). ``False`` only fills the cache and
        returns ``{}``, keeping memory flat for exports of any length (needs a cache).

    Returns
    -------
    dict[str, pyarrow.Table]
        One table per requested dataset, rows in block order.

    Raises
    ------
    ConfigError
        Bad range or dataset, or a range beyond the head.
    """
    for name in names:
        if name not in RANGE_DATASETS:
            raise ConfigError(
                f"dataset {short_repr(name)} is not fetched by block range; range datasets: {', '.join(RANGE_DATASETS)}"
            )
    if not names:
        raise ConfigError("no dataset given")
    shard = block_arg(shard, "shard")
    if not collect and session.cache is None:
        raise ConfigError("collect=False needs a cache to write to")
    job = _RangeFetch(session, names, shard, progress)
    start, end = await resolve_range(session, start, end, shard, end_offset=1 if "signers" in names else 0)
    job.chain_id = await session.chain_id()
    gaps = _merge(g for name in job.names for g in job.missing(name, start, end))
    if gaps and session.cache is not None:
        # about to write: make sure the URL still serves the chain its cached id names
        checked = await session.chain_id(verify=True)
        if checked != job.chain_id:
            job.chain_id = checked
            gaps = _merge(g for name in job.names for g in job.missing(name, start, end))
    if gaps:
        head = await session.head(shard)
        limit = head - 1 if "signers" in names else head
        if end > limit:
            why = " (block N's signers need block N+1)" if "signers" in names else ""
            raise ConfigError(
                f"end block {end} is beyond the last fetchable block {limit} of shard {shard}{why}; "
                f"the head is {head}"
            )
    if gaps:
        # the endpoints are checked (and a missing trace endpoint reported) before anything is written
        await session.client.endpoint_url(shard)
        if "traces" in job.names and job.missing("traces", start, end):
            await session.client.endpoint_url(shard, trace=True)
    chunks = split_aligned(gaps, session.options.chunk_size)
    if on_plan is not None:
        on_plan(sum(b - a + 1 for a, b in chunks))
    await run_chunks(
        chunks,
        job.chunk,
        session.options.max_concurrent_chunks,
        shard=shard,
        cached=session.cache is not None,
    )
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
    shards = [block_arg(shard, "shard") for shard in shards]
    if not shards:
        raise ConfigError("no shard given")
    ranges: dict[int, tuple[int, int]] = {}

    async def one(shard: int) -> dict[str, pa.Table]:
        a, b = await resolve_range(session, start, end, shard, end_offset=1 if "signers" in names else 0)
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


def _hashes_by_number(table: pa.Table) -> dict[int, str]:
    """Block number -> block hash, from a table with ``block_number`` and ``block_hash`` columns."""
    return dict(zip(table["block_number"].to_pylist(), table["block_hash"].to_pylist(), strict=True))


def _traces_context_from_table(tx: pa.Table, shard: int) -> ConvertContext:
    """Hash-resolution context for traces from a cached ``transactions`` table."""
    hashes = tx["transaction_hash"].to_pylist()
    eth = tx["eth_hash"].to_pylist()
    numbers = tx["block_number"].to_pylist()
    index = tx["transaction_index"].to_pylist()
    return ConvertContext(
        shard_id=shard,
        tx_hashes={e: h for e, h in zip(eth, hashes, strict=True) if e is not None and h is not None},
        tx_positions={
            (n, i): h
            for n, i, h in zip(numbers, index, hashes, strict=True)
            if n is not None and i is not None
        },
    )


def _signers_from_lists(
    payloads: list[bytes], start: int, end: int, shard: int, blocks: pa.Table
) -> pa.Table:
    """The ``signers`` table of blocks ``start..end`` from their ``getBlockSigners`` answers.

    Those answers are bare address lists; each row's block hash is taken from the chunk's
    ``blocks`` table, so the table equals the one built from blocks fetched ``withSigners``.
    """
    table = ds.get("signers").convert(
        payloads, ConvertContext(shard_id=shard, block_numbers=list(range(start, end + 1)))
    )
    by_number = dict(zip(blocks["block_number"].to_pylist(), blocks["block_hash"].to_pylist(), strict=True))
    index = table.schema.get_field_index("block_hash")
    hashes = pa.array([by_number.get(n) for n in table["block_number"].to_pylist()], type=pa.string())
    return table.set_column(index, table.schema.field(index), hashes)
