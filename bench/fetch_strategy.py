"""Range calls or batched single-block calls? Measured, not guessed.

Fetches the same block range of a devnet running in its own process with hmyframe's range
engine (cache off, so every block is fetched and converted), once per configuration:

* ``strategy="range"``: ``hmyv2_getBlocks`` calls of ``blocks_per_request`` blocks;
* ``strategy="batch"``: JSON-RPC batches of ``blocks_per_request`` ``hmyv2_getBlockByNumber`` calls;

for a few request sizes and in-flight bounds, and for both RPC generations. The server is warmed
up first (every block rendered once) so each configuration sees the same server. Prints blocks/s,
transaction rows/s and the ratio to the first configuration (range, 100 blocks, 8 in flight).

Usage::

    python bench/fetch_strategy.py [--blocks 6000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _devnet import one_shard_devnet

from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range


async def one_run(url: str, blocks: int, options: FetchOptions) -> tuple[float, int]:
    async with Session(url, cache=False, options=options) as session:
        began = time.perf_counter()
        tables = await fetch_range(session, ["transactions"], 0, blocks - 1, 0)
        return time.perf_counter() - began, tables["transactions"].num_rows


async def main(args: argparse.Namespace) -> None:
    configs = [
        ("range", 100, 8, 2),
        ("batch", 100, 8, 2),
        ("range", 50, 8, 2),
        ("range", 200, 8, 2),
        ("range", 500, 4, 2),
        ("batch", 50, 8, 2),
        ("batch", 200, 4, 2),
        ("range", 100, 8, 1),
        ("batch", 100, 8, 1),
    ]
    with one_shard_devnet(args.blocks) as url:
        for version in (1, 2):  # warm the server's rendered-bytes caches for both generations
            await one_run(url, args.blocks, FetchOptions(chunk_size=1000, version=version))
        baseline = None
        print(f"{args.blocks} blocks, devnet in its own process; median of {args.repeat} runs")
        print(
            f"{'strategy':<8} {'per req':>7} {'in flight':>9} {'api':>4} {'blocks/s':>10} {'tx rows/s':>10} {'ratio':>6}"
        )
        for strategy, per_request, in_flight, version in configs:
            options = FetchOptions(
                strategy=strategy,  # type: ignore[arg-type]
                blocks_per_request=per_request,
                max_in_flight=in_flight,
                batch_size=per_request,
                version=version,  # type: ignore[arg-type]
                chunk_size=1000,
            )
            runs = [await one_run(url, args.blocks, options) for _ in range(args.repeat)]
            seconds = statistics.median(r[0] for r in runs)
            rows = runs[0][1]
            rate = args.blocks / seconds
            baseline = baseline or rate
            print(
                f"{strategy:<8} {per_request:>7} {in_flight:>9} {'v' + str(version):>4} "
                f"{rate:>10,.0f} {rows / seconds:>10,.0f} {rate / baseline:>6.2f}"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=6000)
    parser.add_argument("--repeat", type=int, default=2)
    asyncio.run(main(parser.parse_args()))
