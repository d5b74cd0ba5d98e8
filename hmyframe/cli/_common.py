"""Options shared by the commands that talk to a node."""

from __future__ import annotations

import argparse
import re
from typing import Any

from hmyframe.engine import FetchOptions
from hmyframe.rpc import RetryPolicy

__all__ = ["add_rpc_arguments", "fetch_options", "request_options", "rpc_target", "trace_urls"]


def trace_urls(text: str) -> str | dict[int, str]:
    """Parse ``--trace-rpc``: one URL, or ``SHARD=URL`` pairs separated by commas."""
    if not re.match(r"\s*\d+\s*=", text):
        return text
    out: dict[int, str] = {}
    for part in text.split(","):
        shard, sep, url = part.partition("=")
        if not sep or not shard.strip().isdigit() or not url.strip():
            raise argparse.ArgumentTypeError(
                f"expected SHARD=URL pairs like 0=http://host:9501, got {part!r}"
            )
        out[int(shard)] = url.strip()
    return out


def add_rpc_arguments(parser: argparse.ArgumentParser, *, fetching: bool = True) -> None:
    """Add ``--rpc``, ``--timeout``, ``--retries`` (and, for fetching commands, the politeness and
    request-shape options)."""
    group = parser.add_argument_group("node")
    group.add_argument(
        "--rpc",
        action="append",
        default=None,
        metavar="URL",
        help="node URL, or 'devnet' for the embedded devnet (default: $HMYFRAME_RPC, else "
        "https://api.s0.t.hmny.io); repeat it for several endpoints of one chain: requests are spread "
        "over them by speed, a failing one is set aside and tried again later",
    )
    group.add_argument(
        "--timeout",
        type=_positive_seconds,
        default=FetchOptions.timeout,
        metavar="SECONDS",
        help=f"seconds allowed for one HTTP request (default {FetchOptions.timeout:g})",
    )
    group.add_argument(
        "--retries",
        type=_retries,
        default=RetryPolicy.attempts - 1,
        metavar="N",
        help=f"retries of a failed request (default {RetryPolicy.attempts - 1}); a call never takes "
        f"longer than max({RetryPolicy.max_elapsed:g} s, --timeout) in all",
    )
    if not fetching:
        return
    group.add_argument(
        "--trace-rpc",
        type=trace_urls,
        default=None,
        help="URL serving trace_* for the --rpc node's shard, or per shard as '0=URL,1=URL' "
        "(default: $HMYFRAME_TRACE_RPC)",
    )
    group.add_argument(
        "--max-in-flight", type=int, default=8, help="HTTP requests in flight at once (default 8)"
    )
    group.add_argument(
        "--rps",
        type=float,
        default=None,
        help="cap on HTTP requests per second to each endpoint, all workers together (default none)",
    )
    group.add_argument(
        "--strategy",
        choices=("range", "batch"),
        default="range",
        help="getBlocks ranges or batched getBlockByNumber (default range)",
    )
    group.add_argument("--chunk-size", type=int, default=1000, help="blocks per cache file (default 1000)")
    group.add_argument(
        "--convert-processes",
        type=int,
        default=0,
        metavar="N",
        help="worker processes converting and writing chunks on other cores (default 0: threads of this process)",
    )
    group.add_argument(
        "--blocks-per-request", type=int, default=100, help="blocks per getBlocks call or batch (default 100)"
    )
    group.add_argument(
        "--api",
        type=int,
        choices=(1, 2),
        default=2,
        help="hmy_ (1) or hmyv2_ (2) methods (default 2); with 1 no hmyv2_ method is asked",
    )


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def _retries(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number of retries >= 0, got {text!r}")
    return int(text)


def rpc_target(args: argparse.Namespace) -> object:
    """What ``--rpc`` names: a URL, ``"devnet"``, a list of URLs (``--rpc`` repeated) or ``None``
    (the default endpoint)."""
    value: Any = args.rpc
    if isinstance(value, list):
        return value[0] if len(value) == 1 else value
    return value


def request_options(args: argparse.Namespace) -> FetchOptions:
    """:class:`FetchOptions` with the ``--timeout`` and ``--retries`` of any node command."""
    return FetchOptions(timeout=args.timeout, retry=RetryPolicy(attempts=args.retries + 1))


def fetch_options(args: argparse.Namespace) -> FetchOptions:
    """:class:`FetchOptions` from the parsed node options."""
    return FetchOptions(
        chunk_size=args.chunk_size,
        blocks_per_request=args.blocks_per_request,
        strategy=args.strategy,
        version=args.api,
        max_in_flight=args.max_in_flight,
        requests_per_second=args.rps,
        timeout=args.timeout,
        retry=RetryPolicy(attempts=args.retries + 1),
        convert_processes=args.convert_processes,
    )
