"""Sending a batch: one HTTP round trip at a time, retries and the time budget.

:class:`Sender` runs each batch in a task of its own until every call has an outcome. Retries
follow a :class:`~hmyframe.rpc.retry.RetryPolicy`: connection failures, timeouts, truncated or
non-JSON bodies, HTTP 429/502/503/504 (honouring ``Retry-After`` up to ``retry_after_max``),
the node's ``-32000`` rate-limit messages and batch items missing from an answer. Only the
failed items of a batch are sent again. When a batch fails in a way that suggests it was too
big for the way (502/504 from a proxy, timeout, reset, cut-off body, an answer over the size
cap), it is retried in halves and the endpoint's later batches are halved too. A call gives up
after ``attempts`` or when its ``max_elapsed`` budget is spent, with the
:mod:`hmyframe.errors` exception of its last failure; a long wait is announced on the
``hmyframe.rpc`` logger.

Every attempt first waits for room in the endpoint's :class:`~hmyframe.rpc.window.Window` of its
method (the node calls it costs: :func:`~hmyframe.rpc.window.call_cost`), which learns from the
attempt's answer time, or its rate refusal or timeout, how much work the endpoint takes at once.
A call's budget starts when its first attempt got that room: time spent waiting behind the
client's own requests is not the endpoint's. A request that costs more than the window advises
for one, when it is about to leave, is sent in parts: a batch as smaller batches, a
``getBlocks`` as shorter ranges whose blocks are joined back in order (its caller sees one answer).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from hmyframe.errors import (
    ConnectionFailedError,
    HmyframeError,
    HTTPStatusError,
    RateLimitError,
    ResponseShapeError,
    ResponseTooLargeError,
    redact_url,
    short_repr,
)
from hmyframe.rpc.batching import Endpoint, InFlight, window_key
from hmyframe.rpc.envelope import Call, Failure, abandon, body_of, decode_answer, fail, match_answer, settle
from hmyframe.rpc.pacing import Pacing
from hmyframe.rpc.retry import RetryPolicy
from hmyframe.rpc.shared import ClientStats
from hmyframe.rpc.transport import HttpReply, Transport, TransportFault
from hmyframe.rpc.window import TARGET, Window, WindowTicket, call_cost

__all__ = ["LONG_WAIT", "Sender"]

#: A retry whose wait (or whose failed attempt) lasts this many seconds or more is announced
#: with a warning on the ``hmyframe.rpc`` logger (printed on stderr when logging is not
#: configured), so a long wait is never silent.
LONG_WAIT = 5.0

_log = logging.getLogger("hmyframe.rpc")

_Failures = list[tuple[Call, Failure]]


class Sender:
    """Sends batches through one transport, under the in-flight bound and the pacing, retrying.

    Parameters
    ----------
    transport
        The HTTP session.
    retry, timeout
        The retry policy, and the seconds one HTTP request may take (the least budget).
    in_flight, pacing, stats
        The client's in-flight bound, rate limits and counters.
    make_call
        Makes a new call (its id, its encoded item): what a ``getBlocks`` too large for its
        endpoint's window is cut into.
    """

    def __init__(
        self,
        transport: Transport,
        *,
        retry: RetryPolicy,
        timeout: float,
        in_flight: InFlight,
        pacing: Pacing,
        stats: ClientStats,
        make_call: Callable[[str, list[Any], bool], Call] | None = None,
    ) -> None:
        self.transport = transport
        self._make_call = make_call
        self.retry = retry
        self._timeout = timeout
        self._in_flight = in_flight
        self._pacing = pacing
        self._stats = stats
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, ep: Endpoint, calls: list[Call]) -> None:
        """Start sending ``calls`` to ``ep`` together in a task of their own."""
        task = asyncio.get_running_loop().create_task(self._run(ep, calls))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, ep: Endpoint, calls: list[Call]) -> None:
        """Send ``calls`` together, retrying the failed ones, until every future is settled."""
        try:
            await self._send_with_retries(ep, calls, 0, None)
        except HmyframeError as exc:
            for call in calls:
                fail(call, exc)
        except Exception as exc:  # noqa: BLE001  (callers must only ever see hmyframe errors)
            abandon(ep.url, calls, f"internal error while sending: {type(exc).__name__}: {exc}")
        finally:
            abandon(ep.url, calls, "request abandoned: the client was closed before an answer arrived")

    def _budget(self) -> float | None:
        """Seconds one call may take, retries included (never less than one request's timeout)."""
        budget = self.retry.max_elapsed
        return None if budget is None else max(float(budget), self._timeout)

    async def _send_with_retries(
        self, ep: Endpoint, calls: list[Call], attempt: int, started: float | None
    ) -> None:
        budget = self._budget()
        pending = calls
        while True:
            pending = [c for c in pending if not c.future.done()]
            if not pending:
                return
            window = ep.window(window_key(pending))
            cost = sum(call_cost(c.method, c.params) for c in pending)
            if await self._in_parts(ep, pending, window, cost, attempt, started):
                return
            ticket = await window.admit(cost)
            if self._parts(pending, window, cost) is not None:  # the window shrank while it waited
                window.done(ticket, None)
                await self._in_parts(ep, pending, window, cost, attempt, started)
                return
            attempt += 1
            outcome: str | None = None
            try:
                if started is None:
                    started = time.monotonic()  # (the budget starts once the call has room)
                left = None if budget is None else budget - (time.monotonic() - started)
                began = time.monotonic()
                failures = await self._attempt(ep, pending, left, window, ticket)
                took = time.monotonic() - began
                outcome = _outcome(failures, took)
            finally:
                window.done(ticket, outcome)
            if not failures:
                return
            if failures[0][1].reason == "too_large" and len(failures) > 1:
                # an answer over the size cap: the batch was too big, never the way; halve it
                await self._split(ep, [c for c, _ in failures], attempt, started)
                return
            if attempt >= self.retry.attempts:
                for call, failure in failures:
                    fail(call, self.final_error(ep, call, failure, attempt))
                return
            failures = self._drop_long_retry_after(ep, failures, attempt)
            if not failures:
                return
            retry_afters = [f.retry_after for _, f in failures if f.retry_after is not None]
            wait = self.retry.delay(attempt, max(retry_afters) if retry_afters else None)
            spent = time.monotonic() - (started or 0.0)
            if budget is not None and spent + wait >= budget:
                note = f"; the call's time budget of {budget:g} s is spent ({spent:.1f} s so far)"
                for call, failure in failures:
                    fail(call, self.final_error(ep, call, failure, attempt, note))
                return
            for _, failure in failures:
                self._stats.retries[failure.reason] += 1
            self._stats.retry_wait += wait
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
                    self.retry.attempts,
                )
            if wait > 0:
                await asyncio.sleep(wait)
            pending = [c for c, _ in failures]
            if len(pending) > 1 and any(f.reason in self.retry.split_reasons for _, f in failures):
                await self._split(ep, pending, attempt, started)
                return

    def _parts(self, pending: list[Call], window: Window, cost: int) -> list[list[Call]] | None:
        """``pending`` cut into requests of at most the calls ``window`` advises for one (a batch
        into smaller batches, a ``getBlocks`` into ranges of fewer blocks), or ``None`` if it is
        not more than that (or cannot be cut)."""
        advised = window.request_calls()
        if advised is None or cost <= advised:
            return None
        if len(pending) > 1:
            groups: list[list[Call]] = [[]]
            used = 0
            for call in pending:
                each = call_cost(call.method, call.params)
                if groups[-1] and used + each > advised:
                    groups.append([])
                    used = 0
                groups[-1].append(call)
                used += each
            return groups if len(groups) > 1 else None
        call = pending[0]
        ranges = _block_ranges(call, advised)
        if ranges is None or self._make_call is None:
            return None
        return [[self._make_call(call.method, [*params], call.raw)] for params in ranges]

    async def _in_parts(
        self,
        ep: Endpoint,
        pending: list[Call],
        window: Window,
        cost: int,
        attempt: int,
        started: float | None,
    ) -> bool:
        """Send ``pending`` as several requests if it costs more than ``window`` advises for one
        (``False``: it does not). A ``getBlocks`` cut into ranges gets its parts' blocks back
        joined in order, as one call of the whole range answers: its caller sees no difference."""
        parts = self._parts(pending, window, cost)
        if parts is None:
            return False
        self._stats.parts += len(parts) - 1
        await asyncio.gather(*(self._send_with_retries(ep, part, attempt, started) for part in parts))
        if len(pending) == 1 and parts[0][0] is not pending[0]:
            _join(pending[0], [part[0] for part in parts], ep.url)
        return True

    async def _split(self, ep: Endpoint, pending: list[Call], attempt: int, started: float | None) -> None:
        """Retry ``pending`` in two halves, and halve the endpoint's later batches too."""
        ep.halve()
        self._stats.batch_splits += 1
        half = (len(pending) + 1) // 2
        await asyncio.gather(
            self._send_with_retries(ep, pending[:half], attempt, started),
            self._send_with_retries(ep, pending[half:], attempt, started),
        )

    def _drop_long_retry_after(self, ep: Endpoint, failures: _Failures, attempt: int) -> _Failures:
        """Fail at once the calls whose answer asked to wait longer than ``retry_after_max``."""
        policy = self.retry
        if not policy.honour_retry_after:
            return failures
        kept: _Failures = []
        for call, failure in failures:
            if failure.retry_after is not None and failure.retry_after > policy.retry_after_max:
                note = (
                    f"; the endpoint asked to wait {failure.retry_after:g} s (Retry-After), longer than "
                    f"retry_after_max={policy.retry_after_max:g} s: try again later"
                )
                fail(call, self.final_error(ep, call, failure, attempt, note))
            else:
                kept.append((call, failure))
        return kept

    async def _attempt(
        self, ep: Endpoint, calls: list[Call], left: float | None, window: Window, ticket: WindowTicket
    ) -> _Failures:
        """One HTTP round trip; settle what can be settled, return the retryable failures."""
        body = body_of(calls)
        await self._pacing.wait_turn(ep.url, calls)
        async with self._in_flight.slot(self._pacing.rps):
            window.sent(ticket)
            stats = self._stats
            stats.http_requests += 1
            stats.calls += len(calls)
            stats.batches += 1 if len(calls) > 1 else 0
            stats.bytes_sent += len(body)
            try:
                reply = await self.transport.post(
                    ep.url, body, accept_encoding=ep.accept_encoding, time_left=left
                )
            except TransportFault as fault:
                return self._fail_all(ep, calls, Failure(fault.reason, fault.detail))
        self._stats.bytes_received += len(reply.body)
        try:
            failures = self._handle_reply(ep, calls, reply)
        except Exception as exc:  # noqa: BLE001  (a hostile answer must end as a response error)
            snippet = reply.body[:80].decode("utf-8", "replace")
            expected = f"an answer hmyframe can decode ({type(exc).__name__}: {exc})"
            for call in calls:
                fail(call, ResponseShapeError(call.method, "$", snippet, expected, endpoint=ep.url))
            return []
        if failures:
            self._pacing.refused(ep.url, failures)
        return failures

    def _fail_all(self, ep: Endpoint, calls: list[Call], failure: Failure) -> _Failures:
        if self.retry.retries_reason(failure.reason) or (failure.reason == "too_large" and len(calls) > 1):
            return [(c, failure) for c in calls]
        for call in calls:
            fail(call, self.final_error(ep, call, failure, 0))
        return []

    def _handle_reply(self, ep: Endpoint, calls: list[Call], reply: HttpReply) -> _Failures:
        status = reply.status
        if self.retry.retries_status(status):
            failure = Failure(
                f"http_{status}",
                f"HTTP {status}",
                retry_after=reply.retry_after,
                status=status,
                body=reply.body[:300].decode("utf-8", "replace"),
                rate=status in self.retry.rate_limit_statuses,
            )
            return [(c, failure) for c in calls]
        if not 200 <= status < 300:
            text = reply.body[:300].decode("utf-8", "replace")
            for call in calls:
                fail(call, HTTPStatusError(status, text, endpoint=ep.url, method=call.describe()))
            return []
        answer = decode_answer(ep.url, calls, reply)
        if answer is None:
            return []
        if isinstance(answer, Failure):
            return self._fail_all(ep, calls, answer)
        ep.answered()
        failures = match_answer(ep.url, calls, answer, self.retry.is_rate_limit_message)
        if self.retry.retry_missing:
            return failures
        for call, failure in failures:
            if failure.reason == "missing":
                fail(call, self.final_error(ep, call, failure, 1))
        return [(c, f) for c, f in failures if f.reason != "missing"]

    def final_error(
        self, ep: Endpoint, call: Call, failure: Failure, attempts: int, note: str = ""
    ) -> HmyframeError:
        """The exception ``call`` ends with after ``attempts`` attempts that ended in ``failure``."""
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


