"""Exports: chain slices written to disk as Parquet (the cache layout) or CSV.

An export is a fetch that keeps nothing in memory: each chunk is written to the cache as it
completes (so an interrupted export resumes where it stopped), then the summary lists what is
on disk for the requested range. With ``format="csv"`` every Parquet file of the range is also
converted to a CSV file of the same name under ``out``; CSV files of an earlier export of the
same folder that overlap the range (other chunk boundaries) are cut to the blocks outside it,
so the folder holds each block's rows once. Every file is written atomically; a failed write
(a full disk) leaves no temporary file behind. Folders that cannot be written are reported
before anything is fetched.

With ``client=`` (a Dask ``distributed.Client``; ``--scheduler`` on the command line) the
chunks of the range are Dask tasks run by the cluster's workers, each fetching, converting and
writing its chunk into the shared output (see :mod:`hmyframe.scale`); the files are the same
as a local export's. A Parquet output may be a URL (``memory://``, ``s3://bucket/prefix``...;
see :mod:`hmyframe.storage`).

The steps, each a function below: :func:`_check` (every argument and output folder, before any
request) -> :func:`_run` (the range datasets fetched and written here, :func:`_run_locally`;
following the head, :func:`_run_following`; or as Dask tasks, :func:`_run_on_dask`; then the
snapshot) -> :func:`_summarise` (what is on disk for the range, CSV files written from the
cache's Parquet files; their names are the cache's, :func:`hmyframe.cache.range_name`).

Layout under the output folder (``pd.read_parquet(folder)``, ``pyarrow.dataset`` and DuckDB
read a dataset folder directly)::

    <out>/<chain_id>/<dataset>/shard<S>/<dataset>__<start>_<end>.parquet
    <out>/<chain_id>/<dataset>/shard0/<dataset>__at_<block>.parquet        (validator snapshots)
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Literal

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe._spans import rows_between
from hmyframe.cache import Cache, CacheEntry, ensure_writable_folder, os_reason, parse_name, range_name
from hmyframe.datasets.sources import kind_of
from hmyframe.engine import (
    RANGE_DATASETS,
    SNAPSHOT_DATASETS,
    FetchOptions,
    Progress,
    Session,
    ShardSpec,
    fetch_shards,
    fetch_snapshot,
    follow_export,
    parse_range,
    prefetch_range,
    shard_ids,
    shard_label,
    shard_spec,
)
from hmyframe.errors import CacheError, ConfigError, short_repr
from hmyframe.rpc import check_heads
from hmyframe.storage import is_url

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pacsv = lazy_module("pyarrow.csv")
    pq = lazy_module("pyarrow.parquet")

__all__ = ["ExportSummary", "ExportedDataset", "export"]


@dataclass
class ExportedDataset:
    """What an export left on disk for one dataset."""

    name: str
    rows: int = 0
    files: list[PurePath] = field(default_factory=list)
    bytes: int = 0


@dataclass
class ExportSummary:
    """The result of :func:`export`.

    Attributes
    ----------
    chain_id
        The chain's cache key (first 16 hex digits of its genesis hash).
    ranges
        Block range exported per shard (``{}`` when only snapshots were asked for; snapshots
        are always of shard 0).
    snapshot_block
        Block of the validator snapshot, if one was exported.
    fetched_blocks
        Blocks actually fetched (the rest came from the cache).
    seconds
        Wall time.
    datasets
        Per dataset: rows, files, bytes.
    """

    chain_id: str
    ranges: dict[int, tuple[int, int]]
    snapshot_block: int | None
    fetched_blocks: int
    seconds: float
    datasets: dict[str, ExportedDataset]

    def lines(self) -> list[str]:
        """A short human-readable account, one line per dataset plus a header."""
        parts = [f"blocks {a}..{b} of shard {s}" for s, (a, b) in self.ranges.items()]
        if self.snapshot_block is not None:
            parts.append(f"validator snapshot at block {self.snapshot_block}")
        if not self.ranges:
            timing = f"done in {self.seconds:.1f} s"
        elif self.fetched_blocks == 0:
            timing = f"every block from the cache ({self.seconds:.1f} s)"
        else:
            rate = self.fetched_blocks / self.seconds if self.seconds > 0 else 0.0
            timing = (
                f"fetched {self.fetched_blocks:,} blocks in {self.seconds:.1f} s ({rate:,.0f} blocks/s), "
                "rest from cache"
            )
        out = [f"chain {self.chain_id}: {', '.join(parts)}; {timing}"]
        for item in self.datasets.values():
            folder = os.path.commonpath([str(p.parent) for p in item.files]) if item.files else "-"
            out.append(
                f"  {item.name:<22} {item.rows:>10,} rows  {len(item.files):>4} files  "
                f"{item.bytes / 1e6:>8.2f} MB  {folder}"
            )
        return out


async def export(
    datasets: Sequence[str],
    start: object = None,
    end: object = None,
    shard: ShardSpec = 0,
    *,
    block: int | None = None,
    rpc: object = None,
    trace_rpc: str | dict[int, str] | None = None,
    out: str | os.PathLike[str] | None = None,
    format: Literal["parquet", "csv"] = "parquet",
    cache: str | os.PathLike[str] | None = None,
    options: FetchOptions | None = None,
    progress: bool | Callable[[int], None] = False,
    client: Any = None,
    follow: bool = False,
    poll: float = 1.0,
    heads: Any = "auto",
) -> ExportSummary:
    """Export block-range datasets of ``start..end`` and/or a validator snapshot to disk.

    Parameters
    ----------
    datasets
        Names among the range datasets (blocks, transactions, staking_transactions, signers,
        traces, receipts, logs, token_transfers) and the snapshot datasets (validators,
        voting_power, delegations, undelegations).
    start, end
        Block range of the range datasets, in any form the fetchers take (block numbers, dates
        and times in UTC, ``"-1000:"``...; see :func:`hmyframe.blocks`); ``end=None``: the head.
        With ``follow``, ``start=None`` starts after the head.
    shard
        Shard(s) of the range datasets: an id, a list of ids or ``"all"`` (fetched concurrently).
    block
        Block of the validator snapshot (``None``: the head).
    rpc, trace_rpc, options, progress
        As for the fetchers (see :mod:`hmyframe.engine`); ``rpc`` may list several endpoints
        of one chain (``rpc=[url1, url2]``).
    out
        Output folder. For Parquet it *is* the cache root (default ``data/``), so exported
        files are reused by later fetches; it may be a URL (``memory://``, ``s3://...``; see
        :mod:`hmyframe.storage`). For CSV the CSV files go there (a local folder) and the
        Parquet files to the cache (``cache``, default ``data/``).
    format
        ``"parquet"`` or ``"csv"``.
    client
        A Dask ``distributed.Client``: the range's chunks become Dask tasks run by its
        workers, which must all reach the endpoints and the output (a shared folder or a URL;
        see :mod:`hmyframe.scale`). Progress is shown here, as chunks complete; snapshots are
        fetched here. ``None`` (default): everything runs in this process.
    follow
        Keep exporting: catch up to the head, then export every shard's new blocks as they
        appear, until cancelled (Ctrl-C) or, when ``end`` is a block number, until that block
        is on disk. The head chunk is written as one tail file, rewritten in place and renamed to
        the normal chunk file once complete; a restart resumes without a gap (see
        :mod:`hmyframe.engine._follow`). Range datasets to Parquet only, without ``client``.
    poll
        With ``follow``: seconds between two polls of the head (the main term of the lag when
        polling; with a WebSocket, the polling interval while the socket is re-opened).
    heads
        With ``follow``: how new heads are learnt. ``"auto"`` (default): each shard's
        WebSocket ``newHeads`` subscription where the node's sharding structure lists a URL
        (milliseconds after the block), else polling; ``"ws"``: WebSocket only (a shard
        listing none is an error); ``"poll"``: polling only.

    Returns
    -------
    ExportSummary
    """
    plan = _check(datasets, start, end, shard, block, out, format, cache, client, follow, poll, heads)
    began = time.perf_counter()
    async with Session(rpc, trace_rpc=trace_rpc, cache=plan.store, options=options) as session:
        done = await _run(session, plan, progress)
    return _summarise(plan, done, time.perf_counter() - began)


# --------------------------------------------------------------------------- check


@dataclass(frozen=True)
class _Plan:
    """An export's arguments, checked before any request."""

    names: list[str]  #: every dataset, in the caller's order, once
    range_names: list[str]
    snap_names: list[str]
    start: object
    end: object
    spec: list[int] | Literal["all"]  #: the shards
    block: int | None  #: the snapshot's (``None``: the head)
    format: str
    store: Cache  #: where the Parquet files go (the output for Parquet, the cache for CSV)
    csv_root: Path
    client: Any
    follow: bool
    poll: float
    heads: Any


