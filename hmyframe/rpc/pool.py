"""Several endpoints of one chain used as one client: :class:`EndpointPool`.

``rpc=[url1, url2, ...]`` (``--rpc URL --rpc URL2`` on the command line) makes a
:class:`~hmyframe.engine.Session` send its calls through a pool of endpoints, each a
:class:`~hmyframe.rpc.Client` of its own (its own connections, batching, in-flight bound and
``requests_per_second``: limits are per endpoint):

* **Chain identity first.** Before an endpoint gets its first call, the pool asks it for its
  shard-0 genesis block; every endpoint must name the same hash (the chain id of the cache),
  else :class:`~hmyframe.errors.WrongChainError` says which URLs disagree. An endpoint that
  cannot be asked is set aside and asked again before it is used.
* **Spread by measured speed.** Each endpoint takes at most as much work as its client sends
  at once (``max_in_flight`` requests' worth of calls: one ``getBlocks`` per request, up to a
  batch of smaller calls); further calls wait in the pool and go to the first endpoint with
  room, so a fast endpoint, whose answers come back sooner, takes more calls. When several
  have room, the call goes to the one expected to answer first: the smallest
  ``(calls in flight + 1) * seconds per call``, a moving average of its recent answers (an
  endpoint not measured yet counts as the fastest one measured, so every endpoint is tried).
* **A failing endpoint is set aside.** An endpoint fault (HTTP error status, reset, refused
  connection, timeout, rate limit: :class:`~hmyframe.errors.TransportError` and
  :class:`~hmyframe.errors.RateLimitError`) sets the endpoint aside for a cool-down (1 s,
  doubled at each failure in a row up to 60 s; longer if it asked so with ``Retry-After``)
  and the call is sent again at once to another endpoint. After the cool-down the endpoint
  gets calls again; its first answer ends the cool-downs. When every endpoint is set aside,
  calls wait for the first to come back. A call gives up after the retry policy's
  ``attempts`` (counted over all endpoints) or its ``max_elapsed`` budget.
* The members do not retry endpoint faults themselves (the pool does, elsewhere), except
  that a batch whose answer is too large is still split by the member.
* Trace calls (``trace_*``) go to the first endpoint's client: a trace endpoint is one URL
  (``trace_rpc``), so it keeps one rate limit.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, TypeVar

from hmyframe.errors import (
    ConfigError,
    HmyframeError,
    RateLimitError,
    ResponseShapeError,
    ResponseTooLargeError,
    TransportError,
    WrongChainError,
    redact_url,
)
from hmyframe.rpc.client import Client
from hmyframe.rpc.methods import Methods
from hmyframe.rpc.retry import RetryPolicy
from hmyframe.rpc.shared import ClientStats, ShardInfo

__all__ = ["COOLDOWN_FIRST", "COOLDOWN_MAX", "EndpointPool", "EndpointState", "endpoint_fault"]

T = TypeVar("T")

#: Seconds an endpoint is set aside after its first failure (doubled at each failure in a row).
COOLDOWN_FIRST = 1.0
#: Longest cool-down, in seconds.
COOLDOWN_MAX = 60.0
#: Weight of the newest answer in the moving average of seconds per call.
_ALPHA = 0.2


def endpoint_fault(exc: BaseException) -> bool:
    """Whether ``exc`` is an endpoint fault: the endpoint misbehaved (an HTTP error status, a
    reset or refused connection, a timeout, rate limits), after the client's own retries.

    The one definition: the pool sets such an endpoint aside (and sends the call to another),
    a range fetch goes on with its other chunks (:func:`hmyframe.engine.run_chunks`). Anything
    else (a malformed answer, a wrong chain, a bad argument, a full disk) is not the endpoint's.
    """
    return isinstance(exc, TransportError | RateLimitError)


def _another_endpoint_helps(exc: BaseException) -> bool:
    """An endpoint fault another endpoint may not have: not an answer over the client's size cap
    (as large from any endpoint of the chain)."""
    return endpoint_fault(exc) and not isinstance(exc, ResponseTooLargeError)


async def _home_url(client: Client) -> str:
    return client.url


@dataclass
class EndpointState:
    """What the pool knows of one endpoint (``pool.endpoints``).

    Attributes
    ----------
    client
        The endpoint's own client.
    calls, failures
        Calls answered by it and endpoint faults it caused.
    seconds_per_call
        Moving average of its answers' times (``None`` until it answered).
    in_flight
        Calls sent to it and not answered yet.
    load
        Those calls in HTTP requests' worth (a call that shares a batch of N counts 1/N);
        at most the client's ``max_in_flight``.
    failures_in_a_row
        Faults since its last answer (sets the cool-down).
    usable_at
        ``time.monotonic()`` from which it gets calls again (0: usable).
    genesis
        Its shard-0 genesis hash, once checked.
    """

    client: Client
    calls: int = 0
    failures: int = 0
    seconds_per_call: float | None = None
    in_flight: int = 0
    load: float = 0.0
    failures_in_a_row: int = 0
    usable_at: float = 0.0
    genesis: str | None = None
    check: asyncio.Task[str] | None = None

    @property
    def url(self) -> str:
        """The endpoint's URL."""
        return self.client.url


