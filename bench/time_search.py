"""How many requests a time-to-block resolution takes, on chains with irregular block times.

``start="2026-01-01"`` is resolved by searching block timestamps (``hmyframe.engine._blocks``):
the two ends of the chain, then rounds of batched probes. Each round is one HTTP request (the
client batches the probes); this counts rounds and probed headers for random times on simulated
chains (blocks of 2 s, with a share of slow blocks of 3 s to 10 minutes), against a plain binary
search of one header per request as the baseline.

The chain here is an in-memory table of timestamps behind a stand-in for the session (no HTTP):
the numbers are request counts, not timings.

Usage::

    python bench/time_search.py [--blocks 10000000] [--times 200]
"""

from __future__ import annotations

import argparse
import array
import asyncio
import bisect
import random
import statistics
from typing import Any

from hmyframe.engine import _blocks


class _Methods:
    version = 2

    def __init__(self, stamps: array.array[int], counter: dict[str, int]) -> None:
        self.stamps = stamps
        self.counter = counter

    def method(self, name: str) -> str:
        return "hmyv2_" + name

    async def get_block_by_number(self, n: int, **_: Any) -> dict[str, int]:
        self.counter["headers"] += 1
        return {"timestamp": self.stamps[n]}


class _Client:
    def __init__(self, methods: _Methods) -> None:
        self.v2 = methods


class _Session:
    """What the search uses of a session: the head and ``methods.get_block_by_number``."""

    def __init__(self, stamps: array.array[int], counter: dict[str, int]) -> None:
        self.client = _Client(_Methods(stamps, counter))
        self.methods = self.client.v2
        self.stamps = stamps

    async def head(self, shard: int) -> int:
        return len(self.stamps) - 1


def chain(blocks: int, slow: float, seed: int) -> array.array[int]:
    rng = random.Random(seed)
    stamps = array.array("q", bytes(8 * blocks))
    t = 1_767_225_600
    for i in range(blocks):
        stamps[i] = t
        t += 2 if rng.random() > slow else rng.choice((3, 4, 6, 8, 30, 600))
    return stamps


async def resolve(stamps: array.array[int], when: int, chain_id: str) -> tuple[int, int, int]:
    counter = {"headers": 0}
    finder = _blocks._Finder(_Session(stamps, counter), 0, chain_id)  # type: ignore[arg-type]
    rounds = 0
    fetch = finder.timestamps

    async def counted(numbers: list[int]) -> list[int]:
        nonlocal rounds
        if any(n not in finder.known for n in numbers):
            rounds += 1
        return await fetch(numbers)

    finder.timestamps = counted  # type: ignore[method-assign]
    block = await finder.first_at(when)
    return block, rounds, counter["headers"]


async def main(args: argparse.Namespace) -> None:
    print(f"{args.times} random times per chain; rounds = HTTP requests (probes batched)")
    print(
        f"{'blocks':>12} {'slow share':>10} {'rounds med/max':>15} {'headers med':>12} {'binary search':>14} {'ratio':>6}"
    )
    rng = random.Random(1)
    for slow in (0.0, 0.01, 0.05, 0.3):
        stamps = chain(args.blocks, slow, 7)
        rounds: list[int] = []
        headers: list[int] = []
        for i in range(args.times):
            when = stamps[rng.randrange(1, args.blocks)] - rng.randrange(0, 2)
            # a fresh chain id each time: nothing remembered from the previous resolution
            block, r, h = await resolve(stamps, when, f"{slow}-{i}")
            assert block == bisect.bisect_left(stamps, when)
            rounds.append(r)
            headers.append(h)
        binary = (args.blocks - 1).bit_length() + 2  # one header per request, plus the two ends
        med = statistics.median(rounds)
        print(
            f"{args.blocks:>12,} {slow:>10.2f} {med:>9.0f}/{max(rounds):<5} {statistics.median(headers):>12.0f}"
            f" {binary:>14} {binary / med:>5.1f}x"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10_000_000)
    parser.add_argument("--times", type=int, default=200)
    asyncio.run(main(parser.parse_args()))
