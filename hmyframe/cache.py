"""The Parquet cache: every fetched range is kept on disk, so it is fetched once.

Layout (one folder per chain, dataset and shard; readable as a whole by pandas,
``pyarrow.dataset`` and DuckDB)::

    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__<start:010d>_<end:010d>.parquet   block ranges
    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__at_<block:010d>.parquet            snapshots

* ``<root>`` is ``data/`` by default (``HMYFRAME_CACHE`` or the ``root`` argument change it);
  it may be a URL (``memory://``, ``s3://bucket/prefix``...): every file operation then goes
  through fsspec (:mod:`hmyframe.storage`, which says what holds without atomic rename).
* ``<chain_id>`` is the first 16 hex digits of the chain's genesis block hash (shard 0), so two
  URLs of one chain share a cache and two chains never mix.
* A range file holds exactly the rows of blocks ``start..end`` (inclusive), possibly none. Only
  blocks at or below the head are ever written (the fetch layer guarantees it).

What each file records
    Its Parquet footer carries an integrity record (``hmyframe.*`` key-value metadata): the
    dataset and its schema fingerprint, chain, shard, kind, block range (or snapshot block),
    row count, and a content check: a SHA-256 of the footer's per-column statistics (values
    and null counts, min and max of every column of every row group). Planning verifies each
    file from its footer alone, remembered while the file is unchanged: the record must match
    the file's name and folder, the row count the footer's, the footer schema the dataset's
    schema, the content check the footer statistics, and the ``block_number`` statistics must
    lie inside the named range. A file failing any of these is *corrupt*; one written for
    another schema (or without a record, by an older version) is *stale*. Neither is ever
    mixed into results: its blocks count as missing, are refetched, and the file is replaced.

Writers (several processes, possibly on several machines sharing the folder)
    * A file is written under a hidden temporary name unique to its writer (pid, host and a
      random token; ignored by ``*.parquet`` globs) and renamed into place, atomically. Names
      are deterministic: two writers of the same blocks write the same name with the same
      rows, so the last rename wins and nothing is duplicated.
    * Just before the rename, a writer checks whether other files already hold all its blocks
      (a concurrent writer was faster); then it does not publish at all.
    * Files of different chunkings can still overlap (one writer's ``0..999`` and another's
      ``0..699``). Every writer, after its rename, and every planner that sees an overlap
      repairs the folder with one deterministic rule: the wider file wins (then the earlier,
      then the name); a file whose blocks are all held by winners is deleted, a file that
      partly overlaps winners is replaced by files of its blocks that no winner holds. All
      repairers compute the same result, so concurrent repairs converge; an overlap left by a
      writer that died between rename and repair is repaired by the next reader.
    * Reads never return a block twice: the cover handed to readers is non-overlapping even
      before a repair (a read-only folder is not repaired, only read around its overlaps).
    * Temporary files of writers that died are removed when their file is written again or on
      ``clear``: at once when their writer is a dead process of this machine, after an hour
      otherwise (no pid of another machine is ever trusted).
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import re
import secrets
import socket
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar

from hmyframe._lazy import lazy_module
from hmyframe.errors import CacheError, ConfigError
from hmyframe.storage import LOCAL, Stat, Storage, open_storage, os_reason

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pq = lazy_module("pyarrow.parquet")

__all__ = [
    "Cache",
    "CacheEntry",
    "CacheWarning",
    "DatasetLike",
    "cover",
    "default_root",
    "ensure_writable_folder",
    "os_reason",
]

_META_PREFIX = b"hmyframe."
_RANGE_RE = re.compile(r"^(?P<name>[a-z_]+)__(?P<start>\d{10})_(?P<end>\d{10})\.parquet$")
_SNAP_RE = re.compile(r"^(?P<name>[a-z_]+)__at_(?P<block>\d{10})\.parquet$")
_CHAIN_RE = re.compile(r"^[0-9a-f]{16}$")
_SHARD_RE = re.compile(r"^shard(?P<shard>\d+)$")
# ".<file name>.<writer tag>.tmp": the tag is "<pid>-<host>-<token>" (older versions: "<pid>")
_TMP_RE = re.compile(
    r"^\.(?P<final>[a-z_]+__(?:\d{10}_\d{10}|at_\d{10})\.parquet)\.(?P<tag>[A-Za-z0-9-]+)\.tmp$"
)
#: Record format written by this version (files without it are stale).
_RECORD = b"2"
#: Seconds after which a temporary file of a writer on another machine counts as orphaned.
ORPHAN_AGE = 3600.0

Status = Literal["ok", "stale", "corrupt"]
_P = TypeVar("_P", bound=PurePath)


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
        The file: a :class:`pathlib.Path` in a local cache; in a cache at a URL, the path
        inside its filesystem (:meth:`Cache.url` gives its URL).
    chain_id, dataset, shard
        What it belongs to.
    kind
        ``"range"`` (``start``..``end`` blocks) or ``"snapshot"`` (taken at block ``start``).
    start, end
        Block range (both equal to the snapshot block for a snapshot).
    rows
        Number of rows, or ``None`` if the file could not be read.
    status
        ``"ok"``, ``"stale"`` (written for another schema, or without an integrity record)
        or ``"corrupt"`` (unreadable, or its content does not match its record).
    size
        File size in bytes.
    problem
        Why the file is stale or corrupt (``""`` when ok).
    """

    path: PurePath
    chain_id: str
    dataset: str
    shard: int
    kind: Literal["range", "snapshot"]
    start: int
    end: int
    rows: int | None
    status: Status
    size: int
    problem: str = ""