class EndpointPool:
    """Several endpoints of one chain behind the calls of one :class:`~hmyframe.rpc.Client`.

    Parameters
    ----------
    clients
        One client per endpoint (at least two), not yet open; the pool opens and closes them.
        Their ``retry`` should be ``RetryPolicy(attempts=1)``: the pool retries on the other
        endpoints (see the module docstring).
    retry
        The policy of a call through the pool: ``attempts`` over all endpoints, the
        ``max_elapsed`` budget.
    cooldown
        ``(first, longest)`` seconds an endpoint is set aside after a failure.
    version
        The generation each endpoint's chain is checked with (its shard-0 genesis block):
        ``2`` (``hmyv2_getBlockByNumber``) or ``1`` (``hmy_``, for nodes serving only it).

    Raises
    ------
    ConfigError
        Fewer than two clients, or two with the same URL.
    """

    def __init__(
        self,
        clients: Sequence[Client],
        *,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008  (frozen dataclass)
        cooldown: tuple[float, float] = (COOLDOWN_FIRST, COOLDOWN_MAX),
        version: Literal[1, 2] = 2,
    ) -> None:
        if len(clients) < 2:
            raise ConfigError(f"an endpoint pool needs at least two endpoints, got {len(clients)}")
        urls = [c.url for c in clients]
        if len(set(urls)) != len(urls):
            dup = next(u for u in urls if urls.count(u) > 1)
            raise ConfigError(f"endpoint {redact_url(dup)} is given twice; give each endpoint once")
        if not isinstance(retry, RetryPolicy):
            raise ConfigError(f"retry must be a RetryPolicy, got {retry!r}")
        self.endpoints = [EndpointState(c) for c in clients]
        self._retry = retry
        self._cooldown = (float(cooldown[0]), float(cooldown[1]))
        self._reference: EndpointState | None = None
        self._room: asyncio.Condition | None = None
        self.v1 = Methods(self, 1)
        self.v2 = Methods(self, 2)
        if version not in (1, 2):
            raise ConfigError(f"version must be 1 (hmy_) or 2 (hmyv2_), got {version!r}")
        #: the generation each endpoint's chain is checked with (a node may serve only hmy_)
        self.version: Literal[1, 2] = version

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> EndpointPool:
        for state in self.endpoints:
            await state.client.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close every endpoint's client."""
        for state in self.endpoints:
            if state.check is not None and not state.check.done():
                state.check.cancel()
                await asyncio.gather(state.check, return_exceptions=True)
            state.check = None
            await state.client.aclose()

    def __repr__(self) -> str:
        urls = ", ".join(redact_url(s.url) for s in self.endpoints)
        return f"<EndpointPool {urls}>"

    @property
    def url(self) -> str:
        """The first endpoint's URL."""
        return self.endpoints[0].url

    @property
    def retry_policy(self) -> RetryPolicy:
        """The policy of a call through the pool."""
        return self._retry

    @property
    def stats(self) -> ClientStats:
        """The endpoints' client counters added up."""
        total = ClientStats()
        for state in self.endpoints:
            s = state.client.stats
            total.http_requests += s.http_requests
            total.calls += s.calls
            total.batches += s.batches
            total.batch_splits += s.batch_splits
            total.retries.update(s.retries)
            total.retry_wait += s.retry_wait
            total.pacing_wait += s.pacing_wait
            total.pacing_engaged += s.pacing_engaged
            total.bytes_sent += s.bytes_sent
            total.bytes_received += s.bytes_received
            total.max_in_flight = max(total.max_in_flight, s.max_in_flight)
            total.parts += s.parts
        return total

    def request_calls(self, url: str, method: str) -> int | None:
        """The node calls one request of ``method`` should cost, as the endpoints' windows advise
        (the most of any endpoint's; ``None``: no advice). ``url`` is ignored: a call through
        the pool may go to any endpoint."""
        advice = [
            calls
            for state in self.endpoints
            if (calls := state.client.request_calls(None, method)) is not None
        ]
        return max(advice) if advice else None

    def node_limit(self) -> float | None:
        """The calls a second the endpoints serve together, when a rate limit bounds the speed of
        at least one of them (see :meth:`Client.node_limit`), else ``None``."""
        seen = [rate for state in self.endpoints if (rate := state.client.node_limit()) is not None]
        return sum(seen) if seen else None

    # ------------------------------------------------------------------ choosing an endpoint

    def _score(self, state: EndpointState, default: float) -> float:
        speed = state.seconds_per_call if state.seconds_per_call is not None else default
        return speed * (state.in_flight + 1)

    async def _identity(self, state: EndpointState) -> str:
        methods = state.client.v2 if self.version == 2 else state.client.v1
        block = await methods.get_block_by_number(0, full_tx=False, incl_staking=self.version == 1, shard=0)
        found = block.get("hash") if isinstance(block, dict) else None
        if not isinstance(found, str) or not found.startswith("0x"):
            raise ResponseShapeError(
                methods.method("getBlockByNumber"),
                "hash",
                found,
                "the 0x hash of the shard-0 genesis block",
                endpoint=state.url,
            )
        return found.lower()

    async def _checked(self, state: EndpointState) -> None:
        """Check ``state``'s chain once (shared by concurrent callers)."""
        if state.genesis is not None:
            return
        if state.check is None:
            state.check = asyncio.get_running_loop().create_task(self._identity(state))
        task = state.check
        try:
            genesis = await asyncio.shield(task)
        except BaseException:
            if state.check is task and task.done():
                state.check = None  # ask again next time
            raise
        if state.genesis is None:
            reference = self._reference
            if reference is not None and reference.genesis != genesis:
                raise WrongChainError(
                    f"endpoint {redact_url(state.url)} serves another chain than {redact_url(reference.url)}: "
                    f"its shard-0 genesis block hash is {genesis}, not {reference.genesis}; give endpoints of "
                    "one chain only (nothing was fetched from it)"
                )
            state.genesis = genesis
            if reference is None:
                self._reference = state

    async def check_all(self) -> None:
        """Check the chain of every endpoint not set aside (those set aside are checked before
        their next use).

        Raises
        ------
        WrongChainError
            If two endpoints serve different chains.
        """
        now = time.monotonic()
        states = [s for s in self.endpoints if s.genesis is None and s.usable_at <= now]
        results = await asyncio.gather(*(self._checked(s) for s in states), return_exceptions=True)
        for state, result in zip(states, results, strict=True):
            if isinstance(result, BaseException):
                if _another_endpoint_helps(result):
                    self._set_aside(state, result)
                else:
                    raise result
        if all(s.genesis is None for s in self.endpoints):
            await self._call(_home_url, 0.0)  # waits for one endpoint to pass, or raises the last fault

    def _set_aside(self, state: EndpointState, exc: BaseException) -> None:
        state.failures += 1
        state.failures_in_a_row += 1
        first, longest = self._cooldown
        wait = min(longest, first * 2 ** (state.failures_in_a_row - 1))
        after = getattr(exc, "retry_after", None)
        if isinstance(after, int | float) and after > wait:
            wait = min(float(after), self._retry.retry_after_max)
        state.usable_at = time.monotonic() + wait

    def _answered(self, state: EndpointState, seconds: float) -> None:
        state.calls += 1
        state.failures_in_a_row = 0
        state.usable_at = 0.0
        previous = state.seconds_per_call
        state.seconds_per_call = seconds if previous is None else previous + _ALPHA * (seconds - previous)

    def _condition(self) -> asyncio.Condition:
        if self._room is None:
            self._room = asyncio.Condition()
        return self._room

    async def _take(self, weight: float, started: float, last: BaseException | None) -> EndpointState:
        """Wait for an endpoint with room (see the module docstring) and book ``weight`` on it."""
        budget = self._retry.max_elapsed
        room = self._condition()
        while True:
            now = time.monotonic()
            usable = [s for s in self.endpoints if s.usable_at <= now]
            if not usable:
                wait = min(s.usable_at for s in self.endpoints) - now
                if budget is not None and last is not None and now - started + wait >= budget:
                    raise last
                await asyncio.sleep(wait)
                continue
            free = [s for s in usable if s.load == 0 or s.load + weight <= s.client.max_in_flight + 1e-9]
            if free:
                known = [s.seconds_per_call for s in free if s.seconds_per_call is not None]
                default = min(known) if known else 1.0
                state = min(free, key=lambda s: self._score(s, default))
                state.in_flight += 1
                state.load += weight
                return state
            aside = [s.usable_at - now for s in self.endpoints if s.usable_at > now]
            async with room:
                try:
                    # not wait_for: on 3.11 it swallows a cancellation landing with a notify
                    async with asyncio.timeout(min(aside) if aside else None):
                        await room.wait()
                except TimeoutError:
                    pass

    async def _give_back(self, state: EndpointState, weight: float) -> None:
        state.in_flight -= 1
        state.load = max(0.0, state.load - weight)
        room = self._condition()
        async with room:
            room.notify_all()

    def _weight(self, method: str, calls: int = 1) -> float:
        """HTTP requests' worth of ``calls`` calls of ``method`` (the members share their settings)."""
        return calls / self.endpoints[0].client.batch_cap(method)

    async def _call(self, send: Callable[[Client], Awaitable[T]], weight: float) -> T:
        """Send through the best endpoint with room, moving to another on an endpoint fault."""
        policy = self._retry
        budget = policy.max_elapsed
        started = time.monotonic()
        attempt = 0
        last: BaseException | None = None
        while True:
            state = await self._take(weight, started, last)
            began = time.monotonic()
            try:
                await self._checked(state)
                result = await send(state.client)
            except HmyframeError as exc:
                if not _another_endpoint_helps(exc):
                    raise
                self._set_aside(state, exc)
                last = exc
                attempt += 1
                spent = time.monotonic() - started
                if attempt >= policy.attempts or (budget is not None and spent >= budget):
                    raise
                continue
            finally:
                await self._give_back(state, weight)
            self._answered(state, time.monotonic() - began)
            return result

    # ------------------------------------------------------------------ calls

    async def request(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> Any:
        """:meth:`Client.request <hmyframe.rpc.Client.request>` through the pool."""
        if trace:
            return await self.endpoints[0].client.request(method, params, shard=shard, trace=True)
        return await self._call(lambda c: c.request(method, params, shard=shard), self._weight(method))

    async def request_raw(
        self, method: str, params: Sequence[Any] = (), *, shard: int | None = None, trace: bool = False
    ) -> bytes:
        """:meth:`Client.request_raw <hmyframe.rpc.Client.request_raw>` through the pool."""
        if trace:
            return await self.endpoints[0].client.request_raw(method, params, shard=shard, trace=True)
        return await self._call(lambda c: c.request_raw(method, params, shard=shard), self._weight(method))

    async def batch(
        self,
        calls: Sequence[tuple[str, Sequence[Any]]],
        *,
        shard: int | None = None,
        trace: bool = False,
        raw: bool = False,
        return_exceptions: bool = False,
    ) -> list[Any]:
        """:meth:`Client.batch <hmyframe.rpc.Client.batch>` through the pool (one endpoint per batch)."""
        if trace:
            return await self.endpoints[0].client.batch(
                calls, shard=shard, trace=True, raw=raw, return_exceptions=return_exceptions
            )
        weight = sum(self._weight(str(method)) for method, _ in calls)
        return await self._call(
            lambda c: c.batch(calls, shard=shard, raw=raw, return_exceptions=return_exceptions), weight
        )

    async def trace_transaction(self, tx_hash: str, shard: int | None = None) -> Any:
        """``trace_transaction`` at the trace endpoint (see :meth:`Client.trace_transaction`)."""
        return await self.endpoints[0].client.trace_transaction(tx_hash, shard)

    async def trace_transaction_raw(self, tx_hash: str, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_transaction`."""
        return await self.endpoints[0].client.trace_transaction_raw(tx_hash, shard)

    async def trace_block(self, number: int, shard: int | None = None) -> Any:
        """``trace_block`` at the trace endpoint (see :meth:`Client.trace_block`)."""
        return await self.endpoints[0].client.trace_block(number, shard)

    async def trace_block_raw(self, number: int, shard: int | None = None) -> bytes:
        """Raw-bytes twin of :meth:`trace_block`."""
        return await self.endpoints[0].client.trace_block_raw(number, shard)

    async def shards(self) -> list[ShardInfo]:
        """The network's shards, as the endpoint answering lists them."""
        return await self._call(lambda c: c.shards(), 0.0)

    async def home_shard(self) -> int:
        """The shard the endpoints serve (asked of one of them)."""
        return await self._call(lambda c: c.home_shard(), 0.0)

    async def endpoint_url(self, shard: int | None = None, *, trace: bool = False) -> str:
        """The URL of ``shard`` at the best endpoint now (the trace URL with ``trace``), after
        checking every usable endpoint's chain.

        Raises
        ------
        WrongChainError
            If the endpoints serve different chains.
        """
        if trace:
            return await self.endpoints[0].client.endpoint_url(shard, trace=True)
        await self.check_all()
        return await self._call(lambda c: c.endpoint_url(shard), 0.0)
