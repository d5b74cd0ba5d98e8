"""Auto-batching and the in-flight bound.

Concurrent calls to the same endpoint are coalesced into one JSON-RPC batch, flushed on the
next event-loop tick or as soon as ``batch_size`` calls are queued (:class:`Batcher`). Bodies
never exceed the node's 5 MiB limit: a batch that would is split by encoded size. Some methods
have a smaller cap (``batch_limits``): the range calls ``*_getBlocks`` and the validator
listings always go alone, ``trace_block`` in batches of at most 20. After a failure that
suggests a batch was too big for the way, an endpoint's caps are halved; each 16 successful
requests in a row double them back, up to ``batch_size`` (:class:`Endpoint`). A batch is also
never more calls than the endpoint's :class:`~hmyframe.rpc.window.Window` of its method advises
for one request (small under a low node rate limit). At most ``max_in_flight`` HTTP requests are
out at once (:class:`InFlight`).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from types import MappingProxyType
from typing import Any

from hmyframe.errors import ConfigError, short_repr
from hmyframe.rpc._check import is_int
from hmyframe.rpc.envelope import Call, abandon
from hmyframe.rpc.limiter import TokenBucket
from hmyframe.rpc.pacing import is_validator_listing
from hmyframe.rpc.shared import ClientStats
from hmyframe.rpc.window import Window

__all__ = ["DEFAULT_BATCH_LIMITS", "MAX_BODY_BYTES", "Batcher", "Endpoint", "InFlight", "window_key"]

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


class _Lane:
    """Calls waiting to be coalesced into one batch (one lane per batch-size cap)."""

    __slots__ = ("calls", "nbytes", "scheduled")

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.nbytes = 0
        self.scheduled = False


class Endpoint:
    """Per-URL state: the auto-batching lanes, the batch-size divisor, the Accept-Encoding, and
    the windows of work kept out there (one per method: :class:`~hmyframe.rpc.window.Window`)."""

    __slots__ = ("accept_encoding", "lanes", "ok_streak", "requests", "shrink", "url", "windows")

    def __init__(self, url: str, accept_encoding: str | None, requests: int = 8) -> None:
        self.url = url
        self.accept_encoding = accept_encoding
        self.lanes: defaultdict[str, _Lane] = defaultdict(_Lane)
        self.shrink = 1  # batch caps are divided by this after size-suspect failures
        self.ok_streak = 0
        self.requests = requests  # the client's max_in_flight
        self.windows: dict[str, Window] = {}

    def window(self, method: str) -> Window:
        """The window of ``method``'s calls at this endpoint (made on first use).

        One per method: the node limits its methods in separate buckets (or not at all:
        receipts, logs), so the answer times of one say little of another's queue.
        """
        window = self.windows.get(method)
        if window is None:
            window = self.windows[method] = Window(self.requests)
        return window

    def halve(self) -> None:
        """Halve the endpoint's later batches (a batch seemed too big for the way)."""
        self.shrink = min(self.shrink * 2, 1 << 20)
        self.ok_streak = 0

    def answered(self) -> None:
        """Count a request answered with envelopes; double halved batches back after a streak."""
        if self.shrink > 1:
            self.ok_streak += 1
            if self.ok_streak >= _RECOVER_AFTER:
                self.shrink //= 2
                self.ok_streak = 0


