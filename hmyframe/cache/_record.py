"""What a cache file records about itself, and the check of a file against it.

A file's Parquet footer carries the record (``hmyframe.*`` key-value metadata, see
:func:`record_metadata`): dataset, schema fingerprint, chain, shard, kind, blocks, rows and a
content check (:func:`content_check`: a SHA-256 of the footer's statistics).
:func:`inspect_file` verifies a file from its footer alone: ``"ok"``, ``"stale"`` (another
schema, or no record) or ``"corrupt"``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal, Protocol

from hmyframe._lazy import lazy_module
from hmyframe.storage import Storage

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pq = lazy_module("pyarrow.parquet")

__all__ = [
    "META_PREFIX",
    "DatasetLike",
    "Expected",
    "Status",
    "content_check",
    "inspect_file",
    "record_metadata",
]

META_PREFIX = b"hmyframe."
#: Record format written by this version (files without it are stale).
_RECORD = b"2"

Status = Literal["ok", "stale", "corrupt"]


class DatasetLike(Protocol):
    """What the cache needs to know about a dataset."""

    @property
    def name(self) -> str: ...

    @property
    def schema(self) -> pa.Schema: ...

    @property
    def fingerprint(self) -> str: ...


@dataclass(frozen=True)
class Expected:
    """What a file's name and folder say it holds."""

    chain_id: str
    dataset: str
    shard: int
    kind: Literal["range", "snapshot"]
    start: int
    end: int


def record_metadata(dataset: DatasetLike, expected: Expected, rows: int) -> dict[bytes, bytes]:
    """The footer metadata of a file of ``rows`` rows holding ``expected``: the dataset schema's
    own metadata, the integrity record (all but the content check, added once written) and the
    ``pandas`` metadata."""
    from hmyframe._pandas_meta import PANDAS_KEY, pandas_metadata

    meta = dict(dataset.schema.metadata or {})
    meta.update(
        {
            META_PREFIX + b"record": _RECORD,
            META_PREFIX + b"dataset": dataset.name.encode(),
            META_PREFIX + b"fingerprint": dataset.fingerprint.encode(),
            META_PREFIX + b"chain": expected.chain_id.encode(),
            META_PREFIX + b"shard": str(expected.shard).encode(),
            META_PREFIX + b"kind": expected.kind.encode(),
            META_PREFIX + b"start": str(expected.start).encode(),
            META_PREFIX + b"end": str(expected.end).encode(),
            META_PREFIX + b"rows": str(rows).encode(),
            # plain pd.read_parquet gives a fetch's dtypes (see hmyframe._pandas_meta)
            PANDAS_KEY: pandas_metadata(dataset.schema),
        }
    )
    return meta


def content_check(meta: pq.FileMetaData) -> str:
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


def inspect_file(
    files: Storage, path: PurePath, dataset: DatasetLike | None, expected: Expected
) -> tuple[Status, int | None, str]:
    """Status, row count and problem of a cache file, reading only its footer."""
    try:
        meta = files.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return "corrupt", None, f"unreadable: {exc}"
    kv = meta.metadata or {}

    def record(key: str) -> str:
        value: bytes = kv.get(META_PREFIX + key.encode(), b"")
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
    if content_check(meta) != record("check"):
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
