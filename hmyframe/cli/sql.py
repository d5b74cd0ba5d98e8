"""``hmyframe sql QUERY``: an SQL query (DuckDB) over a cache or export folder.

Printed results are chain text chosen by strangers (token names and symbols, validator
descriptions): each text cell is shown through :mod:`hmyframe._text` (invisible, bidi and control
characters as visible escapes, cut to :data:`TEXT_WIDTH` columns), so a name can neither move
the terminal's cursor, colour it, reverse the text after it nor stretch the table. Hex (hashes,
addresses, log data: ``0x`` and hex digits) is printed whole; ``--out`` writes every value as
it is.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from hmyframe._text import shorten
from hmyframe.errors import CacheError, ConfigError
from hmyframe.storage import os_reason

__all__ = ["TEXT_WIDTH", "register", "run"]

#: Display columns a printed text cell is cut to (hex is printed whole).
TEXT_WIDTH = 64
_HEX = re.compile(r"0x[0-9a-fA-F]*")


def register(subparsers: Any) -> None:
    """Add the ``sql`` sub-command."""
    parser = subparsers.add_parser(
        "sql",
        help="run an SQL query (DuckDB) over a cache or export folder: one view per dataset",
        description=(
            "Each dataset with files under --path is a view of its name: "
            'hmyframe sql "select count(*) from transactions join blocks using (shard_id, block_number)". '
            "Needs duckdb (pip install 'hmyframe[sql]')."
        ),
    )
    parser.add_argument("query", nargs="?", metavar="QUERY", help="one SELECT (omit it with --list)")
    parser.add_argument(
        "--path", default=None, help="cache or export folder, or URL (default: $HMYFRAME_CACHE or data/)"
    )
    parser.add_argument("--chain", default=None, help="the chain folder, when --path holds several")
    parser.add_argument(
        "--out", default=None, help="write the result to this .parquet or .csv file instead of printing it"
    )
    parser.add_argument(
        "--max-rows",
        type=int,
        default=50,
        help=f"rows printed at most (default: 50; 0: all); text cells are printed with invisible and "
        f"control characters escaped, cut to {TEXT_WIDTH} columns",
    )
    parser.add_argument("--list", action="store_true", help="list the views (datasets) and their columns")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print (or write) the query's result, or the views with ``--list``."""
    from hmyframe.query import sql, views

    if args.list:
        found = views(args.path, chain=args.chain)
        if not found:
            print("no dataset files there: nothing to query")
        for name, schema in found.items():
            print(f"{name}: {', '.join(f'{f.name} {f.type}' for f in schema)}")
        if args.query is None:
            return 0
    if args.query is None:
        raise ConfigError("give a QUERY (or --list to see the views)")
    if args.max_rows < 0:
        raise ConfigError(f"--max-rows must be >= 0, got {args.max_rows}")
    out = None if args.out is None else Path(args.out)
    if out is not None and out.suffix not in (".parquet", ".csv"):
        raise ConfigError(f"--out {args.out!r} must end in .parquet or .csv")
    if out is None:
        df = sql(args.query, args.path, chain=args.chain)
        limit = args.max_rows or None
        text = _shown(df).to_string(max_rows=limit, show_dimensions=limit is not None and len(df) > limit)
        sys.stdout.write(text + "\n")
        return 0
    table = sql(args.query, args.path, chain=args.chain, output="arrow")
    try:
        if out.suffix == ".parquet":
            import pyarrow.parquet as pq

            pq.write_table(table, out, compression="zstd")
        else:
            import pyarrow.csv as pacsv

            pacsv.write_csv(table, out)
    except OSError as exc:
        raise CacheError(f"cannot write {out}: {os_reason(exc)}") from None
    print(f"wrote {table.num_rows:,} rows to {out}", file=sys.stderr)
    return 0


def _shown(df: Any) -> Any:
    """``df`` with every text cell made safe to print (:func:`hmyframe._text.shorten`: escapes,
    cut to :data:`TEXT_WIDTH` columns; 0x hex whole); other cells as they are."""
    import pandas as pd

    out = df.copy()
    for column in out.columns:
        values = out[column].tolist()
        if any(isinstance(v, str) for v in values):
            out[column] = pd.Series([_cell(v) for v in values], index=out.index, dtype=object)
    return out


def _cell(value: Any) -> Any:
    if not isinstance(value, str) or _HEX.fullmatch(value):
        return value
    return shorten(value, TEXT_WIDTH)
