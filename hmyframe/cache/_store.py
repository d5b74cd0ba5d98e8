"""The cache's store: :class:`Cache` (paths, planning, reading, writing, repairs, clearing).

The rules it keeps (layout, integrity records, writers sharing a folder) are drawn in
:mod:`hmyframe.cache`; the record of each file is :mod:`._record`, writers' temporary files
:mod:`._temp`, and the block-range arithmetic :mod:`hmyframe._spans`.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Literal, Protocol

from hmyframe import _provenance
from hmyframe import _spans as spans
from hmyframe._lazy import lazy_module
from hmyframe.errors import CacheError, CacheWarning, ConfigError
from hmyframe.storage import LOCAL, Stat, Storage, open_storage, os_reason

from ._names import parse_name, range_name, snapshot_name, tail_end, tail_name
from ._pieces import PIECE_RE, Pieces
from ._record import (
    META_PREFIX,
    DatasetLike,
    Expected,
    Status,
    content_check,
    inspect_file,
    inspect_footer,
    predicted_check,
    record_metadata,
)
from ._temp import TMP_RE, orphaned, remove_orphans, temp_path, writer_tag

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pq = lazy_module("pyarrow.parquet")

__all__ = ["Cache", "CacheEntry", "default_root", "ensure_writable_folder"]

_CHAIN_RE = re.compile(r"^[0-9a-f]{16}$")
_SHARD_RE = re.compile(r"^shard(?P<shard>\d+)$")


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
        self._tail_ends: dict[PurePath, tuple[tuple[object, ...], int]] = {}
        # the path of each (chain, dataset, shard) folder, once its names were checked
        self._folder_paths: dict[tuple[str, str, int], PurePath] = {}
        self._token = secrets.token_hex(4)
        self._unrepairable: set[PurePath] = set()
        #: The piece files of chunks being fetched (:mod:`._pieces`).
        self.pieces = Pieces(self)

    def url(self, path: PurePath | None = None) -> str:
        """How to show ``path`` (default: the root) to a user: a local path, or its URL."""
        return self.files.url(self.root if path is None else path)

    @property
    def _writer_tag(self) -> str:
        """Unique to this writer among all processes and machines sharing the folder."""
        return writer_tag(self._token)

    # -- paths -------------------------------------------------------------------------

    def folder(self, chain_id: str, dataset: str, shard: int) -> PurePath:
        """Folder holding the files of one dataset of one shard of one chain."""
        key = (chain_id, dataset, shard)
        known = self._folder_paths.get(key)
        if known is not None:
            return known
        if not _CHAIN_RE.match(str(chain_id)):
            raise ConfigError(f"chain id {chain_id!r} is not 16 lower-case hex digits")
        if not re.fullmatch(r"[a-z_]+", str(dataset)):
            raise ConfigError(f"dataset name {dataset!r} is not a dataset name (lower-case letters and _)")
        if shard < 0:
            raise ConfigError(f"shard {shard!r} must be >= 0")
        folder = self._folder_paths[key] = self.root / chain_id / dataset / f"shard{shard}"
        return folder

    def range_path(self, chain_id: str, dataset: str, shard: int, start: int, end: int) -> PurePath:
        """Path of the file holding blocks ``start..end`` of ``dataset``."""
        _check_range(start, end)
        return self.folder(chain_id, dataset, shard) / range_name(dataset, start, end)

    def tail_path(self, chain_id: str, dataset: str, shard: int, start: int) -> PurePath:
        """Path of the tail of ``dataset`` starting at block ``start`` (see :mod:`._names`)."""
        _check_range(start, start)
        return self.folder(chain_id, dataset, shard) / tail_name(dataset, start)

    def snapshot_path(self, chain_id: str, dataset: str, shard: int, block: int) -> PurePath:
        """Path of the snapshot of ``dataset`` taken at ``block``."""
        _check_range(block, block)
        return self.folder(chain_id, dataset, shard) / snapshot_name(dataset, block)

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
        chunk sizes) are repaired first (see :mod:`hmyframe.cache`); where that is not
        possible (a read-only folder) the cover still holds each block once: a file is then
        only used for the blocks no earlier file of the cover holds.
        """
        candidates = self._valid_ranges(chain_id, dataset, shard, report=report)
        if spans.overlapping(candidates) and self._repair(chain_id, dataset, shard, candidates):
            candidates = self._valid_ranges(chain_id, dataset, shard, report=False)
        return spans.cover(candidates)

    def missing(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int
    ) -> list[tuple[int, int]]:
        """Sub-ranges of ``start..end`` (inclusive) that no valid file covers."""
        _check_range(start, end)
        return spans.gaps(self.cached_ranges(chain_id, dataset, shard), start, end)

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
            gaps = spans.gaps(cover, start, end)
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
            if lo != c_start or hi != c_end or c_start > _file_start(path):
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
        expected = Expected(chain_id, dataset.name, shard, "snapshot", block, block)
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
        provenance: _provenance.Provenance | None = None,
        *,
        replace: bool = False,
        chunk: tuple[int, int] | None = None,
    ) -> PurePath | None:
        """Atomically write the rows of blocks ``start..end`` (all of them, maybe none);
        ``provenance`` (where they were fetched) goes into the footer (:mod:`hmyframe._provenance`).

        ``replace=True`` publishes the file even when other files already hold all these
        blocks: a compaction of narrower files into this one (the overlap repair that follows
        the rename then removes them, the wider file winning).

        ``chunk=(first, last)``: the blocks are the newest of the chunk ``first..last`` that a
        follower is filling. Until ``end`` reaches ``last`` they go to the chunk's *tail*
        (:mod:`._names`): the tail ending at ``start - 1`` is rewritten, under its own name,
        with these rows added (one atomic replace), or a tail starting at ``start`` is
        begun. Any write of blocks right after a tail (the chunk's last ones, or a plain
        export's) takes the tail's rows in and renames the tail to its range name (one atomic
        rename): a listing of the folder never holds a block twice or misses one.

        Returns
        -------
        pathlib.PurePath or None
            The file written, or ``None`` when other valid files already held all these
            blocks at the moment of publishing (a concurrent writer was faster).
        """
        _check_range(start, end)
        if chunk is not None and not chunk[0] <= start <= end <= chunk[1]:
            raise ConfigError(f"blocks {start}..{end} do not lie in the chunk {chunk[0]}..{chunk[1]}")
        keep_tail = chunk is not None and end < chunk[1]
        before = self._tail_before(chain_id, dataset, shard, start, None if chunk is None else chunk[0])
        if before is not None or keep_tail:
            return self._write_tail(
                chain_id, dataset, shard, start, end, table, provenance, before, keep_tail
            )
        path = self.range_path(chain_id, dataset.name, shard, start, end)
        expected = Expected(chain_id, dataset.name, shard, "range", start, end)
        _check_table(table, dataset, expected)

        def covered() -> bool:
            return not spans.gaps(self._valid_ranges(chain_id, dataset, shard, report=False), start, end)

        written = self._write(
            path, dataset, table, expected, skip_if=None if replace else covered, provenance=provenance
        )
        if written:
            self._after_write(chain_id, dataset, shard, start, end, path)
        self._unrepairable.discard(path.parent)
        return path if written else None

    def _tail_before(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, low: int | None
    ) -> CacheEntry | None:
        """The valid tail ending at block ``start - 1`` (starting at ``low`` or later), if any."""
        folder = self.folder(chain_id, dataset.name, shard)
        names = [parse_name(p.name) for p in self.files.listdir(folder)]
        if not any(n is not None and n.kind == "tail" for n in names):
            return None  # (the common case, answered from the names alone)
        for entry in self._scan_folder(chain_id, dataset.name, shard, dataset):
            name = parse_name(entry.path.name)
            if (
                name is not None
                and name.kind == "tail"
                and entry.status == "ok"
                and entry.end == start - 1
                and (low is None or entry.start >= low)
            ):
                return entry
        return None

    def _write_tail(
        self,
        chain_id: str,
        dataset: DatasetLike,
        shard: int,
        start: int,
        end: int,
        table: pa.Table,
        provenance: _provenance.Provenance | None,
        before: CacheEntry | None,
        keep_tail: bool,
    ) -> PurePath:
        """:meth:`write_range` through a tail: ``before``'s rows and ``table`` as one tail,
        renamed to its range name unless ``keep_tail``."""
        first = start
        if before is not None:
            try:
                rows = self._read_file(before.path, dataset)
                recorded = _provenance.from_footer(self.files.read_metadata(before.path).metadata)
            except FileNotFoundError:
                pass  # another writer renamed it meanwhile: these blocks are written alone
            else:
                first = before.start
                table = pa.concat_tables([rows, table])
                provenance = _provenance.of_files(
                    [recorded, _provenance.from_footer(_provenance.footer(provenance))]
                )
        expected = Expected(chain_id, dataset.name, shard, "range", first, end)
        _check_table(table, dataset, expected)
        path = tail = self.tail_path(chain_id, dataset.name, shard, first)
        check = self._write(tail, dataset, table, expected, provenance=provenance)
        assert check is not None  # (never skipped)
        if not keep_tail:
            path = self.range_path(chain_id, dataset.name, shard, first, end)
            try:
                self.files.publish(tail, path)  # one rename: a listing holds one of the two names
            except OSError as exc:
                raise CacheError(f"cannot write cache file {self.url(path)}: {os_reason(exc)}") from None
            self.files.verify_published(path, check, content_check)
        self._after_write(chain_id, dataset, shard, first, end, path)
        self._unrepairable.discard(path.parent)
        return path

    def _after_write(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int, path: PurePath
    ) -> None:
        """After ``path`` (blocks ``start..end``) was published: stale or corrupt files inside its
        range are replaced now, so they are removed; overlaps are repaired."""
        entries = self._scan_folder(chain_id, dataset.name, shard, dataset)
        for entry in entries:
            if (
                entry.kind == "range"
                and entry.path != path
                and entry.status != "ok"
                and start <= entry.start
                and entry.end <= end
            ):
                with contextlib.suppress(FileNotFoundError):
                    self.files.unlink(entry.path)
        candidates = self._ok_ranges(entries, report=False)
        if spans.overlapping(candidates):
            self._repair(chain_id, dataset, shard, candidates)

    def write_snapshot(
        self,
        chain_id: str,
        dataset: DatasetLike,
        shard: int,
        block: int,
        table: pa.Table,
        provenance: _provenance.Provenance | None = None,
    ) -> PurePath:
        """Atomically write a snapshot taken at ``block`` (``provenance`` as for :meth:`write_range`)."""
        path = self.snapshot_path(chain_id, dataset.name, shard, block)
        expected = Expected(chain_id, dataset.name, shard, "snapshot", block, block)
        _check_table(table, dataset, expected)
        self._write(path, dataset, table, expected, provenance=provenance)
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

        Only files this cache writes are touched: range and snapshot files, piece files and
        their temporary files, inside ``<chain>/<dataset>/shard<S>`` folders. Folders left empty
        by it are removed; anything else (a user's own files) stays.
        """
        removed = 0
        for chain, name, shard in self._folders(chain_id, dataset):
            folder = self.folder(chain, name, shard)
            for path in self.files.listdir(folder):
                what = parse_name(path.name)
                ours = TMP_RE.match(path.name) or PIECE_RE.match(path.name)
                if (what is not None and what.ext == "parquet") or ours:
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
        how many. The rule is the one writers apply to their own file's folder (see :mod:`hmyframe.cache`);
        a distributed export runs it when its workers are done, since a worker killed
        while writing a dataset that nobody writes again would leave its file forever.
        """
        removed = 0
        for chain, name, shard in self._folders(chain_id, None):
            for tmp in self.files.listdir(self.folder(chain, name, shard)):
                m = TMP_RE.match(tmp.name)
                if m is not None and orphaned(self.files, tmp, m["tag"]):
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
        return self._ok_ranges(self._scan_folder(chain_id, dataset.name, shard, dataset), report=report)

    def _ok_ranges(self, entries: Iterable[CacheEntry], *, report: bool) -> list[tuple[int, int, PurePath]]:
        """``(start, end, path)`` of the valid range files among ``entries``."""
        out: list[tuple[int, int, PurePath]] = []
        for entry in entries:
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
    ) -> list[CacheEntry]:
        """Every cache file of one folder, with its status (tails with the end their footer records).

        A tail listed and gone a moment later was renamed to its range name (its chunk is
        complete) or replaced by a repair: the folder is listed again, so that the file that
        now holds its blocks is not missed.
        """
        for _ in range(5):
            entries = self._scan_folder_once(chain_id, dataset_name, shard, dataset)
            if entries is not None:
                return entries
        raise CacheError(
            f"the tails of {self.url(self.folder(chain_id, dataset_name, shard))} kept changing "
            "while being listed (other writers?)"
        )

    def _scan_folder_once(
        self, chain_id: str, dataset_name: str, shard: int, dataset: DatasetLike | None
    ) -> list[CacheEntry] | None:
        """:meth:`_scan_folder`'s one listing; ``None`` if a listed tail was gone."""
        folder = self.folder(chain_id, dataset_name, shard)
        out: list[CacheEntry] = []
        for path in self.files.listdir(folder):
            name = parse_name(path.name)
            if name is None or name.ext != "parquet":
                continue
            kind: Literal["range", "snapshot"] = "snapshot" if name.kind == "snapshot" else "range"
            start = name.start
            try:
                st = self.files.stat(path)
            except FileNotFoundError:
                if name.kind == "tail":
                    return None
                continue
            except OSError as exc:
                raise CacheError(f"cannot read cache file {self.url(path)}: {os_reason(exc)}") from None
            status: Status
            rows: int | None = None
            problem = ""
            end = name.end
            if end is None:  # a tail: its footer says up to where
                try:
                    end = self._tail_end(path, st)
                except FileNotFoundError:
                    return None
                except CacheError as exc:
                    end, status, problem = start, "corrupt", str(exc)
            if not problem and name.dataset != dataset_name:
                status = "corrupt"
                problem = f"named for dataset {name.dataset!r} in the {dataset_name!r} folder"
            elif not problem:
                expected = Expected(chain_id, dataset_name, shard, kind, start, end)
                status, rows, problem = self._inspect(path, st, dataset, expected)
            out.append(
                CacheEntry(
                    path, chain_id, dataset_name, shard, kind, start, end, rows, status, st.size, problem
                )
            )
        return out

    def _tail_end(self, path: PurePath, st: Stat) -> int:
        """:func:`._names.tail_end`, remembered while the file is unchanged."""
        known = self._tail_ends.get(path)
        if known is not None and st.stamp is not None and known[0] == st.stamp:
            return known[1]
        end = tail_end(self.files, path)
        if st.stamp is not None:
            self._tail_ends[path] = (st.stamp, end)
        return end

    def _inspect(
        self, path: PurePath, st: Stat, dataset: DatasetLike | None, expected: Expected
    ) -> tuple[Status, int | None, str]:
        """:func:`~._record.inspect_file`, remembered while the file is unchanged."""
        key = (path, None if dataset is None else dataset.fingerprint)
        known = self._inspections.get(key)
        if known is not None and st.stamp is not None and known[0] == st.stamp:
            return known[1], known[2], known[3]
        status, rows, problem = inspect_file(self.files, path, dataset, expected)
        if st.stamp is not None:
            self._inspections[key] = (st.stamp, status, rows, problem)
        return status, rows, problem

    def _remember_written(
        self,
        path: PurePath,
        st: Stat,
        dataset: DatasetLike,
        expected: Expected,
        footer: pq.FileMetaData,
        check: str,
    ) -> None:
        """Record the inspection of a file this cache just published, from the footer its writer
        collected (the footer the file holds): the checks of :func:`~._record.inspect_file`,
        without reading the file back (``check``: the footer's content check). ``st``: the file's
        stat taken before publishing (a local rename keeps inode, size and time), so a file
        replaced since is inspected anew."""
        if st.stamp is not None:
            key = (path, dataset.fingerprint)
            self._inspections[key] = (st.stamp, *inspect_footer(footer, dataset, expected, check))

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
        """Remove overlaps between valid range files (the rule is in :mod:`hmyframe.cache`).

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
                free = spans.gaps(held, start, end)
                held = spans.merge([*held, (start, end)])
                if free == [(start, end)]:
                    continue  # overlaps nothing kept: a winner
                try:
                    table = self._read_file(path, dataset) if free else None
                except FileNotFoundError:
                    continue  # another repairer got there first
                for a, b in free:
                    assert table is not None
                    part_path = self.range_path(chain_id, dataset.name, shard, a, b)
                    part = Expected(chain_id, dataset.name, shard, "range", a, b)
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
        expected: Expected,
        *,
        skip_if: _Check | None = None,
        provenance: _provenance.Provenance | None = None,
    ) -> str | None:
        """Write ``table`` with its integrity record and provenance to ``path`` atomically;
        return its content check (``None`` if skipped)."""
        meta = {**_provenance.footer(provenance), **record_metadata(dataset, expected, table.num_rows)}
        table = table.replace_schema_metadata(meta)
        # the content check covers the footer statistics, which only exist once a file is
        # written: predicted from the table in memory, else taken from a fast uncompressed pass
        # (statistics do not depend on the codec); the real file is checked against it below
        footers: list[pq.FileMetaData] = []
        check = predicted_check(table)
        if check is None:
            pq.write_table(
                table,
                pa.BufferOutputStream(),
                compression="none",
                use_dictionary=False,
                metadata_collector=footers,
            )
            check = content_check(footers.pop())
        tmp = temp_path(path, self._writer_tag)
        files = self.files
        try:
            files.mkdir(path.parent)
            for _ in range(2):
                with_check = table.replace_schema_metadata({**meta, META_PREFIX + b"check": check.encode()})
                files.write_parquet(with_check, tmp, footers)
                footer = footers.pop()
                actual = content_check(footer)
                if actual == check:
                    break
                check = actual  # statistics differ between passes (never seen): record the file's own
            if skip_if is not None and skip_if():
                files.unlink(tmp)
                return None
            # a local rename keeps the file's stamp: what the footer says is known without reading it
            stat = files.stat(tmp) if files.local else None
            files.publish(tmp, path)
            files.verify_published(path, check, content_check)
            if stat is not None:
                self._remember_written(path, stat, dataset, expected, footer, actual)
        except (OSError, pa.ArrowException) as exc:
            with contextlib.suppress(OSError):
                files.unlink(tmp)
            reason = os_reason(exc) if isinstance(exc, OSError) else str(exc)
            raise CacheError(f"cannot write cache file {self.url(path)}: {reason}") from None
        except BaseException:
            with contextlib.suppress(OSError):
                files.unlink(tmp)
            raise
        remove_orphans(files, path)
        return check


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


def _check_range(start: int, end: int) -> None:
    if start < 0 or end < start:
        raise ConfigError(f"block range {start!r}..{end!r} is invalid: expected 0 <= start <= end")


def _check_table(table: pa.Table, dataset: DatasetLike, expected: Expected) -> None:
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


def _file_start(path: PurePath) -> int:
    name = parse_name(path.name)
    return name.start if name is not None else -1


def _filter_blocks(table: pa.Table, lo: int, hi: int) -> pa.Table:
    if "block_number" not in table.column_names:
        raise CacheError("range-cached datasets need a block_number column")
    return spans.rows_between(table, lo, hi)
