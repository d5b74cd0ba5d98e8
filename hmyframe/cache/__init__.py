"""The Parquet cache: every fetched range is kept on disk, so it is fetched once.

Layout (one folder per chain, dataset and shard; readable as a whole by pandas,
``pyarrow.dataset`` and DuckDB)::

    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__<start:010d>_<end:010d>.parquet   block ranges
    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__at_<block:010d>.parquet            snapshots
    <root>/<chain_id>/<dataset>/shard<S>/<dataset>__<start:010d>_tail.parquet         a follower's tail
    <root>/<chain_id>/<dataset>/shard<S>/.<dataset>__<start:010d>_<end:010d>.piece    a piece of a chunk

* ``<root>`` is ``data/`` by default (``HMYFRAME_CACHE`` or the ``root`` argument change it);
  it may be a URL (``memory://``, ``s3://bucket/prefix``...): every file operation then goes
  through fsspec (:mod:`hmyframe.storage`, which says what holds without atomic rename).
* ``<chain_id>`` is the first 16 hex digits of the chain's genesis block hash (shard 0), so two
  URLs of one chain share a cache and two chains never mix.
* A range file holds exactly the rows of blocks ``start..end`` (inclusive), possibly none. Only
  blocks at or below the head are ever written (the fetch layer guarantees it).
* A *piece* (hidden, not ``*.parquet``: no reader sees it) holds the converted rows of part of a
  chunk being fetched, kept so a failure mid-chunk keeps what arrived; the chunk's write takes
  its rows in and removes it (:mod:`._pieces`).
* A *tail* holds the newest blocks of a chunk a follower is filling (``hmyframe export
  --follow``): blocks ``start..end``, ``end`` recorded in its footer. It is rewritten in place
  (atomic replace, same name) as blocks arrive, and renamed to its range name when its chunk
  is complete or when any write of the blocks right after it takes it in (atomic rename): a
  listing of the folder holds each block once at every instant (:mod:`._names`,
  :meth:`Cache.write_range`).

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
    The footer also records the file's provenance (hmyframe version, when and from which
    endpoint, redacted, its rows were fetched, the node's version: :mod:`hmyframe._provenance`).

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

from typing import TYPE_CHECKING

from hmyframe._lazy import lazy_module
from hmyframe._spans import cover
from hmyframe.errors import CacheWarning
from hmyframe.storage import os_reason

from ._names import TAIL, CacheName, parse_name, range_name, snapshot_name, tail_end, tail_name
from ._pieces import Pieces, piece_name
from ._record import DatasetLike, Status
from ._store import Cache, CacheEntry, default_root, ensure_writable_folder
from ._temp import ORPHAN_AGE

if TYPE_CHECKING:
    import pyarrow.parquet as pq
else:
    # hmyframe.cache.pq was the module's pyarrow.parquet before the package split (patching
    # through it patches pyarrow.parquet itself, as a test of footer reads does)
    pq = lazy_module("pyarrow.parquet")

__all__ = [
    "ORPHAN_AGE",
    "TAIL",
    "Cache",
    "CacheEntry",
    "CacheName",
    "CacheWarning",
    "DatasetLike",
    "Pieces",
    "Status",
    "cover",
    "default_root",
    "ensure_writable_folder",
    "os_reason",
    "parse_name",
    "piece_name",
    "range_name",
    "snapshot_name",
    "tail_end",
    "tail_name",
]
