"""``hmyframe cache ls|clear``: what the Parquet cache holds (``--verbose``: each file and its
provenance), and emptying it."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from hmyframe import _provenance
from hmyframe import datasets as ds
from hmyframe.cache import Cache, CacheEntry, default_root
from hmyframe.errors import ConfigError

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``cache`` sub-command with its ``ls`` and ``clear`` actions."""
    parser = subparsers.add_parser("cache", help="list or clear the Parquet cache")
    parser.add_argument("action", choices=("ls", "clear"), help="ls: list files; clear: delete them")
    parser.add_argument("--dir", default=None, help="cache root (default: $HMYFRAME_CACHE or data/)")
    parser.add_argument("--chain", default=None, help="only this chain id (16 hex digits)")
    parser.add_argument("--dataset", default=None, help="only this dataset")
    parser.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="ls: also each file, with where and when it was fetched (its footer's provenance)",
    )
    parser.set_defaults(handler=run)


def _checked_cache(args: argparse.Namespace) -> Cache:
    """The cache the arguments name, refusing a root that is a file and unknown filters."""
    cache = Cache(default_root() if args.dir is None else args.dir)
    root = cache.url()
    if isinstance(cache.root, Path) and cache.root.exists() and not cache.root.is_dir():
        raise ConfigError(f"cache root {root} is a file, not a folder (--dir / $HMYFRAME_CACHE)")
    if args.dataset is not None and args.dataset not in ds.DATASETS:
        raise ConfigError(f"unknown dataset {args.dataset!r} (--dataset); datasets: {', '.join(ds.DATASETS)}")
    if args.chain is not None:
        if not re.fullmatch(r"[0-9a-f]{16}", args.chain):
            raise ConfigError(
                f"chain id {args.chain!r} (--chain) is not 16 lower-case hex digits (the first 16 of the "
                "chain's genesis hash, as `hmyframe cache ls` shows)"
            )
        chains = cache.chains()
        if args.chain not in chains:
            raise ConfigError(
                f"no chain {args.chain} in {root} (--chain); chains there: {', '.join(chains) or 'none'}"
            )
    return cache


def run(args: argparse.Namespace) -> int:
    """List (grouped per chain, dataset and shard) or delete cache files."""
    cache = _checked_cache(args)
    if args.action == "clear":
        removed = cache.clear(args.chain, args.dataset)
        print(f"removed {removed} files from {cache.url()}")
        return 0
    entries = cache.entries(args.chain, args.dataset)
    if not entries:
        what = " ".join(
            p
            for p in (
                f"of dataset {args.dataset}" if args.dataset else "",
                f"of chain {args.chain}" if args.chain else "",
            )
            if p
        )
        print(f"{cache.url()}: no files {what}" if what else f"{cache.url()}: empty")
        return 0
    groups: dict[tuple[str, str, int], list[Any]] = {}
    for entry in entries:
        groups.setdefault((entry.chain_id, entry.dataset, entry.shard), []).append(entry)
    print(f"{'CHAIN':<17} {'DATASET':<21} {'SHARD':>5} {'FILES':>6} {'ROWS':>12} {'MB':>9}  COVERS / STATUS")
    for (chain, dataset, shard), items in sorted(groups.items()):
        rows = sum(e.rows or 0 for e in items)
        size = sum(e.size for e in items) / 1e6
        ranges = [e for e in items if e.kind == "range"]
        snaps = [e for e in items if e.kind == "snapshot"]
        parts = []
        if ranges:
            parts.append(f"blocks {min(e.start for e in ranges)}..{max(e.end for e in ranges)}")
        if snaps:
            parts.append(
                f"snapshots at {', '.join(str(e.start) for e in snaps[:5])}{' ...' if len(snaps) > 5 else ''}"
            )
        bad = [e for e in items if e.status != "ok"]
        if bad:
            parts.append(f"{len(bad)} stale/corrupt (refetched on next use)")
        print(
            f"{chain:<17} {dataset:<21} {shard:>5} {len(items):>6} {rows:>12,} {size:>9.2f}  {'; '.join(parts)}"
        )
    if args.verbose:
        _print_files(cache, entries)
    return 0


def _print_files(cache: Cache, entries: list[CacheEntry]) -> None:
    """One line per file: its name, rows, status and the provenance its footer records."""
    import pyarrow as pa

    print()
    print(
        f"{'FETCHED (UTC)':<24}  {'HMYFRAME':<8}  {'ROWS':>9}  {'STATUS':<7}  FILE / FROM ENDPOINT (NODE VERSION)"
    )
    for entry in sorted(entries, key=lambda e: (e.chain_id, e.dataset, e.shard, e.start, e.end)):
        try:
            record = _provenance.from_footer(cache.files.read_metadata(entry.path).metadata)
        except (OSError, pa.ArrowException) as exc:
            record = {"endpoint": f"unreadable footer: {exc}"}
        source = record.get("endpoint", "endpoint not recorded")
        if "node_version" in record:
            source += f" ({record['node_version']})"
        rows = "-" if entry.rows is None else f"{entry.rows:,}"
        print(
            f"{record.get('fetched_at', '-'):<24}  {record.get('version', '-'):<8}  {rows:>9}  {entry.status:<7}  "
            f"{entry.chain_id}/{entry.dataset}/shard{entry.shard}/{entry.path.name}"
        )
        print(f"{'':<56}from {source}")