@dataclass(frozen=True)
class _Expected:
    """What a file's name and folder say it holds."""

    chain_id: str
    dataset: str
    shard: int
    kind: Literal["range", "snapshot"]
    start: int
    end: int


class Cache:
    """Parquet files of fetched data, per (chain, dataset, shard, block range or snapshot).

    Parameters
    ----------
    root
        Folder of the cache (default :func:`default_root`), or a URL: ``file://`` is a local
        folder; any other (``memory://``, ``s3://bucket/prefix``...) is opened with fsspec,
        with the same rules (see :mod:`hmyframe.storage` for what holds on filesystems
        without atomic rename, such as object stores).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.files: Storage
        self.root: PurePath
        self.files, self.root = open_storage(root if root is not None else default_root())
        # footer inspections by (path, fingerprint), valid while the file's stamp (mtime, size,
        # inode; or what the filesystem gives) stays the same: planning scans a folder for
        # every chunk, and re-reading every footer each time made long exports quadratic in
        # the number of files
        self._inspections: dict[
            tuple[PurePath, str | None], tuple[tuple[object, ...], Status, int | None, str]
        ] = {}
        self._token = secrets.token_hex(4)
        self._unrepairable: set[PurePath] = set()

    def url(self, path: PurePath | None = None) -> str:
        """How to show ``path`` (default: the root) to a user: a local path, or its URL."""
        return self.files.url(self.root if path is None else path)

    @property
    def _writer_tag(self) -> str:
        """Unique to this writer among all processes and machines sharing the folder."""
        return f"{os.getpid()}-{_host_tag()}-{self._token}"

    # -- paths -------------------------------------------------------------------------

    def folder(self, chain_id: str, dataset: str, shard: int) -> PurePath:
        """Folder holding the files of one dataset of one shard of one chain."""
        if not _CHAIN_RE.match(str(chain_id)):
            raise ConfigError(f"chain id {chain_id!r} is not 16 lower-case hex digits")
        if not re.fullmatch(r"[a-z_]+", str(dataset)):
            raise ConfigError(f"dataset name {dataset!r} is not a dataset name (lower-case letters and _)")
        if shard < 0:
            raise ConfigError(f"shard {shard!r} must be >= 0")
        return self.root / chain_id / dataset / f"shard{shard}"

    def range_path(self, chain_id: str, dataset: str, shard: int, start: int, end: int) -> PurePath:
        """Path of the file holding blocks ``start..end`` of ``dataset``."""
        _check_range(start, end)
        return self.folder(chain_id, dataset, shard) / f"{dataset}__{start:010d}_{end:010d}.parquet"

    def snapshot_path(self, chain_id: str, dataset: str, shard: int, block: int) -> PurePath:
        """Path of the snapshot of ``dataset`` taken at ``block``."""
        _check_range(block, block)
        return self.folder(chain_id, dataset, shard) / f"{dataset}__at_{block:010d}.parquet"

    def ensure_writable(self) -> None:
        """Create the root if needed and check that files can be written there.

        Raises
        ------
        CacheError
            Naming the root and the reason (a file in the way, a read-only or unwritable
            folder...), before anything is fetched.
        """
        self.files.ensure_writable(self.root, "cache folder")

    # -- planning ------------------------------------------------------------------------

    def cached_ranges(
        self, chain_id: str, dataset: DatasetLike, shard: int, *, report: bool = True
    ) -> list[tuple[int, int, PurePath]]:
        """Valid range files of ``dataset``, as a non-overlapping, sorted cover.

        Stale or corrupt files are left out (and reported with a :class:`CacheWarning`
        when ``report`` is true). Overlapping files (written by concurrent writers with other
        chunk sizes) are repaired first (see the module docstring); where that is not
        possible (a read-only folder) the cover still holds each block once: a file is then
        only used for the blocks no earlier file of the cover holds.
        """
        candidates = self._valid_ranges(chain_id, dataset, shard, report=report)
        if _overlapping(candidates) and self._repair(chain_id, dataset, shard, candidates):
            candidates = self._valid_ranges(chain_id, dataset, shard, report=False)
        return cover(candidates)

    def missing(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int
    ) -> list[tuple[int, int]]:
        """Sub-ranges of ``start..end`` (inclusive) that no valid file covers."""
        _check_range(start, end)
        return _gaps(self.cached_ranges(chain_id, dataset, shard), start, end)

    # -- reading -------------------------------------------------------------------------

    def read_range(self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int) -> pa.Table:
        """Rows of blocks ``start..end`` from the cache, each block's rows once, in block order.

        The caller checks :meth:`missing` first. A file removed between planning and reading
        (a concurrent repair replaced it) is planned around again.

        Raises
        ------
        CacheError
            If part of the range is not cached, or a file cannot be read.
        """
        _check_range(start, end)
        for attempt in range(3):
            cover = self.cached_ranges(chain_id, dataset, shard, report=False)
            gaps = _gaps(cover, start, end)
            if gaps:
                raise CacheError(
                    f"{dataset.name} shard {shard}: blocks {gaps} of {start}..{end} are not cached"
                )
            try:
                return self._read_cover(cover, dataset, start, end)
            except FileNotFoundError:
                if attempt == 2:
                    raise CacheError(
                        f"{dataset.name} shard {shard}: cache files of blocks {start}..{end} kept "
                        f"changing while being read (other writers in {self.root}?)"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _read_cover(
        self, cover: list[tuple[int, int, PurePath]], dataset: DatasetLike, start: int, end: int
    ) -> pa.Table:
        tables: list[pa.Table] = []
        for c_start, c_end, path in cover:
            if c_end < start or c_start > end:
                continue
            table = self._read_file(path, dataset)
            lo, hi = max(start, c_start), min(end, c_end)
            if lo != c_start or hi != c_end or c_start > _file_range(path)[0]:
                table = _filter_blocks(table, lo, hi)
            tables.append(table)
        if not tables:
            return dataset.schema.empty_table()
        return pa.concat_tables(tables)

    def read_snapshot(self, chain_id: str, dataset: DatasetLike, shard: int, block: int) -> pa.Table | None:
        """The snapshot taken at ``block``, or ``None`` if it is not cached (or stale, corrupt)."""
        path = self.snapshot_path(chain_id, dataset.name, shard, block)
        try:
            st = self.files.stat(path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise CacheError(f"cannot read cache file {self.url(path)}: {os_reason(exc)}") from None
        expected = _Expected(chain_id, dataset.name, shard, "snapshot", block, block)
        status, _, problem = self._inspect(path, st, dataset, expected)
        if status != "ok":
            warnings.warn(
                f"cache file {self.url(path)} is {status} ({problem}); it will be refetched",
                CacheWarning,
                stacklevel=2,
            )
            return None
        try:
            return self._read_file(path, dataset)
        except FileNotFoundError:
            return None

    # -- writing -------------------------------------------------------------------------

    def write_range(
        self,
        chain_id: str,
        dataset: DatasetLike,
        shard: int,
        start: int,
        end: int,
        table: pa.Table,
        *,
        replace: bool = False,
    ) -> PurePath | None:
        """Atomically write the rows of blocks ``start..end`` (all of them, maybe none).

        ``replace=True`` publishes the file even when other files already hold all these
        blocks: a compaction of narrower files into this one (the overlap repair that follows
        the rename then removes them, the wider file winning).

        Returns
        -------
        pathlib.PurePath or None
            The file written, or ``None`` when other valid files already held all these
            blocks at the moment of publishing (a concurrent writer was faster).
        """
        path = self.range_path(chain_id, dataset.name, shard, start, end)
        expected = _Expected(chain_id, dataset.name, shard, "range", start, end)
        _check_table(table, dataset, expected)

        def covered() -> bool:
            return not _gaps(self._valid_ranges(chain_id, dataset, shard, report=False), start, end)

        written = self._write(path, dataset, table, expected, skip_if=None if replace else covered)
        folder = path.parent
        if written:
            # stale/corrupt files inside this range are now replaced: remove them
            for entry in self._scan_folder(chain_id, dataset.name, shard, dataset):
                if (
                    entry.kind == "range"
                    and entry.path != path
                    and entry.status != "ok"
                    and start <= entry.start
                    and entry.end <= end
                ):
                    with contextlib.suppress(FileNotFoundError):
                        self.files.unlink(entry.path)
            candidates = self._valid_ranges(chain_id, dataset, shard, report=False)
            if _overlapping(candidates):
                self._repair(chain_id, dataset, shard, candidates)
        self._unrepairable.discard(folder)
        return path if written else None

    def write_snapshot(
        self, chain_id: str, dataset: DatasetLike, shard: int, block: int, table: pa.Table
    ) -> PurePath:
        """Atomically write a snapshot taken at ``block``."""
        path = self.snapshot_path(chain_id, dataset.name, shard, block)
        expected = _Expected(chain_id, dataset.name, shard, "snapshot", block, block)
        _check_table(table, dataset, expected)
        self._write(path, dataset, table, expected)
        return path

    # -- housekeeping --------------------------------------------------------------------

    def entries(self, chain_id: str | None = None, dataset: str | None = None) -> list[CacheEntry]:
        """Every file of the cache (optionally of one chain and/or dataset), with its status."""
        return [
            entry for folder in self._folders(chain_id, dataset) for entry in self._scan_folder(*folder, None)
        ]

    def chains(self) -> list[str]:
        """Chain ids that have a folder under the root."""
        return sorted({chain for chain, _, _ in self._folders(None, None)})

    def clear(self, chain_id: str | None = None, dataset: str | None = None) -> int:
        """Delete cached files (all, or of one chain and/or dataset); return how many.

        Only files this cache writes are touched: range and snapshot files and their
        temporary files, inside ``<chain>/<dataset>/shard<S>`` folders. Folders left empty
        by it are removed; anything else (a user's own files) stays.
        """
        removed = 0
        for chain, name, shard in self._folders(chain_id, dataset):
            folder = self.folder(chain, name, shard)
            for path in self.files.listdir(folder):
                if _RANGE_RE.match(path.name) or _SNAP_RE.match(path.name) or _TMP_RE.match(path.name):
                    try:
                        self.files.unlink(path)
                    except FileNotFoundError:
                        continue
                    except OSError as exc:
                        raise CacheError(
                            f"cannot delete cache file {self.url(path)}: {os_reason(exc)}"
                        ) from None
                    removed += 1
            for empty in (folder, folder.parent, folder.parent.parent):
                self.files.rmdir(empty)  # only when empty
        return removed

    def remove_orphans(self, chain_id: str | None = None) -> int:
        """Delete the temporary files of writers that died, in every folder (of one chain); return
        how many. The rule is the one writers apply to their own file's folder (see the module
        docstring); a distributed export runs it when its workers are done, since a worker killed
        while writing a dataset that nobody writes again would leave its file forever.
        """
        removed = 0
        for chain, name, shard in self._folders(chain_id, None):
            for tmp in self.files.listdir(self.folder(chain, name, shard)):
                m = _TMP_RE.match(tmp.name)
                if m is not None and _orphaned(self.files, tmp, m["tag"]):
                    try:
                        self.files.unlink(tmp)
                    except OSError:
                        continue
                    removed += 1
        return removed

    # -- internals: scanning -------------------------------------------------------------

    def _folders(self, chain_id: str | None, dataset: str | None) -> Iterator[tuple[str, str, int]]:
        """``(chain, dataset, shard)`` of every cache folder under the root, filtered."""
        for chain_dir in self.files.listdir(self.root):
            if not _CHAIN_RE.match(chain_dir.name) or (chain_id is not None and chain_dir.name != chain_id):
                continue
            for ds_dir in self.files.listdir(chain_dir):
                if not re.fullmatch(r"[a-z_]+", ds_dir.name) or (
                    dataset is not None and ds_dir.name != dataset
                ):
                    continue
                for shard_dir in self.files.listdir(ds_dir):
                    m = _SHARD_RE.match(shard_dir.name)
                    if m is not None and self.files.is_dir(shard_dir):
                        yield chain_dir.name, ds_dir.name, int(m["shard"])

    def _valid_ranges(
        self, chain_id: str, dataset: DatasetLike, shard: int, *, report: bool
    ) -> list[tuple[int, int, PurePath]]:
        out: list[tuple[int, int, PurePath]] = []
        for entry in self._scan_folder(chain_id, dataset.name, shard, dataset):
            if entry.kind != "range":
                continue
            if entry.status != "ok":
                if report:
                    warnings.warn(
                        f"cache file {self.url(entry.path)} is {entry.status} ({entry.problem}); its blocks "
                        f"{entry.start}..{entry.end} will be refetched",
                        CacheWarning,
                        stacklevel=4,
                    )
                continue
            out.append((entry.start, entry.end, entry.path))
        return out

    def _scan_folder(
        self, chain_id: str, dataset_name: str, shard: int, dataset: DatasetLike | None
    ) -> Iterator[CacheEntry]:
        folder = self.folder(chain_id, dataset_name, shard)
        for path in self.files.listdir(folder):
            m = _RANGE_RE.match(path.name)
            snap = _SNAP_RE.match(path.name) if m is None else None
            if m is None and snap is None:
                continue
            if m is not None:
                kind: Literal["range", "snapshot"] = "range"
                start, end = int(m["start"]), int(m["end"])
                named = m["name"]
            else:
                assert snap is not None
                kind = "snapshot"
                start = end = int(snap["block"])
                named = snap["name"]
            try:
                st = self.files.stat(path)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise CacheError(f"cannot read cache file {self.url(path)}: {os_reason(exc)}") from None
            expected = _Expected(chain_id, dataset_name, shard, kind, start, end)
            if named != dataset_name:
                status: Status = "corrupt"
                rows: int | None = None
                problem = f"named for dataset {named!r} in the {dataset_name!r} folder"
            else:
                status, rows, problem = self._inspect(path, st, dataset, expected)
            yield CacheEntry(
                path, chain_id, dataset_name, shard, kind, start, end, rows, status, st.size, problem
            )

    def _inspect(
        self, path: PurePath, st: Stat, dataset: DatasetLike | None, expected: _Expected
    ) -> tuple[Status, int | None, str]:
        """:func:`_inspect`, remembered while the file is unchanged."""
        key = (path, None if dataset is None else dataset.fingerprint)
        known = self._inspections.get(key)
        if known is not None and st.stamp is not None and known[0] == st.stamp:
            return known[1], known[2], known[3]
        status, rows, problem = _inspect(self.files, path, dataset, expected)
        if st.stamp is not None:
            self._inspections[key] = (st.stamp, status, rows, problem)
        return status, rows, problem

    def _read_file(self, path: PurePath, dataset: DatasetLike) -> pa.Table:
        try:
            table = self.files.read_table(path, dataset.schema)
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as exc:
            raise CacheError(f"cannot read cache file {self.url(path)}: {exc}") from exc
        return table.replace_schema_metadata(dataset.schema.metadata)

    # -- internals: overlaps -------------------------------------------------------------

    def _repair(
        self, chain_id: str, dataset: DatasetLike, shard: int, candidates: list[tuple[int, int, PurePath]]
    ) -> bool:
        """Remove overlaps between valid range files (the rule is in the module docstring).

        Returns whether the folder was changed. A folder that cannot be changed (read-only)
        is left as it is, with one :class:`CacheWarning`; readers then read around the
        overlaps.
        """
        folder = self.folder(chain_id, dataset.name, shard)
        if folder in self._unrepairable:
            return False
        order = sorted(candidates, key=lambda c: (-(c[1] - c[0]), c[0], c[2].name))
        held: list[tuple[int, int]] = []  # blocks held by the files kept so far
        changed = False
        try:
            for start, end, path in order:
                free = _gaps(held, start, end)
                held = _merge_ranges([*held, (start, end)])
                if free == [(start, end)]:
                    continue  # overlaps nothing kept: a winner
                try:
                    table = self._read_file(path, dataset) if free else None
                except FileNotFoundError:
                    continue  # another repairer got there first
                for a, b in free:
                    assert table is not None
                    part_path = self.range_path(chain_id, dataset.name, shard, a, b)
                    part = _Expected(chain_id, dataset.name, shard, "range", a, b)
                    self._write(part_path, dataset, _filter_blocks(table, a, b), part)
                with contextlib.suppress(FileNotFoundError):
                    self.files.unlink(path)
                changed = True
        except (OSError, CacheError) as exc:
            self._unrepairable.add(folder)
            warnings.warn(
                f"cache folder {self.url(folder)} holds overlapping files and cannot be repaired "
                f"({exc}); they are read without duplicating any block",
                CacheWarning,
                stacklevel=4,
            )
        return changed

    # -- internals: writing --------------------------------------------------------------

    def _write(
        self,
        path: PurePath,
        dataset: DatasetLike,
        table: pa.Table,
        expected: _Expected,
        *,
        skip_if: _Check | None = None,
    ) -> bool:
        """Write ``table`` with its integrity record to ``path`` atomically; ``False`` if skipped."""
        from hmyframe._pandas_meta import PANDAS_KEY, pandas_metadata

        meta = dict(dataset.schema.metadata or {})
        meta.update(
            {
                _META_PREFIX + b"record": _RECORD,
                _META_PREFIX + b"dataset": dataset.name.encode(),
                _META_PREFIX + b"fingerprint": dataset.fingerprint.encode(),
                _META_PREFIX + b"chain": expected.chain_id.encode(),
                _META_PREFIX + b"shard": str(expected.shard).encode(),
                _META_PREFIX + b"kind": expected.kind.encode(),
                _META_PREFIX + b"start": str(expected.start).encode(),
                _META_PREFIX + b"end": str(expected.end).encode(),
                _META_PREFIX + b"rows": str(table.num_rows).encode(),
                # plain pd.read_parquet gives a fetch's dtypes (see hmyframe._pandas_meta)
                PANDAS_KEY: pandas_metadata(dataset.schema),
            }
        )
        table = table.replace_schema_metadata(meta)
        # the content check covers the footer statistics, which only exist once a file is
        # written: take them from a fast uncompressed pass (statistics do not depend on the
        # codec), then check the real file against them
        footers: list[pq.FileMetaData] = []
        pq.write_table(
            table,
            pa.BufferOutputStream(),
            compression="none",
            use_dictionary=False,
            metadata_collector=footers,
        )
        check = _content_check(footers.pop())
        tmp = path.with_name(f".{path.name}.{self._writer_tag}.tmp")
        files = self.files
        try:
            files.mkdir(path.parent)
            for _ in range(2):
                with_check = table.replace_schema_metadata({**meta, _META_PREFIX + b"check": check.encode()})
                files.write_parquet(with_check, tmp, footers)
                actual = _content_check(footers.pop())
                if actual == check:
                    break
                check = actual  # statistics differ between passes (never seen): record the file's own
            if skip_if is not None and skip_if():
                files.unlink(tmp)
                return False
            files.publish(tmp, path)
            files.verify_published(path, check, _content_check)
        except (OSError, pa.ArrowException) as exc:
            with contextlib.suppress(OSError):
                files.unlink(tmp)
            reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
            raise CacheError(f"cannot write cache file {self.url(path)}: {reason}") from None
        except BaseException:
            with contextlib.suppress(OSError):
                files.unlink(tmp)
            raise
        _remove_orphans(files, path)
        return True


class _Check(Protocol):
    def __call__(self) -> bool: ...


# --------------------------------------------------------------------------- helpers


def ensure_writable_folder(folder: Path, what: str) -> None:
    """Create the local ``folder`` if needed and check that a file can be written in it.

    Raises
    ------
    CacheError
        ``"<what> <folder> is not usable: [Errno 30] Read-only file system"`` and the like.
    """
    LOCAL.ensure_writable(folder, what)


def _host_tag() -> str:
    """This machine's name, reduced to letters, digits and ``-`` (part of temporary file names)."""
    name = re.sub(r"[^A-Za-z0-9]+", "", socket.gethostname())[:24]
    return name or "host"


