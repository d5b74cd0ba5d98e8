"""``hmyframe export``: write a chain slice (and/or a validator snapshot) to Parquet or CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hmyframe._sync import run as run_sync
from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.engine import RANGE_DATASETS, SNAPSHOT_DATASETS
from hmyframe.export import export

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``export`` sub-command."""
    parser = subparsers.add_parser(
        "export",
        help="fetch a block range / validator snapshot into Parquet (or CSV) files",
        description="Fetch datasets for a block range (and/or a validator snapshot) and write them to disk. "
        "Chunks already on disk are not fetched again; an interrupted export resumes.",
    )
    parser.add_argument(
        "datasets",
        metavar="DATASET",
        help=f"dataset name(s), comma-separated: {', '.join((*RANGE_DATASETS, *SNAPSHOT_DATASETS))}",
    )
    parser.add_argument("--start", type=int, default=None, help="first block (range datasets)")
    parser.add_argument("--end", type=int, default=None, help="last block, inclusive (default: the head)")
    parser.add_argument("--shard", type=int, default=0, help="shard (default 0)")
    parser.add_argument(
        "--block", type=int, default=None, help="block of the validator snapshot (default: the head)"
    )
    parser.add_argument("--out", default=None, help="output folder (default: data/, the cache root)")
    parser.add_argument(
        "--format", choices=("parquet", "csv"), default="parquet", help="file format (default parquet)"
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it is off anyway when piped)"
    )
    add_rpc_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the export and print its summary."""
    summary = run_sync(
        export(
            [d.strip() for d in args.datasets.split(",") if d.strip()],
            args.start,
            args.end,
            args.shard,
            block=args.block,
            rpc=rpc_target(args),
            trace_rpc=args.trace_rpc,
            out=args.out,
            format=args.format,
            options=fetch_options(args),
            progress=not args.no_progress,
        )
    )
    for line in summary.lines():
        print(line)
    sys.stdout.flush()
    return 0
