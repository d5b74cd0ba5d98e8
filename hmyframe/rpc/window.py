"""How much work a client keeps out at one endpoint: a window learnt from answer times and
rate refusals, so a node's rate limit is used fully and its queue never outlasts a timeout.

A Harmony node limits calls node-wide (``--rpc.ratelimit``, 1000 calls/s by default, much lower
behind public endpoints, and shared by all their users), and counts each block of a ``getBlocks``
as a call: a call over the rate waits for its token (the node refuses it if the wait passes 5 s),
so a request of ``n`` blocks takes ``n`` tokens, one after the other. With several requests out,
the node serves them side by side: each takes ``calls out / limit`` seconds. Eight 100-block
requests at 5 calls/s take 160 s each, past the node's 30 s write timeout and the client's 60 s,
and come back with nothing, however long the client waits.

**What is measured.** Work is counted in node *calls* (:func:`call_cost`: a ``getBlocks`` of
``n`` blocks is ``n``, a batch the sum of its items, anything else 1). For each answer, the
:class:`Window` takes its time ``D`` (sent to answered) and the calls out on average during it
(``Q``); by Little's law the endpoint served ``X = Q / D`` calls a second meanwhile, whatever
bounds it (the node's limit, its CPU, the way). A rate refusal (the node's -32000 ``rate: Wait``,
HTTP 429) is the node saying so outright.

**What is set.** The window ``W``: the calls allowed out at once (a request waits in
:meth:`Window.admit` until it fits; one alone always goes). Its aim is ``W = X * TARGET``: enough
work out to keep the endpoint busy, little enough that each answer comes within ``TARGET``
(5 s) of its sending. Under a limit of ``L`` calls/s that is ``5 L`` calls out, each answer in
about 5 s, at the limit's full rate; without a limit ``X`` is large and the window stops
mattering (it is capped at :data:`MOST`). Per answer:

* an answer slower than ``TARGET``: ``W`` drops to ``X * TARGET``, at most once per *epoch*
  (answers of requests sent before the last drop describe the old window, not this one: the
  congestion-window rule of TCP);
* a quicker one: ``W`` grows to ``X * TARGET`` if that is more, at most :data:`GROWTH` (8) times
  per answer;
* a rate refusal or a timeout (of the current epoch): ``W`` halves.

The first window (:data:`FIRST`, 128 calls) lets one 100-block ``getBlocks`` out alone: the node
serves it within ~20 s at 5 calls/s (its burst of 5, then 5 a second), inside its 30 s write
timeout at the lowest limit the fetch is built for; without a limit its quick answer opens the
window to 1,024 calls (8 requests of 100 blocks) at once.

**How requests are sized from it.** Once the window was cut, :meth:`Window.request_calls` is
``W`` over the client's ``max_in_flight``: the range fetch asks ``getBlocks`` of that many blocks
(fewer than its ``blocks_per_request``; the files do not change), and the batcher caps its
batches there; a request still larger when it is about to leave (planned before the window
shrank) is sent in parts (:mod:`hmyframe.rpc.sending`). Under 5 calls/s: ~25 calls out, ``getBlocks`` of 3 blocks, 8 requests, each
answered in ~5 s; under 100: ~500 out, 62-block requests; from ~160 calls/s on, the defaults.
Before any cut (no limit shown), requests keep their sizes: only the window's admission applies.
A window that settles without a cut (answers close to the target from the start: 100-block
requests under ~100 calls/s) keeps them too.

:meth:`Window.node_limit` says when the node's limit is what bounds the speed (the window holds
requests back and answers queue under it: they took half the target or more within the last
:data:`BOUND_FOR` seconds), and the rate the endpoint served them at: the progress bar shows it.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BOUND_FOR", "FIRST", "GROWTH", "MOST", "TARGET", "Window", "WindowTicket", "call_cost"]

#: Seconds an answer is aimed to take under a binding limit (the window is ``rate * TARGET``).
TARGET = 5.0
#: The first window, in calls (before anything is measured).
FIRST = 128.0
#: Most a window grows per quick answer (8: the first one away from a full window without a limit).
GROWTH = 8.0
#: The largest window, in calls: 8 requests of 1,025 blocks (the window stops mattering).
MOST = 8 * 1025.0
#: Seconds after an answer last queued during which the node's limit is said to bound the speed
#: (:meth:`Window.node_limit`).
BOUND_FOR = 30.0
#: Weight of the newest answer in the moving average of the served rate.
_ALPHA = 0.3


def call_cost(method: str, params: Sequence[Any]) -> int:
    """The node's calls one JSON-RPC call costs: a ``getBlocks`` of ``n`` blocks costs ``n`` (the
    node reads, and rate-limits, each block as a ``getBlockByNumber``); anything else 1.

    >>> call_cost("hmyv2_getBlocks", [1, 100, {}]), call_cost("hmy_getBlocks", ["0x1", "0xa"]), call_cost("hmyv2_blockNumber", [])
    (100, 10, 1)
    """
    if method.endswith("_getBlocks") and len(params) >= 2:
        first, last = (_number(p) for p in params[:2])
        if first is not None and last is not None and last >= first:
            return last - first + 1
    return 1


def _number(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value[:2] in ("0x", "0X"):
        try:
            return int(value, 16)
        except ValueError:
            return None
    return None


@dataclass(eq=False)
class WindowTicket:
    """One request's place in a window (from :meth:`Window.admit`, back with :meth:`Window.done`)."""

    cost: float
    epoch: int
    sent: float = 0.0  # when it was sent (set by :meth:`Window.sent`)
    area: float = 0.0  # the window's calls-out integral then
    settled: bool = field(default=False)