def _check(
    datasets: Sequence[str],
    start: object,
    end: object,
    shard: ShardSpec,
    block: int | None,
    out: str | os.PathLike[str] | None,
    format: str,
    cache: str | os.PathLike[str] | None,
    client: Any,
    follow: bool,
    poll: float,
    heads: Any,
) -> _Plan:
    """Refuse what cannot be exported, and every unwritable folder, before any request."""
    if isinstance(datasets, str):
        datasets = [d for d in datasets.split(",") if d]
    names = list(dict.fromkeys(datasets))
    if not names:
        raise ConfigError("nothing to export: give at least one dataset")
    for name in names:
        kind_of(name)  # an unknown name is a ConfigError listing the valid ones
        if name not in RANGE_DATASETS and name not in SNAPSHOT_DATASETS:
            raise ConfigError(
                f"dataset {name!r} cannot be exported (it is a point lookup); exportable: "
                f"{', '.join((*RANGE_DATASETS, *SNAPSHOT_DATASETS))}"
            )
    if format not in ("parquet", "csv"):
        raise ConfigError(f"format must be 'parquet' or 'csv', got {short_repr(format)}")
    range_names = [n for n in names if n in RANGE_DATASETS]
    snap_names = [n for n in names if n in SNAPSHOT_DATASETS]
    if range_names and start is None and not follow:
        raise ConfigError(f"exporting {', '.join(range_names)} needs a start block")
    if range_names and start is not None:
        parse_range(start, end)  # a spec that is not understood fails before any request
    spec = shard_spec(shard)
    if follow:
        _check_follow(range_names, snap_names, format, client, end)
        check_heads(heads, poll)
    if format == "csv" and (is_url(out) or is_url(cache)):
        raise ConfigError(
            f"CSV exports are written to a local folder (out={short_repr(out)}, cache={short_repr(cache)}): "
            "give format='parquet' to export to a URL"
        )
    root = out if out is not None and format == "parquet" else cache if cache else None
    store = Cache(root) if root is not None else Cache()
    csv_root = Path(out) if (format == "csv" and out is not None) else Path("export-csv")
    if client is not None:
        from hmyframe.scale import check_client

        check_client(client)
    store.ensure_writable()
    if format == "csv":
        ensure_writable_folder(csv_root, "output folder")
    return _Plan(
        names,
        range_names,
        snap_names,
        start,
        end,
        spec,
        block,
        format,
        store,
        csv_root,
        client,
        follow,
        poll,
        heads,
    )


