"""Reading a cache or export folder back: :func:`read`.

``pd.read_parquet(folder)`` on an export folder reads every Parquet file under it, whatever
dataset it belongs to. :func:`read` reads one dataset only, wherever its chain folder is::

    <path>/<chain_id>/<dataset>/shard<S>/<dataset>__<start>_<end>.parquet|csv    block ranges
    <path>/<chain_id>/<dataset>/shard0/<dataset>__at_<block>.parquet|csv         snapshots

``path`` may be that root, a chain folder, a dataset folder or a shard folder. Files written
by an older hmyframe whose schema lacked a ``*_one`` companion are completed from the exact
column; a file missing any other column is refused with a :class:`~hmyframe.errors.CacheError`
naming it (fetch its range again).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any, Literal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from hmyframe import datasets as ds
from hmyframe.cache import cover, default_root
from hmyframe.datasets._base import one_of, one_values
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._output import Output, check_output, to_output
from hmyframe.errors import CacheError, ConfigError, short_repr
from hmyframe.storage import Storage, open_storage

__all__ = ["Part", "read"]

_CHAIN = re.compile(r"[0-9a-f]{16}")
_SHARD = re.compile(r"shard(\d+)")


def _shard_folders(files: Storage, root: PurePath, name: str) -> list[PurePath]:
    """Every ``<name>/shard<S>`` folder at or below ``root``."""
    if _SHARD.fullmatch(root.name) and root.parent.name == name:
        return [root]
    if root.name == name:
        return sorted(p for p in files.listdir(root) if _SHARD.fullmatch(p.name) and files.is_dir(p))
    return sorted(
        p
        for p in files.glob(root, f"**/{name}/shard*")
        if _SHARD.fullmatch(p.name) and p.parent.name == name and files.is_dir(p)
    )


def _files(
    files: Storage, folder: PurePath, name: str
) -> tuple[list[tuple[int, int, PurePath]], dict[int, PurePath]]:
    """Range files ``(start, end, path)`` (Parquet before CSV) and snapshot files by block."""
    ranges: list[tuple[int, int, PurePath]] = []
    snapshots: dict[int, PurePath] = {}
    pattern = re.compile(rf"{re.escape(name)}__(?:(\d{{10}})_(\d{{10}})|at_(\d{{10}}))\.(parquet|csv)")
    for path in sorted(files.listdir(folder), key=lambda p: (p.suffix != ".parquet", p.name)):
        m = pattern.fullmatch(path.name)
        if m is None:
            continue
        if m[3] is not None:
            snapshots.setdefault(int(m[3]), path)
        else:
            ranges.append((int(m[1]), int(m[2]), path))
    return ranges, snapshots


def _load(files: Storage, path: PurePath, dataset: ds.Dataset) -> pa.Table:
    """One file as a table of exactly the dataset's schema."""
    where = files.url(path)
    try:
        if path.suffix == ".csv":
            with files.open(path) as fh:
                table = pacsv.read_csv(
                    fh,
                    convert_options=pacsv.ConvertOptions(
                        column_types=dataset.schema,
                        strings_can_be_null=True,
                        quoted_strings_can_be_null=False,
                    ),
                )
        else:
            table = files.read_table(path)
            written_for = (table.schema.metadata or {}).get(b"hmyframe.dataset")
            if written_for is not None and written_for.decode() != dataset.name:
                raise CacheError(f"{where} holds the {written_for.decode()} dataset, not {dataset.name}")
    except FileNotFoundError:
        raise  # replaced since the read was planned: the caller reads its blocks again
    except (OSError, pa.ArrowException) as exc:
        raise CacheError(f"cannot read {where}: {exc}") from exc
    columns = []
    for f in dataset.schema:
        base = one_of(f)
        if f.name in table.column_names:
            try:
                columns.append(table[f.name].cast(f.type))
            except pa.ArrowException as exc:
                raise CacheError(f"{where}: column {f.name} is not {f.type}: {exc}") from exc
        elif base is not None and base in table.column_names:
            columns.append(one_values(table[base].cast(dataset.schema.field(base).type)))
        else:
            raise CacheError(
                f"{where} has no column {f.name!r}: it was written for another version of the "
                f"{dataset.name} dataset; fetch its blocks again"
            )
    return pa.Table.from_arrays(columns, schema=dataset.schema)