def cover(candidates: list[tuple[int, int, _P]]) -> list[tuple[int, int, _P]]:
    """Range files ``(start, end, path)`` as a non-overlapping cover sorted by block.

    Where files overlap (two processes wrote the same blocks) the widest file wins; a file that
    only partly overlaps the one before it is used from the block after that one (its start is
    clipped), so each block is read from exactly one file.
    """
    out: list[tuple[int, int, _P]] = []
    for start, end, path in sorted(candidates, key=lambda c: (c[0], -(c[1] - c[0]))):
        if out and start <= out[-1][1]:
            if end <= out[-1][1]:
                continue  # contained in the previous file
            start = out[-1][1] + 1
        out.append((start, end, path))
    return out


def _remove_orphans(files: Storage, path: PurePath) -> None:
    """Delete temporary files of ``path`` left by writers that died mid-write (killed exports).

    A file of a process of this machine is removed once that process is gone; a file of
    another machine (or of an unknown writer) only when it is older than :data:`ORPHAN_AGE`.
    A concurrent writer's file is left alone.
    """
    for tmp in files.listdir(path.parent):
        m = _TMP_RE.match(tmp.name)
        if m is None or m["final"] != path.name:
            continue
        if _orphaned(files, tmp, m["tag"]):
            with contextlib.suppress(OSError):
                files.unlink(tmp)


