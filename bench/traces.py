"""Traces for a range: ``hmyframe export traces`` against bare ``trace_block`` calls, alternating.

The devnet serves one shard in its own process; each contender runs in its own process
(``bench/_contenders.py``): ``hmyframe`` exports traces (which also fetches the blocks'
transactions, each trace's Harmony hash being resolved from them) into a fresh folder; ``wire``
makes the same ``trace_block`` calls with the same number in flight and only reads the bytes.
Prints each run, the medians of the in-process seconds and the ratio wire / hmyframe (above
``0.7``: goal 5 of issue 17), with the machine's load.

    python bench/traces.py [--blocks 500] [--runs 5] [--latency-ms 100] [--convert-processes N]
    python bench/traces.py --against /path/to/a/checkout/of/main     # A/B: this tree and main
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _devnet import devnet_process

RUNNER = Path(__file__).resolve().parent / "_contenders.py"


def run(name: str, params: dict[str, object], code: str | None = None, python: str | None = None) -> float:
    """In-process seconds of one contender run in its own process (``code``: hmyframe from that
    checkout; ``python``: another environment's interpreter, a peer's)."""
    env = {**os.environ, "PYTHONPATH": code} if code else None
    out = subprocess.run(
        [python or sys.executable, str(RUNNER), name, json.dumps(params)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    seconds: float = json.loads(out.strip().splitlines()[-1])["seconds"]
    return seconds


def record_round(i: int, got: dict[str, float], times: dict[str, list[float]]) -> None:
    """Print round ``i`` (0: the warm-up, not kept) and keep its times."""
    shown = ", ".join(f"{name} {t:.3f} s" for name, t in got.items())
    print(f"run {i}{' (warm-up)' if i == 0 else ''}: {shown}", flush=True)
    if i:
        for name, t in got.items():
            times[name].append(t)


def summarize(what: str, times: dict[str, list[float]], base: str) -> None:
    """Print each contender's median and the median of its per-round ratios ``base`` / it (and
    the best of each: on a loaded machine, the run least disturbed by others)."""
    runs = len(times[base])
    print(f"{what}, {runs} runs, load {os.getloadavg()[0]:.2f}; medians:")
    for name, mine in times.items():
        pairs = statistics.median(b / t for b, t in zip(times[base], mine, strict=True))
        print(
            f"  {name:9s} {statistics.median(mine):.3f} s (best {min(mine):.3f} s); "
            f"{base}/this, median of pairs: {pairs:.2f}, of bests: {min(times[base]) / min(mine):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=500)
    parser.add_argument("--start", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5, help="alternating runs per contender (median)")
    parser.add_argument("--in-flight", type=int, default=8)
    parser.add_argument("--convert-processes", type=int, default=0)
    parser.add_argument(
        "--latency-ms", type=float, default=0.0, help="the devnet's added latency per request"
    )
    parser.add_argument("--activity", choices=("quiet", "devnet", "busy"), default=None)
    parser.add_argument(
        "--against", default=None, help="also run hmyframe from this checkout (A/B), e.g. a worktree of main"
    )
    args = parser.parse_args()
    span = {"start": args.start, "end": args.start + args.blocks - 1, "in_flight": args.in_flight}
    devnet = ["--shards", "1", "--blocks", str(args.start + args.blocks)]
    if args.activity:
        devnet += ["--activity", args.activity]
    if args.latency_ms:
        devnet += ["--latency-ms", str(args.latency_ms)]
    names = ["hmyframe", "wire"] + (["against"] if args.against else [])
    times: dict[str, list[float]] = {name: [] for name in names}
    with devnet_process(*devnet) as (urls, trace_urls):
        for i in range(args.runs + 1):  # the first round warms the devnet's caches
            got: dict[str, float] = {}
            for name in names:
                if name == "wire":
                    got[name] = run("wire", {**span, "url": trace_urls[0], "trace": True})
                    continue
                with tempfile.TemporaryDirectory(prefix="hmyframe-traces-") as out:
                    params = {
                        **span,
                        "url": urls[0],
                        "trace_url": trace_urls[0],
                        "datasets": "traces",
                        "out": out,
                    }
                    if args.convert_processes:
                        params["convert_processes"] = args.convert_processes
                    got[name] = run("hmyframe", params, args.against if name == "against" else None)
            record_round(i, got, times)
    summarize(f"{args.blocks} blocks", times, "wire")


if __name__ == "__main__":
    main()
