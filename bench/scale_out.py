"""Wall time of one export in one local process, on a 2-worker Dask LocalCluster, and with 2 endpoints.

Two devnets of the same chain run in their own processes (one shard of ``--blocks`` blocks
each, the same seed: two endpoints of one chain). Each configuration exports blocks and
transactions of blocks ``0..N-1`` into a fresh folder:

* ``local``            ``hmyframe.export(...)`` in this process, endpoint A;
* ``local, 2 endpoints``  the same with ``rpc=[A, B]``;
* ``dask``             the chunks as Dask tasks on a LocalCluster of 2 worker processes (1 thread
                       each), endpoint A;
* ``dask, 2 endpoints``  the same with ``rpc=[A, B]``.

The cluster is started once and warmed (a small export per configuration) before timing; the
configurations then run in turn, ``--repeats`` rounds, and the medians are printed with their
ratio to ``local`` of the same run. Every run must write the same number of rows.

``--endpoint-limit N`` gives each devnet the node's global limit of N calls per second (a
``getBlocks`` of 100 blocks counts 100), as public endpoints have, and every configuration
fetches with ``requests_per_second = N / 100`` per endpoint (its workers together).

Usage::

    python bench/scale_out.py [--blocks 20000] [--repeats 3] [--chunk-size 1000] [--endpoint-limit N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from _devnet import devnet_process

import hmyframe
from hmyframe.engine import FetchOptions

DATASETS = ["blocks", "transactions"]


def run_once(rpc: object, blocks: int, options: FetchOptions, client: Any) -> tuple[float, int]:
    """Export blocks ``0..blocks-1`` into a fresh folder; return (seconds, rows)."""
    with tempfile.TemporaryDirectory(prefix="hmyframe-scale-") as out:
        began = time.perf_counter()
        summary = hmyframe.export(DATASETS, 0, blocks - 1, rpc=rpc, out=out, options=options, client=client)
        seconds = time.perf_counter() - began
    return seconds, sum(d.rows for d in summary.datasets.values())


def main(args: argparse.Namespace) -> None:
    from distributed import Client, LocalCluster

    per_request = FetchOptions.blocks_per_request
    rps = args.endpoint_limit / per_request if args.endpoint_limit else None
    options = FetchOptions(chunk_size=args.chunk_size, requests_per_second=rps)
    devnet = [
        "--shards",
        "1",
        "--blocks",
        str(args.blocks),
        "--seed",
        str(args.seed),
        "--no-validator-rate-limit",
    ]
    if args.endpoint_limit:
        devnet += ["--rpc-rate-limit", str(args.endpoint_limit)]
    with ExitStack() as stack:
        first = stack.enter_context(devnet_process(*devnet))[0][0]
        second = stack.enter_context(devnet_process(*devnet))[0][0]
        cluster = stack.enter_context(
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
            )
        )
        client = stack.enter_context(Client(cluster))
        configs: dict[str, Callable[[int], tuple[float, int]]] = {
            "local": lambda n: run_once(first, n, options, None),
            "local, 2 endpoints": lambda n: run_once([first, second], n, options, None),
            "dask (2 workers)": lambda n: run_once(first, n, options, client),
            "dask (2 workers), 2 endpoints": lambda n: run_once([first, second], n, options, client),
        }
        for run in configs.values():  # warm-up: worker imports, connections, code paths
            run(min(args.blocks, 2 * args.chunk_size))
        times: dict[str, list[float]] = {name: [] for name in configs}
        rows: set[int] = set()
        for round_ in range(args.repeats):
            for name, run in configs.items():
                seconds, count = run(args.blocks)
                times[name].append(seconds)
                rows.add(count)
                print(f"round {round_ + 1}: {name:<30} {seconds:6.2f} s", flush=True)
        if len(rows) != 1:
            raise SystemExit(f"the configurations wrote different numbers of rows: {sorted(rows)}")
    base = statistics.median(times["local"])
    limit = f", endpoints limited to {args.endpoint_limit:g} calls/s each" if args.endpoint_limit else ""
    print(
        f"\nexport of {args.blocks:,} blocks ({', '.join(DATASETS)}; {rows.pop():,} rows){limit}, "
        f"medians of {args.repeats} alternating runs, {os.cpu_count()} CPUs:"
    )
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:<30} {median:6.2f} s  {args.blocks / median:7,.0f} blocks/s  "
            f"x{base / median:4.2f} vs local"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--endpoint-limit", type=float, default=0, metavar="CALLS_PER_S")
    main(parser.parse_args())
