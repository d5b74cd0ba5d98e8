"""The Parquet cache: every fetched range is kept on disk, so it is fetched once.

Layout (one folder per chain, dataset and shard; readable as a whole by pandas,
``pyarrow.dataset`` and DuckDB)::

    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__<start:010d>_<end:010d>.parquet   block ranges
    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__at_<block:010d>.parquet            snapshots

* ``<root>`` is ``data/`` by default (``HMYFRAME_CACHE`` or the ``root`` argument change it).
* ``<chain_id>`` is the first 16 hex digits of the chain's genesis block hash (shard 0), so two
  URLs of one chain share a cache and two chains never mix.
* A range file holds exactly the rows of blocks ``start..end`` (inclusive), possibly none. Only
  blocks at or below the head are ever written (the fetch layer guarantees it).
* Writes are atomic: the table goes to a hidden temporary file in the same folder (ignored by
  pyarrow.dataset and DuckDB globs of ``*.parquet``) and is renamed into place. Temporary files
  of a writer that died (a killed export) are removed when their file is written again.
* Each file records in its Parquet metadata the dataset, its schema fingerprint, the range or
  snapshot block, the chain and shard. A file whose fingerprint differs from the dataset's, or
  that cannot be read, is *stale*: it is never mixed into results; the planner reports it and
  treats its range as missing, so it is refetched and replaced.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hmyframe.errors import CacheError, ConfigError

__all__ = [
    "Cache",
    "CacheEntry",
    "CacheWarning",
    "DatasetLike",
    "cover",
    "default_root",
]

_META_PREFIX = b"hmyframe."
_RANGE_RE = re.compile(r"^(?P<name>[a-z_]+)__(?P<start>\d{10})_(?P<end>\d{10})\.parquet$")
_SNAP_RE = re.compile(r"^(?P<name>[a-z_]+)__at_(?P<block>\d{10})\.parquet$")
_CHAIN_RE = re.compile(r"^[0-9a-f]{16}$")


class CacheWarning(UserWarning):
    """A cache file was found stale or corrupt and will be refetched."""


class DatasetLike(Protocol):
    """What the cache needs to know about a dataset."""

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> pa.Schema: ...

    @property
    def fingerprint(self) -> str: ...


def default_root() -> Path:
    """The cache root: ``$HMYFRAME_CACHE`` if set, else ``./data``."""
    return Path(os.environ.get("HMYFRAME_CACHE") or "data")


@dataclass(frozen=True)
class CacheEntry:
    """One file of the cache.

    Attributes
    ----------
    path
        The file.
    chain_id, dataset, shard
        What it belongs to.
    kind
        ``"range"`` (``start``..``end`` blocks) or ``"snapshot"`` (taken at block ``start``).
    start, end
        Block range (both equal to the snapshot block for a snapshot).
    rows
        Number of rows, or ``None`` if the file could not be read.
    status
        ``"ok"``, ``"stale"`` (written for another schema) or ``"corrupt"``.
    size
        File size in bytes.
    """

    path: Path
    chain_id: str
    dataset: str
    shard: int
    kind: Literal["range", "snapshot"]
    start: int
    end: int
    rows: int | None
    status: Literal["ok", "stale", "corrupt"]
    size: int


class Cache:
    """Parquet files of fetched data, per (chain, dataset, shard, block range or snapshot).

    Parameters
    ----------
    root
        Folder of the cache; default :func:`default_root`.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        # footer inspections by (path, fingerprint), valid while the file's (mtime, size,
        # inode) stay the same: planning scans a folder for every chunk, and re-reading every
        # footer each time made long exports quadratic in the number of files
        self._inspections: dict[
            tuple[Path, str | None],
            tuple[tuple[int, int, int], Literal["ok", "stale", "corrupt"], int | None],
        ] = {}

    # -- paths -------------------------------------------------------------------------

    def folder(self, chain_id: str, dataset: str, shard: int) -> Path:
        """Folder holding the files of one dataset of one shard of one chain."""
        if not _CHAIN_RE.match(chain_id):
            raise ConfigError(f"chain id {chain_id!r} is not 16 lower-case hex digits")
        if shard < 0:
            raise ConfigError(f"shard {shard!r} must be >= 0")
        return self.root / chain_id / dataset / f"shard{shard}"

    def range_path(self, chain_id: str, dataset: str, shard: int, start: int, end: int) -> Path:
        """Path of the file holding blocks ``start..end`` of ``dataset``."""
        _check_range(start, end)
        return self.folder(chain_id, dataset, shard) / f"{dataset}__{start:010d}_{end:010d}.parquet"

    def snapshot_path(self, chain_id: str, dataset: str, shard: int, block: int) -> Path:
        """Path of the snapshot of ``dataset`` taken at ``block``."""
        _check_range(block, block)
        return self.folder(chain_id, dataset, shard) / f"{dataset}__at_{block:010d}.parquet"

    # -- planning ------------------------------------------------------------------------

    def cached_ranges(
        self, chain_id: str, dataset: DatasetLike, shard: int, *, report: bool = True
    ) -> list[tuple[int, int, Path]]:
        """Valid range files of ``dataset``, as a non-overlapping, sorted cover.

        Stale or corrupt files are left out (and reported with a :class:`CacheWarning`
        when ``report`` is true); where files overlap (two processes wrote the same
        blocks) the widest file wins.
        """
        candidates: list[tuple[int, int, Path]] = []
        for entry in self._scan_folder(chain_id, dataset.name, shard, dataset):
            if entry.kind != "range":
                continue
            if entry.status != "ok":
                if report:
                    warnings.warn(
                        f"cache file {entry.path} is {entry.status}; its blocks "
                        f"{entry.start}..{entry.end} will be refetched",
                        CacheWarning,
                        stacklevel=3,
                    )
                continue
            candidates.append((entry.start, entry.end, entry.path))
        return cover(candidates)

    def missing(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int
    ) -> list[tuple[int, int]]:
        """Sub-ranges of ``start..end`` (inclusive) that no valid file covers."""
        _check_range(start, end)
        gaps: list[tuple[int, int]] = []
        cursor = start
        for c_start, c_end, _ in self.cached_ranges(chain_id, dataset, shard):
            if c_end < cursor:
                continue
            if c_start > end:
                break
            if c_start > cursor:
                gaps.append((cursor, min(end, c_start - 1)))
            cursor = max(cursor, c_end + 1)
            if cursor > end:
                break
        if cursor <= end:
            gaps.append((cursor, end))
        return gaps

    # -- reading -------------------------------------------------------------------------

    def read_range(self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int) -> pa.Table:
        """Rows of blocks ``start..end`` from the cache (the caller checks :meth:`missing` first).

        Raises
        ------
        CacheError
            If part of the range is not cached, or a file cannot be read.
        """
        gaps = self.missing(chain_id, dataset, shard, start, end)
        if gaps:
            raise CacheError(f"{dataset.name} shard {shard}: blocks {gaps} of {start}..{end} are not cached")
        tables: list[pa.Table] = []
        for c_start, c_end, path in self.cached_ranges(chain_id, dataset, shard, report=False):
            if c_end < start or c_start > end:
                continue
            table = self._read_file(path, dataset)
            lo, hi = max(start, c_start), min(end, c_end)
            if lo != c_start or hi != c_end or c_start > _file_start(path):
                table = _filter_blocks(table, lo, hi)
            tables.append(table)
        if not tables:
            return dataset.schema.empty_table()
        return pa.concat_tables(tables)

    def read_snapshot(self, chain_id: str, dataset: DatasetLike, shard: int, block: int) -> pa.Table | None:
        """The snapshot taken at ``block``, or ``None`` if it is not cached (or stale)."""
        path = self.snapshot_path(chain_id, dataset.name, shard, block)
        if not path.exists():
            return None
        status, _ = _inspect(path, dataset)
        if status != "ok":
            warnings.warn(f"cache file {path} is {status}; it will be refetched", CacheWarning, stacklevel=2)
            return None
        return self._read_file(path, dataset)

    # -- writing -------------------------------------------------------------------------

    def write_range(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int, table: pa.Table
    ) -> Path:
        """Atomically write the rows of blocks ``start..end`` (all of them, maybe none)."""
        path = self.range_path(chain_id, dataset.name, shard, start, end)
        self._write(path, dataset, table, chain_id=chain_id, shard=shard, kind="range", start=start, end=end)
        # a stale/corrupt file covering part of this range has now been replaced: remove it
        for entry in self._scan_folder(chain_id, dataset.name, shard, dataset):
            if (
                entry.kind == "range"
                and entry.path != path
                and entry.status != "ok"
                and start <= entry.start
                and entry.end <= end
            ):
                with contextlib.suppress(FileNotFoundError):
                    entry.path.unlink()
        return path

    def write_snapshot(
        self, chain_id: str, dataset: DatasetLike, shard: int, block: int, table: pa.Table
    ) -> Path:
        """Atomically write a snapshot taken at ``block``."""
        path = self.snapshot_path(chain_id, dataset.name, shard, block)
        self._write(
            path, dataset, table, chain_id=chain_id, shard=shard, kind="snapshot", start=block, end=block
        )
        return path

    # -- housekeeping --------------------------------------------------------------------

    def entries(self, chain_id: str | None = None, dataset: str | None = None) -> list[CacheEntry]:
        """Every file of the cache (optionally of one chain and/or dataset), with its status."""
        out: list[CacheEntry] = []
        if not self.root.is_dir():
            return out
        for chain_dir in sorted(p for p in self.root.iterdir() if p.is_dir() and _CHAIN_RE.match(p.name)):
            if chain_id is not None and chain_dir.name != chain_id:
                continue
            for ds_dir in sorted(p for p in chain_dir.iterdir() if p.is_dir()):
                if dataset is not None and ds_dir.name != dataset:
                    continue
                for shard_dir in sorted(
                    p for p in ds_dir.iterdir() if p.is_dir() and p.name.startswith("shard")
                ):
                    try:
                        shard = int(shard_dir.name[5:])
                    except ValueError:
                        continue
                    out.extend(self._scan_folder(chain_dir.name, ds_dir.name, shard, None))
        return out

    def clear(self, chain_id: str | None = None, dataset: str | None = None) -> int:
        """Delete cached files (all, or of one chain and/or dataset); return how many."""
        entries = self.entries(chain_id, dataset)
        for entry in entries:
            with contextlib.suppress(FileNotFoundError):
                entry.path.unlink()
        # remove emptied folders, deepest first
        if self.root.is_dir():
            for folder in sorted(
                (p for p in self.root.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)
            ):
                if _CHAIN_RE.match(folder.relative_to(self.root).parts[0]):
                    with contextlib.suppress(OSError):
                        folder.rmdir()
            for tmp in self.root.rglob(".*.tmp"):
                with contextlib.suppress(OSError):
                    tmp.unlink()
        return len(entries)

    # -- internals -----------------------------------------------------------------------

    def _scan_folder(
        self, chain_id: str, dataset_name: str, shard: int, dataset: DatasetLike | None
    ) -> Iterator[CacheEntry]:
        folder = self.folder(chain_id, dataset_name, shard)
        if not folder.is_dir():
            return
        for path in sorted(folder.iterdir()):
            m = _RANGE_RE.match(path.name)
            snap = _SNAP_RE.match(path.name) if m is None else None
            if m is None and snap is None:
                continue
            if m is not None:
                kind: Literal["range", "snapshot"] = "range"
                start, end = int(m["start"]), int(m["end"])
            else:
                assert snap is not None
                kind = "snapshot"
                start = end = int(snap["block"])
            try:
                st = path.stat()
            except FileNotFoundError:
                continue
            status, rows = self._inspect(path, st, dataset)
            yield CacheEntry(path, chain_id, dataset_name, shard, kind, start, end, rows, status, st.st_size)

    def _inspect(
        self, path: Path, st: os.stat_result, dataset: DatasetLike | None
    ) -> tuple[Literal["ok", "stale", "corrupt"], int | None]:
        """:func:`_inspect`, remembered while the file is unchanged."""
        key = (path, None if dataset is None else dataset.fingerprint)
        stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
        known = self._inspections.get(key)
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        status, rows = _inspect(path, dataset)
        self._inspections[key] = (stamp, status, rows)
        return status, rows

    def _read_file(self, path: Path, dataset: DatasetLike) -> pa.Table:
        try:
            table = pq.read_table(path, schema=dataset.schema)
        except (OSError, pa.ArrowException) as exc:
            raise CacheError(f"cannot read cache file {path}: {exc}") from exc
        return table.replace_schema_metadata(dataset.schema.metadata)

    def _write(
        self,
        path: Path,
        dataset: DatasetLike,
        table: pa.Table,
        *,
        chain_id: str,
        shard: int,
        kind: str,
        start: int,
        end: int,
    ) -> None:
        if not table.schema.equals(dataset.schema, check_metadata=False):
            raise CacheError(
                f"refusing to cache {dataset.name}: table schema {table.schema} differs from the dataset's"
            )
        meta = dict(dataset.schema.metadata or {})
        meta.update(
            {
                _META_PREFIX + b"dataset": dataset.name.encode(),
                _META_PREFIX + b"fingerprint": dataset.fingerprint.encode(),
                _META_PREFIX + b"chain": chain_id.encode(),
                _META_PREFIX + b"shard": str(shard).encode(),
                _META_PREFIX + b"kind": kind.encode(),
                _META_PREFIX + b"start": str(start).encode(),
                _META_PREFIX + b"end": str(end).encode(),
            }
        )
        table = table.replace_schema_metadata(meta)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            pq.write_table(table, tmp, compression="zstd")
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise CacheError(f"cannot write cache file {path}: {exc}") from exc
        _remove_orphans(path)


