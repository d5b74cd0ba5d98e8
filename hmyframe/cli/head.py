"""``hmyframe head``: the latest block number of each shard."""

from __future__ import annotations

import argparse
from typing import Any

from hmyframe._sync import run as run_sync
from hmyframe.cli._common import add_rpc_arguments, request_options, rpc_target
from hmyframe.engine import FetchOptions, Session

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``head`` sub-command."""
    parser = subparsers.add_parser("head", help="print the latest block number of each shard")
    parser.add_argument("--shard", type=int, default=None, help="only this shard (default: every shard)")
    add_rpc_arguments(parser, fetching=False)
    parser.set_defaults(handler=run)


async def _heads(rpc: object, shard: int | None, options: FetchOptions) -> list[tuple[int, int]]:
    async with Session(rpc, cache=False, options=options) as session:
        ids = [shard] if shard is not None else [s.shard_id for s in await session.client.shards()]
        return [(sid, await session.head(sid)) for sid in ids]


def run(args: argparse.Namespace) -> int:
    """Print ``shard <id>: <head>`` lines."""
    for sid, number in run_sync(_heads(rpc_target(args), args.shard, request_options(args))):
        print(f"shard {sid}: {number}")
    return 0