@dataclass(frozen=True)
class Part:
    """One file of a read, and which of its rows to keep (picklable: a Dask partition each).

    Attributes
    ----------
    files
        Its storage.
    path
        The file.
    dataset
        Dataset name.
    lo, hi
        Keep blocks ``lo..hi`` (the part of the file in the cache's non-overlapping cover);
        ``None`` for a snapshot.
    bounds
        ``(start, end, last)`` of :func:`read` to filter rows by, or ``None``.
    """

    files: Storage
    path: PurePath
    dataset: str
    lo: int | None = None
    hi: int | None = None
    bounds: tuple[Any, Any, int] | None = None

    def table(self) -> pa.Table:
        """The part's rows."""
        spec = ds.get(self.dataset)
        try:
            table = _load(self.files, self.path, spec)
        except FileNotFoundError:
            table = self._replaced(spec)
        if self.lo is not None and self.hi is not None:
            numbers = table["block_number"]
            table = table.filter(pc.and_(pc.greater_equal(numbers, self.lo), pc.less_equal(numbers, self.hi)))
        if self.bounds is not None:
            start, end, last = self.bounds
            table = _filter(table, start, end, last, self.dataset)
        return table

    def _replaced(self, spec: ds.Dataset) -> pa.Table:
        """The part's blocks from the files holding them now: its file was removed since the read
        was planned (a follower's compaction or an overlap repair replaced it by a wider file)."""
        where = self.files.url(self.path)
        if self.lo is None or self.hi is None:
            raise CacheError(f"{where} was removed while being read")
        lo, hi = self.lo, self.hi
        for _ in range(3):
            ranges, _ = _files(self.files, self.path.parent, self.dataset)
            held = [(a, b, p) for a, b, p in cover(ranges) if b >= lo and a <= hi]
            covered = sum(min(b, hi) - max(a, lo) + 1 for a, b, _ in held)
            if covered != hi - lo + 1:
                break
            try:
                return pa.concat_tables([_load(self.files, p, spec) for _, _, p in held])
            except FileNotFoundError:
                continue
        raise CacheError(
            f"{where} was removed while being read and its blocks {lo}..{hi} are no longer all on disk"
        )


def _chain_of(folder: PurePath) -> str:
    chain = folder.parent.parent.name
    return chain if _CHAIN.fullmatch(chain) else str(folder.parent.parent)


def _select_shards(found: dict[int, PurePath], shard: object, name: str) -> list[int]:
    if shard is None or shard == "all":
        return sorted(found)
    wanted = [shard] if not isinstance(shard, Sequence) or isinstance(shard, str) else list(shard)
    out: list[int] = []
    for s in wanted:
        if isinstance(s, bool) or not isinstance(s, int):
            raise ConfigError(f"shard must be a shard id, a list of ids or 'all', got {short_repr(shard)}")
        if s not in found:
            raise ConfigError(f"no {name} files of shard {s}; shards present: {sorted(found)}")
        out.append(s)
    return out


def _bounds(start: object, end: object, last: int) -> tuple[int | None, int | None, list[tuple[str, int]]]:
    """Block bounds ``(lo, hi)`` (``None``: open) of ``start..end`` (relative specs against
    ``last``), and the time bounds ``(kind, unix seconds)``."""
    first_bound, last_bound = parse_range(start, end)
    times: list[tuple[str, int]] = []
    lo = hi = None
    for bound, side in ((first_bound, "start"), (last_bound, "end")):
        if bound is None:
            continue
        if bound.kind == "block":
            lo, hi = (bound.value, hi) if side == "start" else (lo, bound.value)
        elif bound.kind == "latest":
            lo, hi = (last, hi) if side == "start" else (lo, last)
        elif bound.kind in ("from_time", "before_time"):
            times.append((bound.kind, bound.value))
    if first_bound.kind == "back":
        lo = max(0, (hi if hi is not None else last) - first_bound.value + 1)
    if last_bound is not None and last_bound.kind == "forward":
        hi = (lo or 0) + last_bound.value - 1
    return lo, hi, times


def _filter(table: pa.Table, start: object, end: object, last: int, name: str) -> pa.Table:
    """Rows of ``start..end`` (block numbers, relative specs against ``last``, or times)."""
    lo, hi, times = _bounds(start, end, last)
    numbers = table["block_number"]
    mask = pc.is_valid(numbers)
    if lo is not None:
        mask = pc.and_(mask, pc.greater_equal(numbers, lo))
    if hi is not None:
        mask = pc.and_(mask, pc.less_equal(numbers, hi))
    if times:
        if "timestamp" not in table.column_names:
            raise ConfigError(f"{name} has no timestamp column: give start / end as block numbers")
        seconds = pc.divide(pc.cast(pc.cast(table["timestamp"], pa.timestamp("ms")), pa.int64()), 1000)
        for kind, value in times:
            test = pc.greater_equal if kind == "from_time" else pc.less
            mask = pc.and_(mask, test(seconds, value))
    return table.filter(mask)


