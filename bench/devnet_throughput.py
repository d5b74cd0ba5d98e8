"""How many full blocks per second the devnet serves.

Runs ``hmyframe devnet`` in a separate process (1 shard, validator limiter off), then with a
plain aiohttp client fetches every block as ``hmyv2_`` full blocks (``fullTx`` +
``inclStaking``):

* via ``hmyv2_getBlocks`` in ranges of ``--range`` blocks, and
* via JSON-RPC batches of ``--batch`` ``hmyv2_getBlockByNumber`` calls,

each over its own half of the chain, first **cold** (blocks generated and rendered on
demand) then **warm** (served from the rendered-bytes cache; the median of ``--repeat``
passes), with ``--concurrency`` requests in flight, with and without gzip. Prints blocks/s and MB/s per case. The client
only reads the bytes (and checks each answer is a result, not an error), so the figures are
the server's.

Usage::

    python bench/devnet_throughput.py [--blocks 4000] [--range 500] [--batch 100]
                                      [--concurrency 4] [--repeat 3] [--seconds-limit 120]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable

import aiohttp
from _devnet import one_shard_devnet

ARGS = {"fullTx": True, "inclStaking": True}


def get_blocks_bodies(start: int, stop: int, size: int) -> list[tuple[bytes, int]]:
    out = []
    for first in range(start, stop, size):
        last = min(stop, first + size) - 1
        body = {"jsonrpc": "2.0", "id": first, "method": "hmyv2_getBlocks", "params": [first, last, ARGS]}
        out.append((json.dumps(body).encode(), last - first + 1))
    return out


def batch_bodies(start: int, stop: int, size: int) -> list[tuple[bytes, int]]:
    out = []
    for first in range(start, stop, size):
        numbers = range(first, min(stop, first + size))
        batch = [
            {"jsonrpc": "2.0", "id": n, "method": "hmyv2_getBlockByNumber", "params": [n, ARGS]}
            for n in numbers
        ]
        out.append((json.dumps(batch).encode(), len(numbers)))
    return out


async def run_case(
    session: aiohttp.ClientSession, url: str, bodies: list[tuple[bytes, int]], concurrency: int, gzip: bool
) -> tuple[float, int, int]:
    """Send every body with ``concurrency`` in flight; return (seconds, blocks, bytes)."""
    queue = list(reversed(bodies))
    headers = {"Content-Type": "application/json", "Accept-Encoding": "gzip" if gzip else "identity"}
    total_blocks = 0
    total_bytes = 0

    async def worker() -> None:
        nonlocal total_blocks, total_bytes
        while queue:
            body, n_blocks = queue.pop()
            async with session.post(url, data=body, headers=headers) as resp:
                data = await resp.read()
            if resp.status != 200 or b'"error"' in data[:200]:
                raise SystemExit(f"bad answer: {resp.status} {data[:200]!r}")
            total_blocks += n_blocks
            total_bytes += len(data)

    began = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - began, total_blocks, total_bytes


async def bench(
    url: str, blocks: int, range_size: int, batch_size: int, concurrency: int, repeat: int
) -> None:
    half = blocks // 2
    cases: list[tuple[str, Callable[[], list[tuple[bytes, int]]]]] = [
        (f"getBlocks x{range_size}", lambda: get_blocks_bodies(0, half, range_size)),
        (f"batch of {batch_size} getBlockByNumber", lambda: batch_bodies(half, blocks, batch_size)),
    ]
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector, auto_decompress=True) as session:
        print(f"{'case':38} {'pass':6} {'gzip':5} {'blocks':>7} {'seconds':>8} {'blocks/s':>9} {'MB/s':>7}")
        for name, make in cases:
            bodies = make()
            for label, gzip in (("cold", False), ("warm", False), ("warm", True)):
                runs = [
                    await run_case(session, url, bodies, concurrency, gzip)
                    for _ in range(1 if label == "cold" else repeat)
                ]
                seconds, n, size = sorted(runs)[len(runs) // 2]
                print(
                    f"{name:38} {label:6} {'yes' if gzip else 'no':5} {n:7d} {seconds:8.2f} "
                    f"{n / seconds:9.0f} {size / seconds / 1e6:7.1f}"
                )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=4000)
    parser.add_argument("--range", type=int, default=500, help="blocks per getBlocks call (<= 1025)")
    parser.add_argument("--batch", type=int, default=100, help="calls per batch")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="warm passes (the median is printed)")
    parser.add_argument("--seconds-limit", type=float, default=120.0, help="give up after this long")
    args = parser.parse_args()
    with one_shard_devnet(args.blocks, args.seed) as url:
        print(f"devnet at {url}: {args.blocks} blocks, 1 shard, concurrency {args.concurrency}")
        asyncio.run(
            asyncio.wait_for(
                bench(url, args.blocks, args.range, args.batch, args.concurrency, args.repeat),
                args.seconds_limit,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
