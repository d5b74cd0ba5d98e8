"""One file of a read, and which of its rows to keep: :class:`Part`.

:func:`hmyframe.read` finds a dataset's files in a folder (:mod:`hmyframe.reader`) and
describes each as a ``Part``; the pandas engine loads them here, the Dask engine
(:mod:`hmyframe.scale._frames`) makes one partition of each. Both build on this module, which
imports neither. A file's table always has exactly the dataset's schema: files written by an
older hmyframe whose schema lacked a ``*_one`` companion are completed from the exact column;
a file missing any other column is refused with a :class:`~hmyframe.errors.CacheError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from hmyframe import datasets as ds
from hmyframe._spans import cover, rows_between
from hmyframe.cache import parse_name, tail_end
from hmyframe.datasets import one_of, one_values
from hmyframe.engine import parse_range
from hmyframe.errors import CacheError, ConfigError
from hmyframe.storage import Storage

__all__ = ["Part", "block_bounds", "files_of"]


def files_of(
    files: Storage, folder: PurePath, name: str
) -> tuple[list[tuple[int, int, PurePath]], dict[int, PurePath]]:
    """Range files ``(start, end, path)`` (Parquet before CSV; a follower's tail with the last
    block its footer records) and snapshot files by block.

    A tail listed and gone a moment later was renamed to its range name: the folder is listed
    again, so that its blocks are not missed.
    """
    for _ in range(5):
        found = _files_once(files, folder, name)
        if found is not None:
            return found
    raise CacheError(f"the tails of {files.url(folder)} kept changing while being listed")


def _files_once(
    files: Storage, folder: PurePath, name: str
) -> tuple[list[tuple[int, int, PurePath]], dict[int, PurePath]] | None:
    ranges: list[tuple[int, int, PurePath]] = []
    snapshots: dict[int, PurePath] = {}
    for path in sorted(files.listdir(folder), key=lambda p: (p.suffix != ".parquet", p.name)):
        what = parse_name(path.name)
        if what is None or what.dataset != name:
            continue
        if what.kind == "snapshot":
            snapshots.setdefault(what.start, path)
        elif what.end is not None:
            ranges.append((what.start, what.end, path))
        else:
            try:
                ranges.append((what.start, tail_end(files, path), path))
            except FileNotFoundError:
                return None
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
            table = rows_between(table, self.lo, self.hi)
        if self.bounds is not None:
            start, end, last = self.bounds
            table = _filter(table, start, end, last, self.dataset)
        return table

    def _replaced(self, spec: ds.Dataset) -> pa.Table:
        """The part's blocks from the files holding them now: its file was removed since the read
        was planned (a follower's tail renamed to its chunk file, or an overlap repair replaced it)."""
        where = self.files.url(self.path)
        if self.lo is None or self.hi is None:
            raise CacheError(f"{where} was removed while being read")
        lo, hi = self.lo, self.hi
        for _ in range(3):
            ranges, _ = files_of(self.files, self.path.parent, self.dataset)
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


def block_bounds(
    start: object, end: object, last: int
) -> tuple[int | None, int | None, list[tuple[str, int]]]:
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
    lo, hi, times = block_bounds(start, end, last)
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
