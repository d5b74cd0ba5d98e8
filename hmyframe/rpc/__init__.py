"""Talking to Harmony nodes: the async JSON-RPC client and its parts.

* :class:`Client` — envelopes, ids, auto-batching, in-flight bound, rate limits, retries,
  shard and trace routing; ``client.v1`` / ``client.v2`` hold the typed methods.
* :class:`RetryPolicy` — what is retried and how long to wait (plain data).
* :class:`TokenBucket` — the async rate limiter used for ``requests_per_second`` and the
  validator pacing.
* :func:`watch_heads` — a shard's new head numbers as they come (WebSocket ``newHeads`` or
  polling), with :class:`HeadReport` for stalls, lower heads and reconnections.
"""

from __future__ import annotations

from hmyframe.rpc.client import (
    DEFAULT_BATCH_LIMITS,
    MAX_BODY_BYTES,
    Client,
    ClientStats,
    ShardInfo,
    is_validator_listing,
)
from hmyframe.rpc.heads import HeadReport, watch_heads
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.methods import GET_BLOCKS_MAX, Methods
from hmyframe.rpc.retry import RetryPolicy, parse_retry_after

__all__ = [
    "DEFAULT_BATCH_LIMITS",
    "GET_BLOCKS_MAX",
    "MAX_BODY_BYTES",
    "Client",
    "ClientStats",
    "HeadReport",
    "Methods",
    "RetryPolicy",
    "ShardInfo",
    "TokenBucket",
    "is_validator_listing",
    "parse_retry_after",
    "watch_heads",
]
