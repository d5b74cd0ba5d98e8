"""Generation speed of the devnet chain (one core, single thread).

Prints, for a fresh default chain:

* cold generation of every block of every shard (includes the skeleton and the staking
  engine: elections, staking transactions, signing matrices), blocks/s and tx/s;
* cold block generation alone (skeleton and epochs already computed);
* cached access (blocks still in the chain's LRU);
* hash lookups (transaction by hash, by eth hash, block by hash) per second;
* validator snapshots: ms per ``validators(block)`` for a new block;
* construction time of a 100,000-block chain (lazy: nothing is generated);
* a baseline measured in the same run: building the same number of bare ``Transaction``
  objects (each with a one-frame trace) from constants, and the ratio of cold generation
  to it, which says how the generator compares with the floor of object construction
  whatever the load on the machine.

Usage::

    python bench/devnet_generate.py [--blocks 2000] [--seed 0] [--repeat 3] [--token-density D]

The run is bounded: a few seconds per repeat with the defaults. Figures are the best of the
repeats (the least disturbed by other load on the machine).
"""

from __future__ import annotations

import argparse
import time

from hmyframe.devnet._gen_tokens import DEFAULT_TOKEN_DENSITY
from hmyframe.devnet.chain import Chain
from hmyframe.devnet.model import TraceFrame, Transaction


def _baseline(n_tx: int) -> float:
    """Seconds to build ``n_tx`` bare Transaction objects with a one-frame trace."""
    h = "0x" + "ab" * 32
    a = "0x" + "cd" * 20
    start = time.perf_counter()
    for i in range(n_tx):
        trace = TraceFrame("call", "call", a, a, i, 0, 0, "0x", "0x", None, None, ())
        Transaction(
            h, h, 0, 0, i, h, i, i, a, a, i, 21_000, 10**11, i, "0x", 37, i, i, 21_000, True, None, trace
        )
    return time.perf_counter() - start


def _cold(blocks: int, seed: int, density: float) -> tuple[float, int]:
    chain = Chain(seed=seed, blocks=blocks, token_density=density)
    start = time.perf_counter()
    n_tx = 0
    for shard in range(chain.n_shards):
        for number in range(blocks):
            n_tx += len(chain.block(shard, number).transactions)
    return time.perf_counter() - start, n_tx


def _blocks_only(blocks: int, seed: int, density: float) -> tuple[float, int]:
    chain = Chain(seed=seed, blocks=blocks, token_density=density)
    chain.validators(blocks - 1)  # computes every epoch (and so the skeleton) up to the head
    for shard in range(chain.n_shards):
        chain.transaction_counts(shard, 0, blocks - 1)
    start = time.perf_counter()
    n_tx = 0
    for shard in range(chain.n_shards):
        for number in range(blocks):
            n_tx += len(chain.block(shard, number).transactions)
    return time.perf_counter() - start, n_tx


def _cached(blocks: int, seed: int, density: float) -> tuple[float, int, float, int, float]:
    chain = Chain(seed=seed, blocks=blocks, token_density=density)
    recent = range(max(0, blocks - 500), blocks)
    for shard in range(chain.n_shards):
        for number in recent:
            chain.block(shard, number)
    rounds = 10
    start = time.perf_counter()
    n_tx = 0
    for _ in range(rounds):
        for shard in range(chain.n_shards):
            for number in recent:
                n_tx += len(chain.block(shard, number).transactions)
    cached_time = time.perf_counter() - start
    n_blocks = rounds * chain.n_shards * len(recent)
    txs = [tx for shard in range(chain.n_shards) for n in recent for tx in chain.block(shard, n).transactions]
    hashes = [b for shard in range(chain.n_shards) for b in (chain.block(shard, n).hash for n in recent)]
    start = time.perf_counter()
    for tx in txs:
        chain.find_transaction(tx.hash)
        chain.find_transaction_by_eth_hash(tx.eth_hash)
    for h in hashes:
        chain.block_by_hash(h)
    lookup_time = time.perf_counter() - start
    return cached_time, n_blocks, n_tx / rounds, 2 * len(txs) + len(hashes), lookup_time


def _snapshots(blocks: int, seed: int, density: float) -> float:
    chain = Chain(seed=seed, blocks=blocks, token_density=density)
    chain.validators(blocks - 1)
    step = max(1, min(17, (blocks - blocks // 3 - 1) // 10))  # 17 apart; closer on a short chain
    picks = [blocks // 3 + step * i for i in range(10)]
    start = time.perf_counter()
    for b in picks:
        chain.validators(b)
    return (time.perf_counter() - start) / len(picks)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=2000, help="blocks per shard (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--token-density",
        type=float,
        default=DEFAULT_TOKEN_DENSITY,
        help=f"token transactions per non-empty block (default {DEFAULT_TOKEN_DENSITY}; 0: the chain without tokens)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="repeats; the best is printed (default 3)")
    args = parser.parse_args()
    shards = Chain(blocks=1).n_shards

    cold = min(_cold(args.blocks, args.seed, args.token_density) for _ in range(args.repeat))
    only = min(_blocks_only(args.blocks, args.seed, args.token_density) for _ in range(args.repeat))
    cached = min(
        (_cached(args.blocks, args.seed, args.token_density) for _ in range(args.repeat)), key=lambda r: r[0]
    )
    snap = min(_snapshots(args.blocks, args.seed, args.token_density) for _ in range(args.repeat))
    start = time.perf_counter()
    big = Chain(seed=args.seed, blocks=100_000, token_density=args.token_density)
    construct = time.perf_counter() - start
    base = min(_baseline(cold[1]) for _ in range(args.repeat))

    n_blocks = shards * args.blocks
    print(
        f"devnet chain generation, default mix, {shards} shards x {args.blocks} blocks, "
        f"token density {args.token_density}, best of {args.repeat}"
    )
    print(
        f"  cold (skeleton + staking engine + blocks): {n_blocks / cold[0]:9,.0f} blocks/s {cold[1] / cold[0]:10,.0f} tx/s"
    )
    print(
        f"  cold (blocks only, epochs precomputed):    {n_blocks / only[0]:9,.0f} blocks/s {only[1] / only[0]:10,.0f} tx/s"
    )
    cached_time, cached_blocks, tx_per_round, n_lookups, lookup_time = cached
    print(
        f"  cached (LRU hits):                         {cached_blocks / cached_time:9,.0f} blocks/s "
        f"{tx_per_round * 10 / cached_time:10,.0f} tx/s"
    )
    print(f"  hash lookups (tx, eth hash, block):        {n_lookups / lookup_time:9,.0f} lookups/s")
    print(f"  validators(block), new block:              {snap * 1000:9.1f} ms per call (300 validators)")
    print(f"  Chain(blocks=100_000) construction:        {construct * 1000:9.1f} ms (head {big.head(0):,})")
    print(f"  mean transactions per block:               {cold[1] / n_blocks:9.2f}")
    print(f"  baseline, bare Transaction construction:   {cold[1] / base:9,.0f} tx/s")
    print(f"  ratio cold generation / baseline:          {cold[0] / base:9.1f} x")


if __name__ == "__main__":
    main()