#: Failure reasons that say the answer was too long in coming (a timeout; a connection closed
#: after a long wait: the node's write timeout), when the attempt took this long or more.
_SLOW_REASONS = frozenset({"timeout", "reset", "truncated"})


def _outcome(failures: _Failures, took: float) -> str:
    """What an attempt tells its window: ``"refused"`` (a rate refusal), ``"slow"`` (no answer in
    time) or ``"answered"``."""
    if any(f.rate for _, f in failures):
        return "refused"
    if any(f.reason in _SLOW_REASONS for _, f in failures) and (
        took >= TARGET or any(f.reason == "timeout" for _, f in failures)
    ):
        return "slow"
    return "answered"


def _block_ranges(call: Call, blocks: int) -> list[list[Any]] | None:
    """The params of ``getBlocks`` calls of at most ``blocks`` blocks covering ``call``'s range, in
    its own encoding (numbers or hex quantities); ``None`` if ``call`` is not such a call."""
    if not call.method.endswith("_getBlocks") or len(call.params) < 2:
        return None
    first, last = call.params[0], call.params[1]
    hexed = isinstance(first, str)
    try:
        a = int(first, 16) if isinstance(first, str) else int(first)
        b = int(last, 16) if isinstance(last, str) else int(last)
    except (TypeError, ValueError):
        return None
    if b - a + 1 <= blocks:
        return None
    rest = call.params[2:]
    return [
        [hex(lo) if hexed else lo, hex(min(b, lo + blocks - 1)) if hexed else min(b, lo + blocks - 1), *rest]
        for lo in range(a, b + 1, blocks)
    ]


def _join(call: Call, parts: list[Call], url: str) -> None:
    """Settle ``call`` (a ``getBlocks`` sent as ``parts``) with their blocks joined in order, or
    with the first part's error."""
    results: list[Any] = []
    for part in parts:
        exc = part.future.exception() if part.future.done() else None
        if exc is not None or not part.future.done():
            fail(call, exc or ConnectionFailedError("a part of the call was abandoned", endpoint=url))
            return
        results.append(part.future.result())
    if call.raw:
        inner = [bytes(r).strip() for r in results]
        if not all(r[:1] == b"[" and r[-1:] == b"]" for r in inner):
            snippet = next(r for r in inner if not (r[:1] == b"[" and r[-1:] == b"]"))[:80]
            fail(
                call,
                ResponseShapeError(
                    call.method, "result", snippet.decode("utf-8", "replace"), "a JSON array", endpoint=url
                ),
            )
            return
        pieces = [r[1:-1].strip() for r in inner]
        settle(call, b"[" + b",".join(p for p in pieces if p) + b"]")
        return
    if not all(isinstance(r, list) for r in results):
        fail(call, ResponseShapeError(call.method, "result", results, "a list of blocks", endpoint=url))
        return
    settle(call, [block for r in results for block in r])
