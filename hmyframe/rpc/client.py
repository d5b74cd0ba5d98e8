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
from hmyframe.rpc.batching import DEFAULT_BATCH_LIMITS, MAX_BODY_BYTES, Batcher, Endpoint, InFlight
from hmyframe.rpc.envelope import Call, Envelopes
from hmyframe.rpc.methods import Methods, block_number_param, tx_hash_param
from hmyframe.rpc.pacing import NODE_VALIDATOR_PACING, Pacing, ValidatorPacing, is_validator_listing
from hmyframe.rpc.retry import RetryPolicy
from hmyframe.rpc.routing import Router, is_loopback
from hmyframe.rpc.sending import LONG_WAIT, Sender, abandon
from hmyframe.rpc.shared import ClientStats, ShardInfo
from hmyframe.rpc.transport import DEFAULT_MAX_ANSWER_BYTES, Transport

__all__ = [
    "DEFAULT_BATCH_LIMITS",
    "DEFAULT_MAX_ANSWER_BYTES",
    "LONG_WAIT",
    "MAX_BODY_BYTES",
    "NODE_VALIDATOR_PACING",
    "Client",
    "ClientStats",
    "ShardInfo",
    "ValidatorPacing",
    "is_validator_listing",
]


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
        Pacing of ``*_getAllValidatorInformation*`` calls, per endpoint. ``"auto"`` (the
        default): unpaced until one of them is refused for its rate at an endpoint (the
        node's ``-32000`` ``rate: Wait(n=1) would exceed context deadline``, or an HTTP
        status in ``retry.rate_limit_statuses``); from then on, for the client's life, that
        endpoint's listings pass a token bucket equal to the node's limiter
        (:data:`NODE_VALIDATOR_PACING`, 1 req/s, burst 3) starting empty, and the refused calls
        are retried under ``retry`` like any rate-limit failure (``stats.pacing_engaged``
        counts the switches). A ``(rate, burst)`` pair paces from the first call; ``None``
        never paces.
    headers
        Extra HTTP headers (an ``Authorization`` header for a private endpoint...).
    batch_limits
        Per-method caps on items per batch, merged over :data:`DEFAULT_BATCH_LIMITS`
        (``{"trace_block": 5}``; 1 = always alone). The validator listings are always alone.
    max_body_bytes
        Largest request body sent; batches are split to stay under it.
    max_answer_bytes
        Largest answer body read (after decompression; default
        :data:`~hmyframe.rpc.transport.DEFAULT_MAX_ANSWER_BYTES`, 128 MiB, which holds a
        ``getBlocks`` of 1,025 full blocks several times over). A larger answer is dropped as
        soon as it passes the cap, so memory stays bounded whatever a server sends; a batch
        is then retried in halves, a single call fails with
        :class:`~hmyframe.errors.ResponseTooLargeError`.
    verify_endpoints
        Before the first call to a shard URL learnt from ``hmy_getShardingStructure`` (not
        one given in ``shard_urls``), check that it belongs to the same network: its sharding structure must list the same shards and URLs as the home
        node's, with the expected shard marked current. Before the first call to a trace URL,
        check that its genesis block is its shard's (when it serves ``hmy_getBlockByNumber``).
        A mismatch raises :class:`~hmyframe.errors.WrongChainError`; each check costs one or
        two requests, once per URL.
    compression
        Ask for gzip-compressed answers. ``None`` (default): yes, except from loopback hosts
        (``127.0.0.0/8``, ``::1``, ``localhost``), where compressing costs both sides more
        CPU than it saves (3x fewer full blocks per second from the local devnet). An
        ``Accept-Encoding`` in ``headers`` always wins.

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
        self._compression = compression
        transport = Transport(
            timeout=timeout, headers=headers, connections=max_in_flight, max_answer_bytes=max_answer_bytes
        )
        self._in_flight = InFlight(max_in_flight, self.stats)
        self._sender = Sender(
            transport,
            retry=retry,
            timeout=float(timeout),
            in_flight=self._in_flight,
            pacing=pacing,
            stats=self.stats,
        )
        self._batcher = Batcher(
            self._sender.spawn, batch_size=batch_size, max_body=max_body_bytes, batch_limits=batch_limits
        )
        self._envelopes = Envelopes(max_body_bytes)
        self._endpoints: dict[str, Endpoint] = {}
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
        for ep in self._endpoints.values():
            abandon(ep, self._batcher.drain(ep), "the client was closed before the call was sent")
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

    # ------------------------------------------------------------------ routing

    async def shards(self) -> list[ShardInfo]:
        """The network's shards, from ``hmy_getShardingStructure`` on the home URL (cached).

        Returns
        -------
        list[ShardInfo]
            One entry per shard, sorted by shard id.
        """
        return await self._router.shards()

    async def home_shard(self) -> int:
        """The shard the home ``url`` serves (the sharding-structure entry with ``current=true``).

        Raises
        ------
        ResponseShapeError
            If no entry (or more than one) is marked current.
        """
        return await self._router.home_shard()

    def routes_without_asking(self, shard: int) -> bool:
        """Whether a call for ``shard`` can be routed without asking the node for its shards.

        True once ``hmy_getShardingStructure`` has been answered, or when the caller named the
        shard's URL.
        """
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

    def _endpoint(self, url: str) -> Endpoint:
        ep = self._endpoints.get(url)
        if ep is None:
            encoding: str | None = None  # the caller's Accept-Encoding header, or aiohttp's gzip
            if not self._sender.transport.sets_accept_encoding:
                compress = self._compression if self._compression is not None else not is_loopback(url)
                encoding = None if compress else "identity"
            ep = self._endpoints[url] = Endpoint(url, encoding)
        return ep

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
        ResponseShapeError
            The answer was not a JSON-RPC envelope.
        ConfigError
            Bad arguments or routing.
        """
        return await self._single(method, params, shard, trace, raw=False)

    async def request_raw(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> bytes:
        """Like :meth:`request`, but return the raw JSON bytes of ``result`` undecoded.

        Parameters
        ----------
        method, params, shard, trace
            As for :meth:`request`.

        Returns
        -------
        bytes
            The exact bytes of the ``result`` value (``b"null"`` for null).
        """
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

        The list is split into batches of at most ``batch_size`` items and at most
        ``max_body_bytes``; solo methods are sent on their own. Failed items are retried
        alone.

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
        given: object = calls
        if isinstance(given, str | bytes) or not isinstance(given, Sequence):
            raise ConfigError(f"batch() takes a list of (method, params) pairs, got {short_repr(calls)}")
        made: list[Call] = []
        for i, entry in enumerate(calls):
            pair: object = entry
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise ConfigError(f"batch item {i} must be a (method, params) pair, got {short_repr(entry)}")
            made.append(self._make_call(entry[0], entry[1], raw))
        if not made:
            return []
        self._batcher.send_batch(self._endpoint(await self.endpoint_url(shard, trace=trace)), made)
        results = await asyncio.gather(*(c.future for c in made), return_exceptions=True)
        if not return_exceptions:
            for item in results:
                if isinstance(item, BaseException):
                    raise item
        return list(results)

    async def trace_transaction(self, tx_hash: str, shard: int | None = None) -> Any:
        """``trace_transaction``: Parity-style traces of one transaction (a list), from the trace URL.

        Parameters
        ----------
        tx_hash
            ``0x`` + 64 hex digits.
        shard
            Shard of the transaction; ``None`` for the home shard.
        """
        return await self.request("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_transaction_raw(self, tx_hash: str, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_transaction`."""
        return await self.request_raw("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_block(self, number: int, shard: int | None = None) -> Any:
        """``trace_block``: traces of every transaction of a block (number sent as hex string):
        ``[]`` for a block without EVM transactions, ``None`` if the node lacks the block.

        Parameters
        ----------
        number
            Block number (>= 0).
        shard
            Shard of the block; ``None`` for the home shard.
        """
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
        self._check_open()
        call = self._make_call(method, params, raw)
        self._batcher.enqueue(self._endpoint(await self.endpoint_url(shard, trace=trace)), call)
        return await call.future

    async def _call_at(self, url: str, method: str, params: list[Any]) -> Any:
        """One call to ``url`` as it is (no routing, so no verification)."""
        self._check_open()
        call = self._make_call(method, params, False)
        self._batcher.enqueue(self._endpoint(url), call)
        return await call.future

    def _make_call(self, method: Any, params: Any, raw: bool) -> Call:
        return self._envelopes.make(method, params, raw)
