"""The JSON-RPC client every hmyframe fetcher goes through: :class:`Client`, a short
composition of one module per job (the call path is drawn in :mod:`hmyframe.rpc`):

* :mod:`~hmyframe.rpc.envelope` — envelopes and ids; answers matched to calls by id.
* :mod:`~hmyframe.rpc.batching` — auto-batching and the in-flight bound.
* :mod:`~hmyframe.rpc.pacing` — the ``requests_per_second`` bucket and validator pacing.
* :mod:`~hmyframe.rpc.sending` — one HTTP round trip, retries and the time budget.
* :mod:`~hmyframe.rpc.routing` — shard and trace URL routing, and chain identity.
* :mod:`~hmyframe.rpc.transport` — the aiohttp session; gzip answers from remote nodes,
  uncompressed from loopback hosts, where compressing costs more CPU than it saves.

Only :mod:`hmyframe.errors` exceptions leave this module.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

from hmyframe.errors import ConfigError, redact_url, short_repr
from hmyframe.rpc._check import check_number
from hmyframe.rpc.batching import MAX_BODY_BYTES, Batcher, InFlight
from hmyframe.rpc.envelope import Call, Envelopes
from hmyframe.rpc.methods import Methods, block_number_param, tx_hash_param
from hmyframe.rpc.pacing import Pacing, ValidatorPacing
from hmyframe.rpc.retry import RetryPolicy
from hmyframe.rpc.routing import Router
from hmyframe.rpc.sending import Sender
from hmyframe.rpc.shared import ClientStats, ShardInfo
from hmyframe.rpc.transport import DEFAULT_MAX_ANSWER_BYTES, Transport
from hmyframe.rpc.window import Window

__all__ = ["Client", "ClientStats", "ShardInfo", "ValidatorPacing"]


class Client:
    """Async JSON-RPC client for Harmony nodes: batching, politeness, retries, routing.

    Parameters
    ----------
    url
        HTTP JSON-RPC URL of a node (its "home" shard is the one it serves).
    trace_url
        URL serving ``trace_*`` for the home shard, or a mapping ``{shard: url}``.
    shard_urls
        Overrides of the per-shard URLs listed by ``hmy_getShardingStructure``.
    max_in_flight
        Most HTTP requests in flight at once (all endpoints together).
    batch_size
        Most items per JSON-RPC batch.
    requests_per_second
        Token-bucket cap on HTTP requests per second (burst 1); ``None`` for no cap.
    timeout
        Seconds allowed per HTTP request.
    retry
        What to retry and how long to wait; see :class:`~hmyframe.rpc.retry.RetryPolicy`.
    validator_pacing
        Pacing of ``*_getAllValidatorInformation*`` calls, per endpoint. ``"auto"`` (default):
        unpaced until one is refused for its rate (the node's ``-32000`` ``rate: Wait(n=1)...``
        or a status in ``retry.rate_limit_statuses``), then paced like the node's limiter for the
        client's life and the refused calls retried (:mod:`~hmyframe.rpc.pacing`;
        ``stats.pacing_engaged`` counts the switches). ``(rate, burst)`` paces from the first
        call; ``None`` never paces.
    headers
        Extra HTTP headers (an ``Authorization`` header for a private endpoint...).
    batch_limits
        Per-method caps on items per batch, merged over :data:`~hmyframe.rpc.batching.DEFAULT_BATCH_LIMITS`
        (``{"trace_block": 5}``; 1 = always alone). The validator listings are always alone.
    max_body_bytes
        Largest request body sent; batches are split to stay under it.
    max_answer_bytes
        Largest answer body read, decompressed (default 128 MiB: a ``getBlocks`` of 1,025 full
        blocks several times over). A larger answer is dropped as soon as it passes the cap; a
        batch is then retried in halves, a single call fails with ``ResponseTooLargeError``.
    verify_endpoints
        Before the first call to a shard URL learnt from ``hmy_getShardingStructure`` (not from
        ``shard_urls``), check that its sharding structure lists the home node's shards and URLs
        with the expected shard current; before the first call to a trace URL, that its genesis
        block is its shard's. A mismatch raises ``WrongChainError``; one or two requests per URL.
    compression
        Ask for gzip-compressed answers. ``None`` (default): yes, except from loopback hosts,
        where compressing costs more CPU than it saves (3x fewer full blocks per second from
        the local devnet). An ``Accept-Encoding`` in ``headers`` always wins.

    Raises
    ------
    ConfigError
        If a URL or a setting is invalid.

    Notes
    -----
    A client belongs to the event loop it was opened in and is not thread-safe. Its limits
    (in-flight bound, token buckets, validator pacing) are per client: two clients on the
    same node each get their own.

    Examples
    --------
    >>> async def head(url: str) -> int:                         # doctest: +SKIP
    ...     async with Client(url) as client:
    ...         return await client.v2.block_number()
    """

    def __init__(
        self,
        url: str,
        *,
        trace_url: str | Mapping[int, str] | None = None,
        shard_urls: Mapping[int, str] | None = None,
        max_in_flight: int = 8,
        batch_size: int = 100,
        requests_per_second: float | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008  (a frozen dataclass: immutable default)
        validator_pacing: ValidatorPacing = "auto",
        headers: Mapping[str, str] | None = None,
        batch_limits: Mapping[str, int] | None = None,
        max_body_bytes: int = MAX_BODY_BYTES,
        compression: bool | None = None,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
        verify_endpoints: bool = True,
    ) -> None:
        self._router = Router(
            url,
            trace_url=trace_url,
            shard_urls=shard_urls,
            verify_endpoints=verify_endpoints,
            ask=self._call_at,
        )
        check_number(max_in_flight, "max_in_flight", minimum=1, integer=True)
        check_number(batch_size, "batch_size", minimum=1, integer=True)
        check_number(timeout, "timeout", minimum=0.001)
        check_number(max_body_bytes, "max_body_bytes", minimum=64, integer=True)
        check_number(max_answer_bytes, "max_answer_bytes", minimum=64, integer=True)
        if requests_per_second is not None:
            check_number(requests_per_second, "requests_per_second", minimum=1e-9)
        policy: object = retry
        if not isinstance(policy, RetryPolicy):
            raise ConfigError(f"retry must be a RetryPolicy, got {short_repr(retry)}")
        self.stats = ClientStats()
        pacing = Pacing(requests_per_second, validator_pacing, self.stats)
        flag: object = compression
        if flag is not None and not isinstance(flag, bool):
            raise ConfigError(f"compression must be True, False or None (automatic), got {short_repr(flag)}")
        transport = Transport(
            timeout=timeout, headers=headers, connections=max_in_flight, max_answer_bytes=max_answer_bytes
        )
        self._in_flight = InFlight(max_in_flight, self.stats)
        self._envelopes = Envelopes(max_body_bytes)
        self._sender = Sender(
            transport,
            retry=retry,
            timeout=float(timeout),
            in_flight=self._in_flight,
            pacing=pacing,
            stats=self.stats,
            make_call=self._envelopes.make,
        )
        self._batcher = Batcher(
            self._sender.spawn,
            lambda url: transport.accept_encoding(url, compression),
            batch_size=batch_size,
            max_body=max_body_bytes,
            batch_limits=batch_limits,
            requests=max_in_flight,
        )
        self.v1 = Methods(self, 1)
        self.v2 = Methods(self, 2)

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Client:
        if not self._sender.transport.is_open:
            # asyncio primitives bind to the loop that first waits on them: make fresh ones
            # for every opening, so a client can be reopened in another loop.
            self._in_flight.reopen()
            self._router.reopen()
            await self._sender.transport.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel pending sends (their callers get ``ConnectionFailedError``) and close the session."""
        tasks: list[asyncio.Task[Any]] = [*self._sender.tasks, *self._router.take_tasks()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._batcher.abandon_queued("the client was closed before the call was sent")
        await self._sender.transport.close()

    def _check_open(self) -> None:
        if not self._sender.transport.is_open:
            raise ConfigError(
                f"the client for {redact_url(self.url)} is not open: use it as `async with Client(...) as client`"
            )

    def __repr__(self) -> str:
        state = "open" if self._sender.transport.is_open else "closed"
        return (
            f"<Client {redact_url(self.url)} {state} max_in_flight={self.max_in_flight} "
            f"batch_size={self._batcher.batch_size}>"
        )

    @property
    def url(self) -> str:
        """The home URL this client was created with."""
        return self._router.url

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy in use."""
        return self._sender.retry

    @property
    def max_in_flight(self) -> int:
        """Most HTTP requests in flight at once."""
        return self._in_flight.limit

    def batch_cap(self, method: str) -> int:
        """Most calls of ``method`` sent in one HTTP request (1: always alone)."""
        return self._batcher.lane(method)[1]

    def window(self, url: str, method: str) -> Window:
        """The window of ``method``'s calls at ``url`` (:mod:`hmyframe.rpc.window`; made on first use)."""
        return self._batcher.endpoint(url).window(method)

    def request_calls(self, url: str | None, method: str) -> int | None:
        """The node calls one request of ``method`` to ``url`` should cost now (a ``getBlocks``
        of that many blocks), as its window advises once the endpoint showed a limit; ``None``:
        no advice (the caller's own sizes). ``url=None``: the most advised at any endpoint.
        See :mod:`hmyframe.rpc.window`."""
        endpoints = self._batcher.endpoints() if url is None else [self._batcher.endpoint(url)]
        advice = [
            calls
            for ep in endpoints
            if (window := ep.windows.get(method)) is not None
            and (calls := window.request_calls()) is not None
        ]
        return max(advice) if advice else None

    def node_limit(self) -> float | None:
        """The calls a second an endpoint of this client serves, when its rate limit is what bounds
        the speed now (the most of any endpoint's windows), else ``None``."""
        seen = [
            rate
            for ep in self._batcher.endpoints()
            for window in ep.windows.values()
            if (rate := window.node_limit()) is not None
        ]
        return max(seen) if seen else None

    # ------------------------------------------------------------------ routing

    async def shards(self) -> list[ShardInfo]:
        """The network's shards, one per shard by id, from ``hmy_getShardingStructure`` (cached)."""
        return await self._router.shards()

    async def home_shard(self) -> int:
        """The shard the home ``url`` serves (the sharding-structure entry with ``current=true``).

        Raises
        ------
        ResponseShapeError
            If no entry (or more than one) is marked current.
        """
        return await self._router.home_shard()

    def known_url(self, shard: int) -> str | None:
        """The URL of ``shard`` if it was given (``shard_urls``), else ``None`` (learnt URLs are
        asked of the node, and checked before their first use)."""
        return self._router.known_url(shard)

    def routes_without_asking(self, shard: int) -> bool:
        """Whether a call for ``shard`` can be routed without asking the node for its shards
        (``hmy_getShardingStructure`` answered already, or the shard's URL given)."""
        return self._router.routes_without_asking(shard)

    async def endpoint_url(self, shard: int | None = None, *, trace: bool = False) -> str:
        """The URL a call for ``shard`` (``None`` = home; the trace URL with ``trace``) is sent to.

        Raises
        ------
        ConfigError
            If the shard is not served, or no trace URL is configured for it.
        WrongChainError
            If the URL serves another network (``verify_endpoints``).
        """
        return await self._router.endpoint_url(shard, trace=trace)

    # ------------------------------------------------------------------ public calls

    async def request(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> Any:
        """Call ``method`` and return its decoded ``result`` (exact ints, ``Decimal`` floats).

        Concurrent calls to the same endpoint are sent together as one batch.

        Parameters
        ----------
        method
            JSON-RPC method name (``hmyv2_getBlockByNumber``...).
        params
            Positional params (a list or tuple).
        shard
            Target shard; ``None`` for the home shard.
        trace
            Send to the shard's trace URL.

        Returns
        -------
        Any
            The decoded ``result`` (``None`` for JSON ``null``).

        Raises
        ------
        RpcError
            The node answered with an error object (subclasses for -32601, -32602, not found).
        RateLimitError, HTTPStatusError, ConnectionFailedError
            After the retry policy gave up.
        ResponseShapeError, ConfigError
            The answer was not a JSON-RPC envelope; bad arguments or routing.
        """
        return await self._single(method, params, shard, trace, raw=False)

    async def request_raw(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> bytes:
        """Like :meth:`request` (same parameters), but return the exact JSON bytes of ``result``
        undecoded (``b"null"`` for null)."""
        result: bytes = await self._single(method, params, shard, trace, raw=True)
        return result

    async def batch(
        self,
        calls: Sequence[tuple[str, Sequence[Any]]],
        *,
        shard: int | None = None,
        trace: bool = False,
        raw: bool = False,
        return_exceptions: bool = False,
    ) -> list[Any]:
        """Send a list of calls as JSON-RPC batches; return the results in the same order.

        Split into batches of at most ``batch_size`` items and ``max_body_bytes``; solo methods
        are sent on their own. Failed items are retried alone.

        Parameters
        ----------
        calls
            ``(method, params)`` pairs.
        shard, trace
            Routing, as for :meth:`request` (one endpoint for the whole list).
        raw
            Return raw ``result`` bytes instead of decoded values.
        return_exceptions
            Put each failed call's exception in its slot instead of raising the first one.

        Returns
        -------
        list
            One result (or exception) per call, in order.
        """
        self._check_open()
        made = self._envelopes.make_all(calls, raw)
        if not made:
            return []
        self._batcher.send_batch(await self.endpoint_url(shard, trace=trace), made)
        results = await asyncio.gather(*(c.future for c in made), return_exceptions=True)
        if not return_exceptions:
            for item in results:
                if isinstance(item, BaseException):
                    raise item
        return list(results)

    async def trace_transaction(self, tx_hash: str, shard: int | None = None) -> Any:
        """``trace_transaction``: Parity-style traces (a list) of the transaction ``tx_hash``
        (``0x`` + 64 hex digits) of ``shard`` (``None``: home), from the trace URL."""
        return await self.request("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_transaction_raw(self, tx_hash: str, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_transaction`."""
        return await self.request_raw("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_block(self, number: int, shard: int | None = None) -> Any:
        """``trace_block``: traces of every transaction of block ``number`` (sent as hex) of
        ``shard`` (``None``: home): ``[]`` without EVM transactions, ``None`` if the node lacks it."""
        return await self.request("trace_block", [hex(block_number_param(number))], shard=shard, trace=True)

    async def trace_block_raw(self, number: int, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_block`."""
        return await self.request_raw(
            "trace_block", [hex(block_number_param(number))], shard=shard, trace=True
        )

    # ------------------------------------------------------------------ internals

    async def _single(
        self, method: str, params: Sequence[Any], shard: int | None, trace: bool, raw: bool
    ) -> Any:
        call = self._make_call(method, params, raw)  # the arguments are checked before any routing
        return await self._send(call, await self.endpoint_url(shard, trace=trace))

    async def _call_at(self, url: str, method: str, params: list[Any]) -> Any:
        """One call to ``url`` as it is (no routing, so no verification)."""
        return await self._send(self._make_call(method, params, False), url)

    async def _send(self, call: Call, url: str) -> Any:
        self._batcher.enqueue(url, call)
        return await call.future

    def _make_call(self, method: Any, params: Any, raw: bool) -> Call:
        self._check_open()
        return self._envelopes.make(method, params, raw)
