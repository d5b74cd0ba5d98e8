"""Peak memory of a long export: 100,000 blocks with transactions, chunk by chunk to Parquet.

The devnet runs in its own process; the export runs in another child process
(``hmyframe.export.export`` for blocks, transactions and staking transactions of shard 0,
cache in a temporary folder), and its peak resident set size is read from the kernel
(``os.wait4``) when it exits. As a same-run baseline, the peak of a child that only imports
hmyframe (pandas, pyarrow, aiohttp...) is measured too, so the figure attributable to
fetching is visible.

Usage::

    python bench/export_memory.py [--blocks 100000] [--limit-mb 500]
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
from hmyframe.export import export
from hmyframe.engine import FetchOptions
summary = asyncio.run(export(["blocks", "transactions", "staking_transactions"], 0, int(sys.argv[2]) - 1, 0,
                             rpc=sys.argv[1], out=sys.argv[3], options=FetchOptions(chunk_size=1000)))
print(sum(d.rows for d in summary.datasets.values()), summary.datasets["transactions"].rows, summary.seconds)
"""
IMPORT_ONLY = "import hmyframe, hmyframe.export, pandas, pyarrow.parquet; print(0, 0, 0.0)"


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
    _, base_mb = child(IMPORT_ONLY)
    with one_shard_devnet(args.blocks) as url, tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        text, peak_mb = child(EXPORT, url, str(args.blocks), out)
        wall = time.perf_counter() - began
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs) / 1e6
    rows, tx_rows, seconds = text.split()
    print(
        f"exported {args.blocks:,} blocks: {int(rows):,} rows ({int(tx_rows):,} transactions), "
        f"{size:,.1f} MB of Parquet, {args.blocks / float(seconds):,.0f} blocks/s ({wall:.0f} s wall)"
    )
    print(
        f"peak RSS of the exporting process: {peak_mb:,.0f} MB "
        f"(import-only baseline {base_mb:,.0f} MB; limit {args.limit_mb} MB) -> "
        f"{'OK' if peak_mb < args.limit_mb else 'OVER THE LIMIT'}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=100_000)
    parser.add_argument("--limit-mb", type=int, default=500)
    main(parser.parse_args())
