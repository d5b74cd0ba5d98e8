"""``hmyframe export``: write a chain slice (and/or a validator snapshot) to Parquet or CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from hmyframe._lazy import arrow_without_pandas
from hmyframe._sync import run as run_sync
from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.engine import RANGE_DATASETS, SNAPSHOT_DATASETS
from hmyframe.errors import ConfigError
from hmyframe.export import ExportSummary, export

__all__ = ["register", "run", "shard_list"]


def shard_list(text: str) -> int | list[int] | str:
    """Parse ``--shard``: one id, comma-separated ids, or ``all``."""
    text = text.strip()
    if text == "all":
        return text
    parts = [p.strip() for p in text.split(",")]
    if not parts or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected a shard id, ids like 0,1, or 'all'; got {text!r}")
    return int(parts[0]) if len(parts) == 1 else [int(p) for p in parts]


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
    parser.add_argument(
        "--start",
        default=None,
        metavar="SPEC",
        help="first block (range datasets): a number (1500000, 1.5M), a UTC date or time (2026-01-01, "
        "2026-01-01T12:00), or a whole range such as --start=-1000: (the last 1000 blocks) or 1M:1.1M",
    )
    parser.add_argument(
        "--end",
        default=None,
        metavar="SPEC",
        help="last block, inclusive: a number, latest, a UTC date (its whole day) or time, or +N "
        "(N blocks from --start); default: the head",
    )
    parser.add_argument(
        "--shard",
        type=shard_list,
        default=0,
        metavar="SHARD",
        help="shard id, comma-separated ids (0,1) or 'all' (default 0); several are fetched concurrently",
    )
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
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the chunks as Dask tasks: 'local' (a cluster of worker processes on this machine) or a "
        "scheduler address such as tcp://host:8786 (needs hmyframe[dask]; workers must reach the "
        "endpoints and --out)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="worker processes of --scheduler local (default: one per CPU)",
    )
    add_rpc_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the export (on a Dask cluster with ``--scheduler``) and print its summary."""

    def job(client: Any) -> ExportSummary:
        return run_sync(
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
                client=client,
            )
        )

    if args.scheduler is None:
        if args.workers is not None:
            raise ConfigError("--workers sizes the local Dask cluster of --scheduler local")
        arrow_without_pandas()  # this process builds no DataFrame: spare it pandas' import
        summary = job(None)
    else:
        from hmyframe.scale import connect

        with connect(args.scheduler, workers=args.workers) as client:
            summary = job(client)
    for line in summary.lines():
        print(line)
    sys.stdout.flush()
    return 0