def cover(candidates: list[tuple[int, int, Path]]) -> list[tuple[int, int, Path]]:
    """Range files ``(start, end, path)`` as a non-overlapping cover sorted by block.

    Where files overlap (two processes wrote the same blocks) the widest file wins; a file that
    only partly overlaps the one before it is used from the block after that one (its start is
    clipped), so each block is read from exactly one file.
    """
    out: list[tuple[int, int, Path]] = []
    for start, end, path in sorted(candidates, key=lambda c: (c[0], -(c[1] - c[0]))):
        if out and start <= out[-1][1]:
            if end <= out[-1][1]:
                continue  # contained in the previous file
            start = out[-1][1] + 1
        out.append((start, end, path))
    return out


def _remove_orphans(path: Path) -> None:
    """Delete temporary files of ``path`` left by writers that died mid-write (killed exports).

    Only files of processes that no longer exist are removed: a concurrent writer's file is
    left alone.
    """
    prefix = f".{path.name}."
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid_text = tmp.name[len(prefix) : -len(".tmp")]
        if not pid_text.isdigit() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's), or cannot tell: keep its file
    return True


def _check_range(start: int, end: int) -> None:
    if start < 0 or end < start:
        raise ConfigError(f"block range {start!r}..{end!r} is invalid: expected 0 <= start <= end")


def _file_start(path: Path) -> int:
    m = _RANGE_RE.match(path.name)
    return int(m["start"]) if m else -1


def _filter_blocks(table: pa.Table, lo: int, hi: int) -> pa.Table:
    if "block_number" not in table.column_names:
        raise CacheError("range-cached datasets need a block_number column")
    col = table["block_number"]
    mask = pc.and_(pc.greater_equal(col, lo), pc.less_equal(col, hi))
    return table.filter(mask)


def _inspect(path: Path, dataset: DatasetLike | None) -> tuple[Literal["ok", "stale", "corrupt"], int | None]:
    """Status and row count of a cache file, reading only its footer."""
    try:
        meta = pq.read_metadata(path)
    except (OSError, pa.ArrowException):
        return "corrupt", None
    kv = meta.metadata or {}
    if dataset is not None:
        fingerprint = kv.get(_META_PREFIX + b"fingerprint", b"").decode(errors="replace")
        if fingerprint != dataset.fingerprint:
            return "stale", meta.num_rows
    return "ok", meta.num_rows
