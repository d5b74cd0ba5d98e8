"""What the client, the endpoint pool and the typed methods share, so none imports another.

* :class:`Caller` — something that can make calls: what :class:`~hmyframe.rpc.methods.Methods`
  needs, and what both :class:`~hmyframe.rpc.Client` and
  :class:`~hmyframe.rpc.pool.EndpointPool` provide.
* :class:`ShardInfo` — one entry of ``hmy_getShardingStructure``.
* :class:`ClientStats` — the counters of what a client sent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Caller", "ClientStats", "ShardInfo"]


class Caller(Protocol):
    """Something that can make JSON-RPC calls (a :class:`~hmyframe.rpc.Client` or an
    :class:`~hmyframe.rpc.pool.EndpointPool`)."""

    async def request(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> Any:
        """Call ``method`` and return its decoded ``result``."""
        ...

    async def request_raw(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> bytes:
        """Call ``method`` and return the raw JSON bytes of its ``result``."""
        ...


@dataclass(frozen=True, slots=True)
class ShardInfo:
    """One entry of ``hmy_getShardingStructure``.

    Attributes
    ----------
    shard_id
        The shard number.
    http
        The shard's HTTP JSON-RPC URL, as the node lists it.
    ws
        The shard's WebSocket URL (``""`` if the node lists none).
    current
        Whether the node that answered serves this shard.
    """

    shard_id: int
    http: str
    ws: str
    current: bool


@dataclass
class ClientStats:
    """Counters of what a :class:`~hmyframe.rpc.Client` sent; :meth:`reset` zeroes them.

    Attributes
    ----------
    http_requests
        HTTP POSTs attempted (retries included).
    calls
        JSON-RPC items sent (an item re-sent by a retry counts again).
    batches
        HTTP requests whose body was a JSON array (two or more items).
    batch_splits
        Times a failed batch was retried in halves (see :class:`~hmyframe.rpc.Client`).
    retries
        Items re-sent, by failure reason (``http_429``, ``rpc_rate_limit``, ``reset``,
        ``timeout``, ``bad_body``, ``missing``...; see :mod:`hmyframe.rpc.retry`).
    retry_wait
        Seconds of back-off waited (summed over retry rounds; ``Retry-After`` included).
    pacing_wait
        Seconds waited by the validator-listing pacer.
    pacing_engaged
        Endpoints at which ``validator_pacing="auto"`` switched pacing on after a rate-limit
        refusal of a validator listing (``0`` while every listing went through unpaced).
        Pacing stays on for the client's life; :meth:`reset` zeroes the count, not the pacing.
    bytes_sent, bytes_received
        Request and (decompressed) answer body bytes.
    max_in_flight
        Most HTTP requests this client had in flight at once.
    parts
        Requests more than their endpoint's window allowed for one, sent as this many more
        parts (a batch as smaller batches, a ``getBlocks`` as shorter ranges: see
        :mod:`hmyframe.rpc.window`).
    """

    http_requests: int = 0
    calls: int = 0
    batches: int = 0
    batch_splits: int = 0
    retries: Counter[str] = field(default_factory=Counter)
    retry_wait: float = 0.0
    pacing_wait: float = 0.0
    pacing_engaged: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    max_in_flight: int = 0
    parts: int = 0

    @property
    def total_retries(self) -> int:
        """All re-sent items, whatever the reason."""
        return sum(self.retries.values())

    def reset(self) -> None:
        """Zero every counter."""
        self.http_requests = self.calls = self.batches = self.batch_splits = self.pacing_engaged = 0
        self.retries = Counter()
        self.retry_wait = self.pacing_wait = 0.0
        self.bytes_sent = self.bytes_received = self.max_in_flight = self.parts = 0