def read(
    dataset: str,
    path: str | os.PathLike[str] | None = None,
    *,
    shard: int | Sequence[int] | str | None = "all",
    start: Any = None,
    end: Any = None,
    block: int | None = None,
    chain: str | None = None,
    output: Output = "pandas",
    engine: Literal["pandas", "dask"] = "pandas",
) -> Any:
    """Read one dataset back from a cache or export folder (Parquet or CSV), never mixing datasets.

    Parameters
    ----------
    dataset
        The dataset to read (``hmyframe.DATASETS``); only its own files are read.
    path
        The folder: an export's ``--out`` or a cache root (it holds ``<chain_id>/`` folders), a
        chain folder, a dataset folder or a shard folder; or a URL (``memory://``,
        ``s3://bucket/prefix``... through fsspec). Default: the cache root (``data/`` or
        ``$HMYFRAME_CACHE``).
    shard
        ``"all"`` (default: every shard present), a shard id or a list of ids.
    start, end
        Block-range datasets: the blocks to keep, in the forms the fetchers take: block numbers,
        dates and times (compared with the ``timestamp`` column), ``-N`` (the last N blocks on
        disk), ``"+N"``... Default: everything on disk.
    block
        Snapshot datasets: the snapshot to read (default: every snapshot on disk, in block order).
    chain
        The chain folder (``hmyframe cache ls`` shows them) when ``path`` holds several chains.
    output
        ``"pandas"`` (default; exact amounts in the ``atto`` dtype), ``"arrow"`` or ``"polars"``.
    engine
        ``"pandas"`` (default): read now, into memory. ``"dask"``: a lazy Dask DataFrame with
        one partition per file (needs ``hmyframe[dask]``), the same columns and dtypes as
        the pandas frame (the ``atto`` dtype included, in its ``meta`` too), for folders
        larger than memory; ``output`` must then be ``"pandas"``.

    Returns
    -------
    pandas.DataFrame (or pyarrow.Table / polars DataFrame / dask DataFrame)
        The dataset's columns, shard after shard, in block order.

    Raises
    ------
    ConfigError
        Unknown dataset, nothing of it under ``path``, several chains and no ``chain``, or
        arguments that do not fit the dataset.
    CacheError
        A file that cannot be read, or written for an incompatible schema.

    Examples
    --------
    >>> tx = hmyframe.read("transactions", "exports/", start="2026-01-01")     # doctest: +SKIP
    """
    spec = ds.get(dataset)
    check_output(output)
    if engine not in ("pandas", "dask"):
        raise ConfigError(f"engine must be 'pandas' or 'dask', got {short_repr(engine)}")
    if engine == "dask" and output != "pandas":
        raise ConfigError(
            f"engine='dask' gives a Dask DataFrame of pandas partitions: output must be 'pandas', got {output!r}"
        )
    files, root = open_storage(path if path is not None else default_root())
    if engine == "dask" and isinstance(root, Path):
        root = root.absolute()  # the partitions may be read by workers in other folders
    where = files.url(root)
    if not files.is_dir(root):
        raise ConfigError(f"{where} is not a folder")
    kind = spec.fetched_by
    if kind == "snapshot" and (start is not None or end is not None):
        raise ConfigError(f"{dataset} is a snapshot dataset: give block=, not start / end")
    if kind != "snapshot" and block is not None:
        raise ConfigError(f"{dataset} is not a snapshot dataset: give start / end, not block=")
    folders = _shard_folders(files, root, dataset)
    chains = sorted({_chain_of(f) for f in folders})
    if chain is not None:
        folders = [f for f in folders if _chain_of(f) == chain]
        if not folders:
            raise ConfigError(
                f"no {dataset} files of chain {chain!r} under {where}; chains present: {chains}"
            )
    elif len(chains) > 1:
        raise ConfigError(f"{where} holds {dataset} files of several chains {chains}: choose one with chain=")
    if not folders:
        raise ConfigError(f"no {dataset} files under {where}")
    if start is not None or end is not None:
        parse_range(start if start is not None else 0, end)  # a spec that is not understood fails here
    found = {int(_SHARD.fullmatch(f.name)[1]): f for f in folders}  # type: ignore[index]
    parts: list[Part] = []
    for s in _select_shards(found, shard, dataset):
        ranges, snapshots = _files(files, found[s], dataset)
        if kind == "snapshot" or (snapshots and not ranges):
            blocks = sorted(snapshots) if block is None else [block]
            for b in blocks:
                if b not in snapshots:
                    raise ConfigError(f"no {dataset} snapshot at block {b}; snapshots: {sorted(snapshots)}")
                parts.append(Part(files, snapshots[b], dataset))
            continue
        bounds = None
        first, final = 0, None
        if start is not None or end is not None:
            last = max((e for _, e, _ in ranges), default=0)
            bounds = (start if start is not None else 0, end, last)
            low, high, _ = _bounds(*bounds)
            first, final = low or 0, high
        parts.extend(
            Part(files, file, dataset, lo, hi, bounds)
            for lo, hi, file in cover(ranges)
            if hi >= first
            and (final is None or lo <= final)  # files wholly outside the blocks asked are not read
        )
    if engine == "dask":
        from hmyframe.scale import read_dask

        return read_dask(parts, spec)
    tables = [part.table() for part in parts]
    table = pa.concat_tables(tables) if tables else spec.schema.empty_table()
    return to_output(table, output)