def _check_follow(
    range_names: Sequence[str], snap_names: Sequence[str], format: str, client: Any, end: object
) -> None:
    """Refuse what a following export cannot do, before any request."""
    if snap_names:
        raise ConfigError(f"follow exports block-range datasets; {', '.join(snap_names)} are snapshots")
    if format != "parquet":
        raise ConfigError(f"follow writes Parquet (the cache layout), not format={short_repr(format)}")
    if client is not None:
        raise ConfigError("follow runs in this process: give no client=")
    if end is not None and (isinstance(end, bool) or not isinstance(end, int)):
        raise ConfigError(
            f"with follow, end must be a block number (stop there) or None (never stop), got {short_repr(end)}"
        )


# --------------------------------------------------------------------------- run


@dataclass
class _Done:
    """What an export's run did: the chain, the ranges per shard, the snapshot's block."""

    chain_id: str
    ranges: dict[int, tuple[int, int]]
    snapshot_block: int | None
    fetched: int  #: blocks fetched (the rest came from the cache)


async def _run(session: Session, plan: _Plan, progress: bool | Callable[[int], None]) -> _Done:
    """Fetch and write the range datasets (here, following the head, or on Dask) and the snapshot."""
    if plan.client is not None:
        session.endpoint_spec()  # endpoints the workers can reach, checked before any request
    # a snapshot alone at the head: the head comes in identify's round trip, fresh enough
    head_now = not plan.range_names and plan.block is None and plan.client is None
    if plan.range_names and plan.client is None and not plan.follow:
        # the first data requests leave with the first contact (kept only for the chain confirmed)
        prefetch_range(session, plan.range_names, plan.start, plan.end, plan.spec)
    await session.identify([0] if head_now else plan.spec if plan.range_names and plan.spec != "all" else [])
    block = await session.head(0) if head_now else plan.block
    done = _Done("", {}, None, 0)
    if plan.range_names:
        ids = await shard_ids(session, plan.spec)
        with Progress.make(progress, shard_label("export", ids)) as bar:
            bar.watch_node(session.client)  # ("node rate limit ~5 calls/s" when it bounds the speed)

            def tick(blocks: int) -> None:
                done.fetched += blocks
                bar.update(blocks)

            if plan.follow:
                done.ranges = await _run_following(session, plan, ids, tick)
            elif plan.client is None:
                done.ranges = await _run_locally(session, plan, ids, tick, bar.plan)
            else:
                done.ranges = await _run_on_dask(session, plan, ids, tick, bar.plan)
    if plan.snap_names:
        done.snapshot_block, _ = await fetch_snapshot(session, plan.snap_names, block)
    done.chain_id = await session.chain_id()  # a fetch may have found the URL serving another chain
    return done


