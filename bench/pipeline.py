"""The export pipeline against the wire limit: how close ``hmyframe export`` gets to a bare client.

For each latency, serves one shard with ``hmyframe devnet --latency-ms L`` in its own process and
runs, each in its own process and alternating from run to run (``bench/compare.py``'s runner):

* ``wire@8``: a bare aiohttp client making the export's ``hmyv2_getBlocks`` requests (100 blocks
  each, full transactions) with 8 in flight, only reading the bytes: the wire limit;
* ``hmyframe``: ``hmyframe export blocks,transactions`` (8 in flight, 100 blocks per request),
  conversion and Parquet writes in threads overlapping the fetch (the default);
* ``hmyframe procs=N``: the same with ``--convert-processes N`` (conversion on other cores).

Prints, per latency, the medians of in-process seconds (the work, after imports), blocks/s, peak
RSS of the exporting process, and the ratio to the wire limit (wire seconds / contender seconds:
1.0 is the wire limit, above 0.9 is the goal at 20 ms and above).

Usage::

    python bench/pipeline.py [--blocks 3000] [--latencies 0,20] [--runs 3] [--processes 2]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from _devnet import devnet_process
from compare import TXS_PARQUET, Contender, Env, run_alternating, run_once, summarize

import hmyframe


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=3000, help="slice length (default 3000)")
    parser.add_argument("--latencies", default="0,20", help="ms, comma-separated")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per contender (median)")
    parser.add_argument("--processes", type=int, default=2, help="conversion processes of the last contender")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args()
    own = Env(sys.executable, hmyframe.__version__)
    # the slice starts after the devnet's first blocks, as compare.py's does (blocks with transactions)
    start = 100
    span = {"start": start, "end": start + args.blocks - 1}
    print(f"{args.blocks} blocks, {args.runs} alternating runs, medians of in-process seconds")
    for latency in [float(x) for x in args.latencies.split(",")]:
        contenders = [
            Contender("wire@8", "wire", own, {**span, "in_flight": 8}),
            Contender("hmyframe", "hmyframe", own, {**span, "datasets": "blocks,transactions"}, TXS_PARQUET),
        ]
        if args.processes:
            contenders.append(
                Contender(
                    f"hmyframe procs={args.processes}",
                    "hmyframe",
                    own,
                    {**span, "datasets": "blocks,transactions", "convert_processes": args.processes},
                    TXS_PARQUET,
                )
            )
        devnet = ["--shards", "1", "--blocks", str(start + args.blocks), "--seed", str(args.seed)]
        devnet += ["--no-validator-rate-limit", "--latency-ms", str(latency)]
        print(f"\nlatency {latency:g} ms", flush=True)
        with devnet_process(*devnet) as (urls, _):
            # one untimed pass: the devnet makes its blocks on first request (as in compare.py)
            run_once(replace(contenders[0], runs=[]), urls[0], args.timeout)
            run_alternating(contenders, urls[0], args.runs, args.timeout)
        summaries = {c.label: summarize(c) for c in contenders}
        failed = [c for c in contenders if c.failure]
        for contender in failed:
            print(f"  {contender.label}: FAILED {contender.failure}")
        if failed:
            return 1
        wire = summaries["wire@8"]
        assert wire is not None
        print(
            f"  {'contender':20s} {'seconds':>8s} {'blocks/s':>9s} {'rows':>8s} {'RSS MB':>7s} {'x wire':>7s}"
        )
        for label, s in summaries.items():
            assert s is not None
            print(
                f"  {label:20s} {s.seconds:8.2f} {s.blocks_per_s:9.0f} {s.rows:8,} {s.rss_mb:7.0f} "
                f"{wire.seconds / s.seconds:7.2f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
