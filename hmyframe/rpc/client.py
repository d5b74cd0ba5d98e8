"""The JSON-RPC client every hmyframe fetcher goes through.

:class:`Client` owns one aiohttp session (through :class:`~hmyframe.rpc.transport.Transport`)
and adds, on top of plain HTTP POSTs:

* **Envelopes and ids.** Every call gets an id unique within the client; answers are matched
  to calls **by id, never by position** (a node or proxy may reorder a batch answer).
* **Auto-batching.** Concurrent :meth:`Client.request` calls to the same endpoint are
  coalesced into one JSON-RPC batch (flushed on the next event-loop tick, or as soon as
  ``batch_size`` calls are queued). Bodies never exceed the node's 5 MiB limit: a batch that
  would is split by encoded size. A batch of one is sent as a plain object. Some methods
  have a smaller cap (``batch_limits``): the range calls ``*_getBlocks`` and the validator
  listings always go alone, ``trace_block`` in batches of at most 20.
* **Politeness.** At most ``max_in_flight`` HTTP requests at once; an optional
  ``requests_per_second`` token bucket; and adaptive pacing of
  ``*_getAllValidatorInformation*`` (``validator_pacing="auto"``): the listings go unpaced
  until one is refused for its rate (the node's ``-32000`` limiter message or an HTTP 429);
  from then on that endpoint's listings pass a token bucket equal to the node's node-wide
  limiter (1 req/s, burst 3, starting empty since the node's bucket was just drained) and the
  refused calls are retried. A node run without the limiter (harmony PR #5025) is never
  slowed down; one with it waits or refuses at most the calls of the first burst. A fixed
  ``(rate, burst)`` paces from the first call, ``None`` never.
* **Retries** following a :class:`~hmyframe.rpc.retry.RetryPolicy`: connection failures,
  timeouts, truncated or non-JSON bodies, HTTP 429/502/503/504 (honouring ``Retry-After``), the
  node's ``-32000`` rate-limit messages and batch items missing from an answer. Only the
  failed items of a batch are sent again. When a batch fails in a way that suggests it was
  too big for the way (502/504 from a proxy, timeout, reset, cut-off body), it is retried in
  halves, and the endpoint's later batches are halved too; each 16 successful requests in a
  row double them back, up to ``batch_size``.
* **Routing.** ``shard=None`` is the shard ``url`` serves; other shards are reached at the
  URLs ``hmy_getShardingStructure`` lists (or ``shard_urls``). ``trace=True`` goes to the
  shard's trace URL.
* **Compression.** gzip answers from remote nodes; uncompressed from loopback hosts, where
  compressing costs more CPU than it saves (``compression=``).
* **Exact decoding** through :mod:`hmyframe._json` (big integers stay ``int``), or the raw
  bytes of ``result`` for typed decoders downstream.

Only :mod:`hmyframe.errors` exceptions leave this module.
"""

from __future__ import annotations

import asyncio
import ipaddress
import itertools
import logging
import math
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from types import MappingProxyType, TracebackType
from typing import Any, Literal, TypeAlias
from urllib.parse import urlsplit

import msgspec

from hmyframe import _json
from hmyframe.errors import (
    ConfigError,
    ConnectionFailedError,
    HmyframeError,
    HTTPStatusError,
    MethodNotFoundError,
    RateLimitError,
    ResponseShapeError,
    ResponseTooLargeError,
    WrongChainError,
    redact_url,
    short_repr,
)
from hmyframe.rpc._check import is_int
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.methods import Methods, block_number_param, tx_hash_param
from hmyframe.rpc.retry import RetryPolicy, rpc_error_class
from hmyframe.rpc.transport import DEFAULT_MAX_ANSWER_BYTES, HttpReply, Transport, TransportFault

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

#: The node's request body limit (``maxRequestContentLength``); larger bodies get HTTP 413.
MAX_BODY_BYTES = 5 * 1024 * 1024

#: Per-method caps on items per batch (1 = always sent alone). ``getBlocks`` answers are up to
#: 1025 blocks and the node runs a batch's items one after another, so they go alone;
#: proxies have answered 502 to large ``trace_block`` batches (harmony#5033), so those are
#: kept small. The validator listings are always alone whatever this says.
DEFAULT_BATCH_LIMITS: Mapping[str, int] = MappingProxyType(
    {"hmy_getBlocks": 1, "hmyv2_getBlocks": 1, "trace_block": 20}
)

#: Successful requests in a row after which a halved batch size is doubled back.
_RECOVER_AFTER = 16

#: A retry whose wait (or whose failed attempt) lasts this many seconds or more is announced
#: with a warning on the ``hmyframe.rpc`` logger (printed on stderr when logging is not
#: configured), so a long wait is never silent.
LONG_WAIT = 5.0

_log = logging.getLogger("hmyframe.rpc")

#: ``(rate, burst)`` of the node's node-wide limiter on ``*_getAllValidatorInformation*``
#: (1 request per second, burst 3): the pacing ``validator_pacing="auto"`` switches on.
NODE_VALIDATOR_PACING: tuple[float, int] = (1.0, 3)

#: What ``Client(validator_pacing=...)`` accepts: ``"auto"``, a fixed ``(rate, burst)``, or ``None``.
ValidatorPacing: TypeAlias = Literal["auto"] | tuple[float, int] | None


