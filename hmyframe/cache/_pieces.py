"""A chunk's pieces kept while it is fetched, so a failure mid-chunk keeps what arrived.

A chunk (1,000 blocks) is written only once all its pieces are converted and checked together;
under a low node rate limit it takes minutes, and a failure (a node gone, a budget spent, the
process killed) used to lose every piece of it. The range fetch keeps the converted tables of
its pieces as *piece files* instead (:mod:`hmyframe.engine._ranges`): when a chunk has been
open long enough for a loss to matter, and when it fails. A rerun takes the blocks the pieces
hold from them and asks the node only for the rest; the chunk's write takes them in and removes
them.

A piece file is one dataset's rows of blocks ``start..end`` (inside one chunk), beside the
dataset's cache files::

    <root>/<chain_id>/<dataset>/shard<S>/.<dataset>__<start:010d>_<end:010d>.piece

and the cache's guarantees hold for it too:

* **Invisible to readers.** A hidden name that is no ``*.parquet`` (``pyarrow.dataset``, DuckDB
  and ``hmyframe.read`` globs alike skip it): a chunk's blocks are visible only once its range
  file is, complete.
* **Atomic and self-checking.** Written as a cache file is (a temporary name, then one rename)
  with the same integrity record (dataset and schema fingerprint, chain, shard, blocks, row
  count, content check): a piece that fails its check, or was written for another schema, is
  removed and its blocks asked again.
* **No duplicates.** Pieces are taken as a non-overlapping cover (two writers may have kept
  different cuts of the same blocks), and the chunk they go into is checked as any (rows only
  of its blocks, each block once for a one-row-per-block dataset).
* ``Cache.clear`` removes them with the cache files; a piece left by a chunk written since (a
  writer that died between the two) is removed by the next write of that chunk.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import PurePath
from typing import TYPE_CHECKING, Protocol

from hmyframe import _provenance
from hmyframe.storage import Storage

from ._record import DatasetLike, Expected, inspect_file

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["PIECE_RE", "Pieces", "piece_name"]

#: A piece file's name: ``.<dataset>__<start>_<end>.piece``.
PIECE_RE = re.compile(r"^\.(?P<dataset>[a-z_]+)__(?P<start>\d{10})_(?P<end>\d{10})\.piece$")


def piece_name(dataset: str, start: int, end: int) -> str:
    """The name of the piece file of ``dataset``'s blocks ``start..end``.

    >>> piece_name("blocks", 100, 199)
    '.blocks__0000000100_0000000199.piece'
    """
    return f".{dataset}__{start:010d}_{end:010d}.piece"


class _Store(Protocol):
    """What pieces use of their :class:`~hmyframe.cache.Cache` (its folders, writes and reads)."""

    files: Storage

    def folder(self, chain_id: str, dataset: str, shard: int) -> PurePath: ...

    def _write(
        self,
        path: PurePath,
        dataset: DatasetLike,
        table: pa.Table,
        expected: Expected,
        *,
        provenance: _provenance.Provenance | None = None,
    ) -> str | None: ...

    def _read_file(self, path: PurePath, dataset: DatasetLike) -> pa.Table: ...


class Pieces:
    """The piece files of a :class:`~hmyframe.cache.Cache` (``cache.pieces``)."""

    def __init__(self, cache: _Store) -> None:
        self.cache = cache

    def write(
        self,
        chain_id: str,
        dataset: DatasetLike,
        shard: int,
        start: int,
        end: int,
        table: pa.Table,
        provenance: _provenance.Provenance | None = None,
    ) -> PurePath:
        """Keep ``table``, the rows of blocks ``start..end``, as a piece file (atomically)."""
        path = self.cache.folder(chain_id, dataset.name, shard) / piece_name(dataset.name, start, end)
        expected = Expected(chain_id, dataset.name, shard, "range", start, end)
        self.cache._write(path, dataset, table, expected, provenance=provenance)
        return path

    def held(
        self, chain_id: str, dataset: DatasetLike, shard: int, start: int, end: int
    ) -> list[tuple[int, int, PurePath]]:
        """The valid pieces of ``dataset`` inside blocks ``start..end``, as a non-overlapping cover
        sorted by block. A piece that fails its check is removed."""
        found: list[tuple[int, int, PurePath]] = []
        for path, first, last in self._listed(chain_id, dataset.name, shard):
            if first < start or last > end:
                continue
            expected = Expected(chain_id, dataset.name, shard, "range", first, last)
            status, _, _ = inspect_file(self.cache.files, path, dataset, expected)
            if status != "ok":
                with contextlib.suppress(OSError):
                    self.cache.files.unlink(path)
                continue
            found.append((first, last, path))
        # (a piece only partly outside the one before it is not cut: it goes whole, or not at all)
        cover: list[tuple[int, int, PurePath]] = []
        for first, last, path in sorted(found, key=lambda p: (p[0], -(p[1] - p[0]))):
            if not cover or first > cover[-1][1]:
                cover.append((first, last, path))
        return cover

    def any_inside(self, chain_id: str, dataset: str, shard: int, start: int, end: int) -> bool:
        """Whether a piece file of ``dataset`` lies in blocks ``start..end`` (names only: unchecked)."""
        return any(
            start <= first and last <= end for _, first, last in self._listed(chain_id, dataset, shard)
        )

    def read(self, dataset: DatasetLike, path: PurePath) -> tuple[pa.Table, dict[str, str]]:
        """A piece's rows (one chunk a column, in the dataset's schema) and the provenance its
        footer records."""
        table = self.cache._read_file(path, dataset).combine_chunks()
        return table, _provenance.from_footer(self.cache.files.read_metadata(path).metadata)

    def drop(self, chain_id: str, dataset: str, shard: int, start: int, end: int) -> int:
        """Remove the pieces of ``dataset`` inside blocks ``start..end``; return how many. Folders
        left empty go too (a side table's only ever hold pieces)."""
        removed = 0
        for path, first, last in self._listed(chain_id, dataset, shard):
            if start <= first and last <= end:
                with contextlib.suppress(FileNotFoundError):
                    self.cache.files.unlink(path)
                    removed += 1
        if removed:
            folder = self.cache.folder(chain_id, dataset, shard)
            for empty in (folder, folder.parent):
                self.cache.files.rmdir(empty)  # only when empty
        return removed

    def _listed(self, chain_id: str, dataset: str, shard: int) -> list[tuple[PurePath, int, int]]:
        folder = self.cache.folder(chain_id, dataset, shard)
        out: list[tuple[PurePath, int, int]] = []
        for path in self.cache.files.listdir(folder):
            m = PIECE_RE.match(path.name)
            if m is not None and m["dataset"] == dataset:
                out.append((path, int(m["start"]), int(m["end"])))
        return out