async def _run_locally(
    session: Session,
    plan: _Plan,
    ids: list[int],
    tick: Callable[[int], None],
    on_plan: Callable[[int], None],
) -> dict[int, tuple[int, int]]:
    """The range datasets fetched and written in this process, chunk by chunk."""
    ranges, _ = await fetch_shards(
        session, plan.range_names, plan.start, plan.end, ids, progress=tick, on_plan=on_plan, collect=False
    )
    return ranges


async def _run_following(
    session: Session, plan: _Plan, ids: list[int], tick: Callable[[int], None]
) -> dict[int, tuple[int, int]]:
    """The range datasets caught up to the head, then followed (:mod:`hmyframe.engine._follow`)."""
    return await follow_export(
        session,
        plan.range_names,
        plan.start,
        plan.end,
        ids,
        poll=plan.poll,
        heads=plan.heads,
        on_batch=lambda batch: tick(batch.last - batch.first + 1),
    )


async def _run_on_dask(
    session: Session,
    plan: _Plan,
    ids: list[int],
    tick: Callable[[int], None],
    on_plan: Callable[[int], None],
) -> dict[int, tuple[int, int]]:
    """The range's chunks as Dask tasks of ``plan.client``'s workers (:mod:`hmyframe.scale`)."""
    from hmyframe.scale import export_ranges

    return await export_ranges(
        session, plan.client, plan.range_names, plan.start, plan.end, ids, progress=tick, on_plan=on_plan
    )


# --------------------------------------------------------------------------- summarise


def _summarise(plan: _Plan, done: _Done, seconds: float) -> ExportSummary:
    """What is on disk for the exported range and snapshot (CSV files written from the cache's
    Parquet files first, for a CSV export)."""
    summary = ExportSummary(
        chain_id=done.chain_id,
        ranges=done.ranges,
        snapshot_block=done.snapshot_block,
        fetched_blocks=done.fetched,
        seconds=seconds,
        datasets={},
    )
    for name in plan.names:
        item = ExportedDataset(name)
        entries = {e.path: e for e in plan.store.entries(done.chain_id, name) if e.status == "ok"}
        if name in RANGE_DATASETS:
            for shard_id, (start, end) in done.ranges.items():
                _exported_range(plan, done.chain_id, item, entries, shard_id, start, end)
        if name in SNAPSHOT_DATASETS:
            _exported_snapshot(plan, item, entries, done.snapshot_block)
        summary.datasets[name] = item
    return summary


