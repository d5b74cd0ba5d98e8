"""Talking to Harmony nodes: the async JSON-RPC client and its parts, one module per job.

The path of one call, ``await client.v2.get_block_by_number(7, shard=1)``::

    methods.py     Methods        checks the arguments, encodes the params for v1/v2, names the
       │                          method; calls any Caller (shared.py): a Client or a pool
       ▼
    client.py      Client.request the composition below; pool.py's EndpointPool instead picks
       │                          an endpoint's Client (chain checked first) and calls it
       ├─ routing.py   Router         shard 1 -> its URL from hmy_getShardingStructure (or
       │                              shard_urls / the trace URL), checked once to serve this
       │                              network (verify_endpoints)
       ├─ envelope.py  Envelopes      the call gets an id and its encoded JSON-RPC item
       ▼
    batching.py    Batcher        queued in the URL's lane; concurrent calls leave together as
       │                          one batch (next loop tick, batch_size, 5 MiB body, per-method caps)
       ▼
    sending.py     Sender         a task per batch, until every call has an outcome:
       │   ┌──────────────────────────────────────────────────────────────────────────────┐
       │   │ pacing.py    Pacing    a paced validator listing waits for its endpoint's pacer │
       │   │ batching.py  InFlight  one of max_in_flight places (after a req/s token)        │
       │   │ transport.py Transport one POST of the body (timeouts, size cap, Retry-After)  │
       │   │ envelope.py            answer decoded, matched to the calls by id, settled     │
       │   └─ retryable failures (retry.py RetryPolicy): wait, resend only those, halve a   │
       │      batch too big for the way; give up after attempts / the max_elapsed budget   │
       ▼
    the caller's future: the decoded ``result`` (exact ints), raw bytes, or an
    hmyframe.errors exception (the only kind that leaves this package)

* :class:`Client` — that composition; ``client.v1`` / ``client.v2`` hold the typed methods.
* :class:`RetryPolicy` — what is retried and how long to wait (plain data).
* :class:`TokenBucket` — the async rate limiter used for ``requests_per_second`` and the
  validator pacing.
"""

from __future__ import annotations

from hmyframe.rpc.batching import DEFAULT_BATCH_LIMITS, MAX_BODY_BYTES
from hmyframe.rpc.client import Client
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.methods import GET_BLOCKS_MAX, Methods
from hmyframe.rpc.pacing import is_validator_listing
from hmyframe.rpc.retry import RetryPolicy, parse_retry_after
from hmyframe.rpc.shared import Caller, ClientStats, ShardInfo

__all__ = [
    "DEFAULT_BATCH_LIMITS",
    "GET_BLOCKS_MAX",
    "MAX_BODY_BYTES",
    "Caller",
    "Client",
    "ClientStats",
    "Methods",
    "RetryPolicy",
    "ShardInfo",
    "TokenBucket",
    "is_validator_listing",
    "parse_retry_after",
]
