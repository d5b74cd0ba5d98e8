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
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from hmyframe import datasets as ds
from hmyframe.cache import cover, default_root
from hmyframe.datasets._base import one_of, one_values
from hmyframe.engine._blocks import parse_range
from hmyframe.engine._output import Output, check_output, to_output
from hmyframe.errors import CacheError, ConfigError, short_repr

__all__ = ["read"]

_CHAIN = re.compile(r"[0-9a-f]{16}")
_SHARD = re.compile(r"shard(\d+)")


def _shard_folders(root: Path, name: str) -> list[Path]:
    """Every ``<name>/shard<S>`` folder at or below ``root``."""
    if _SHARD.fullmatch(root.name) and root.parent.name == name:
        return [root]
    if root.name == name:
        return sorted(p for p in root.glob("shard*") if p.is_dir() and _SHARD.fullmatch(p.name))
    return sorted(
        p
        for p in root.glob(f"**/{name}/shard*")
        if p.is_dir() and _SHARD.fullmatch(p.name) and p.parent.name == name
    )


def _files(folder: Path, name: str) -> tuple[list[tuple[int, int, Path]], dict[int, Path]]:
    """Range files ``(start, end, path)`` (Parquet before CSV) and snapshot files by block."""
    ranges: list[tuple[int, int, Path]] = []
    snapshots: dict[int, Path] = {}
    pattern = re.compile(rf"{re.escape(name)}__(?:(\d{{10}})_(\d{{10}})|at_(\d{{10}}))\.(parquet|csv)")
    for path in sorted(folder.iterdir(), key=lambda p: (p.suffix != ".parquet", p.name)):
        m = pattern.fullmatch(path.name)
        if m is None:
            continue
        if m[3] is not None:
            snapshots.setdefault(int(m[3]), path)
        else:
            ranges.append((int(m[1]), int(m[2]), path))
    return ranges, snapshots


def _load(path: Path, dataset: ds.Dataset) -> pa.Table:
    """One file as a table of exactly the dataset's schema."""
    try:
        if path.suffix == ".csv":
            table = pacsv.read_csv(
                path,
                convert_options=pacsv.ConvertOptions(
                    column_types=dataset.schema, strings_can_be_null=True, quoted_strings_can_be_null=False
                ),
            )
        else:
            table = pq.read_table(path)
            written_for = (table.schema.metadata or {}).get(b"hmyframe.dataset")
            if written_for is not None and written_for.decode() != dataset.name:
                raise CacheError(f"{path} holds the {written_for.decode()} dataset, not {dataset.name}")
    except (OSError, pa.ArrowException) as exc:
        raise CacheError(f"cannot read {path}: {exc}") from exc
    columns = []
    for f in dataset.schema:
        base = one_of(f)
        if f.name in table.column_names:
            try:
                columns.append(table[f.name].cast(f.type))
            except pa.ArrowException as exc:
                raise CacheError(f"{path}: column {f.name} is not {f.type}: {exc}") from exc
        elif base is not None and base in table.column_names:
            columns.append(one_values(table[base].cast(dataset.schema.field(base).type)))
        else:
            raise CacheError(
                f"{path} has no column {f.name!r}: it was written for another version of the "
                f"{dataset.name} dataset; fetch its blocks again"
            )
    return pa.Table.from_arrays(columns, schema=dataset.schema)


def _chain_of(folder: Path) -> str:
    chain = folder.parent.parent.name
    return chain if _CHAIN.fullmatch(chain) else str(folder.parent.parent)


def _select_shards(found: dict[int, Path], shard: object, name: str) -> list[int]:
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


def _filter(table: pa.Table, start: object, end: object, last: int, name: str) -> pa.Table:
    """Rows of ``start..end`` (block numbers, relative specs against ``last``, or times)."""
    first_bound, last_bound = parse_range(start, end)
    numbers = table["block_number"]
    mask = pc.is_valid(numbers)
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
) -> Any:
    """Read one dataset back from a cache or export folder (Parquet or CSV), never mixing datasets.

    Parameters
    ----------
    dataset
        The dataset to read (``hmyframe.DATASETS``); only its own files are read.
    path
        The folder: an export's ``--out`` or a cache root (it holds ``<chain_id>/`` folders), a
        chain folder, a dataset folder or a shard folder. Default: the cache root (``data/``
        or ``$HMYFRAME_CACHE``).
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

    Returns
    -------
    pandas.DataFrame (or pyarrow.Table / polars DataFrame)
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
    root = Path(path) if path is not None else default_root()
    if not root.is_dir():
        raise ConfigError(f"{root} is not a folder")
    kind = spec.fetched_by
    if kind == "snapshot" and (start is not None or end is not None):
        raise ConfigError(f"{dataset} is a snapshot dataset: give block=, not start / end")
    if kind != "snapshot" and block is not None:
        raise ConfigError(f"{dataset} is not a snapshot dataset: give start / end, not block=")
    folders = _shard_folders(root, dataset)
    chains = sorted({_chain_of(f) for f in folders})
    if chain is not None:
        folders = [f for f in folders if _chain_of(f) == chain]
        if not folders:
            raise ConfigError(f"no {dataset} files of chain {chain!r} under {root}; chains present: {chains}")
    elif len(chains) > 1:
        raise ConfigError(f"{root} holds {dataset} files of several chains {chains}: choose one with chain=")
    if not folders:
        raise ConfigError(f"no {dataset} files under {root}")
    found = {int(_SHARD.fullmatch(f.name)[1]): f for f in folders}  # type: ignore[index]
    tables: list[pa.Table] = []
    for s in _select_shards(found, shard, dataset):
        ranges, snapshots = _files(found[s], dataset)
        if kind == "snapshot" or (snapshots and not ranges):
            blocks = sorted(snapshots) if block is None else [block]
            for b in blocks:
                if b not in snapshots:
                    raise ConfigError(f"no {dataset} snapshot at block {b}; snapshots: {sorted(snapshots)}")
                tables.append(_load(snapshots[b], spec))
            continue
        parts = []
        for c_start, c_end, file in cover(ranges):
            table = _load(file, spec)
            if c_start > int(file.stem.split("__")[1].split("_")[0]):  # clipped by an overlapping file
                table = table.filter(pc.greater_equal(table["block_number"], c_start))
            parts.append(table.filter(pc.less_equal(table["block_number"], c_end)))
        shard_table = pa.concat_tables(parts) if parts else spec.schema.empty_table()
        if start is not None or end is not None:
            last = max((e for _, e, _ in ranges), default=0)
            shard_table = _filter(shard_table, start if start is not None else 0, end, last, dataset)
        tables.append(shard_table)
    table = pa.concat_tables(tables) if tables else spec.schema.empty_table()
    return to_output(table, output)
