"""Balances of many addresses at one block: ``hmyframe.balances`` (batched) against pyhmy's one
``get_balance_by_block`` call per address, at 0 and 100 ms of added latency per HTTP request.

The devnet (2 shards, in this process's background thread, ``latency_ms`` per request) serves
both; each contender reads the same ``--addresses`` balances of shard 0 at one block, in
alternating runs; pyhmy runs in its own environment (``bench/compare.py --prepare-only
--only-peers pyhmy``) and times its own loop. Prints each run, the medians and the ratio
pyhmy / hmyframe (goal: at least 10x at 100 ms, issue 26).

    python bench/balances.py [--addresses 10000] [--runs 3] [--latency 0 100] [--peers-dir build/peers]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from pathlib import Path

import hmyframe
from hmyframe.devnet import Devnet

ROOT = Path(__file__).resolve().parent.parent

PYHMY = """
import json, sys, time
from pyhmy import account
p = json.load(sys.stdin)
t = time.perf_counter()
values = [account.get_balance_by_block(a, p["block"], endpoint=p["url"]) for a in p["addresses"]]
print(json.dumps({"seconds": time.perf_counter() - t, "total": str(sum(values)), "n": len(values)}))
"""


def _pyhmy(python: Path, url: str, addresses: list[str], block: int) -> tuple[float, int]:
    done = subprocess.run(
        [str(python), "-c", PYHMY],
        input=json.dumps({"url": url, "addresses": addresses, "block": block}),
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout)
    return out["seconds"], int(out["total"])


def _hmyframe(net: Devnet, addresses: list[str], block: int) -> tuple[float, int]:
    t = time.perf_counter()
    df = hmyframe.balances(addresses, blocks=block, rpc=net, cache=False)
    return time.perf_counter() - t, sum(int(v) for v in df["balance"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--addresses", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per contender (median)")
    parser.add_argument("--latency", type=float, nargs="+", default=[0.0, 100.0], help="ms per HTTP request")
    parser.add_argument("--peers-dir", type=Path, default=ROOT / "build" / "peers")
    args = parser.parse_args()
    python = args.peers_dir / "pyhmy" / "bin" / "python"
    for latency in args.latency:
        with Devnet(blocks=2000, seed=0, latency_ms=latency, validator_rate_limit=False) as net:
            block = 1999
            addresses = net.chain.accounts(0, block)[: args.addresses]
            if len(addresses) < args.addresses:  # pad with addresses that never moved (genesis 0)
                addresses += [f"0x{i:040x}" for i in range(1, args.addresses - len(addresses) + 1)]
            times: dict[str, list[float]] = {"hmyframe": [], "pyhmy": []}
            totals: set[int] = set()
            for run in range(args.runs):
                seconds, total = _hmyframe(net, addresses, block)
                times["hmyframe"].append(seconds)
                totals.add(total)
                if python.exists():
                    seconds, total = _pyhmy(python, net.urls[0], addresses, block)
                    times["pyhmy"].append(seconds)
                    totals.add(total)
                print(
                    f"latency {latency:g} ms run {run}: "
                    + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items() if v)
                )
            assert len(totals) == 1, "the contenders read different balances"
            med = {k: statistics.median(v) for k, v in times.items() if v}
            line = f"{len(addresses)} balances at {latency:g} ms: " + ", ".join(
                f"{k} {v:.2f} s" for k, v in med.items()
            )
            if "pyhmy" in med:
                line += f"; pyhmy / hmyframe = {med['pyhmy'] / med['hmyframe']:.1f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