def _exported_range(
    plan: _Plan,
    chain_id: str,
    item: ExportedDataset,
    entries: dict[PurePath, CacheEntry],
    shard: int,
    start: int,
    end: int,
) -> None:
    """Add to ``item`` the files of its dataset's blocks ``start..end`` of ``shard``: the cache's
    own non-overlapping cover, clipped to the range (a file cached by an earlier, wider fetch
    holds blocks outside it, which are neither counted nor exported)."""
    store, dataset = plan.store, ds.get(item.name)
    csv_folder = plan.csv_root / store.folder(chain_id, item.name, shard).relative_to(store.root)
    for c_start, c_end, path in store.cached_ranges(chain_id, dataset, shard, report=False):
        entry = entries.get(path)
        if entry is None or c_end < start or c_start > end:
            continue
        lo, hi = max(start, c_start), min(end, c_end)
        whole = (lo, hi) == (entry.start, entry.end)
        if plan.format == "csv":
            table = _read(store, path, dataset)
            if not whole:
                table = rows_between(table, lo, hi)
            csv_file = _write_csv(table, csv_folder / range_name(item.name, lo, hi, ext="csv"))
            item.files.append(csv_file)
            item.rows += table.num_rows
            item.bytes += csv_file.stat().st_size
        else:
            item.files.append(path)
            item.rows += (
                (entry.rows or 0) if whole else rows_between(_read(store, path, dataset), lo, hi).num_rows
            )
            item.bytes += entry.size
    if plan.format == "csv":
        _cut_earlier_csv(csv_folder, dataset, start, end, set(item.files))


def _exported_snapshot(
    plan: _Plan, item: ExportedDataset, entries: dict[PurePath, CacheEntry], block: int | None
) -> None:
    """Add to ``item`` its dataset's snapshot file at ``block`` (as CSV too, for a CSV export)."""
    for entry in entries.values():
        if entry.kind != "snapshot" or entry.start != block:
            continue
        if plan.format == "csv":
            csv_file = _write_csv(
                _read(plan.store, entry.path, ds.get(item.name)),
                plan.csv_root / entry.path.relative_to(plan.store.root).with_suffix(".csv"),
            )
            item.files.append(csv_file)
            item.bytes += csv_file.stat().st_size
        else:
            item.files.append(entry.path)
            item.bytes += entry.size
        item.rows += entry.rows or 0


# --------------------------------------------------------------------------- files


def _read(store: Cache, source: PurePath, dataset: ds.Dataset) -> pa.Table:
    try:
        return store.files.read_table(source, dataset.schema)
    except (OSError, pa.ArrowException) as exc:
        raise CacheError(f"cannot read {store.url(source)}: {exc}") from exc


def _write_csv(table: pa.Table, target: Path) -> Path:
    """Write a table as CSV (exact decimals as digits, timestamps ISO 8601), atomically.

    Raises
    ------
    CacheError
        If the file cannot be written (full disk, read-only folder...); no temporary file is
        left behind.
    """
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        pacsv.write_csv(table, tmp)
        os.replace(tmp, target)
    except (OSError, pa.ArrowException) as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
        raise CacheError(f"cannot write CSV file {target}: {reason}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return target


def _read_csv(source: Path, dataset: ds.Dataset) -> pa.Table:
    """A CSV file written by :func:`_write_csv`, with the dataset's exact types."""
    options = pacsv.ConvertOptions(
        column_types=dataset.schema, strings_can_be_null=True, quoted_strings_can_be_null=False
    )
    try:
        table = pacsv.read_csv(source, convert_options=options)
        return table.select(dataset.schema.names).cast(dataset.schema)
    except (OSError, pa.ArrowException, KeyError) as exc:
        raise CacheError(
            f"cannot read the earlier CSV export {source} (to cut its blocks that this export rewrote): "
            f"{exc}; remove it and export again"
        ) from None


def _cut_earlier_csv(folder: Path, dataset: ds.Dataset, start: int, end: int, written: set[PurePath]) -> None:
    """Cut CSV files of earlier exports in ``folder`` down to their blocks outside ``start..end``.

    An earlier export with other chunk boundaries left files overlapping the range just
    written: each keeps only the rows of its blocks outside the range (in files named for
    those blocks), or goes when it has none, so the folder holds every block's rows once.
    """
    try:
        listing = sorted(folder.iterdir())
    except OSError:
        return
    for path in listing:
        what = parse_name(path.name)
        if what is None or what.kind != "range" or what.ext != "csv":
            continue
        if what.dataset != dataset.name or path in written:
            continue
        a, b = what.start, what.end if what.end is not None else what.start
        if b < start or a > end:
            continue
        keep = [(lo, hi) for lo, hi in ((a, start - 1), (end + 1, b)) if lo <= hi]
        if keep:
            table = _read_csv(path, dataset)
            for lo, hi in keep:
                _write_csv(rows_between(table, lo, hi), folder / range_name(dataset.name, lo, hi, ext="csv"))
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise CacheError(f"cannot remove the earlier CSV export {path}: {os_reason(exc)}") from None
