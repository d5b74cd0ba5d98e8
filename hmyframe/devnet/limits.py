"""The devnet node's rate limiters, as the node's (``golang.org/x/time/rate`` semantics).

The node's global limiter (``--rpc.ratelimit``, 1000 by default; ``rpc_rate_limit`` here) is
not one bucket for every call. ``rpc/harmony`` makes one ``rate.NewLimiter(limit, limit)`` (rate
and burst the same number) per API service and namespace, and waits on it only in some methods:

* the blockchain service (``hmy_``, ``hmyv2_`` and ``eth_``, a bucket each): the block and
  header reads (``getBlockByNumber``, ``getBlockByHash``, ``getHeaderByNumber``, ``latestHeader``,
  ``getShardingStructure``...). ``getBlocks`` does not wait itself: it reads each block through
  ``GetBlockByNumber``, so each block of its range waits (:data:`PER_BLOCK`);
* the contract service (a bucket per namespace): ``call``;
* the pool service: ``pendingTransactions``.

Everything else is not limited by it: ``blockNumber``, receipts (``getTransactionReceipt``,
``getBlockReceipts``), ``getLogs``, ``trace_*``, balances... (:func:`limited_by`).

Each wait is ``limiter.Wait`` under a context with a 5 s deadline (``DefaultRateLimiterWaitTimeout``):
a token due later than the deadline is refused at once with -32000 ``rate: Wait(n=1) would
exceed context deadline`` (nothing taken); otherwise the call waits its turn. A client that
drops the connection cancels the request's context: the wait ends and its reservation is given
back (``Reservation.Cancel``), so an abandoned request stops consuming the node's rate
(:meth:`TokenBucket.wait`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from hmyframe.devnet.params import RpcFault
from hmyframe.errors import ConfigError

__all__ = [
    "LIMITED",
    "PER_BLOCK",
    "RATE_LIMIT_MESSAGE",
    "VALIDATOR_RATE_LIMIT",
    "NodeLimiter",
    "RateLimit",
    "TokenBucket",
    "limited_by",
]

#: The node's refusal of a token due after the wait's deadline.
RATE_LIMIT_MESSAGE = "rate: Wait(n=1) would exceed context deadline"

#: The methods that wait on the node's global limiter, by the service whose bucket they take
#: (``rpc/harmony/blockchain.go``, ``contract.go``, ``pool.go``: ``s.wait(s.limiter, ctx)``).
LIMITED: dict[str, str] = {
    **dict.fromkeys(
        (
            "getBlockByNumber",
            "getBlockByHash",
            "getBlockByNumberNew",
            "getBlockByHashNew",
            "getShardingStructure",
            "latestHeader",
            "getLastCrossLinks",
            "getHeaderByNumber",
            "getProof",
            "getHeaderByNumberRLPHex",
            "getCurrentBadBlocks",
        ),
        "blockchain",
    ),
    "call": "contract",
    "pendingTransactions": "pool",
}

#: ``getBlocks`` reads each block through the limited ``GetBlockByNumber``.
PER_BLOCK = "getBlockByNumber"


def limited_by(method: str) -> str | None:
    """The bucket ``method`` waits on (``"hmyv2 blockchain"``...), or ``None`` if not limited.

    >>> limited_by("hmyv2_getBlockByNumber"), limited_by("eth_call"), limited_by("hmyv2_blockNumber")
    ('hmyv2 blockchain', 'eth contract', None)
    """
    namespace, _, name = method.partition("_")
    service = LIMITED.get(name)
    if service is None or namespace not in ("hmy", "hmyv2", "eth"):
        return None
    return f"{namespace} {service}"


@dataclass(frozen=True, slots=True)
class RateLimit:
    """A token bucket: ``rate`` tokens per second, ``burst`` at most, ``deadline`` max wait.

    A request that would have to wait longer than ``deadline`` seconds fails at once with
    -32000 ``rate: Wait(n=1) would exceed context deadline`` (Go ``rate.Limiter.Wait`` under
    a context with that deadline); otherwise it waits its turn.
    """

    rate: float
    burst: int
    deadline: float = 5.0

    def __post_init__(self) -> None:
        rate: object = self.rate
        if isinstance(rate, bool) or not isinstance(rate, int | float) or not rate > 0:
            raise ConfigError(f"rate limit rate={rate!r} must be a number of requests per second > 0")
        burst: object = self.burst
        if isinstance(burst, bool) or not isinstance(burst, int) or burst < 1:
            raise ConfigError(f"rate limit burst={burst!r} must be an integer >= 1")
        deadline: object = self.deadline
        if isinstance(deadline, bool) or not isinstance(deadline, int | float) or deadline < 0:
            raise ConfigError(f"rate limit deadline={deadline!r} must be a number of seconds >= 0")


#: The node's limiter on ``getAllValidatorInformation*``: 1 req/s, burst 3, 5 s deadline.
VALIDATOR_RATE_LIMIT = RateLimit(1.0, 3, 5.0)


class TokenBucket:
    """Async token bucket with Go ``rate.Limiter`` reservation semantics.

    Parameters
    ----------
    limit
        Rate, burst and deadline.
    clock
        Monotonic clock (seconds).
    """

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._tokens = float(limit.burst)
        self._last = clock()
        self._last_event = self._last  # when the latest reservation may act

    def _advance(self, now: float) -> float:
        elapsed = max(0.0, now - self._last)
        return min(float(self.limit.burst), self._tokens + elapsed * self.limit.rate)

    def reserve(self) -> float | None:
        """Take a token now or in the future; return the wait in seconds, or ``None`` if the
        wait would exceed the deadline (then nothing is taken)."""
        now = self._clock()
        tokens = self._advance(now) - 1.0
        wait = 0.0 if tokens >= 0 else -tokens / self.limit.rate
        if wait > self.limit.deadline:
            return None
        self._tokens = tokens
        self._last = now
        self._last_event = now + wait
        return wait

    def cancel(self, act_at: float) -> None:
        """Give back a reservation due at ``act_at`` that will not be used (Go's
        ``Reservation.CancelAt``): the token, less those reserved after it."""
        now = self._clock()
        if act_at <= now:
            return  # already due: used
        restore = 1.0 - (self._last_event - act_at) * self.limit.rate
        if restore <= 0:
            return
        self._tokens = min(float(self.limit.burst), self._advance(now) + restore)
        self._last = now
        if act_at == self._last_event:
            previous = act_at - 1.0 / self.limit.rate
            if previous >= now:
                self._last_event = previous

    async def wait(self) -> None:
        """Wait for a token; raise :class:`RpcFault` (-32000) if it would exceed the deadline.

        Cancelled while waiting (the client dropped the connection), the reservation is given back.
        """
        wait = self.reserve()
        if wait is None:
            raise RpcFault(-32000, RATE_LIMIT_MESSAGE)
        if wait > 0:
            act_at = self._last_event
            try:
                await asyncio.sleep(wait)
            except asyncio.CancelledError:
                self.cancel(act_at)
                raise


class NodeLimiter:
    """The node's global limiter: one :class:`TokenBucket` of ``limit`` per service and namespace
    (:func:`limited_by`), made on first use."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}

    def bucket(self, method: str) -> TokenBucket | None:
        """The bucket ``method`` waits on (``None``: the method is not limited)."""
        key = limited_by(method)
        if key is None:
            return None
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = TokenBucket(self.limit, self._clock)
        return bucket

    async def wait(self, method: str) -> None:
        """Wait as ``method`` does on the node (nothing for a method that is not limited)."""
        bucket = self.bucket(method)
        if bucket is not None:
            await bucket.wait()
