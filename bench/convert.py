"""Conversion speed: raw response bytes -> Arrow table, for transactions, traces and validators.

Builds realistic synthetic v2 answers in memory (no network), then times
``Dataset.convert`` against two baselines measured in the same run: ``json.loads`` of the same
bytes (what a dict-walking converter pays before doing any work) and ``msgspec`` untyped
decoding. Prints rows per second (best of ``--repeat`` runs on one core) and, with
``--profile``, where the time goes.

    python bench/convert.py                      # 200 blocks x 50 txs, values up to 2**80
    python bench/convert.py --blocks 400 --profile
    python bench/convert.py --unique-addresses    # every address distinct (worst case)
    python bench/convert.py --against ../base     # this checkout vs another one, same run

``--against DIR`` compares this checkout's ``hmyframe`` with the one in ``DIR`` (for instance
``git worktree add ../base <commit>``): the same payloads are converted by two worker
processes, one importing each package, taking turns (which side goes first alternates every
round); it prints the median rows/s of each side per dataset and their ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pickle
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import msgspec

from hmyframe.addresses import to_one
from hmyframe.datasets import DATASETS, ConvertContext, decode_blocks, traces_context


def _hex(rnd: random.Random, n: int) -> str:
    return "0x" + rnd.randbytes(n).hex()


class Synth:
    """Deterministic synthetic v2 node answers."""

    def __init__(self, seed: int, accounts: int, unique: bool) -> None:
        self.rnd = random.Random(seed)
        self.unique = unique
        self.pool = [to_one(_hex(self.rnd, 20)) for _ in range(accounts)]

    def account(self) -> str:
        return to_one(_hex(self.rnd, 20)) if self.unique else self.rnd.choice(self.pool)

    def tx(self, number: int, block_hash: str, index: int, ts: int) -> dict[str, Any]:
        rnd = self.rnd
        creation = rnd.random() < 0.02
        return {
            "blockHash": block_hash,
            "blockNumber": number,
            "from": self.account(),
            "timestamp": ts,
            "gas": rnd.randrange(21000, 2_000_000),
            "gasPrice": rnd.choice([30_000_000_000, 100_000_000_000, rnd.randrange(10**9, 10**12)]),
            "hash": _hex(rnd, 32),
            "ethHash": _hex(rnd, 32),
            "input": "0x" if rnd.random() < 0.5 else _hex(rnd, rnd.choice([4, 36, 68])),
            "nonce": rnd.randrange(0, 100_000),
            "to": "" if creation else self.account(),
            "transactionIndex": index,
            "value": rnd.randrange(2**80),
            "shardID": 0,
            "toShardID": 0 if rnd.random() < 0.9 else 1,
            "v": "0x" + format(rnd.choice([37, 38]), "x"),
            "r": _hex(rnd, 32),
            "s": _hex(rnd, 32),
        }

    def block(self, number: int, txs_per_block: int) -> dict[str, Any]:
        rnd = self.rnd
        block_hash = _hex(rnd, 32)
        ts = 1_700_000_000 + 2 * number
        txs = [self.tx(number, block_hash, i, ts) for i in range(txs_per_block)]
        return {
            "difficulty": 0,
            "epoch": number // 32768,
            "extraData": "0x",
            "gasLimit": 80_000_000,
            "gasUsed": sum(t["gas"] for t in txs) // 2,
            "hash": block_hash,
            "logsBloom": "0x" + "00" * 256,
            "miner": self.account(),
            "mixHash": "0x" + "00" * 32,
            "nonce": 0,
            "number": number,
            "parentHash": _hex(rnd, 32),
            "receiptsRoot": _hex(rnd, 32),
            "size": 500 + 700 * len(txs),
            "stakingTransactions": [],
            "stateRoot": _hex(rnd, 32),
            "timestamp": ts,
            "transactions": txs,
            "transactionsRoot": _hex(rnd, 32),
            "uncles": [],
            "viewID": number + 7,
            "vrf": _hex(rnd, 32),
            "vrfProof": "0x",
        }

    def traces(self, block: dict[str, Any]) -> list[dict[str, Any]]:
        rnd = self.rnd
        out: list[dict[str, Any]] = []
        for tx in block["transactions"]:
            children = rnd.choice([0, 0, 1, 2, 3])
            paths: list[list[int]] = [[]] + [[i] for i in range(children)]
            for path in paths:
                failed = rnd.random() < 0.03
                entry: dict[str, Any] = {
                    "blockNumber": block["number"],
                    "blockHash": block["hash"],
                    "transactionHash": tx["ethHash"],
                    "transactionPosition": tx["transactionIndex"],
                    "subtraces": children if not path else 0,
                    "traceAddress": path,
                    "type": "call",
                    "action": {
                        "callType": "call",
                        "value": hex(rnd.randrange(2**70)),
                        "to": _hex(rnd, 20),
                        "gas": hex(rnd.randrange(21000, 10**6)),
                        "from": _hex(rnd, 20),
                        "input": _hex(rnd, 36),
                    },
                }
                if failed:
                    entry["error"] = "Reverted"
                    entry["revert"] = "0x08c379a0"
                else:
                    entry["result"] = {"output": _hex(rnd, 32), "gasUsed": hex(rnd.randrange(21000, 10**6))}
                out.append(entry)
        return out

    def validator(self) -> dict[str, Any]:
        rnd = self.rnd
        address = self.account()
        keys = [rnd.randbytes(48).hex() for _ in range(rnd.randint(1, 4))]
        delegations = [
            {
                "delegator-address": address if i == 0 else self.account(),
                "amount": rnd.randrange(10**18, 10**26),
                "reward": rnd.randrange(10**22),
                "undelegations": [{"amount": rnd.randrange(10**21), "epoch": 2000 + i}] if i % 4 == 3 else [],
            }
            for i in range(rnd.randint(1, 10))
        ]
        return {
            "validator": {
                "bls-public-keys": keys,
                "last-epoch-in-committee": 2100,
                "min-self-delegation": 10**22,
                "max-total-delegation": 10**26,
                "rate": "0.100000000000000000",
                "max-rate": "0.900000000000000000",
                "max-change-rate": "0.050000000000000000",
                "update-height": rnd.randrange(10**7),
                "name": f"validator {address[-6:]}",
                "identity": "id",
                "website": "https://example.org",
                "security-contact": "sec",
                "details": "details",
                "creation-height": rnd.randrange(10**7),
                "address": address,
                "delegations": delegations,
            },
            "current-epoch-performance": {
                "current-epoch-signing-percent": {
                    "current-epoch-signed": 900,
                    "current-epoch-to-sign": 1000,
                    "current-epoch-signing-percentage": "0.900000000000000000",
                },
                "epoch": 2101,
                "block": 50_000_000,
            },
            "metrics": {
                "by-bls-key": [
                    {
                        "key": {
                            "bls-public-key": k,
                            "group-percent": "0.010000000000000000",
                            "effective-stake": f"{rnd.randrange(10**25)}.000000000000000000",
                            "raw-stake": f"{rnd.randrange(10**25)}.500000000000000000",
                            "earning-account": address,
                            "overall-percent": "0.003200000000000000",
                            "shard-id": rnd.randint(0, 1),
                        },
                        "earned-reward": rnd.randrange(10**21),
                    }
                    for k in keys
                ]
            },
            "total-delegation": sum(d["amount"] for d in delegations),
            "currently-in-committee": True,
            "epos-status": "currently elected",
            "epos-winning-stake": f"{rnd.randrange(10**25)}.000000000000000000",
            "booted-status": None,
            "active-status": "active",
            "lifetime": {
                "reward-accumulated": rnd.randrange(10**24),
                "blocks": {"to-sign": 100_000, "signed": 99_000},
                "apr": "0.081000000000000000",
                "epoch-apr": None,
                "epoch-blocks": None,
            },
        }


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """Fastest wall time of ``repeat`` calls (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def report(label: str, rows: int, seconds: float, baseline: float | None = None) -> None:
    ratio = f"  ({seconds / baseline:4.2f}x json.loads)" if baseline else ""
    print(f"  {label:44s} {rows / seconds:>12,.0f} rows/s  {seconds * 1000:8.1f} ms{ratio}")


def profile(fn: Callable[[], object], top: int) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if "ncalls" in ln)
    print("\n".join("    " + ln[:150] for ln in lines[start : start + top + 1]))