class Batcher:
    """Groups calls into batches per endpoint and hands each batch to ``send``.

    Parameters
    ----------
    send
        Starts sending one batch to an endpoint (it must not block).
    accept_encoding
        The ``Accept-Encoding`` to ask an endpoint's URL for (``None``: the default).
    batch_size, max_body
        Most items per batch, largest body.
    batch_limits
        Per-method caps merged over :data:`DEFAULT_BATCH_LIMITS`.

    Raises
    ------
    ConfigError
        If ``batch_limits`` is not a mapping of method names to integers >= 1.
    """

    def __init__(
        self,
        send: Callable[[Endpoint, list[Call]], None],
        accept_encoding: Callable[[str], str | None],
        *,
        batch_size: int,
        max_body: int,
        batch_limits: Mapping[str, int] | None,
        requests: int = 8,
    ) -> None:
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
        self._send = send
        self._accept_encoding = accept_encoding
        self._endpoints: dict[str, Endpoint] = {}
        self.batch_size = batch_size
        self.max_body = max_body
        self.requests = requests

    def lane(self, method: str) -> tuple[str, int]:
        """The lane (queue key) and batch cap of ``method``, cached."""
        lane = self._lane_cache.get(method)
        if lane is None:
            if is_validator_listing(method):
                lane = (method, 1)
            elif method in self._limits:
                lane = (method, min(self._limits[method], self.batch_size))
            else:
                lane = ("", self.batch_size)
            self._lane_cache[method] = lane
        return lane

    @staticmethod
    def _cap(ep: Endpoint, method: str, cap: int) -> int:
        """Items of ``method`` per batch to ``ep`` now: the lane's cap, halved after size-suspect
        failures, and no more than the method's window advises for one request."""
        cap = max(1, cap // ep.shrink)
        window = ep.windows.get(method)
        advised = None if window is None else window.request_calls()
        return cap if advised is None else min(cap, advised)

    def endpoint(self, url: str) -> Endpoint:
        """The state of ``url`` (made on first use)."""
        ep = self._endpoints.get(url)
        if ep is None:
            ep = self._endpoints[url] = Endpoint(url, self._accept_encoding(url), self.requests)
        return ep

    def endpoints(self) -> list[Endpoint]:
        """Every endpoint used so far."""
        return list(self._endpoints.values())

    def enqueue(self, url: str, call: Call) -> None:
        """Queue ``call`` for the next batch to ``url`` (or send it now if it goes alone)."""
        ep = self.endpoint(url)
        key, cap = self.lane(call.method)
        cap = self._cap(ep, call.method, cap)
        if cap == 1:
            self._send(ep, [call])
            return
        lane = ep.lanes[key]
        size = len(call.item) + 1
        if lane.calls and lane.nbytes + size + 1 > self.max_body:
            self._flush(ep, lane)
        lane.calls.append(call)
        lane.nbytes += size
        if len(lane.calls) >= cap:
            self._flush(ep, lane)
        elif not lane.scheduled:
            lane.scheduled = True
            asyncio.get_running_loop().call_soon(self._on_tick, ep, lane)

    def _on_tick(self, ep: Endpoint, lane: _Lane) -> None:
        lane.scheduled = False
        if lane.calls:
            self._flush(ep, lane)

    def _flush(self, ep: Endpoint, lane: _Lane) -> None:
        calls, lane.calls, lane.nbytes = lane.calls, [], 0
        self._send(ep, calls)

    def _chunks(self, calls: list[Call], cap: int) -> list[list[Call]]:
        """Split ``calls`` in order into batches of at most ``cap`` items and ``max_body`` bytes."""
        groups: list[list[Call]] = []
        current: list[Call] = []
        size = 1
        for call in calls:
            if current and (len(current) >= cap or size + len(call.item) + 1 > self.max_body):
                groups.append(current)
                current, size = [], 1
            current.append(call)
            size += len(call.item) + 1
        if current:
            groups.append(current)
        return groups

    def send_batch(self, url: str, calls: list[Call]) -> None:
        """Send an explicit batch to ``url``: split by lane (first-seen order), then by cap and size."""
        ep = self.endpoint(url)
        lanes: dict[str, list[Call]] = {}
        caps: dict[str, int] = {}
        for call in calls:
            key, cap = self.lane(call.method)
            lanes.setdefault(key, []).append(call)
            caps[key] = self._cap(ep, call.method, cap)
        for key, members in lanes.items():
            for group in self._chunks(members, caps[key]):
                self._send(ep, group)

    def abandon_queued(self, message: str) -> None:
        """Fail every call still queued with ``ConnectionFailedError(message)`` (closing)."""
        for ep in self._endpoints.values():
            for lane in ep.lanes.values():
                abandon(ep.url, lane.calls, message)
                lane.calls, lane.nbytes = [], 0


def window_key(calls: list[Call]) -> str:
    """The window a request of ``calls`` is counted in: their method (``""`` for a mix)."""
    method = calls[0].method
    return method if all(c.method == method for c in calls) else ""


class InFlight:
    """The bound on HTTP requests out at once, and the count behind ``stats.max_in_flight``."""

    def __init__(self, limit: int, stats: ClientStats) -> None:
        self.limit = limit
        self._stats = stats
        self._semaphore = asyncio.Semaphore(limit)
        self._count = 0

    def reopen(self) -> None:
        """A fresh semaphore: asyncio primitives bind to the loop that first waits on them."""
        self._semaphore = asyncio.Semaphore(self.limit)

    @asynccontextmanager
    async def slot(self, bucket: TokenBucket | None) -> AsyncIterator[None]:
        """Hold one of the ``limit`` places (taking a ``bucket`` token first, if any)."""
        async with self._semaphore:
            if bucket is not None:
                await bucket.acquire()
            self._count += 1
            self._stats.max_in_flight = max(self._stats.max_in_flight, self._count)
            try:
                yield
            finally:
                self._count -= 1
