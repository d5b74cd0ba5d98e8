"""Exports under the node's rate limit: blocks/s of a default ``hmyframe export`` against the limit.

The node's global limiter (``--rpc.ratelimit``; the devnet models it: ``--rpc-rate-limit``)
counts each block of ``getBlocks`` as a call, and a public endpoint shares it among all its
users, so a low limit is the common case. For each limit and each set of datasets, a devnet of
one shard runs in its own process with that limit, and ``hmyframe export`` runs in another, with
default settings (no flag but the node and the output), over a range of ``--seconds`` x the
limit blocks (what a client running exactly at the limit fetches in that time, its first
second's burst aside). Reported: the wall time of the whole export process, blocks per second,
and their ratio to the limit (the goal: 0.9 or more everywhere; above 1.0 is the burst the node
grants at the start). Each set of datasets also runs once without a limit over the longest range:
this machine's own rate, which bounds every limit above it ("× bound": the rate over the lower
of the two).

The ratio is robust to the machine's load only where the limit binds: at 500 and 1,000 calls/s
the client's and the devnet's own work (on a shared 2-core machine) may bound the speed first.
The load average is printed with the table.

    python bench/rate_limits.py                                  # the whole sweep (~10 min)
    python bench/rate_limits.py --limits 5,100 --datasets blocks,transactions --seconds 10
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _devnet import devnet_process

DATASET_SETS = ("blocks,transactions", "blocks,transactions,receipts,logs")
LIMITS = (5, 10, 20, 50, 100, 200, 500, 1000)


@dataclass
class Run:
    limit: float
    datasets: str
    blocks: int
    seconds: float
    rc: int
    files: int
    note: str

    @property
    def rate(self) -> float:
        return self.blocks / self.seconds if self.rc == 0 and self.seconds > 0 else 0.0

    @property
    def ratio(self) -> float:
        return self.rate / self.limit if self.limit else 1.0


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def one(limit: float, datasets: str, blocks: int, timeout: float, activity: str) -> Run:
    """One export of blocks ``1..blocks`` against a fresh devnet limited to ``limit`` calls/s."""
    args = ("--shards", "1", "--blocks", str(blocks + 10), "--no-validator-rate-limit")
    args += ("--activity", activity) + (("--rpc-rate-limit", f"{limit:g}") if limit else ())
    with devnet_process(*args) as (urls, _), tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "hmyframe", "export", datasets, "--start", "1", "--end", str(blocks)]
        command += ["--rpc", urls[0], "--out", out, "--no-progress"]
        began = time.perf_counter()
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
            rc, note = proc.returncode, "" if proc.returncode == 0 else _last_line(proc.stderr)
        except subprocess.TimeoutExpired:
            rc, note = -1, f"stopped after {timeout:g} s"
        seconds = time.perf_counter() - began
        files = len(list(Path(out).rglob("*.parquet")))
    return Run(limit, datasets, blocks, seconds, rc, files, note)


def over_bound(run: Run, unlimited: dict[str, float]) -> float | None:
    """``run``'s rate over the lower of its limit and its datasets' unlimited rate (``None``
    for a run without a limit, or without a baseline to compare with)."""
    if not run.limit:
        return None
    return run.rate / min(run.limit, unlimited.get(run.datasets, run.limit))


def table(runs: list[Run], unlimited: dict[str, float]) -> str:
    """The runs; ``unlimited``: blocks/s of each dataset set without a limit (this machine's own
    bound: the client and the devnet share its cores), so ``× bound`` is the rate over the lower
    of the limit and that."""
    rows = [
        "| limit (calls/s) | datasets | blocks | seconds | blocks/s | × limit | × bound | outcome |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for r in runs:
        outcome = "ok" if r.rc == 0 else f"failed: {r.note}"
        over = over_bound(r, unlimited)
        limit, ratio = (f"{r.limit:g}", f"{r.ratio:.2f}") if r.limit else ("off", "–")
        rows.append(
            f"| {limit} | {r.datasets} | {r.blocks:,} | {r.seconds:.1f} | {r.rate:.1f} | {ratio} | "
            f"{'–' if over is None else f'{over:.2f}'} | {outcome} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limits", default=",".join(map(str, LIMITS)), help="node limits, calls/s")
    parser.add_argument("--datasets", default=";".join(DATASET_SETS), help="dataset sets, ';'-separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="range = this many seconds at the limit")
    parser.add_argument("--min-blocks", type=int, default=500, help="shortest range (default 500)")
    parser.add_argument("--max-blocks", type=int, default=20000, help="longest range (default 20000)")
    parser.add_argument("--activity", default="devnet", choices=("quiet", "devnet", "busy"))
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        help="skip the runs without a limit (over the longest range) that give this machine's own bound",
    )
    parser.add_argument(
        "--timeout", type=float, default=0, help="per export, s (default: 5x the range's time + 60)"
    )
    args = parser.parse_args()
    limits = [float(x) for x in args.limits.split(",") if x]
    sets = [s for s in args.datasets.split(";") if s]
    runs: list[Run] = []
    for limit in limits:
        blocks = int(min(args.max_blocks, max(args.min_blocks, args.seconds * limit)))
        for datasets in sets:
            timeout = args.timeout or 5 * blocks / limit + 60
            run = one(limit, datasets, blocks, timeout, args.activity)
            runs.append(run)
            print(
                f"limit {limit:g}/s, {datasets}, {blocks} blocks: {run.seconds:.1f} s, "
                f"{run.rate:.1f} blocks/s = {run.ratio:.2f}x the limit"
                + ("" if run.rc == 0 else f" (FAILED: {run.note})"),
                flush=True,
            )
    unlimited: dict[str, float] = {}
    if not args.no_baseline:
        longest = max((r.blocks for r in runs), default=args.min_blocks)
        for datasets in sets:
            run = one(0, datasets, longest, args.timeout or 5 * longest / 100 + 60, args.activity)
            runs.append(run)
            unlimited[datasets] = run.rate
            print(
                f"no limit, {datasets}, {longest} blocks: {run.seconds:.1f} s, {run.rate:.1f} blocks/s",
                flush=True,
            )
    print()
    print(table(runs, unlimited))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\nload average after the sweep: {load} ({os.cpu_count()} CPUs); activity {args.activity}")
    worst = min((r.ratio for r in runs if r.limit), default=0.0)
    print(f"lowest ratio to the limit: {worst:.2f} (goal: 0.9)")
    if unlimited:
        bounded = [over for r in runs if (over := over_bound(r, unlimited)) is not None]
        print(f"lowest ratio to the lower of the limit and this machine's own rate: {min(bounded):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
