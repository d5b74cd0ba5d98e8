"""``hmyframe accounts balances|history|delegations|rewards``: the account datasets of some
addresses, printed as a table or written to a Parquet / CSV file.

Balances and delegations go through the cache like every fetch (``data/`` by default), so asking
again sends nothing; ``--out`` writes exactly the rows asked for (Parquet in the dataset's own
schema, exact amounts as ``decimal128(38, 0)``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.errors import ConfigError

__all__ = ["block_spec", "register", "run"]

#: Columns printed per command (``--out`` writes every column).
SHOWN = {
    "balances": ["address", "shard_id", "block_number", "balance", "balance_one"],
    "history": [
        "address",
        "block_number",
        "shard_id",
        "kind",
        "direction",
        "transaction_hash",
        "value_one",
        "directive",
    ],
    "delegations": [
        "delegator_address",
        "validator_address",
        "amount_one",
        "reward_one",
        "undelegating_amount_one",
    ],
    "rewards": [
        "delegator_address",
        "epoch",
        "validator_address",
        "accrued_one",
        "collected_one",
        "unclaimed_one",
    ],
}


def block_spec(text: str) -> object:
    """``--blocks``: ``epochs``, one block, ``100,200,300``, or ``START:END[:STEP]`` (END inclusive)."""
    text = text.strip()
    if text == "epochs":
        return text
    bad = argparse.ArgumentTypeError(
        f"expected 'epochs', a block, blocks like 100,200 or a range START:END[:STEP], got {text!r}"
    )
    pieces = text.split(":") if ":" in text else text.split(",")
    if not all(p.strip().isdigit() for p in pieces):
        raise bad
    numbers = [int(p) for p in pieces]
    if ":" not in text:
        return numbers
    if len(numbers) not in (2, 3) or (len(numbers) == 3 and numbers[2] < 1):
        raise bad
    return range(numbers[0], numbers[1] + 1, numbers[2] if len(numbers) == 3 else 1)


def _addresses(args: argparse.Namespace) -> list[str]:
    listed = list(args.addresses)
    if args.addresses_file:
        path = Path(args.addresses_file)
        if not path.is_file():
            raise ConfigError(f"--addresses-file {str(path)!r} is not a file")
        listed += [
            line.strip()
            for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")
        ]
    if not listed:
        raise ConfigError("give at least one address (one1 or 0x), or --addresses-file")
    return listed


def register(subparsers: Any) -> None:
    """Add the ``accounts`` sub-command and its four datasets."""
    parser = subparsers.add_parser(
        "accounts",
        help="balances, history, delegations or rewards of addresses (a table, or --out FILE)",
        description="The account datasets of some addresses: printed, or written to --out (.parquet or .csv).",
    )
    kinds = parser.add_subparsers(dest="what", metavar="WHAT", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("addresses", nargs="*", metavar="ADDRESS", help="one1... or 0x...")
        sub.add_argument("--addresses-file", default=None, metavar="FILE", help="more addresses, one a line")
        sub.add_argument(
            "--out", default=None, metavar="FILE", help="write every column to FILE (.parquet or .csv)"
        )
        sub.add_argument("--no-progress", action="store_true", help="no progress bar")
        add_rpc_arguments(sub)
        sub.set_defaults(handler=run)

    balances = kinds.add_parser("balances", help="exact ONE balances after blocks (cached per block)")
    balances.add_argument(
        "--blocks",
        type=block_spec,
        default=None,
        metavar="SPEC",
        help="a block, blocks like 100,200, a range START:END[:STEP] (END inclusive) or 'epochs' "
        "(each finished epoch's last block); default: the head",
    )
    balances.add_argument("--shard", type=int, default=0, help="shard (default 0)")
    common(balances)

    history = kinds.add_parser("history", help="plain and staking transactions from the node's history index")
    history.add_argument("--shard", type=int, default=0, help="shard (default 0)")
    history.add_argument("--order", choices=("asc", "desc"), default="asc", help="which end to start from")
    history.add_argument("--limit", type=int, default=None, help="at most this many per address and kind")
    history.add_argument("--no-staking", action="store_true", help="plain transactions only")
    common(history)

    delegations = kinds.add_parser("delegations", help="each delegator's delegations at a block (cached)")
    delegations.add_argument("--block", type=int, default=None, help="block (default: the head)")
    common(delegations)

    rewards = kinds.add_parser("rewards", help="a delegator's rewards per validator and epoch")
    rewards.add_argument("--epochs", type=int, default=10, help="the last N epochs (default 10)")
    common(rewards)


def _write(frame: Any, table: Any, out: str) -> Path:
    path = Path(out)
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".csv"):
        raise ConfigError(f"--out must name a .parquet or .csv file, got {out!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if table is not None:
        import pyarrow.csv as pcsv
        import pyarrow.parquet as pq

        (pq.write_table if suffix == ".parquet" else pcsv.write_csv)(table, str(path))
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return path


def run(args: argparse.Namespace) -> int:
    """Fetch the dataset asked for; print it, or write it to ``--out``."""
    import hmyframe

    addresses = _addresses(args)
    common: dict[str, Any] = {
        "rpc": rpc_target(args),
        "options": fetch_options(args),
        "progress": not args.no_progress,
    }
    table = None
    if args.what == "balances":
        table = hmyframe.balances(addresses, blocks=args.blocks, shard=args.shard, output="arrow", **common)
    elif args.what == "history":
        table = hmyframe.account_transactions(
            addresses, args.shard, staking=not args.no_staking, order=args.order, limit=args.limit,
            output="arrow", **common,
        )  # fmt: skip
    elif args.what == "delegations":
        table = hmyframe.delegator_delegations(addresses, block=args.block, output="arrow", **common)
    frame = (
        hmyframe.to_pandas(table)
        if table is not None
        else hmyframe.delegator_rewards(addresses, args.epochs, **common)
    )
    if args.out:
        path = _write(frame, table, args.out)
        print(f"wrote {len(frame):,} {args.what} rows to {path.resolve()}")
        return 0
    if frame.empty:
        print(f"no {args.what} rows")
        return 0
    import pandas as pd

    shown = frame[[c for c in SHOWN[args.what] if c in frame.columns]]
    with pd.option_context("display.max_rows", 200, "display.width", 200, "display.max_colwidth", 70):
        print(shown.to_string(index=False))
    return 0
