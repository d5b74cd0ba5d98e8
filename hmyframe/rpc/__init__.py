"""Talking to Harmony nodes: the async JSON-RPC client and its parts, one module per job.

The path of one call, ``await client.v2.get_block_by_number(7, shard=1)``::

    methods.py    Methods         checks the arguments, encodes the params (v1 hex / v2 ints),
        |                         names the method; calls any Caller (shared.py): a Client,
        |                         or an EndpointPool (pool.py: picks an endpoint's Client,
        |                         its chain checked first)
        v
    client.py     Client.request  the composition of the modules below
        |-- envelope.py  Envelopes    the call gets its id and its encoded JSON-RPC item
        |-- routing.py   Router       shard 1 -> its URL (hmy_getShardingStructure, shard_urls
        |                             or the trace URL), checked once to serve this network
        v
    batching.py   Batcher         queued in the URL's lane: concurrent calls leave together
        |                         as one batch (next loop tick, batch_size, 5 MiB, method caps,
        |                         the window's advice)
        v
    sending.py    Sender          one task per batch, until every call has an outcome:
        |-- window.py    Window       room for its node calls in the endpoint's window of its
        |                             method (learns from the answer time, refusal, timeout)
        |-- pacing.py    Pacing       a validator listing waits for its endpoint's pacer
        |-- batching.py  InFlight     one of max_in_flight places, then a req/s token (pacing.py)
        |-- transport.py Transport    one POST (timeout, answer size cap, Retry-After)
        |-- envelope.py  decode/match the answer decoded, matched to the calls by id, settled
        |-- retry.py     RetryPolicy  retryable failures: wait, resend only those, halve a batch
        |                             too big for the way; give up after ``attempts`` or the
        |                             ``max_elapsed`` budget
        v
    the caller's future: the decoded ``result`` (exact ints), the raw ``result`` bytes, or an
    hmyframe.errors exception (the only kind that leaves this package)

* :class:`Client` — that composition; ``client.v1`` / ``client.v2`` hold the typed methods.
* :class:`Caller` — what :class:`Methods` needs: ``request`` and ``request_raw``.
* :class:`RetryPolicy` — what is retried and how long to wait (plain data).
* :class:`TokenBucket` — the async rate limiter used for ``requests_per_second`` and the
  validator pacing.
* :class:`Window` — the work kept out at an endpoint, learnt from answer times and rate refusals
  (a node's rate limit used fully, its queue never past a timeout); :func:`call_cost` — the
  node calls one call costs (a ``getBlocks`` of ``n`` blocks: ``n``).
* :func:`watch_heads` — a shard's new head numbers as they come (WebSocket ``newHeads`` or
  polling), with :class:`HeadReport` for stalls, lower heads and reconnections;
  :class:`ShardHeads` — the :class:`HeadSource` of a follower (every shard through
  :func:`watch_heads`), :func:`check_heads` — its ``heads`` / ``poll`` arguments checked.
"""

from __future__ import annotations

from hmyframe.rpc.batching import DEFAULT_BATCH_LIMITS, MAX_BODY_BYTES
from hmyframe.rpc.client import Client
from hmyframe.rpc.heads import HEADS_MODES, HeadReport, HeadSource, ShardHeads, check_heads, watch_heads
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.methods import GET_BLOCKS_MAX, Methods
from hmyframe.rpc.pacing import is_validator_listing
from hmyframe.rpc.pool import endpoint_fault
from hmyframe.rpc.retry import RetryPolicy, parse_retry_after
from hmyframe.rpc.shared import Caller, ClientStats, ShardInfo
from hmyframe.rpc.window import Window, call_cost

__all__ = [
    "DEFAULT_BATCH_LIMITS",
    "GET_BLOCKS_MAX",
    "HEADS_MODES",
    "MAX_BODY_BYTES",
    "Caller",
    "Client",
    "ClientStats",
    "HeadReport",
    "HeadSource",
    "Methods",
    "RetryPolicy",
    "ShardHeads",
    "ShardInfo",
    "TokenBucket",
    "Window",
    "call_cost",
    "check_heads",
    "endpoint_fault",
    "is_validator_listing",
    "parse_retry_after",
    "watch_heads",
]