def _orphaned(files: Storage, tmp: PurePath, tag: str) -> bool:
    parts = tag.split("-")
    pid_text = parts[0]
    here = len(parts) == 1 or (len(parts) == 3 and parts[1] == _host_tag())
    if here and pid_text.isdigit():
        return not _alive(int(pid_text))
    try:
        return time.time() - files.stat(tmp).mtime > ORPHAN_AGE
    except OSError:
        return False


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


def _check_table(table: pa.Table, dataset: DatasetLike, expected: _Expected) -> None:
    if not table.schema.equals(dataset.schema, check_metadata=False):
        raise CacheError(
            f"refusing to cache {dataset.name}: table schema {table.schema} differs from the dataset's"
        )
    if expected.kind == "range":
        _check_range(expected.start, expected.end)
        if table.num_rows and "block_number" in table.column_names:
            col = table["block_number"]
            lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
            if lo is None or hi is None or lo < expected.start or hi > expected.end:
                raise CacheError(
                    f"refusing to cache {dataset.name} blocks {expected.start}..{expected.end}: "
                    f"the table holds blocks {lo}..{hi}"
                )


def _file_range(path: PurePath) -> tuple[int, int]:
    m = _RANGE_RE.match(path.name)
    return (int(m["start"]), int(m["end"])) if m else (-1, -1)


