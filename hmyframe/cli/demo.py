"""``hmyframe demo``: the main job on the embedded devnet, no network needed.

Starts the devnet, shows the shard layout, heads and one validator page fetched through the
client, exports a slice of blocks, transactions, staking transactions and traces plus a
validator snapshot to Parquet, prints what was written with a few figures computed from
the exported files, then writes the staking and throughput reports (HTML) and prints their paths.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from hmyframe import aio
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions, Session
from hmyframe.exporting import ExportSummary

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``demo`` sub-command."""
    parser = subparsers.add_parser(
        "demo",
        help="start the embedded devnet, export a chain slice and a validator snapshot, summarise",
        description="Run the main job end to end on the embedded devnet (no network needed).",
    )
    parser.add_argument("--out", default="data", help="output folder (default: data/, the cache root)")
    parser.add_argument("--blocks", type=int, default=2000, help="devnet blocks per shard (default 2000)")
    parser.add_argument(
        "--slice", type=int, default=500, help="blocks exported, ending at the head (default 500)"
    )
    parser.add_argument("--seed", type=int, default=0, help="devnet seed (default 0)")
    parser.add_argument(
        "--history", type=int, default=5, help="epochs of staking history in the report (default 5)"
    )
    parser.set_defaults(handler=run)


def _one(atto: Decimal | int) -> str:
    return f"{Decimal(atto) / Decimal(10**18):,.6f} ONE"


async def _demo(args: argparse.Namespace) -> None:
    began = time.perf_counter()
    async with Devnet(seed=args.seed, blocks=args.blocks) as net:
        print(
            f"devnet up: seed {args.seed}, {net.n_shards} shards of {args.blocks} blocks, validator limiter on"
        )
        async with Session(net, cache=False) as session:
            for info in await session.client.shards():
                print(
                    f"  shard {info.shard_id}: {info.http}  head {await session.head(info.shard_id)}"
                    f"  trace {net.trace_urls[info.shard_id]}"
                )
            page = await session.client.v2.get_all_validator_information(0)
            elected = sum(1 for v in page if v.get("epos-status") == "currently elected")
            names = ", ".join(v["validator"]["name"] for v in page[:3])
            print(f"  validator page 0: {len(page)} validators ({elected} elected), e.g. {names}")
            head = await session.head(0)
        start = max(0, head - args.slice + 1)
        print(
            f"exporting blocks {start}..{head} of shard 0 and the validator snapshot at the head to {args.out}/ ..."
        )
        summary = await aio.export(
            [
                "blocks",
                "transactions",
                "staking_transactions",
                "traces",
                "validators",
                "voting_power",
                "delegations",
            ],
            start,
            head,
            0,
            rpc=net,
            out=args.out,
            options=FetchOptions(chunk_size=250),
        )
        print(
            "writing the reports (cached data is reused; the history's snapshots are paced to the node's limiter) ..."
        )
        reports = Path(args.out) / "reports"
        staking = await aio.staking_report(
            reports / "staking.html",
            rpc=net,
            compare=max(0, head - 1000),
            history=args.history,
            cache=args.out,
        )
        # the devnet's own wrapped ONE (the report's default is mainnet's), one per shard
        wone = [net.chain.dex(s).wone for s in range(net.chain.n_shards)]
        throughput = await aio.throughput_report(
            reports / "throughput.html", start, head, shard="all", rpc=net, cache=args.out, wone=wone
        )
    for line in summary.lines():
        print(line)
    _print_figures(summary, start, head)
    print("reports (open in any browser; no network needed):")
    print(f"  staking:    {staking.resolve()}")
    print(f"  throughput: {throughput.resolve()}")
    print(
        f"done in {time.perf_counter() - began:.1f} s; read the files with pandas, pyarrow.dataset or DuckDB"
    )


def _print_figures(summary: ExportSummary, start: int, head: int) -> None:
    """Print a few figures computed from the exported files themselves."""
    tx = pd.concat(
        [pd.read_parquet(p, dtype_backend="pyarrow") for p in summary.datasets["transactions"].files]
    )
    tx = tx[(tx.block_number >= start) & (tx.block_number <= head)]
    vals = pd.read_parquet(summary.datasets["validators"].files[0], dtype_backend="pyarrow")
    total = sum(tx["value"].dropna().tolist(), Decimal(0))
    top = tx.groupby("from_address").size().sort_values(ascending=False)
    elected = vals[vals["is_elected"].fillna(False)]
    print("figures from the exported files:")
    print(
        f"  {len(tx):,} transactions moved {_one(total)} (exact: {total} atto); "
        f"{int(tx['is_cross_shard'].sum())} cross-shard, {int(tx['is_contract_creation'].sum())} contract creations"
    )
    print(f"  busiest sender {top.index[0]} with {top.iloc[0]} transactions")
    below = int((elected["epoch_signing_percentage"] < 0.66).sum())
    print(
        f"  {len(vals)} validators, {len(elected)} elected; median signing {elected['epoch_signing_percentage'].median():.1%}, "
        f"{below} elected below 66%"
    )


def run(args: argparse.Namespace) -> int:
    """Run the demo."""
    asyncio.run(_demo(args))
    return 0