class Payloads:
    """The synthetic answers every measurement converts."""

    def __init__(self, blocks_bytes: bytes, traces_bytes: list[bytes], pages_bytes: list[bytes]) -> None:
        self.blocks_bytes = blocks_bytes
        self.traces_bytes = traces_bytes
        self.pages_bytes = pages_bytes
        self.ctx = ConvertContext(shard_id=0)
        self.traces_ctx = traces_context(decode_blocks([self.blocks_bytes]), shard_id=0)

    @classmethod
    def synthetic(cls, blocks: int, txs: int, validators: int, accounts: int, unique: bool) -> Payloads:
        """``blocks`` blocks of ``txs`` transactions, their traces, ``validators`` validators."""
        synth = Synth(seed=1, accounts=accounts, unique=unique)
        block_objs = [synth.block(10_000_000 + i, txs) for i in range(blocks)]
        pages = [synth.validator() for _ in range(validators)]
        return cls(
            json.dumps(block_objs).encode(),
            [json.dumps(synth.traces(b)).encode() for b in block_objs],
            [json.dumps(pages[i : i + 100]).encode() for i in range(0, len(pages), 100)],
        )

    def convert(self, name: str) -> int:
        """Convert this dataset's payloads once; return the number of rows."""
        ds = DATASETS[name]
        if ds.source == "traces":
            return int(ds.convert(self.traces_bytes, self.traces_ctx).num_rows)
        if ds.source == "validators":
            return int(ds.convert(self.pages_bytes, self.ctx).num_rows)
        return int(ds.convert([self.blocks_bytes], self.ctx).num_rows)


