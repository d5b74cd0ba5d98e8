"""``hmyframe shards``: the network's shards and their endpoints."""

from __future__ import annotations

import argparse
from typing import Any

import pandas as pd

from hmyframe._sync import run as run_sync
from hmyframe.aio import shards
from hmyframe.cli._common import add_rpc_arguments, request_options, rpc_target
from hmyframe.engine import FetchOptions, Session

__all__ = ["register", "run"]


def register(subparsers: Any) -> None:
    """Add the ``shards`` sub-command."""
    parser = subparsers.add_parser("shards", help="print the shard layout (hmy_getShardingStructure)")
    add_rpc_arguments(parser, fetching=False)
    parser.set_defaults(handler=run)


async def _shards(rpc: object, options: FetchOptions) -> pd.DataFrame:
    async with Session(rpc, cache=False, options=options) as session:
        return await shards(rpc=session)


def run(args: argparse.Namespace) -> int:
    """Print one line per shard."""
    df = run_sync(_shards(rpc_target(args), request_options(args)))
    for row in df.itertuples(index=False):
        mark = "  (answering node)" if row.is_current else ""
        print(f"shard {row.shard_id}: {row.http_url}  {row.ws_url}{mark}")
    return 0
