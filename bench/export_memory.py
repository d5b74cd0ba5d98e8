"""Peak memory of a long export: 100,000 blocks with transactions, chunk by chunk to Parquet.

The devnet runs in its own process; the export runs in another child process (blocks,
transactions and staking transactions of shard 0, chunks of 1,000 blocks, into a temporary
folder), and its peak resident set size is read from the kernel (``os.wait4``) when it exits.
By default the child runs the command line, ``hmyframe export``, as a user (and
``bench/compare.py``) does; ``--api`` runs ``hmyframe.exporting.export`` from Python instead,
which imports pandas (pyarrow looks for it at its first array; the command line spares it
that, see ``hmyframe._lazy.arrow_without_pandas``): about 50 MB more. As a same-run baseline,
the peak of a child that only imports what that export loads is measured too, so the figure
attributable to fetching is visible.

Usage::

    python bench/export_memory.py [--blocks 100000] [--limit-mb 500] [--api] [--activity busy]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from _devnet import one_shard_devnet

EXPORT = """
import asyncio, sys
from hmyframe.aio import export
from hmyframe.engine import FetchOptions
summary = asyncio.run(export(["blocks", "transactions", "staking_transactions"], 0, int(sys.argv[2]) - 1, 0,
                             rpc=sys.argv[1], out=sys.argv[3], options=FetchOptions(chunk_size=1000)))
print(sum(d.rows for d in summary.datasets.values()), summary.datasets["transactions"].rows, summary.seconds)
"""
IMPORT_ONLY = "import hmyframe, hmyframe.exporting, pandas, pyarrow.parquet; print(0, 0, 0.0)"
EXPORT_CLI = """
import sys, time
from hmyframe._lazy import aiohttp_without_default_certificates
aiohttp_without_default_certificates()  # (as the hmyframe command imports it)
from hmyframe.cli import main
out = sys.argv[3]
began = time.perf_counter()
argv = ["export", "blocks,transactions,staking_transactions", "--rpc", sys.argv[1], "--out", out]
code = main([*argv, "--start", "0", "--end", str(int(sys.argv[2]) - 1), "--chunk-size", "1000", "--no-progress"])
seconds = time.perf_counter() - began
if code:
    raise SystemExit(code)
import pathlib
import pyarrow.parquet as pq  # (after the export: it imports what it needs itself)
rows = {}
for path in pathlib.Path(out).rglob("*.parquet"):
    name = path.parent.parent.name
    rows[name] = rows.get(name, 0) + pq.ParquetFile(path).metadata.num_rows
print(sum(rows.values()), rows.get("transactions", 0), seconds)
"""
IMPORT_ONLY_CLI = (
    "from hmyframe._lazy import aiohttp_without_default_certificates, arrow_system_allocator, "
    "arrow_without_pandas\n"
    "aiohttp_without_default_certificates(); arrow_system_allocator(); arrow_without_pandas()\n"
    "import hmyframe.cli.export, hmyframe.exporting, hmyframe.datasets._registry, hmyframe.engine._ranges\n"
    "import hmyframe.rpc.client, pyarrow.parquet, pyarrow.compute, aiohttp; print(0, 0, 0.0)"
)


def child(code: str, *args: str) -> tuple[str, float]:
    """Run ``python -c code args``; return its stdout and its peak RSS in MB."""
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child failed with exit code {proc.returncode}")
    return out, usage.ru_maxrss / 1024  # Linux reports KiB


def main(args: argparse.Namespace) -> None:
    _, base_mb = child(IMPORT_ONLY if args.api else IMPORT_ONLY_CLI)
    with one_shard_devnet(args.blocks, activity=args.activity) as url, tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        text, peak_mb = child(EXPORT if args.api else EXPORT_CLI, url, str(args.blocks), out)
        wall = time.perf_counter() - began
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs) / 1e6
    rows, tx_rows, seconds = text.strip().splitlines()[-1].split()
    print(
        f"exported {args.blocks:,} blocks: {int(rows):,} rows ({int(tx_rows):,} transactions), "
        f"{size:,.1f} MB of Parquet, {args.blocks / float(seconds):,.0f} blocks/s ({wall:.0f} s wall)"
    )
    how = "hmyframe.exporting.export" if args.api else "hmyframe export"
    print(
        f"peak RSS of the exporting process ({how}): {peak_mb:,.0f} MB "
        f"(import-only baseline {base_mb:,.0f} MB; limit {args.limit_mb} MB) -> "
        f"{'OK' if peak_mb < args.limit_mb else 'OVER THE LIMIT'}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--limit-mb", type=int, default=500)
    parser.add_argument("--api", action="store_true", help="export from Python, not the command line")
    parser.add_argument("--activity", choices=("quiet", "devnet", "busy"), default="devnet")
    main(parser.parse_args())
