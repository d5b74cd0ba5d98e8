"""``hmyframe events SIGNATURE_OR_ABI``: contract events of a block range, decoded, to Parquet or CSV."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from hmyframe._sync import run as run_sync
from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.cli.export import shard_list
from hmyframe.errors import CacheError, ConfigError
from hmyframe.storage import os_reason

__all__ = ["register", "run"]

_SUFFIXES = (".parquet", ".csv")


def register(subparsers: Any) -> None:
    """Add the ``events`` sub-command."""
    parser = subparsers.add_parser(
        "events",
        help="decode contract events of a block range (by an ABI or a signature) into Parquet or CSV",
        description=(
            "Read the logs of a block range (through the cache: a range already fetched sends no "
            "request) and decode the events of SIGNATURE_OR_ABI into one typed column per argument "
            "(exact uint256 / int256 integers, one1 addresses with a _hex twin). "
            'Example: hmyframe events "Swap(address indexed sender, uint256 amount0In, uint256 '
            'amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)" --start 0 '
            "--end 999 --out swaps.parquet"
        ),
    )
    parser.add_argument(
        "abi",
        metavar="SIGNATURE_OR_ABI",
        help="an event signature, an ABI JSON file, or a built-in ABI: hrc20, hrc721, hrc1155, wone, "
        "uniswap_v2_factory, uniswap_v2_pair, uniswap_v2_router",
    )
    parser.add_argument(
        "--start",
        required=True,
        metavar="SPEC",
        help="first block: a number (1500000, 1.5M), a UTC date or time, or a whole range such as "
        "--start=-1000: (the last 1000 blocks) or 1M:1.1M",
    )
    parser.add_argument(
        "--end", default=None, metavar="SPEC", help="last block, inclusive (default: the head)"
    )
    parser.add_argument(
        "--address",
        action="append",
        default=None,
        metavar="ADDRESS",
        help="only logs of this contract (one1 or 0x); repeat it or separate by commas for several",
    )
    parser.add_argument(
        "--event",
        action="append",
        default=None,
        metavar="NAME",
        help="only this event of the ABI (a name or a signature); repeat it for several",
    )
    parser.add_argument(
        "--shard",
        type=shard_list,
        default=0,
        metavar="SHARD",
        help="shard id, comma-separated ids (0,1) or 'all' (default 0)",
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="FILE_OR_DIR",
        help="a .parquet or .csv file (one event), or a folder: one file per event, named after it "
        "(--format says which kind)",
    )
    parser.add_argument(
        "--format",
        choices=("parquet", "csv"),
        default="parquet",
        help="file kind in a folder --out (default parquet)",
    )
    parser.add_argument(
        "--cache",
        default=None,
        metavar="DIR",
        help="the cache the logs are read through (default: $HMYFRAME_CACHE, else data/)",
    )
    parser.add_argument("--no-cache", action="store_true", help="fetch the logs without caching them")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it is off anyway when piped)"
    )
    add_rpc_arguments(parser)
    parser.set_defaults(handler=run)


def _file_name(key: str) -> str:
    """An event's key as a file name: ``Swap``, ``Transfer_address_address_uint256_`` for overloads."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", key).strip("_") or "event"


def _write(table: Any, path: Path) -> None:
    import pyarrow as pa

    from hmyframe._pandas_meta import PANDAS_KEY, pandas_metadata

    try:
        if path.suffix == ".csv":
            import pyarrow.csv as pacsv

            pacsv.write_csv(table, path)
            return
        import pyarrow.parquet as pq

        # plain Parquet; the pandas metadata names the exact columns' dtypes, so pd.read_parquet
        # with hmyframe gives the uint256 / int256 columns back (digit strings without it)
        meta = dict(table.schema.metadata or {})
        meta[PANDAS_KEY] = pandas_metadata(pa.schema(list(table.schema)))
        pq.write_table(table.replace_schema_metadata(meta), path, compression="zstd")
    except OSError as exc:
        raise CacheError(f"cannot write {path}: {os_reason(exc)}") from None


def run(args: argparse.Namespace) -> int:
    """Fetch (through the cache), decode, write one file per event, print what was written."""
    from hmyframe import aio
    from hmyframe.abi import choose_events, keys_of

    out = Path(args.out)
    addresses = None
    if args.address:
        addresses = [a.strip() for text in args.address for a in text.split(",") if a.strip()]
    events = args.event if args.event is None or len(args.event) > 1 else args.event[0]
    chosen, _ = choose_events(args.abi, events)
    keys = keys_of(chosen)
    if out.suffix in _SUFFIXES:
        if len(chosen) > 1:
            raise ConfigError(
                f"--out {args.out!r} is one file but {len(chosen)} events are decoded "
                f"({', '.join(keys)}): give a folder, or --event NAME"
            )
        targets = {keys[0]: out}
    elif out.suffix:
        raise ConfigError(f"--out {args.out!r} must end in .parquet or .csv, or be a folder")
    else:
        targets = {key: out / f"{_file_name(key)}.{args.format}" for key in keys}
    cache: object = False if args.no_cache else (args.cache if args.cache is not None else True)
    frames = run_sync(
        aio.events(
            chosen if len(chosen) > 1 else chosen[0],
            args.start,
            args.end,
            args.shard,
            address=addresses,
            rpc=rpc_target(args),
            cache=cache,  # type: ignore[arg-type]
            options=fetch_options(args),
            progress=not args.no_progress,
            output="arrow",
        )
    )
    tables = frames if isinstance(frames, dict) else {keys[0]: frames}
    if len(targets) > 1 or out.suffix not in _SUFFIXES:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(f"cannot make the folder {out}: {os_reason(exc)}") from None
    for key, table in tables.items():
        attrs = json.loads((table.schema.metadata or {}).get(b"hmyframe.attrs", b"{}"))
        undecoded = attrs.get("undecoded", [])
        _write(table, targets[key])
        print(f"{key}: {table.num_rows:,} logs -> {targets[key]}")
        if undecoded:
            first = undecoded[0]
            print(
                f"hmyframe events: {key}: {len(undecoded):,} matching logs not decoded, e.g. block "
                f"{first.get('block_number')} log {first.get('log_index')}: {first.get('reason')}",
                file=sys.stderr,
            )
    sys.stdout.flush()
    return 0
