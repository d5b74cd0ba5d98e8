"""What headers-only blocks save: bytes and time of fetching ``blocks`` alone, against full blocks.

Fetching the ``blocks`` dataset alone asks ``getBlocks`` for headers (``fullTx=false``: the
transactions come as hashes, which still count); before, blocks always came with their full
transactions and the three tables of full blocks (``blocks``, ``transactions``,
``staking_transactions``) were built. Both are run here on the same devnet (its own process,
cache off, every block fetched and converted), alternating, and the medians are compared:

* time: ``fetch_range(["blocks"])`` against ``fetch_range(["blocks", "transactions",
  "staking_transactions"])`` (the same requests and conversion as a blocks fetch made before);
* bytes: the JSON results of the same ``getBlocks`` calls with ``fullTx`` false and true.

The devnet's blocks carry 0-100 transactions (about 50 on average); the saving grows with the
number of transactions per block. The bytes per block are also projected to a month of one shard
(1.3 million 2-second blocks).

Usage::

    python bench/headers_only.py [--blocks 4000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from _devnet import one_shard_devnet

from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range

FULL_FAMILY = ["blocks", "transactions", "staking_transactions"]
MONTH = 1_300_000


async def timed(url: str, blocks: int, names: list[str]) -> float:
    async with Session(url, cache=False, options=FetchOptions()) as session:
        began = time.perf_counter()
        await fetch_range(session, names, 0, blocks - 1, 0)
        return time.perf_counter() - began


async def result_bytes(url: str, blocks: int, full_tx: bool) -> int:
    async with Session(url, cache=False) as session:
        step = session.options.blocks_per_request
        payloads = await asyncio.gather(
            *(
                session.methods.get_blocks_raw(
                    a, min(blocks - 1, a + step - 1), full_tx=full_tx, incl_staking=True, shard=0
                )
                for a in range(0, blocks, step)
            )
        )
        return sum(len(p) for p in payloads)


async def main(args: argparse.Namespace) -> None:
    with one_shard_devnet(args.blocks) as url:
        await timed(url, args.blocks, FULL_FAMILY)  # warm the server's rendered-bytes caches
        await timed(url, args.blocks, ["blocks"])
        headers_bytes = await result_bytes(url, args.blocks, full_tx=False)
        full_bytes = await result_bytes(url, args.blocks, full_tx=True)
        headers_s: list[float] = []
        full_s: list[float] = []
        for _ in range(args.repeat):  # alternate, so drift of the machine hits both alike
            full_s.append(await timed(url, args.blocks, FULL_FAMILY))
            headers_s.append(await timed(url, args.blocks, ["blocks"]))
    h, f = statistics.median(headers_s), statistics.median(full_s)
    print(f"{args.blocks} blocks of one devnet shard; median of {args.repeat} alternating runs, cache off")
    print(f"{'':<30} {'full blocks':>14} {'headers only':>14} {'ratio':>7}")
    print(
        f"{'bytes of getBlocks results':<30} {full_bytes:>14,} {headers_bytes:>14,} {full_bytes / headers_bytes:>6.1f}x"
    )
    print(f"{'bytes per block':<30} {full_bytes / args.blocks:>14,.0f} {headers_bytes / args.blocks:>14,.0f}")
    print(
        f"{'a month of one shard (1.3M)':<30} {full_bytes / args.blocks * MONTH / 1e9:>12.2f} GB"
        f" {headers_bytes / args.blocks * MONTH / 1e9:>11.2f} GB"
    )
    print(f"{'seconds to fetch the blocks':<30} {f:>14.2f} {h:>14.2f} {f / h:>6.1f}x")
    print(f"{'blocks per second':<30} {args.blocks / f:>14,.0f} {args.blocks / h:>14,.0f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=5)
    asyncio.run(main(parser.parse_args()))
