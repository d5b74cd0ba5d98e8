"""End-to-end lag of ``export --follow``: from a block being mined to its file being listed.

A devnet (in this process, on its own thread) mines one block on every shard about every
``--block-time`` seconds (0.75 to 1.25 times it, seeded: a poll interval cannot lock onto the
blocks' phase) from a thread that records when each block appeared; ``hmyframe.export(...,
follow=True)`` follows every shard into a fresh folder, once per head source (WebSocket
``newHeads``, then polling at each ``--polls`` interval), while a watcher thread lists the
folder every ``--watch`` seconds and records when each block's file first showed. The lag of a
block is the difference; each source is summarised by its median, 90th percentile and max over
every block of every shard (after a short unmeasured follow through each source: the imports
and first connections are no one's lag).

Usage::

    python bench/follow_lag.py [--seconds 20] [--block-time 0.5] [--shards 2] [--polls 0.2,1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

import hmyframe
from hmyframe.cache import parse_name, tail_end
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions
from hmyframe.storage import LOCAL


def _listed(root: Path, shards: int, seen: dict[tuple[int, int], float]) -> None:
    now = time.time()
    for shard in range(shards):
        for folder in root.glob(f"*/blocks/shard{shard}"):
            for path in folder.iterdir():
                name = parse_name(path.name)
                if name is None or name.kind == "snapshot":
                    continue
                try:
                    end = name.end if name.end is not None else tail_end(LOCAL, path)
                except FileNotFoundError:
                    continue  # a tail renamed to its chunk file since the listing: seen next time
                for n in range(name.start, end + 1):
                    seen.setdefault((shard, n), now)


def run(net: Devnet, heads: str, poll: float, args: argparse.Namespace) -> list[float]:
    """Follow for ``args.seconds`` of blocks with one head source; the lag of every block."""
    mined: dict[int, float] = {}
    seen: dict[tuple[int, int], float] = {}
    stop = threading.Event()

    jitter = random.Random(7)  # blocks 0.75..1.25 block times apart: polls do not lock onto them

    def mine() -> None:
        while not stop.wait(args.block_time * jitter.uniform(0.75, 1.25)):
            net.mine(1)
            mined[net.chain.head(0)] = time.time()

    with tempfile.TemporaryDirectory(prefix="hmyframe-follow-lag-") as tmp:
        root = Path(tmp)

        def watch() -> None:
            while not stop.wait(args.watch):
                _listed(root, args.shards, seen)

        threads = [threading.Thread(target=mine, daemon=True), threading.Thread(target=watch, daemon=True)]
        head = net.chain.head(0)
        end = head + max(2, int(args.seconds / args.block_time))
        for thread in threads:
            thread.start()
        try:
            hmyframe.export(
                ["blocks", "transactions"],
                head + 1,
                end,
                list(range(args.shards)),
                rpc=net,
                out=root,
                options=FetchOptions(chunk_size=args.chunk_size),
                follow=True,
                poll=poll,
                heads=heads,
            )
            time.sleep(2 * args.watch)
        finally:
            stop.set()
            for thread in threads:
                thread.join()
    # blocks mined while following (not those already there when it started)
    return [
        seen[(s, n)] - mined[n] for n in range(head + 1, end + 1) if n in mined for s in range(args.shards)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="seconds of blocks followed per source")
    parser.add_argument("--block-time", type=float, default=0.5, help="seconds between blocks")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--polls", default="0.2,1", help="poll intervals to measure, comma-separated")
    parser.add_argument("--watch", type=float, default=0.01, help="seconds between two listings")
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=FetchOptions().chunk_size,
        help="blocks per chunk (its tail is rewritten by every batch; default: the library's)",
    )
    args = parser.parse_args()
    sources = [("ws", 1.0, "WebSocket newHeads")]
    sources += [("poll", float(p), f"polling every {float(p):g} s") for p in args.polls.split(",") if p]
    print(
        f"follow lag, block mined -> file listed: {args.shards} shards, a block every {args.block_time:g} s, "
        f"~{args.seconds:g} s per source, chunks of {args.chunk_size}"
    )
    print(f"{'heads':<24} {'blocks':>7} {'median':>8} {'p90':>8} {'max':>8}")
    with Devnet(shards=args.shards, blocks=100, seed=3, validator_rate_limit=False) as net:
        warm = argparse.Namespace(**{**vars(args), "seconds": 2 * args.block_time})
        for heads in ("ws", "poll"):  # imports, first connections: not part of any figure
            run(net, heads, 0.2, warm)
        for heads, poll, label in sources:
            lags = sorted(run(net, heads, poll, args))
            p90 = lags[int(0.9 * (len(lags) - 1))]
            print(
                f"{label:<24} {len(lags):>7} {statistics.median(lags):>7.3f}s {p90:>7.3f}s {max(lags):>7.3f}s",
                flush=True,
            )


if __name__ == "__main__":
    main()