class Window:
    """The calls a client keeps out at one endpoint (see the module docstring).

    Parameters
    ----------
    requests
        The client's ``max_in_flight``: :meth:`request_calls` is the window over it.
    clock
        Monotonic clock (seconds).
    """

    def __init__(self, requests: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.requests = max(1, requests)
        self.calls = FIRST  # the window
        self.used = 0.0  # calls out
        self.epoch = 0  # cuts so far
        self.answers = 0  # answers measured so far
        self.queued_at: float | None = None  # when an answer last queued (took TARGET / 2 or more)
        self.rate: float | None = None  # calls a second served to queued answers (moving average)
        self._clock = clock
        self._area = 0.0  # integral of `used` over time
        self._since = clock()
        self._waiting: collections.deque[tuple[float, asyncio.Future[WindowTicket]]] = collections.deque()

    # ------------------------------------------------------------------ admission

    def _tick(self) -> float:
        now = self._clock()
        self._area += self.used * (now - self._since)
        self._since = now
        return now

    async def admit(self, cost: float) -> WindowTicket:
        """Wait until a request of ``cost`` calls fits in the window (alone, it always does)."""
        if not self._waiting and self._fits(cost):
            return self._take(cost)
        future: asyncio.Future[WindowTicket] = asyncio.get_running_loop().create_future()
        entry = (cost, future)
        self._waiting.append(entry)
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.done(future.result(), None)  # admitted as it was cancelled
            else:
                self._waiting.remove(entry)
                self._wake()
            raise

    def _fits(self, cost: float) -> bool:
        return self.used <= 0 or self.used + cost <= self.calls

    def _take(self, cost: float) -> WindowTicket:
        self._tick()
        self.used += cost
        return WindowTicket(cost, self.epoch)

    def _wake(self) -> None:
        while self._waiting:
            cost, admitted = self._waiting[0]
            if admitted.done():
                self._waiting.popleft()
                continue
            if not self._fits(cost):
                break
            self._waiting.popleft()
            admitted.set_result(self._take(cost))

    def sent(self, ticket: WindowTicket) -> None:
        """The request leaves now (its time is measured from here)."""
        ticket.sent = self._tick()
        ticket.area = self._area

    # ------------------------------------------------------------------ learning

    def done(self, ticket: WindowTicket, outcome: str | None) -> None:
        """The request is over: ``"answered"``, ``"refused"`` (a rate refusal), ``"slow"`` (a
        timeout or a dropped connection), or ``None`` (not sent, or nothing learnt)."""
        if ticket.settled:
            return
        ticket.settled = True
        now = self._tick()
        if outcome == "answered" and ticket.sent > 0:
            self._answered(ticket, now)
        elif outcome in ("refused", "slow") and ticket.epoch == self.epoch:
            self._cut(max(1.0, self.calls / 2))
        self.used = max(0.0, self.used - ticket.cost)
        self._wake()  # (after any change of the window too)

    def _answered(self, ticket: WindowTicket, now: float) -> None:
        took = now - ticket.sent
        if took <= 0:
            return
        out = (self._area - ticket.area) / took  # calls out on average while it was out
        served = max(out, ticket.cost) / took  # Little's law
        self.answers += 1
        if took >= TARGET / 2:  # (queued: it says what rate the endpoint allows)
            self.rate = served if self.rate is None else (1 - _ALPHA) * self.rate + _ALPHA * served
            self.queued_at = now
        aim = served * TARGET
        if took > TARGET:  # queued longer than aimed at: as much out as is served in TARGET
            if ticket.epoch == self.epoch and aim < self.calls:
                self._cut(max(1.0, aim))
        elif aim > self.calls:  # (never cut for a quick answer: the window did not bind)
            self.calls = min(MOST, aim, GROWTH * self.calls)

    def _cut(self, calls: float) -> None:
        self.calls = min(self.calls, calls)
        self.epoch += 1

    # ------------------------------------------------------------------ advice

    def request_calls(self) -> int | None:
        """Calls one request should cost: the window over the client's ``max_in_flight``, once
        the window was cut (answers too slow, a refusal, a timeout); ``None`` before: requests
        keep the caller's sizes (only the window's admission holds them back)."""
        if self.epoch == 0:
            return None
        return max(1, int(self.calls / self.requests))

    def node_limit(self) -> float | None:
        """The calls a second the endpoint served while queueing them, when its limit is what
        bounds the speed (the window holds requests back, and answers queued under it within
        :data:`BOUND_FOR` seconds), else ``None``."""
        if self.queued_at is None or self._clock() - self.queued_at > BOUND_FOR or self.calls >= MOST:
            return None
        return self.rate
