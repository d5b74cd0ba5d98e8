"""``hmyframe report staking|throughput|validator|account``: fetch, then write one self-contained HTML report."""

from __future__ import annotations

import argparse
from typing import Any

from hmyframe.cli._common import add_rpc_arguments, fetch_options, rpc_target
from hmyframe.report import account_report, staking_report, throughput_report, validator_report

__all__ = ["register", "run"]


def _block_or_time(text: str) -> int | str:
    """A block number; anything else is passed on for the fetchers to judge (and name)."""
    stripped = text.strip()
    return int(stripped) if stripped.isdigit() else stripped


def _shard(text: str) -> int | str:
    stripped = text.strip().lower()
    if stripped == "all":
        return "all"
    if stripped.isdigit():
        return int(stripped)
    raise argparse.ArgumentTypeError(f"expected a shard number or 'all', got {text!r}")


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="the .html file to write")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress bar (it is off anyway when piped)"
    )
    add_rpc_arguments(parser)


def register(subparsers: Any) -> None:
    """Add the ``report`` sub-command and its four reports."""
    parser = subparsers.add_parser(
        "report",
        help="write a staking, throughput, validator or account report (one self-contained HTML file)",
        description="Fetch through the normal cached fetchers, then write one HTML file with the charts "
        "embedded: no network is needed to view or print it.",
    )
    reports = parser.add_subparsers(dest="report", metavar="REPORT", required=True)
    for add in (_staking, _throughput, _validator, _account):
        sub = add(reports)
        _common(sub)
        sub.set_defaults(handler=run)


def _staking(reports: Any) -> argparse.ArgumentParser:
    staking: argparse.ArgumentParser = reports.add_parser(
        "staking",
        help="a validator snapshot: concentration, signing, delegation, changes, history",
        description="Staking report of the validator snapshot at --block (default: the head).",
    )
    staking.add_argument("--block", type=int, default=None, help="snapshot block (default: the head)")
    staking.add_argument(
        "--compare", type=int, default=None, metavar="M", help="also report the changes since block M"
    )
    staking.add_argument(
        "--history",
        type=int,
        default=None,
        metavar="K",
        help="also report the network's figures over the last K epochs",
    )
    return staking


def _throughput(reports: Any) -> argparse.ArgumentParser:
    throughput: argparse.ArgumentParser = reports.add_parser(
        "throughput",
        help="a block range: transactions, gas, block times, cross-shard share, staking directives, fees, "
        "tokens, DEX swaps",
        description="Throughput report of blocks --start..--end of each shard.",
    )
    throughput.add_argument("--start", type=_block_or_time, required=True, help="first block")
    throughput.add_argument(
        "--end", type=_block_or_time, default=None, help="last block, inclusive (default: each shard's head)"
    )
    throughput.add_argument("--shard", type=_shard, default="all", help="a shard number or 'all' (default)")
    throughput.add_argument(
        "--freq", default="auto", help="time bucket: min, 5min, h, D... or auto (default)"
    )
    throughput.add_argument(
        "--wone",
        action="append",
        default=None,
        metavar="ADDRESS",
        help="the wrapped ONE token the DEX section values swaps through (default: mainnet's WONE); "
        "repeatable: one per shard on the devnet",
    )
    return throughput


def _validator(reports: Any) -> argparse.ArgumentParser:
    validator: argparse.ArgumentParser = reports.add_parser(
        "validator",
        help="one validator over the last epochs, for its operator or a delegator",
        description="Signing per epoch, stake and delegators over time, rewards, commission and status changes.",
    )
    validator.add_argument("address", help="the validator, one1... or 0x...")
    validator.add_argument(
        "--epochs", type=int, default=10, help="epochs reported, up to the current (default 10)"
    )
    return validator


def _account(reports: Any) -> argparse.ArgumentParser:
    account: argparse.ArgumentParser = reports.add_parser(
        "account",
        help="one address: balance, transactions, counterparties, tokens, delegations, rewards",
        description="Its balance on every shard and what moved, its transactions (plain and staking) and "
        "counterparties, the tokens it holds, its delegations and its rewards by validator over the last "
        "epochs (accrued and collected).",
    )
    account.add_argument("address", help="the account, one1... or 0x...")
    account.add_argument(
        "--epochs", type=int, default=10, help="epochs of the rewards history, up to the current (default 10)"
    )
    account.add_argument(
        "--points", type=int, default=40, help="blocks per shard the balance is read at (default 40)"
    )
    account.add_argument(
        "--token", action="append", default=[], metavar="ADDRESS", help="also check this token (repeatable)"
    )
    account.add_argument(
        "--label",
        type=_label,
        action="append",
        default=[],
        metavar="ADDRESS=NAME",
        help="a known address and its name, shown in the report (repeatable)",
    )
    return account


def _label(item: str) -> tuple[str, str]:
    """``--label ADDRESS=NAME`` (the address is checked by the report, before any request)."""
    address, sep, name = item.partition("=")
    if not sep or not address.strip() or not name.strip():
        raise argparse.ArgumentTypeError(f"--label takes ADDRESS=NAME, got {item!r}")
    return address.strip(), name.strip()


def run(args: argparse.Namespace) -> int:
    """Write the report asked for and print its path."""
    common: dict[str, Any] = {
        "rpc": rpc_target(args),
        "options": fetch_options(args),
        "progress": not args.no_progress,
    }
    if args.report == "staking":
        path = staking_report(
            args.out, block=args.block, compare=args.compare, history=args.history, **common
        )
    elif args.report == "throughput":
        dex = {"wone": args.wone} if args.wone else {}
        path = throughput_report(
            args.out, args.start, args.end, shard=args.shard, freq=args.freq, **dex, **common
        )
    elif args.report == "account":
        path = account_report(
            args.out,
            args.address,
            epochs=args.epochs,
            points=args.points,
            tokens=args.token or None,
            labels=dict(args.label),
            **common,
        )
    else:
        path = validator_report(args.out, args.address, epochs=args.epochs, **common)
    print(f"wrote the {args.report} report to {path.resolve()}")
    return 0
