"""A full validator snapshot: ``hmyframe export validators`` against pyhmy's paging, alternating.

The devnet serves one shard with ``--validators`` validators and its validator limiter off, in its
own process; each contender runs in its own process (``bench/_contenders.py``): ``hmyframe``
exports the ``validators`` dataset into a fresh folder; ``pyhmy`` pages
``getAllValidatorInformation`` until an empty page (pyhmy's environment, see ``bench/compare.py``).
Prints each run, the medians of the in-process seconds and the ratio pyhmy / hmyframe (at least
``1.5``: goal 4 of issue 17), with the machine's load.

    python bench/validators.py [--validators 800] [--runs 5] [--latency-ms 100] [--peers-dir build/peers]
    python bench/validators.py --against /path/to/a/checkout/of/main     # A/B: this tree and main
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _devnet import devnet_process
from traces import record_round, run, summarize

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validators", type=int, default=800)
    parser.add_argument("--runs", type=int, default=5, help="alternating runs per contender (median)")
    parser.add_argument("--peers-dir", type=Path, default=ROOT / "build" / "peers")
    parser.add_argument(
        "--latency-ms",
        type=float,
        default=0.0,
        help="the devnet's added latency per HTTP request (default 0)",
    )
    parser.add_argument(
        "--against", default=None, help="also run hmyframe from this checkout (A/B), e.g. a worktree of main"
    )
    args = parser.parse_args()
    pyhmy = args.peers_dir / "pyhmy" / "bin" / "python"
    names = ["hmyframe"] + (["against"] if args.against else []) + (["pyhmy"] if pyhmy.exists() else [])
    times: dict[str, list[float]] = {name: [] for name in names}
    devnet = ["--shards", "1", "--blocks", "200", "--validators", str(args.validators)]
    devnet += ["--latency-ms", str(args.latency_ms)]
    with devnet_process(*devnet, "--no-validator-rate-limit") as (urls, _):
        for i in range(args.runs + 1):  # the first round warms the devnet's caches
            got: dict[str, float] = {}
            for name in names:
                if name == "pyhmy":
                    got[name] = run("pyhmy_validators", {"url": urls[0]}, python=str(pyhmy))
                    continue
                with tempfile.TemporaryDirectory(prefix="hmyframe-validators-") as out:
                    params = {"url": urls[0], "datasets": "validators", "out": out}
                    got[name] = run("hmyframe", params, args.against if name == "against" else None)
            record_round(i, got, times)
    summarize(
        f"{args.validators} validators, {args.latency_ms:g} ms latency",
        times,
        "pyhmy" if "pyhmy" in times else "hmyframe",
    )


if __name__ == "__main__":
    main()