#: The datasets the synthetic answers feed (bench/compare.py reports each).
MEASURED = ("transactions", "blocks", "traces", "validators", "voting_power", "delegations", "undelegations")


def measure(
    blocks: int = 200, repeat: int = 5, txs: int = 50, validators: int = 800
) -> list[tuple[str, int, float, float]]:
    """``(dataset, rows, rows/s, ms)`` for each dataset of :data:`MEASURED` (best of ``repeat``)."""
    payloads = Payloads.synthetic(blocks, txs, validators, accounts=5000, unique=False)
    out = []
    for name in MEASURED:
        rows = payloads.convert(name)
        seconds = best_of(repeat, partial(payloads.convert, name))
        out.append((name, rows, rows / seconds, seconds * 1000))
    return out


# --------------------------------------------------------------------------------------------
# --against: two checkouts in the same run
# --------------------------------------------------------------------------------------------


def worker(payload_file: Path) -> None:
    """Serve timing requests on stdin: a dataset name -> ``rows seconds`` of one conversion."""
    import hmyframe

    payloads = Payloads(*pickle.loads(payload_file.read_bytes()))
    for name in MEASURED:
        payloads.convert(name)  # warm-up
    print(Path(hmyframe.__file__).resolve().parent.parent, flush=True)
    for line in sys.stdin:
        name = line.strip()
        t0 = time.process_time()  # CPU time: what a contended shared machine disturbs least
        rows = payloads.convert(name)
        print(rows, time.process_time() - t0, flush=True)


