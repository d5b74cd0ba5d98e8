"""Reading a cache or export folder back: :func:`read`.

``pd.read_parquet(folder)`` on an export folder reads every Parquet file under it, whatever
dataset it belongs to. :func:`read` reads one dataset only, wherever its chain folder is::

    <path>/<chain_id>/<dataset>/shard<S>/<dataset>__<start>_<end>.parquet|csv    block ranges
    <path>/<chain_id>/<dataset>/shard0/<dataset>__at_<block>.parquet|csv         snapshots

``path`` may be that root, a chain folder, a dataset folder or a shard folder. Each file found
becomes a :class:`~hmyframe._parts.Part` (the file and which of its rows to keep), read here
into one table or by :func:`hmyframe.scale.read_dask` into one partition each. Files written
by an older hmyframe whose schema lacked a ``*_one`` companion are completed from the exact
column; a file missing any other column is refused with a :class:`~hmyframe.errors.CacheError`
naming it (fetch its range again).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any, Literal

import pyarrow as pa

from hmyframe import _provenance
from hmyframe import datasets as ds
from hmyframe._parts import Part, block_bounds, files_of
from hmyframe._spans import cover
from hmyframe.cache import default_root
from hmyframe.engine import Output, check_output, parse_range, to_output
from hmyframe.errors import ConfigError, short_repr
from hmyframe.storage import Storage, open_storage

__all__ = ["Part", "datasets_in", "provenance_attrs", "read"]

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
    _check_arguments(output, engine)
    files, root = open_storage(path if path is not None else default_root())
    if engine == "dask" and isinstance(root, Path):
        root = root.absolute()  # the partitions may be read by workers in other folders
    where = files.url(root)
    if not files.is_dir(root):
        raise ConfigError(f"{where} is not a folder")
    _check_blocks(spec, start, end, block)
    folders = _chain_folders(_shard_folders(files, root, dataset), dataset, chain, where)
    if start is not None or end is not None:
        parse_range(start if start is not None else 0, end)  # a spec that is not understood fails here
    found = {int(_SHARD.fullmatch(f.name)[1]): f for f in folders}  # type: ignore[index]
    parts: list[Part] = []
    for s in _select_shards(found, shard, dataset):
        parts += _shard_parts(files, found[s], spec, start, end, block)
    return _result(parts, spec, output, engine)


def _result(parts: list[Part], spec: ds.Dataset, output: Output, engine: str) -> Any:
    """The parts read into one table (or, with Dask, one lazy partition each)."""
    if engine == "dask":
        from hmyframe.scale import read_dask

        return read_dask(parts, spec)
    tables = [part.table() for part in parts]
    table = pa.concat_tables(tables) if tables else spec.schema.empty_table()
    return to_output(table, output, provenance_attrs(parts))


def _check_arguments(output: object, engine: object) -> None:
    """Refuse an output or engine that does not exist or fit the other."""
    check_output(output)
    if engine not in ("pandas", "dask"):
        raise ConfigError(f"engine must be 'pandas' or 'dask', got {short_repr(engine)}")
    if engine == "dask" and output != "pandas":
        raise ConfigError(
            f"engine='dask' gives a Dask DataFrame of pandas partitions: output must be 'pandas', got {output!r}"
        )


def _check_blocks(spec: ds.Dataset, start: object, end: object, block: object) -> None:
    """Refuse a range for a snapshot dataset, or a snapshot block for a range dataset."""
    if spec.fetched_by == "snapshot" and (start is not None or end is not None):
        raise ConfigError(f"{spec.name} is a snapshot dataset: give block=, not start / end")
    if spec.fetched_by != "snapshot" and block is not None:
        raise ConfigError(f"{spec.name} is not a snapshot dataset: give start / end, not block=")


def _chain_folders(folders: list[PurePath], dataset: str, chain: str | None, where: str) -> list[PurePath]:
    """The shard folders of one chain: ``chain``'s, or the only chain's."""
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
    return folders


def _shard_parts(
    files: Storage, folder: PurePath, spec: ds.Dataset, start: object, end: object, block: int | None
) -> list[Part]:
    """What to read of one shard folder: its snapshot(s), or the non-overlapping cover of its
    range files (those wholly outside ``start``..``end`` are not read)."""
    dataset = spec.name
    ranges, snapshots = files_of(files, folder, dataset)
    if spec.fetched_by == "snapshot" or (snapshots and not ranges):
        blocks = sorted(snapshots) if block is None else [block]
        parts = []
        for b in blocks:
            if b not in snapshots:
                raise ConfigError(f"no {dataset} snapshot at block {b}; snapshots: {sorted(snapshots)}")
            parts.append(Part(files, snapshots[b], dataset))
        return parts
    bounds = None
    first, final = 0, None
    if start is not None or end is not None:
        last = max((e for _, e, _ in ranges), default=0)
        bounds = (start if start is not None else 0, end, last)
        low, high, _ = block_bounds(*bounds)
        first, final = low or 0, high
    return [
        Part(files, file, dataset, lo, hi, bounds)
        for lo, hi, file in cover(ranges)
        if hi >= first and (final is None or lo <= final)
    ]


def datasets_in(
    path: str | os.PathLike[str] | None = None, *, chain: str | None = None
) -> dict[str, list[str]]:
    """The datasets with files under ``path`` (as :func:`read` finds them), and their chains.

    Parameters
    ----------
    path, chain
        As for :func:`read` (``chain`` keeps only that chain's folders).

    Returns
    -------
    dict[str, list[str]]
        Dataset name -> the chain folders holding it, in ``hmyframe.DATASETS`` order; only the
        folder listings are read, no file.

    Raises
    ------
    ConfigError
        ``path`` is not a folder.
    """
    files, root = open_storage(path if path is not None else default_root())
    if not files.is_dir(root):
        raise ConfigError(f"{files.url(root)} is not a folder")
    found: dict[str, list[str]] = {}
    for name in ds.DATASETS:
        chains = sorted({_chain_of(f) for f in _shard_folders(files, root, name)})
        if chain is not None:
            chains = [c for c in chains if c == chain]
        if chains:
            found[name] = chains
    return found


def provenance_attrs(parts: Sequence[Part]) -> dict[str, Any]:
    """``{"provenance": [...]}``: where the Parquet files of ``parts`` were fetched, one entry per
    source (:func:`hmyframe._provenance.summary`), from their footers; ``{}`` when none records it.
    A file removed since its rows were read is left out (never an error: the rows are read)."""
    seen: set[PurePath] = set()
    records = []
    for part in parts:
        if part.path.suffix != ".parquet" or part.path in seen:
            continue
        seen.add(part.path)
        try:
            metadata = part.files.read_metadata(part.path).metadata
        except (OSError, pa.ArrowException):
            # gone since its rows were read (a tail renamed to its chunk file, or a repair, wrote its rows
            # into another file, with the same provenance): the read stands without its record
            continue
        records.append(_provenance.from_footer(metadata))
    found = _provenance.summary(records)
    return {"provenance": found} if found else {}