def _filter_blocks(table: pa.Table, lo: int, hi: int) -> pa.Table:
    if "block_number" not in table.column_names:
        raise CacheError("range-cached datasets need a block_number column")
    col = table["block_number"]
    mask = pc.and_(pc.greater_equal(col, lo), pc.less_equal(col, hi))
    return table.filter(mask)


def _merge_ranges(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _gaps(
    held: list[tuple[int, int]] | list[tuple[int, int, PurePath]], start: int, end: int
) -> list[tuple[int, int]]:
    """Sub-ranges of ``start..end`` that no range of ``held`` covers."""
    gaps: list[tuple[int, int]] = []
    cursor = start
    for c_start, c_end in sorted((item[0], item[1]) for item in held):
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


def _overlapping(ranges: list[tuple[int, int, PurePath]]) -> bool:
    ordered = sorted(ranges)
    return any(b[0] <= a[1] for a, b in itertools.pairwise(ordered))


def _content_check(meta: pq.FileMetaData) -> str:
    """SHA-256 of a file's footer statistics: rows and, per column chunk, values, nulls, min, max."""
    digest = hashlib.sha256(f"rows={meta.num_rows};groups={meta.num_row_groups}".encode())
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        digest.update(f"|g{g}:{group.num_rows}".encode())
        for c in range(group.num_columns):
            column = group.column(c)
            stats = column.statistics
            if stats is None:
                summary: tuple[object, ...] = ()
            elif stats.has_min_max:
                summary = (stats.null_count, stats.min_raw, stats.max_raw)
            else:
                summary = (stats.null_count,)
            digest.update(repr((column.path_in_schema, column.num_values, summary)).encode())
    return "sha256:" + digest.hexdigest()


def _inspect(
    files: Storage, path: PurePath, dataset: DatasetLike | None, expected: _Expected
) -> tuple[Status, int | None, str]:
    """Status, row count and problem of a cache file, reading only its footer."""
    try:
        meta = files.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return "corrupt", None, f"unreadable: {exc}"
    kv = meta.metadata or {}

    def record(key: str) -> str:
        value: bytes = kv.get(_META_PREFIX + key.encode(), b"")
        return value.decode(errors="replace")

    if dataset is not None and record("fingerprint") != dataset.fingerprint:
        return "stale", meta.num_rows, "written for another version of the dataset's schema"
    if record("record") != _RECORD.decode():
        return "stale", meta.num_rows, "written without an integrity record (an older hmyframe)"
    said = (
        record("chain"),
        record("dataset"),
        record("shard"),
        record("kind"),
        record("start"),
        record("end"),
    )
    named = (
        expected.chain_id,
        expected.dataset,
        str(expected.shard),
        expected.kind,
        str(expected.start),
        str(expected.end),
    )
    if said != named:
        return (
            "corrupt",
            meta.num_rows,
            f"it records {said[1]} {said[3]} {said[4]}..{said[5]} of shard {said[2]} of chain {said[0]}, "
            f"not what its name and folder say",
        )
    if record("rows") != str(meta.num_rows):
        return "corrupt", meta.num_rows, f"it records {record('rows')} rows but holds {meta.num_rows}"
    if dataset is not None:
        try:
            schema = meta.schema.to_arrow_schema()
        except (pa.ArrowException, ValueError) as exc:
            return "corrupt", meta.num_rows, f"unreadable schema: {exc}"
        if not schema.equals(dataset.schema, check_metadata=False):
            return "corrupt", meta.num_rows, "its columns differ from the dataset's schema"
    if _content_check(meta) != record("check"):
        return (
            "corrupt",
            meta.num_rows,
            "its content check does not match its statistics (changed after writing)",
        )
    if expected.kind == "range" and meta.num_rows:
        problem = _block_stats_problem(meta, expected.start, expected.end)
        if problem:
            return "corrupt", meta.num_rows, problem
    return "ok", meta.num_rows, ""


def _block_stats_problem(meta: pq.FileMetaData, start: int, end: int) -> str:
    names = [meta.schema.column(i).name for i in range(meta.num_columns)]
    if "block_number" not in names:
        return ""
    index = names.index("block_number")
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        if group.num_rows == 0:
            continue
        stats = group.column(index).statistics
        if stats is None or not stats.has_min_max:
            return "no block_number statistics"
        if stats.null_count or stats.min < start or stats.max > end:
            return f"it holds blocks {stats.min}..{stats.max}, outside its range {start}..{end}"
    return ""
