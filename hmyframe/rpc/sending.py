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
"""

from __future__ import annotations

import asyncio
import logging
import time

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
from hmyframe.rpc.batching import Endpoint, InFlight
from hmyframe.rpc.envelope import Call, Failure, abandon, body_of, decode_answer, fail, match_answer
from hmyframe.rpc.pacing import Pacing
from hmyframe.rpc.retry import RetryPolicy
from hmyframe.rpc.shared import ClientStats
from hmyframe.rpc.transport import HttpReply, Transport, TransportFault

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
    ) -> None:
        self.transport = transport
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
            await self._send_with_retries(ep, calls, 0, time.monotonic())
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

    async def _send_with_retries(self, ep: Endpoint, calls: list[Call], attempt: int, started: float) -> None:
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
            if attempt >= self.retry.attempts:
                for call, failure in failures:
                    fail(call, self.final_error(ep, call, failure, attempt))
                return
            failures = self._drop_long_retry_after(ep, failures, attempt)
            if not failures:
                return
            retry_afters = [f.retry_after for _, f in failures if f.retry_after is not None]
            wait = self.retry.delay(attempt, max(retry_afters) if retry_afters else None)
            spent = time.monotonic() - started
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

    async def _split(self, ep: Endpoint, pending: list[Call], attempt: int, started: float) -> None:
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

    async def _attempt(self, ep: Endpoint, calls: list[Call], left: float | None = None) -> _Failures:
        """One HTTP round trip; settle what can be settled, return the retryable failures."""
        body = body_of(calls)
        await self._pacing.wait_turn(ep.url, calls)
        async with self._in_flight.slot(self._pacing.rps):
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
