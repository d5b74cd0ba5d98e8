"""``hmyframe devnet``: serve a simulated Harmony network on 127.0.0.1 until interrupted.

Prints one line per shard with its URL and trace URL, then one with its WebSocket URL, then serves; Ctrl-C or SIGTERM stops it
with exit code 0.

Fault-injection syntax for ``--faults`` (rules separated by ``;``)::

    KIND[=VALUE][,key=value...]
    status=429,retry_after=2,times=3   reset,p=0.05   delay=0.5,method=hmyv2_getBlocks
    truncate,times=1   shuffle   rpc_error,times=2   rpc_error=-32603,message=boom
    logs=drop,at=-1,times=1

Kinds: status, reset, truncate, delay, shuffle, rpc_error, logs. Keys: times, p (probability),
method, shard, trace, retry_after, status, delay, code, message, edit, at.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import signal
import sys
from typing import Any

from hmyframe.devnet import ACTIVITIES, Devnet, RateLimit
from hmyframe.devnet.faults import parse_fault_spec
from hmyframe.devnet.receipts import LOG_HASHES

__all__ = ["register", "run"]

#: The devnet's own defaults of ``Devnet(token_density=...)`` and ``Devnet(dex_density=...)``.
DEFAULT_TOKEN_DENSITY: float = inspect.signature(Devnet).parameters["token_density"].default
DEFAULT_DEX_DENSITY: float = inspect.signature(Devnet).parameters["dex_density"].default

_EPILOG = """\
fault spec (--faults), rules separated by ';':
  KIND[=VALUE][,key=value...]
  kinds: status (=HTTP status), reset, truncate, delay (=seconds), shuffle, rpc_error (=code),
         logs (=repeat|drop|foreign: the getLogs answers' log at position `at`)
  keys:  times=N  p=PROBABILITY  method=NAME  shard=N  trace=true|false  retry_after=SECONDS
         status=N  delay=SECONDS  code=N  message=TEXT  at=N
  e.g.   --faults 'status=429,retry_after=1,times=3;reset,p=0.05;delay=0.5,method=hmyv2_getBlocks'
"""


def register(subparsers: Any) -> None:
    """Add the ``devnet`` sub-command."""
    parser = subparsers.add_parser(
        "devnet",
        help="serve a deterministic simulated Harmony network on 127.0.0.1",
        description="Serve a deterministic simulated Harmony network (one port, one trace port and one "
        "WebSocket port per shard) "
        "until interrupted.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _network_arguments(parser)
    _answer_arguments(parser)
    parser.set_defaults(handler=run)


def _network_arguments(parser: argparse.ArgumentParser) -> None:
    """The network's shape, its ports, its timing and its chain's content."""
    parser.add_argument("--shards", type=int, default=2, help="number of shards (default 2)")
    parser.add_argument(
        "--blocks", type=int, default=2000, help="blocks per shard to start with (default 2000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="chain seed (default 0)")
    parser.add_argument(
        "--port",
        type=int,
        default=0,
        help="first port: shard s on PORT+2s, its trace port on PORT+2s+1, its WebSocket port on PORT+300+2s "
        "(default 0: ephemeral ports)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--profile", choices=("current", "legacy"), default="current", help="node format")
    parser.add_argument(
        "--activity",
        choices=ACTIVITIES,
        default="devnet",
        help="how busy blocks are: quiet (mostly 0-3 transactions, like mainnet today), "
        "devnet (default, about 12) or busy (100+, like the 2021-22 peak)",
    )
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added latency per request (ms)")
    parser.add_argument(
        "--block-cost-ms",
        type=float,
        default=0.0,
        help="server time per block read (ms), paid concurrently across requests (default 0)",
    )
    parser.add_argument("--epoch-length", type=int, default=200, help="blocks per epoch (default 200)")
    parser.add_argument("--validators", type=int, default=300, help="validator population (default 300)")
    parser.add_argument(
        "--token-density",
        type=float,
        default=DEFAULT_TOKEN_DENSITY,
        metavar="TX_PER_BLOCK",
        help=(
            "expected token transactions (HRC-20/721/1155 mints, transfers, burns, failed transfers) "
            f"per block with plain transactions, 0 to 50 (default {DEFAULT_TOKEN_DENSITY}; 0: none)"
        ),
    )
    parser.add_argument(
        "--dex-density",
        type=float,
        default=DEFAULT_DEX_DENSITY,
        metavar="TX_PER_BLOCK",
        help=(
            "expected transactions of the UniswapV2-style exchange (swaps, liquidity, wraps) per block "
            f"with plain transactions, 0 to 50 (default {DEFAULT_DEX_DENSITY}; 0: none, no pair is created)"
        ),
    )
    parser.add_argument(
        "--hostile-text",
        action="store_true",
        help="token names and symbols and validator descriptions chosen to break displays (10,000 "
        "characters, right-to-left override, control characters, HTML, emoji)",
    )


def _answer_arguments(parser: argparse.ArgumentParser) -> None:
    """How the nodes answer: limits, encoding, new blocks, logs' hashes, method filter, faults."""
    parser.add_argument(
        "--no-validator-rate-limit",
        action="store_true",
        help="switch off the node's 1 req/s (burst 3) limiter on getAllValidatorInformation*",
    )
    parser.add_argument(
        "--no-gzip",
        action="store_true",
        help="serve identity-encoded answers even to clients that accept gzip (same bytes for every client)",
    )
    parser.add_argument(
        "--rpc-rate-limit",
        type=float,
        default=None,
        metavar="REQ_PER_S",
        help="the node's global limit in calls per second on block and header reads (each block of "
        "getBlocks counts), call and getShardingStructure; receipts, logs and blockNumber are not "
        "limited, as on the node (its default is 1000; default here: none)",
    )
    parser.add_argument(
        "--mine-every",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="mine a block every N s (pushed to WebSocket newHeads subscribers)",
    )
    parser.add_argument(
        "--log-hashes",
        choices=LOG_HASHES,
        default="mainnet",
        help="which hash logs carry in hmy_/hmyv2_ answers (the node's receipts-cache state): mainnet "
        "(default: hmy_ the Ethereum-form hash, hmyv2_ the Harmony hash, as mainnet answers), harmony or eth",
    )
    parser.add_argument(
        "--rpc-deny",
        action="append",
        default=[],
        metavar="PATTERN",
        help="a method the nodes do not serve, as the node's RPC method filter (* a wildcard: "
        "'hmyv2_*' serves only hmy_, eth_, net_ and web3_); repeatable",
    )
    parser.add_argument("--faults", default=None, metavar="SPEC", help="fault-injection rules (see below)")


def run(args: argparse.Namespace) -> int:
    """Build the devnet, print its URLs and serve until SIGINT/SIGTERM; return 0."""
    faults = parse_fault_spec(args.faults) if args.faults else None
    rpc_limit: float | RateLimit | None = args.rpc_rate_limit
    devnet = Devnet(
        shards=args.shards,
        blocks=args.blocks,
        seed=args.seed,
        profile=args.profile,
        latency_ms=args.latency_ms,
        block_cost_ms=args.block_cost_ms,
        validator_rate_limit=not args.no_validator_rate_limit,
        rpc_rate_limit=rpc_limit,
        port=args.port,
        host=args.host,
        epoch_length=args.epoch_length,
        validators=args.validators,
        token_density=args.token_density,
        dex_density=args.dex_density,
        hostile_text=args.hostile_text,
        faults=faults,
        gzip=not args.no_gzip,
        mine_every=args.mine_every,
        activity=args.activity,
        log_hashes=args.log_hashes,
        rpc_deny=args.rpc_deny,
    )
    return asyncio.run(_serve(devnet))


async def _serve(devnet: Devnet) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - non-Unix
            signal.signal(sig, lambda *_: loop.call_soon_threadsafe(stop.set))
    async with devnet:
        head = devnet.chain.head(0)
        print(
            f"hmyframe devnet: seed {devnet.seed}, {devnet.n_shards} shard(s), head block {head}, "
            f"profile {devnet.profile}, activity {devnet.activity}",
            flush=True,
        )
        for shard, (url, trace_url) in enumerate(zip(devnet.urls, devnet.trace_urls, strict=True)):
            print(f"shard {shard}: {url}  trace: {trace_url}", flush=True)
        for shard, ws_url in enumerate(devnet.ws_urls):
            print(f"shard {shard} websocket (newHeads): {ws_url}", flush=True)
        print("serving; press Ctrl-C to stop", file=sys.stderr, flush=True)
        await stop.wait()
    print("hmyframe devnet: stopped", file=sys.stderr, flush=True)
    return 0