def is_validator_listing(method: str) -> bool:
    """Whether ``method`` is one of the node-wide rate-limited ``*_getAllValidatorInformation*`` calls.

    Parameters
    ----------
    method
        A JSON-RPC method name.

    Returns
    -------
    bool
        ``True`` for ``hmy_getAllValidatorInformation``, ``hmyv2_...ByBlockNumber`` etc.
    """
    return method.partition("_")[2].startswith("getAllValidatorInformation")


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
    """Counters of what a :class:`Client` sent; :meth:`reset` zeroes them.

    Attributes
    ----------
    http_requests
        HTTP POSTs attempted (retries included).
    calls
        JSON-RPC items sent (an item re-sent by a retry counts again).
    batches
        HTTP requests whose body was a JSON array (two or more items).
    batch_splits
        Times a failed batch was retried in halves (see :class:`Client`).
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

    @property
    def total_retries(self) -> int:
        """All re-sent items, whatever the reason."""
        return sum(self.retries.values())

    def reset(self) -> None:
        """Zero every counter."""
        self.http_requests = self.calls = self.batches = self.batch_splits = self.pacing_engaged = 0
        self.retries = Counter()
        self.retry_wait = self.pacing_wait = 0.0
        self.bytes_sent = self.bytes_received = self.max_in_flight = 0


class _ErrorObject(msgspec.Struct):
    code: int
    message: str = ""
    data: Any = None


class _Envelope(msgspec.Struct):
    jsonrpc: str | None = None
    id: int | str | None = None
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: _ErrorObject | None = None


_ANSWER: msgspec.json.Decoder[list[_Envelope] | _Envelope] = msgspec.json.Decoder(
    list[_Envelope] | _Envelope, float_hook=Decimal
)


@dataclass(eq=False, slots=True)
class _Call:
    """One JSON-RPC call on its way: encoded item, and the future its caller awaits."""

    id: int
    method: str
    params: list[Any]
    item: bytes
    raw: bool
    future: asyncio.Future[Any]

    def describe(self) -> str:
        return f"{self.method}({short_repr(self.params, 160)})"


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why one attempt of a call failed in a retryable way."""

    reason: str
    message: str
    retry_after: float | None = None
    status: int | None = None
    body: str = ""
    rate: bool = False


class _Lane:
    """Calls waiting to be coalesced into one batch (one lane per batch-size cap)."""

    __slots__ = ("calls", "nbytes", "scheduled")

    def __init__(self) -> None:
        self.calls: list[_Call] = []
        self.nbytes = 0
        self.scheduled = False


class _Endpoint:
    """Per-URL state: the auto-batching lanes, the validator pacer, the batch-size divisor."""

    __slots__ = ("accept_encoding", "lanes", "ok_streak", "pacer", "shrink", "url")

    def __init__(self, url: str, pacer: TokenBucket | None, accept_encoding: str | None) -> None:
        self.url = url
        self.pacer = pacer
        self.accept_encoding = accept_encoding
        self.lanes: defaultdict[str, _Lane] = defaultdict(_Lane)
        self.shrink = 1  # batch caps are divided by this after size-suspect failures
        self.ok_streak = 0


def _settle(call: _Call, value: Any) -> None:
    if not call.future.done():
        call.future.set_result(value)


def _fail(call: _Call, exc: BaseException) -> None:
    if not call.future.done():
        call.future.set_exception(exc)


def _id_key(value: int | str | None) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _check_url(url: Any, what: str) -> str:
    if not isinstance(url, str):
        raise ConfigError(f"{what} must be an http(s) URL string, got {short_repr(url)}")
    reason = ""
    try:
        parts = urlsplit(url)
        if parts.port is not None and not parts.hostname:
            reason = "no host"
    except ValueError as exc:
        parts, reason = None, str(exc)
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        why = f" ({reason})" if reason else ""
        raise ConfigError(
            f"{what} must be an http(s) URL such as http://127.0.0.1:9500, got {redact_url(url)!r}{why}"
        )
    return url


def _is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_shard(shard: Any) -> int | None:
    if shard is None:
        return None
    if isinstance(shard, bool) or not isinstance(shard, int) or shard < 0:
        raise ConfigError(f"shard must be None (the home shard) or an integer >= 0, got {short_repr(shard)}")
    return shard


def _shard_key(key: Any, what: str) -> int:
    if isinstance(key, bool) or not isinstance(key, int) or key < 0:
        raise ConfigError(f"{what} keys must be shard ids (integers >= 0), got {short_repr(key)}")
    return key


def _check_number(value: Any, what: str, *, minimum: float, integer: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f"{what} must be a finite number, got {short_repr(value)}")
    if integer and not isinstance(value, int):
        raise ConfigError(f"{what} must be an integer, got {short_repr(value)}")
    if value < minimum:
        raise ConfigError(f"{what} must be >= {minimum:g}, got {value!r}")


def _listing(shards: list[ShardInfo]) -> str:
    return ", ".join(f"{s.shard_id}={redact_url(s.http)}" for s in shards)