class _Side:
    def __init__(self, checkout: Path, payload_file: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(checkout)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(payload_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        imported = Path(self.proc.stdout.readline().strip())
        if imported != checkout.resolve():
            self.close()
            raise SystemExit(f"the worker for {checkout} imported hmyframe from {imported or '?'}")
        self.seconds: dict[str, list[float]] = {name: [] for name in MEASURED}
        self.rows: dict[str, int] = {}

    def time(self, name: str) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(name + "\n")
        self.proc.stdin.flush()
        rows, seconds = self.proc.stdout.readline().split()
        self.rows[name] = int(rows)
        self.seconds[name].append(float(seconds))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def against(payloads: Payloads, baseline: Path, repeat: int, names: tuple[str, ...] = MEASURED) -> None:
    """This checkout vs ``baseline``, taking turns; medians of ``repeat`` rounds of ``names``."""
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp:
        payload_file = Path(tmp) / "payloads.pickle"
        payload_file.write_bytes(
            pickle.dumps((payloads.blocks_bytes, payloads.traces_bytes, payloads.pages_bytes))
        )
        new, old = _Side(here, payload_file), _Side(baseline, payload_file)
        try:
            for r in range(repeat):
                for name in names:
                    for side in (new, old) if r % 2 == 0 else (old, new):
                        side.time(name)
        finally:
            new.close()
            old.close()
    print(
        f"this checkout ({here}) vs {baseline}: bytes -> Arrow, CPU time, median of {repeat} alternating runs"
    )
    print(
        f"  {'dataset':14s} {'rows':>7s} {'this rows/s':>12s} {'base rows/s':>12s} {'ratio':>6s}"
        f"  {'ratio of the fastest runs':>25s}"
    )
    for name in names:
        if new.rows[name] != old.rows[name]:
            raise SystemExit(f"{name}: {new.rows[name]} rows here, {old.rows[name]} in the baseline")
        t_new, t_old = statistics.median(new.seconds[name]), statistics.median(old.seconds[name])
        best = min(old.seconds[name]) / min(new.seconds[name])
        rows = new.rows[name]
        print(
            f"  {name:14s} {rows:7d} {rows / t_new:12,.0f} {rows / t_old:12,.0f} {t_old / t_new:5.2f}x"
            f"  {best:24.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=200)
    parser.add_argument("--txs", type=int, default=50, help="transactions per block")
    parser.add_argument("--validators", type=int, default=800)
    parser.add_argument("--accounts", type=int, default=5000, help="size of the address pool")
    parser.add_argument("--unique-addresses", action="store_true", help="draw every address fresh")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print the top functions by own time")
    parser.add_argument(
        "--against", metavar="DIR", help="compare with the hmyframe package of another checkout"
    )
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help=f"with --against: comma-separated datasets to time (default: {','.join(MEASURED)})",
    )
    parser.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(Path(args.worker))
        return

    payloads = Payloads.synthetic(
        args.blocks, args.txs, args.validators, args.accounts, args.unique_addresses
    )
    if args.against:
        names = tuple(args.only.split(",")) if args.only else MEASURED
        unknown = set(names) - set(MEASURED)
        if unknown:
            parser.error(f"--only: not measured here: {', '.join(sorted(unknown))}")
        against(payloads, Path(args.against), args.repeat, names)
        return
    blocks_bytes, traces_bytes, pages_bytes = (
        payloads.blocks_bytes,
        payloads.traces_bytes,
        payloads.pages_bytes,
    )
    n_tx = args.blocks * args.txs
    ctx, tctx = payloads.ctx, payloads.traces_ctx
    n_traces = DATASETS["traces"].convert(traces_bytes, tctx).num_rows
    n_val = DATASETS["validators"].convert(pages_bytes, ctx).num_rows
    any_decoder = msgspec.json.Decoder()

    mb = len(blocks_bytes) / 1e6
    print(
        f"synthetic v2: {args.blocks} blocks x {args.txs} txs = {n_tx:,} txs ({mb:.1f} MB, "
        f"{len(blocks_bytes) / n_tx:.0f} B/tx); {n_traces:,} traces; {n_val} validators; "
        f"{'unique' if args.unique_addresses else f'{args.accounts:,}-account pool'} addresses"
    )

    print("transactions (one getBlocks payload):")
    base = best_of(args.repeat, lambda: json.loads(blocks_bytes))
    report("baseline json.loads (exact ints, no table)", n_tx, base)
    report(
        "baseline msgspec untyped decode",
        n_tx,
        best_of(args.repeat, lambda: any_decoder.decode(blocks_bytes)),
    )
    report(
        "decode_blocks (typed msgspec)",
        n_tx,
        best_of(args.repeat, lambda: decode_blocks([blocks_bytes])),
        base,
    )
    decoded = decode_blocks([blocks_bytes])
    report(
        "build transactions from decoded",
        n_tx,
        best_of(args.repeat, lambda: DATASETS["transactions"].build(decoded, ctx)),
        base,
    )
    total = best_of(args.repeat, lambda: DATASETS["transactions"].convert([blocks_bytes], ctx))
    report("transactions.convert (bytes -> Arrow)", n_tx, total, base)
    report(
        "blocks.convert (same bytes)",
        args.blocks,
        best_of(args.repeat, lambda: DATASETS["blocks"].convert([blocks_bytes], ctx)),
    )

    print("traces (one trace_block payload per block):")
    tbase = best_of(args.repeat, lambda: [json.loads(p) for p in traces_bytes])
    report("baseline json.loads", n_traces, tbase)
    report(
        "traces.convert (bytes -> Arrow)",
        n_traces,
        best_of(args.repeat, lambda: DATASETS["traces"].convert(traces_bytes, tctx)),
        tbase,
    )

    print("validators (pages of 100):")
    vbase = best_of(args.repeat, lambda: [json.loads(p) for p in pages_bytes])
    report("baseline json.loads", n_val, vbase)
    report(
        "validators.convert (bytes -> Arrow)",
        n_val,
        best_of(args.repeat, lambda: DATASETS["validators"].convert(pages_bytes, ctx)),
        vbase,
    )
    vdecoded = DATASETS["validators"].decode(pages_bytes)
    for name in ("voting_power", "delegations", "undelegations"):
        ds = DATASETS[name]
        rows = ds.build(vdecoded, ctx).num_rows
        report(
            f"{name}.build (from decoded pages)", rows, best_of(args.repeat, partial(ds.build, vdecoded, ctx))
        )

    if args.profile:
        print("\nprofile: transactions.convert, top functions by own time")
        profile(lambda: DATASETS["transactions"].convert([blocks_bytes], ctx), 14)
        print("\nprofile: traces.convert")
        profile(lambda: DATASETS["traces"].convert(traces_bytes, tctx), 10)


if __name__ == "__main__":
    main()
