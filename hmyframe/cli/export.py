"""``hmyframe export``: write a chain slice (and/or a validator snapshot) to Parquet or CSV."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import warnings
from collections.abc import Coroutine, Iterator
from typing import Any, TextIO, TypeVar

from hmyframe._lazy import arrow_system_allocator, arrow_without_pandas
from hmyframe._sync import run as run_sync
from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.engine import RANGE_DATASETS, SNAPSHOT_DATASETS
from hmyframe.errors import ConfigError
from hmyframe.exporting import ExportSummary, export

__all__ = ["register", "run", "shard_list", "until_stopped"]

T = TypeVar("T")


def shard_list(text: str) -> int | list[int] | str:
    """Parse ``--shard``: one id, comma-separated ids, or ``all``."""
    text = text.strip()
    if text == "all":
        return text
    parts = [p.strip() for p in text.split(",")]
    if not parts or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected a shard id, ids like 0,1, or 'all'; got {text!r}")
    return int(parts[0]) if len(parts) == 1 else [int(p) for p in parts]


async def until_stopped(coroutine: Coroutine[Any, Any, T]) -> T | None:
    """Run ``coroutine``; Ctrl-C or SIGTERM cancel it cleanly (its in-flight write finishes) and
    give ``None``."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    stopped: list[int] = []

    def stop(signum: int) -> None:
        stopped.append(signum)
        task.cancel()

    handled = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)
            handled.append(signum)
    try:
        return await coroutine
    except asyncio.CancelledError:
        if not stopped:
            raise
        task.uncancel()
        return None
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)


@contextlib.contextmanager
def _one_line_warnings() -> Iterator[None]:
    """Show a follower's reports (a node stalling, a lower head...) as one stderr line each."""
    from hmyframe.errors import FollowWarning

    previous = warnings.showwarning

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, FollowWarning):
            print(f"hmyframe export: {message}", file=sys.stderr, flush=True)
        else:
            previous(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", FollowWarning)
        warnings.showwarning = show
        yield


# long: the command's options, one add_argument each, in --help order
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
    parser.add_argument(
        "--follow",
        action="store_true",
        help="keep going: after catching up to the head, export each new block of every shard as it "
        "appears, until Ctrl-C / SIGTERM (or until --end, a block number); a restart resumes; without "
        "--start: from the block after the head",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="with --follow: seconds between two polls of the head (default 1; with WebSocket heads, "
        "while the socket is re-opened)",
    )
    parser.add_argument(
        "--heads",
        choices=("auto", "ws", "poll"),
        default="auto",
        help="with --follow: how new heads are learnt: auto (default: the shard's WebSocket newHeads "
        "subscription where the node's sharding structure lists a ws URL, else polling), ws (WebSocket "
        "only) or poll (polling only)",
    )
    add_rpc_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the export (on a Dask cluster with ``--scheduler``) and print its summary."""

    end: object = args.end
    if args.follow and args.scheduler is not None:
        raise ConfigError(f"--follow runs in this process: drop --scheduler {args.scheduler}")
    if args.follow and end is not None:
        if not str(end).isdigit():
            raise ConfigError(f"with --follow, --end must be a block number (stop there), got {end!r}")
        end = int(str(end))

    def job(client: Any) -> ExportSummary | None:
        coroutine = export(
            [d.strip() for d in args.datasets.split(",") if d.strip()],
            args.start,
            end,
            args.shard,
            block=args.block,
            rpc=rpc_target(args),
            trace_rpc=args.trace_rpc,
            out=args.out,
            format=args.format,
            options=fetch_options(args),
            progress=not args.no_progress,
            client=client,
            follow=args.follow,
            poll=args.poll,
            heads=args.heads,
        )
        return run_sync(until_stopped(coroutine) if args.follow else coroutine)

    if args.scheduler is None:
        if args.workers is not None:
            raise ConfigError("--workers sizes the local Dask cluster of --scheduler local")
        arrow_system_allocator()  # keeping nothing chunks freed (a third of its peak memory)
        arrow_without_pandas()  # this process builds no DataFrame: spare it pandas' import
        with _one_line_warnings() if args.follow else contextlib.nullcontext():
            summary = job(None)
    else:
        from hmyframe.scale import connect

        with connect(args.scheduler, workers=args.workers) as client:
            summary = job(client)
    if summary is None:
        print(
            "hmyframe export: stopped; what was written is on disk, a restart resumes from there",
            file=sys.stderr,
        )
        return 0
    for line in summary.lines():
        print(line)
    sys.stdout.flush()
    return 0