def _parse_shards(result: Any, url: str) -> list[ShardInfo]:
    what = "hmy_getShardingStructure"
    if not isinstance(result, list) or not result:
        raise ResponseShapeError(
            what, "$", result, f"a non-empty list of shard entries (from {redact_url(url)})"
        )
    shards: list[ShardInfo] = []
    for i, entry in enumerate(result):
        if not isinstance(entry, dict):
            raise ResponseShapeError(what, f"[{i}]", entry, "an object with shardID, http, ws, current")
        sid, http, ws, current = (
            entry.get("shardID"),
            entry.get("http"),
            entry.get("ws", ""),
            entry.get("current"),
        )
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            raise ResponseShapeError(what, f"[{i}].shardID", sid, "an integer >= 0")
        if not isinstance(http, str):
            raise ResponseShapeError(what, f"[{i}].http", http, "a URL string")
        if not isinstance(current, bool):
            raise ResponseShapeError(what, f"[{i}].current", current, "true or false")
        shards.append(ShardInfo(sid, http, ws if isinstance(ws, str) else "", current))
    return sorted(shards, key=lambda s: s.shard_id)


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
        self._url = _check_url(url, "url")
        self._trace: str | dict[int, str] | None
        if trace_url is None or isinstance(trace_url, str):
            self._trace = None if trace_url is None else _check_url(trace_url, "trace_url")
        elif isinstance(trace_url, Mapping):
            self._trace = {
                _shard_key(k, "trace_url"): _check_url(v, f"trace_url[{k!r}]") for k, v in trace_url.items()
            }
        else:
            raise ConfigError(
                f"trace_url must be a URL, a mapping {{shard: url}} or None, got {short_repr(trace_url)}"
            )
        if shard_urls is not None and not isinstance(shard_urls, Mapping):
            raise ConfigError(f"shard_urls must be a mapping {{shard: url}}, got {short_repr(shard_urls)}")
        self._shard_urls = {
            _shard_key(k, "shard_urls"): _check_url(v, f"shard_urls[{k!r}]")
            for k, v in (shard_urls or {}).items()
        }
        _check_number(max_in_flight, "max_in_flight", minimum=1, integer=True)
        _check_number(batch_size, "batch_size", minimum=1, integer=True)
        _check_number(timeout, "timeout", minimum=0.001)
        _check_number(max_body_bytes, "max_body_bytes", minimum=64, integer=True)
        _check_number(max_answer_bytes, "max_answer_bytes", minimum=64, integer=True)
        if requests_per_second is not None:
            _check_number(requests_per_second, "requests_per_second", minimum=1e-9)
        policy: object = retry
        if not isinstance(policy, RetryPolicy):
            raise ConfigError(f"retry must be a RetryPolicy, got {short_repr(retry)}")
        pacing: object = validator_pacing
        auto = isinstance(pacing, str) and pacing == "auto"
        if not auto and pacing is not None and (not isinstance(pacing, tuple | list) or len(pacing) != 2):
            raise ConfigError(
                'validator_pacing must be "auto" (the default: pace after the first rate-limit refusal), '
                f"a (rate, burst) pair such as (1.0, 3), or None (never pace), got {short_repr(validator_pacing)}"
            )
        fixed: tuple[float, int] | None = None
        if isinstance(pacing, tuple | list):
            TokenBucket(pacing[0], pacing[1])  # validates both numbers
            fixed = (float(pacing[0]), int(pacing[1]))
        limits: object = batch_limits
        if limits is not None and not isinstance(limits, Mapping):
            raise ConfigError(
                f"batch_limits must be a mapping {{method: max items}}, got {short_repr(limits)}"
            )
        given: Mapping[Any, Any] = batch_limits or {}
        for name, cap in given.items():
            if not isinstance(name, str) or not is_int(cap) or cap < 1:
                raise ConfigError(
                    f"batch_limits maps method names to integers >= 1, got {name!r}: {short_repr(cap)}"
                )
        self._limits: dict[str, int] = {**DEFAULT_BATCH_LIMITS, **given}
        self._lane_cache: dict[str, tuple[str, int]] = {}
        flag: object = compression
        if flag is not None and not isinstance(flag, bool):
            raise ConfigError(f"compression must be True, False or None (automatic), got {short_repr(flag)}")
        self._compression = compression
        self._max_in_flight = max_in_flight
        self._batch_size = batch_size
        self._max_body = max_body_bytes
        self._retry = retry
        self._pacing = fixed
        self._auto_pacing = auto
        self._rps = None if requests_per_second is None else TokenBucket(requests_per_second, 1)
        self._timeout = float(timeout)
        self._transport = Transport(
            timeout=timeout, headers=headers, connections=max_in_flight, max_answer_bytes=max_answer_bytes
        )
        self._semaphore = asyncio.Semaphore(max_in_flight)
        self._ids = itertools.count(1)
        self._endpoints: dict[str, _Endpoint] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._in_flight = 0
        self._verify = bool(verify_endpoints)
        self._verifications: dict[tuple[str, bool], asyncio.Task[None]] = {}
        self._shard_info: list[ShardInfo] | None = None
        self._shard_fetch: asyncio.Task[list[ShardInfo]] | None = None
        self.stats = ClientStats()
        self.v1 = Methods(self, 1)
        self.v2 = Methods(self, 2)

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Client:
        if not self._transport.is_open:
            # asyncio primitives bind to the loop that first waits on them: make fresh ones
            # for every opening, so a client can be reopened in another loop.
            self._semaphore = asyncio.Semaphore(self._max_in_flight)
            self._shard_fetch = None
            self._verifications = {
                k: t for k, t in self._verifications.items() if t.done() and not t.cancelled()
            }
            await self._transport.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel pending sends (their callers get ``ConnectionFailedError``) and close the session."""
        tasks: list[asyncio.Task[Any]] = list(self._tasks)
        if self._shard_fetch is not None and not self._shard_fetch.done():
            tasks.append(self._shard_fetch)
        tasks.extend(t for t in self._verifications.values() if not t.done())
        self._shard_fetch = None
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for endpoint in self._endpoints.values():
            for lane in endpoint.lanes.values():
                self._abandon(endpoint, lane.calls, "the client was closed before the call was sent")
                lane.calls, lane.nbytes = [], 0
        await self._transport.close()

    def _check_open(self) -> None:
        if not self._transport.is_open:
            raise ConfigError(
                f"the client for {redact_url(self._url)} is not open: use it as `async with Client(...) as client`"
            )

    def __repr__(self) -> str:
        state = "open" if self._transport.is_open else "closed"
        return (
            f"<Client {redact_url(self._url)} {state} max_in_flight={self._max_in_flight} "
            f"batch_size={self._batch_size}>"
        )

    @property
    def url(self) -> str:
        """The home URL this client was created with."""
        return self._url

    @property
    def retry_policy(self) -> RetryPolicy:
        """The retry policy in use."""
        return self._retry

    @property
    def max_in_flight(self) -> int:
        """Most HTTP requests in flight at once."""
        return self._max_in_flight

    def batch_cap(self, method: str) -> int:
        """Most calls of ``method`` sent in one HTTP request (1: always alone)."""
        return self._lane(method)[1]

    # ------------------------------------------------------------------ routing

    async def shards(self) -> list[ShardInfo]:
        """The network's shards, from ``hmy_getShardingStructure`` on the home URL (cached).

        Returns
        -------
        list[ShardInfo]
            One entry per shard, sorted by shard id.
        """
        if self._shard_info is None:
            # One shared fetch: every concurrent caller wakes in the same loop tick when it
            # completes, so their own calls are still coalesced into one batch (a lock would
            # wake them one tick apart).
            if self._shard_fetch is None:
                self._shard_fetch = asyncio.get_running_loop().create_task(self._fetch_shards())
            fetch = self._shard_fetch
            try:
                self._shard_info = await asyncio.shield(fetch)
            except HmyframeError:
                if self._shard_fetch is fetch:
                    self._shard_fetch = None  # let a later call try again
                raise
        return list(self._shard_info)

    async def _fetch_shards(self) -> list[ShardInfo]:
        return _parse_shards(await self.request("hmy_getShardingStructure", []), self._url)

    async def home_shard(self) -> int:
        """The shard the home ``url`` serves (the sharding-structure entry with ``current=true``).

        Returns
        -------
        int
            The shard id.

        Raises
        ------
        ResponseShapeError
            If no entry (or more than one) is marked current.
        """
        current = [s.shard_id for s in await self.shards() if s.current]
        if len(current) != 1:
            raise ResponseShapeError(
                "hmy_getShardingStructure",
                "current",
                current,
                f"exactly one shard marked current=true by {redact_url(self._url)}",
            )
        return current[0]

    def routes_without_asking(self, shard: int) -> bool:
        """Whether a call for ``shard`` can be routed without asking the node for its shards.

        True once ``hmy_getShardingStructure`` has been answered, or when the caller named the
        shard's URL.
        """
        return self._shard_info is not None or shard in self._shard_urls

    async def endpoint_url(self, shard: int | None = None, *, trace: bool = False) -> str:
        """The URL a call for ``shard`` (``None`` = home) is sent to.

        Parameters
        ----------
        shard
            Shard id, or ``None`` for the home shard.
        trace
            Whether the call is a ``trace_*`` call (sent to the trace URL).

        Returns
        -------
        str
            The endpoint URL.

        Raises
        ------
        ConfigError
            If the shard is not served, or no trace URL is configured for it.
        """
        shard = _check_shard(shard)
        if trace:
            return await self._verified(await self._trace_url(shard), shard, trace=True)
        if shard is None:
            return self._url
        if shard in self._shard_urls:
            return self._shard_urls[shard]  # the caller's own word
        infos = await self.shards()
        if shard == await self.home_shard():
            return self._url
        for info in infos:
            if info.shard_id == shard:
                url = _check_url(info.http, f"the URL hmy_getShardingStructure lists for shard {shard}")
                return await self._verified(url, shard, trace=False)
        raise ConfigError(
            f"shard {shard} is not served by this network: it has shards {[s.shard_id for s in infos]}"
        )

    async def _trace_url(self, shard: int | None) -> str:
        if self._trace is None:
            raise ConfigError(
                f"traces of shard {'home' if shard is None else shard} need a trace endpoint (the trace "
                "port of an archival node): pass trace_rpc= (Python; trace_url= to a Client), "
                "--trace-rpc (command line) or set HMYFRAME_TRACE_RPC"
            )
        if isinstance(self._trace, str):
            if shard is None or shard == await self.home_shard():
                return self._trace
            raise ConfigError(
                f"no trace endpoint for shard {shard}: the one given serves only the home shard "
                f"{await self.home_shard()}; give one per shard (trace_rpc={{shard: url}}, "
                "--trace-rpc 0=URL,1=URL)"
            )
        sid = shard if shard is not None else await self.home_shard()
        if sid in self._trace:
            return self._trace[sid]
        raise ConfigError(
            f"no trace endpoint for shard {sid}: trace URLs are given for shards {sorted(self._trace)}"
        )

    # ------------------------------------------------------------------ endpoint identity

    async def _verified(self, url: str, shard: int | None, *, trace: bool) -> str:
        """``url``, once it has been checked to serve this network (see ``verify_endpoints``)."""
        if not self._verify or (url == self._url and not trace):
            return url
        key = (url, trace)
        task = self._verifications.get(key)
        if task is None:
            check = self._check_trace_url(url, shard) if trace else self._check_shard_url(url, shard)
            task = asyncio.get_running_loop().create_task(check)
            self._verifications[key] = task
        try:
            await asyncio.shield(task)
        except WrongChainError:
            raise
        except HmyframeError:
            if self._verifications.get(key) is task:
                del self._verifications[key]  # could not tell (endpoint down): ask again next time
            raise
        return url

    async def _call_at(self, url: str, method: str, params: list[Any]) -> Any:
        """One call to ``url`` as it is (no routing, so no verification)."""
        self._check_open()
        call = self._make_call(method, params, False)
        self._enqueue(self._endpoint(url), call)
        return await call.future

    async def _check_shard_url(self, url: str, shard: int | None) -> None:
        home = await self.shards()
        theirs = _parse_shards(await self._call_at(url, "hmy_getShardingStructure", []), url)
        ours_listing = [(s.shard_id, s.http) for s in home]
        their_listing = [(s.shard_id, s.http) for s in theirs]
        if their_listing != ours_listing:
            raise WrongChainError(
                f"the URL of shard {shard}, {redact_url(url)}, belongs to another network: its "
                f"hmy_getShardingStructure lists {_listing(theirs)}, the home node {redact_url(self._url)} "
                f"lists {_listing(home)}; nothing was fetched from it"
            )
        current = [s.shard_id for s in theirs if s.current]
        if shard is not None and current != [shard]:
            raise WrongChainError(
                f"the URL of shard {shard}, {redact_url(url)}, serves shard {current[0] if current else '?'} "
                f"(its hmy_getShardingStructure marks it current); nothing was fetched from it"
            )

    async def _check_trace_url(self, url: str, shard: int | None) -> None:
        params: list[Any] = ["0x0", False]
        data_url = await self.endpoint_url(shard)
        ours = await self._call_at(data_url, "hmy_getBlockByNumber", params)
        try:
            theirs = await self._call_at(url, "hmy_getBlockByNumber", params)
        except MethodNotFoundError:
            return  # a trace-only endpoint: the traces' block hashes are checked instead
        ours_hash = ours.get("hash") if isinstance(ours, dict) else None
        theirs_hash = theirs.get("hash") if isinstance(theirs, dict) else None
        if not isinstance(ours_hash, str) or ours_hash.lower() != str(theirs_hash).lower():
            raise WrongChainError(
                f"the trace endpoint {redact_url(url)} serves another chain than shard "
                f"{'home' if shard is None else shard} at {redact_url(data_url)}: its genesis block hash is "
                f"{short_repr(theirs_hash)}, the shard's is {short_repr(ours_hash)}; nothing was fetched from it"
            )

    def _endpoint(self, url: str) -> _Endpoint:
        ep = self._endpoints.get(url)
        if ep is None:
            pacer = None if self._pacing is None else TokenBucket(*self._pacing)
            encoding: str | None = None  # the caller's Accept-Encoding header, or aiohttp's gzip
            if not self._transport.sets_accept_encoding:
                compress = self._compression if self._compression is not None else not _is_loopback(url)
                encoding = None if compress else "identity"
            ep = self._endpoints[url] = _Endpoint(url, pacer, encoding)
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
        made: list[_Call] = []
        for i, entry in enumerate(calls):
            pair: object = entry
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise ConfigError(f"batch item {i} must be a (method, params) pair, got {short_repr(entry)}")
            made.append(self._make_call(entry[0], entry[1], raw))
        if not made:
            return []
        ep = self._endpoint(await self.endpoint_url(shard, trace=trace))
        for group in self._groups(ep, made):
            self._spawn(ep, group)
        results = await asyncio.gather(*(c.future for c in made), return_exceptions=True)
        if not return_exceptions:
            for item in results:
                if isinstance(item, BaseException):
                    raise item
        return list(results)

    async def trace_transaction(self, tx_hash: str, shard: int | None = None) -> Any:
        """``trace_transaction``: Parity-style traces of one transaction, from the trace URL.

        Parameters
        ----------
        tx_hash
            ``0x`` + 64 hex digits.
        shard
            Shard of the transaction; ``None`` for the home shard.

        Returns
        -------
        list
            Trace entries (decoded JSON).
        """
        return await self.request("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_transaction_raw(self, tx_hash: str, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_transaction`."""
        return await self.request_raw("trace_transaction", [tx_hash_param(tx_hash)], shard=shard, trace=True)

    async def trace_block(self, number: int, shard: int | None = None) -> Any:
        """``trace_block``: traces of every transaction of a block (number sent as hex string).

        Parameters
        ----------
        number
            Block number (>= 0).
        shard
            Shard of the block; ``None`` for the home shard.

        Returns
        -------
        list or None
            Trace entries, ``[]`` for a block without EVM transactions, ``None`` if the
            node does not have the block.
        """
        return await self.request("trace_block", [hex(block_number_param(number))], shard=shard, trace=True)

    async def trace_block_raw(self, number: int, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_block`."""
        return await self.request_raw(
            "trace_block", [hex(block_number_param(number))], shard=shard, trace=True
        )

    # ------------------------------------------------------------------ internals: calls

    async def _single(
        self, method: str, params: Sequence[Any], shard: int | None, trace: bool, raw: bool
    ) -> Any:
        self._check_open()
        call = self._make_call(method, params, raw)
        ep = self._endpoint(await self.endpoint_url(shard, trace=trace))
        self._enqueue(ep, call)
        return await call.future

    def _make_call(self, method: Any, params: Any, raw: bool) -> _Call:
        if not isinstance(method, str) or not method:
            raise ConfigError(
                f"method must be a non-empty string such as 'hmyv2_blockNumber', got {short_repr(method)}"
            )
        if isinstance(params, str | bytes | bytearray) or not isinstance(params, Sequence):
            raise ConfigError(f"params of {method} must be a list or tuple, got {short_repr(params)}")
        plist = list(params)
        call_id = next(self._ids)
        try:
            item = _json.encode({"jsonrpc": "2.0", "id": call_id, "method": method, "params": plist})
        except ConfigError as exc:
            raise ConfigError(
                f"params of {method} cannot be sent as JSON: {short_repr(plist)} ({exc})"
            ) from None
        if len(item) > self._max_body:
            raise ConfigError(
                f"request {method}({short_repr(plist)}) is {len(item)} bytes encoded, over the "
                f"{self._max_body}-byte body limit"
            )
        return _Call(call_id, method, plist, item, raw, asyncio.get_running_loop().create_future())

    def _lane(self, method: str) -> tuple[str, int]:
        """The lane (queue key) and batch cap of ``method``, cached."""
        lane = self._lane_cache.get(method)
        if lane is None:
            if is_validator_listing(method):
                lane = (method, 1)
            elif method in self._limits:
                lane = (method, min(self._limits[method], self._batch_size))
            else:
                lane = ("", self._batch_size)
            self._lane_cache[method] = lane
        return lane

    def _enqueue(self, ep: _Endpoint, call: _Call) -> None:
        key, cap = self._lane(call.method)
        cap = max(1, cap // ep.shrink)
        if cap == 1:
            self._spawn(ep, [call])
            return
        lane = ep.lanes[key]
        size = len(call.item) + 1
        if lane.calls and lane.nbytes + size + 1 > self._max_body:
            self._flush(ep, lane)
        lane.calls.append(call)
        lane.nbytes += size
        if len(lane.calls) >= cap:
            self._flush(ep, lane)
        elif not lane.scheduled:
            lane.scheduled = True
            asyncio.get_running_loop().call_soon(self._on_tick, ep, lane)

    def _on_tick(self, ep: _Endpoint, lane: _Lane) -> None:
        lane.scheduled = False
        if lane.calls:
            self._flush(ep, lane)

    def _flush(self, ep: _Endpoint, lane: _Lane) -> None:
        calls, lane.calls, lane.nbytes = lane.calls, [], 0
        self._spawn(ep, calls)

    def _chunks(self, calls: list[_Call], cap: int) -> list[list[_Call]]:
        """Split ``calls`` in order into batches of at most ``cap`` items and ``max_body_bytes``."""
        groups: list[list[_Call]] = []
        current: list[_Call] = []
        size = 1
        for call in calls:
            if current and (len(current) >= cap or size + len(call.item) + 1 > self._max_body):
                groups.append(current)
                current, size = [], 1
            current.append(call)
            size += len(call.item) + 1
        if current:
            groups.append(current)
        return groups

    def _groups(self, ep: _Endpoint, calls: list[_Call]) -> list[list[_Call]]:
        """Split an explicit batch by lane (first-seen order), then by cap and body size."""
        lanes: dict[str, list[_Call]] = {}
        caps: dict[str, int] = {}
        for call in calls:
            key, cap = self._lane(call.method)
            lanes.setdefault(key, []).append(call)
            caps[key] = max(1, cap // ep.shrink)
        return [group for key, members in lanes.items() for group in self._chunks(members, caps[key])]

    def _spawn(self, ep: _Endpoint, calls: list[_Call]) -> None:
        task = asyncio.get_running_loop().create_task(self._run(ep, calls))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ internals: sending

    async def _run(self, ep: _Endpoint, calls: list[_Call]) -> None:
        """Send ``calls`` together, retrying the failed ones, until every future is settled."""
        try:
            await self._send_with_retries(ep, calls, 0, time.monotonic())
        except HmyframeError as exc:
            for call in calls:
                _fail(call, exc)
        except Exception as exc:  # noqa: BLE001  (callers must only ever see hmyframe errors)
            self._abandon(ep, calls, f"internal error while sending: {type(exc).__name__}: {exc}")
        finally:
            self._abandon(ep, calls, "request abandoned: the client was closed before an answer arrived")

    @staticmethod
    def _abandon(ep: _Endpoint, calls: list[_Call], message: str) -> None:
        for call in calls:
            if not call.future.done():
                call.future.set_exception(
                    ConnectionFailedError(message, endpoint=ep.url, method=call.describe())
                )

    def _budget(self) -> float | None:
        """Seconds one call may take, retries included (never less than one request's timeout)."""
        budget = self._retry.max_elapsed
        return None if budget is None else max(float(budget), self._timeout)

    async def _send_with_retries(
        self, ep: _Endpoint, calls: list[_Call], attempt: int, started: float
    ) -> None:
        budget = self._budget()
        pending = calls
        while True:
            pending = [c for c in pending if not c.future.done()]
            if not pending:
                return
            attempt += 1
            left = None if budget is None else budget - (time.monotonic() - started)
            began = time.monotonic()
            failures = await self._attempt(ep, pending, left)
            if not failures:
                return
            took = time.monotonic() - began
            if failures[0][1].reason == "too_large" and len(failures) > 1:
                # an answer over the size cap: the batch was too big, never the way; halve it
                await self._split(ep, [c for c, _ in failures], attempt, started)
                return
            if attempt >= self._retry.attempts:
                for call, failure in failures:
                    _fail(call, self._final_error(ep, call, failure, attempt))
                return
            failures = self._drop_long_retry_after(ep, failures, attempt)
            if not failures:
                return
            retry_afters = [f.retry_after for _, f in failures if f.retry_after is not None]
            wait = self._retry.delay(attempt, max(retry_afters) if retry_afters else None)
            spent = time.monotonic() - started
            if budget is not None and spent + wait >= budget:
                note = f"; the call's time budget of {budget:g} s is spent ({spent:.1f} s so far)"
                for call, failure in failures:
                    _fail(call, self._final_error(ep, call, failure, attempt, note))
                return
            for _, failure in failures:
                self.stats.retries[failure.reason] += 1
            self.stats.retry_wait += wait
            if wait >= LONG_WAIT or took >= LONG_WAIT:
                call, failure = failures[0]
                _log.warning(
                    "hmyframe: %s at %s failed after %.1f s (%s); retrying in %.1f s (attempt %d of %d)",
                    call.describe() if len(failures) == 1 else f"a batch of {len(failures)} calls",
                    redact_url(ep.url),
                    took,
                    failure.message,
                    wait,
                    attempt + 1,
                    self._retry.attempts,
                )
            if wait > 0:
                await asyncio.sleep(wait)
            pending = [c for c, _ in failures]
            if len(pending) > 1 and any(f.reason in self._retry.split_reasons for _, f in failures):
                await self._split(ep, pending, attempt, started)
                return

    async def _split(self, ep: _Endpoint, pending: list[_Call], attempt: int, started: float) -> None:
        """Retry ``pending`` in two halves, and halve the endpoint's later batches too."""
        ep.shrink = min(ep.shrink * 2, 1 << 20)
        ep.ok_streak = 0
        self.stats.batch_splits += 1
        half = (len(pending) + 1) // 2
        await asyncio.gather(
            self._send_with_retries(ep, pending[:half], attempt, started),
            self._send_with_retries(ep, pending[half:], attempt, started),
        )

    def _drop_long_retry_after(
        self, ep: _Endpoint, failures: list[tuple[_Call, _Failure]], attempt: int
    ) -> list[tuple[_Call, _Failure]]:
        """Fail at once the calls whose answer asked to wait longer than ``retry_after_max``."""
        policy = self._retry
        if not policy.honour_retry_after:
            return failures
        kept: list[tuple[_Call, _Failure]] = []
        for call, failure in failures:
            if failure.retry_after is not None and failure.retry_after > policy.retry_after_max:
                note = (
                    f"; the endpoint asked to wait {failure.retry_after:g} s (Retry-After), longer than "
                    f"retry_after_max={policy.retry_after_max:g} s: try again later"
                )
                _fail(call, self._final_error(ep, call, failure, attempt, note))
            else:
                kept.append((call, failure))
        return kept

    def _engage_pacing(self, ep: _Endpoint, failures: list[tuple[_Call, _Failure]]) -> None:
        """``validator_pacing="auto"``: pace ``ep``'s validator listings once one is refused for its rate."""
        if not self._auto_pacing or ep.pacer is not None:
            return
        if not any(f.rate and is_validator_listing(c.method) for c, f in failures):
            return
        # the node's bucket has just been drained: start ours empty, so the next listing waits
        # for the token the node refills, and no later one outruns the node's rate
        ep.pacer = TokenBucket(*NODE_VALIDATOR_PACING, tokens=0)
        self.stats.pacing_engaged += 1
        _log.info(
            "hmyframe: %s refused a validator listing for its rate (%s); pacing them at %g req/s, burst %d from now on",
            redact_url(ep.url),
            failures[0][1].message,
            *NODE_VALIDATOR_PACING,
        )

    async def _attempt(
        self, ep: _Endpoint, calls: list[_Call], left: float | None = None
    ) -> list[tuple[_Call, _Failure]]:
        """One HTTP round trip; settle what can be settled, return the retryable failures."""
        body = calls[0].item if len(calls) == 1 else b"[" + b",".join(c.item for c in calls) + b"]"
        # validator listings are solo: a paced call is always alone in its request
        if ep.pacer is not None and len(calls) == 1 and is_validator_listing(calls[0].method):
            waited = await ep.pacer.acquire()
            self.stats.pacing_wait += waited
        async with self._semaphore:
            if self._rps is not None:
                await self._rps.acquire()
            self._in_flight += 1
            self.stats.max_in_flight = max(self.stats.max_in_flight, self._in_flight)
            self.stats.http_requests += 1
            self.stats.calls += len(calls)
            self.stats.batches += 1 if len(calls) > 1 else 0
            self.stats.bytes_sent += len(body)
            try:
                reply = await self._transport.post(
                    ep.url, body, accept_encoding=ep.accept_encoding, time_left=left
                )
            except TransportFault as fault:
                return self._fail_all(ep, calls, _Failure(fault.reason, fault.detail))
            finally:
                self._in_flight -= 1
        self.stats.bytes_received += len(reply.body)
        try:
            failures = self._handle_reply(ep, calls, reply)
        except Exception as exc:  # noqa: BLE001  (a hostile answer must end as a response error)
            snippet = reply.body[:80].decode("utf-8", "replace")
            for call in calls:
                _fail(
                    call,
                    ResponseShapeError(
                        call.method,
                        "$",
                        snippet,
                        f"an answer hmyframe can decode ({type(exc).__name__}: {exc})",
                        endpoint=ep.url,
                    ),
                )
            return []
        if failures:
            self._engage_pacing(ep, failures)
        return failures

    def _fail_all(self, ep: _Endpoint, calls: list[_Call], failure: _Failure) -> list[tuple[_Call, _Failure]]:
        if self._retry.retries_reason(failure.reason) or (failure.reason == "too_large" and len(calls) > 1):
            return [(c, failure) for c in calls]
        for call in calls:
            _fail(call, self._final_error(ep, call, failure, 0))
        return []

    def _handle_reply(
        self, ep: _Endpoint, calls: list[_Call], reply: HttpReply
    ) -> list[tuple[_Call, _Failure]]:
        status = reply.status
        if self._retry.retries_status(status):
            failure = _Failure(
                f"http_{status}",
                f"HTTP {status}",
                retry_after=reply.retry_after,
                status=status,
                body=reply.body[:300].decode("utf-8", "replace"),
                rate=status in self._retry.rate_limit_statuses,
            )
            return [(c, failure) for c in calls]
        if not 200 <= status < 300:
            text = reply.body[:300].decode("utf-8", "replace")
            for call in calls:
                _fail(call, HTTPStatusError(status, text, endpoint=ep.url, method=call.describe()))
            return []
        try:
            answer = _ANSWER.decode(reply.body)
        except (msgspec.ValidationError, RecursionError) as exc:
            what = (
                "JSON nested less deeply"
                if isinstance(exc, RecursionError)
                else f"a JSON-RPC envelope ({exc})"
            )
            for call in calls:
                _fail(
                    call,
                    ResponseShapeError(
                        call.method, "$", reply.body[:120].decode("utf-8", "replace"), what, endpoint=ep.url
                    ),
                )
            return []
        except msgspec.DecodeError as exc:
            snippet = short_repr(reply.body[:80].decode("utf-8", "replace"))
            return self._fail_all(
                ep,
                calls,
                _Failure("bad_body", f"HTTP {status} body is not JSON (truncated?): {exc}; starts {snippet}"),
            )
        if not isinstance(answer, list) and answer.error is None and answer.result is msgspec.UNSET:
            text = reply.body[:120].decode("utf-8", "replace")
            for call in calls:
                _fail(
                    call,
                    ResponseShapeError(
                        call.method,
                        "$",
                        text,
                        "a JSON-RPC answer with a `result` or an `error` member",
                        endpoint=ep.url,
                    ),
                )
            return []
        if ep.shrink > 1:
            ep.ok_streak += 1
            if ep.ok_streak >= _RECOVER_AFTER:
                ep.shrink //= 2
                ep.ok_streak = 0
        envelopes = answer if isinstance(answer, list) else [answer]
        by_id: dict[int, _Envelope] = {}
        shared_error: _ErrorObject | None = None
        for env in envelopes:
            key = _id_key(env.id)
            if key is None:
                if env.error is not None:
                    shared_error = env.error
                continue
            by_id.setdefault(key, env)
        if (
            len(calls) == 1
            and not isinstance(answer, list)
            and calls[0].id not in by_id
            and answer.id is not None
        ):
            by_id[calls[0].id] = answer  # one call, one answer object: tolerate an id rewritten by a proxy
        failures: list[tuple[_Call, _Failure]] = []
        for call in calls:
            match = by_id.get(call.id)
            if match is None:
                if shared_error is not None:
                    self._apply_error(ep, call, shared_error, failures)
                elif self._retry.retry_missing:
                    failures.append((call, _Failure("missing", f"the answer has no item with id {call.id}")))
                else:
                    _fail(call, self._final_error(ep, call, _Failure("missing", ""), 1))
            elif match.error is not None:
                self._apply_error(ep, call, match.error, failures)
            elif isinstance(match.result, msgspec.Raw):
                if call.raw:
                    _settle(call, bytes(match.result))
                else:
                    try:
                        _settle(call, _json.decode(match.result, what=call.method))
                    except ResponseShapeError as exc:
                        _fail(
                            call,
                            ResponseShapeError(exc.what, exc.field, exc.value, exc.expected, endpoint=ep.url),
                        )
            else:
                _fail(
                    call,
                    ResponseShapeError(
                        call.method,
                        f"id {call.id}",
                        match,
                        "a JSON-RPC answer with a `result` or an `error` member",
                        endpoint=ep.url,
                    ),
                )
        return failures

    def _apply_error(
        self, ep: _Endpoint, call: _Call, error: _ErrorObject, failures: list[tuple[_Call, _Failure]]
    ) -> None:
        if self._retry.is_rate_limit_message(error.message):
            failures.append((call, _Failure("rpc_rate_limit", f"[{error.code}] {error.message}", rate=True)))
            return
        cls = rpc_error_class(error.code, error.message)
        _fail(call, cls(error.code, error.message, method=call.method, params=call.params, endpoint=ep.url))

    def _final_error(
        self, ep: _Endpoint, call: _Call, failure: _Failure, attempts: int, note: str = ""
    ) -> HmyframeError:
        tried = f" (gave up after {attempts} attempt{'s' if attempts != 1 else ''}{note})" if attempts else ""
        if failure.rate:
            return RateLimitError(
                f"{failure.message}{tried}; params {short_repr(call.params, 160)}",
                endpoint=ep.url,
                method=call.method,
                retry_after=failure.retry_after,
            )
        if failure.status is not None:
            return HTTPStatusError(
                failure.status, failure.body, endpoint=ep.url, method=f"{call.describe()}{tried}"
            )
        if failure.reason == "missing":
            return ResponseShapeError(
                call.method,
                "id",
                call.id,
                f"a batch answer item with id {call.id} for {call.describe()}{tried}",
                endpoint=ep.url,
            )
        if failure.reason == "too_large":
            advice = (
                "ask for fewer blocks per call (blocks_per_request, --blocks-per-request) or raise max_answer_bytes"
                if "getBlocks" in call.method
                else "raise max_answer_bytes if such an answer is legitimate"
            )
            return ResponseTooLargeError(
                f"{failure.message}; not retried (the same request would get the same answer): {advice}",
                endpoint=ep.url,
                method=call.describe(),
            )
        return ConnectionFailedError(f"{failure.message}{tried}", endpoint=ep.url, method=call.describe())
