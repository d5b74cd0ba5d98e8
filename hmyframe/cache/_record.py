"""What a cache file records about itself, and the check of a file against it.

A file's Parquet footer carries the record (``hmyframe.*`` key-value metadata, see
:func:`record_metadata`): dataset, schema fingerprint, chain, shard, kind, blocks, rows and a
content check (:func:`content_check`: a SHA-256 of the footer's statistics).
:func:`inspect_file` verifies a file from its footer alone: ``"ok"``, ``"stale"`` (another
schema, or no record) or ``"corrupt"``.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal, Protocol

from hmyframe._lazy import lazy_module
from hmyframe.storage import Storage

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
else:
    pa = lazy_module("pyarrow")
    pc = lazy_module("pyarrow.compute")
    pq = lazy_module("pyarrow.parquet")

__all__ = [
    "META_PREFIX",
    "DatasetLike",
    "Expected",
    "Status",
    "content_check",
    "inspect_file",
    "inspect_footer",
    "predicted_check",
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


#: Rows of one row group of ``pq.write_table`` (its default ``row_group_size``).
_ROW_GROUP = 1024 * 1024


def predicted_check(table: pa.Table) -> str | None:
    """:func:`content_check` of the file ``pq.write_table(table)`` will write, computed from the
    table in memory (Arrow's min/max kernels, mapped to Parquet's physical values: ints, floats
    with Parquet's signed zeros, bytes, decimals as big-endian two's complement), so the file
    can be written once with its check. ``None`` for what it does not model (nested or unsigned
    columns, an empty table, several row groups, NaN); the writer still compares the written
    footer with the prediction and rewrites the file on any difference, so a wrong prediction
    costs time, never integrity."""
    rows = table.num_rows
    if rows == 0 or rows > _ROW_GROUP:
        return None
    kinds = _kinds(table.schema)
    if kinds is None:
        return None
    digest = hashlib.sha256(f"rows={rows};groups=1|g0:{rows}".encode())
    for (name, kind), column in zip(kinds, table.columns, strict=True):
        summary = _column_summary(kind, column)
        if summary is None:
            return None
        digest.update(repr((name, rows, summary)).encode())
    return "sha256:" + digest.hexdigest()


@functools.lru_cache(maxsize=128)
def _kinds(schema: pa.Schema) -> tuple[tuple[str, str], ...] | None:
    """``(name, kind)`` of each column, as :func:`_column_summary` maps its statistics (decided
    once per schema); ``None`` when a column's type is not modelled."""
    t = pa.types
    out = []
    for field in schema:
        type_ = field.type
        if t.is_timestamp(type_) or t.is_date64(type_):
            kind = "int64"  # statistics of the int64 values
        elif t.is_float64(type_):
            kind = "float"
        elif t.is_decimal128(type_) and type_.scale == 0 and type_.precision == 38:
            kind = "decimal"
        elif (
            t.is_signed_integer(type_)
            or t.is_boolean(type_)
            or t.is_string(type_)
            or t.is_large_string(type_)
            or t.is_binary(type_)
        ):
            kind = "plain"
        else:
            return None
        out.append((field.name, kind))
    return tuple(out)


def _column_summary(kind: str, column: pa.ChunkedArray) -> tuple[object, ...] | None:
    nulls = column.null_count
    if nulls == len(column):
        return (nulls,)
    import pyarrow.compute as compute  # (the module itself, not the lazy stand-in: once per call)

    if kind == "int64":
        column = column.cast(pa.int64())
    elif kind == "float" and compute.any(compute.is_nan(column)).as_py():
        return None
    extremes = compute.min_max(column)
    lo, hi = extremes["min"].as_py(), extremes["max"].as_py()
    if kind == "decimal":
        size = 16  # decimal128(38, 0): a 16-byte FIXED_LEN_BYTE_ARRAY
        lo, hi = int(lo).to_bytes(size, "big", signed=True), int(hi).to_bytes(size, "big", signed=True)
    elif isinstance(lo, str):
        lo, hi = lo.encode(), hi.encode()
    elif isinstance(lo, float):
        lo, hi = (-0.0 if lo == 0 else lo), (0.0 if hi == 0 else hi)  # Parquet's signed zeros
    return (nulls, lo, hi)


def inspect_file(
    files: Storage, path: PurePath, dataset: DatasetLike | None, expected: Expected
) -> tuple[Status, int | None, str]:
    """Status, row count and problem of a cache file, reading only its footer."""
    try:
        meta = files.read_metadata(path)
    except (OSError, pa.ArrowException) as exc:
        return "corrupt", None, f"unreadable: {exc}"
    return inspect_footer(meta, dataset, expected)


def inspect_footer(
    meta: pq.FileMetaData, dataset: DatasetLike | None, expected: Expected, check: str | None = None
) -> tuple[Status, int | None, str]:
    """:func:`inspect_file` of the file whose footer is ``meta`` (read from it, or collected by
    its writer: the footer it wrote); ``check``: its :func:`content_check`, when already taken."""
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
    if (check or content_check(meta)) != record("check"):
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
