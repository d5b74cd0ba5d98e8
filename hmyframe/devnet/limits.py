"""The devnet node's rate limiters (``golang.org/x/time/rate`` semantics): the node's global
per-call limiter and its per-method limiter on ``getAllValidatorInformation*``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from hmyframe.devnet.params import RpcFault
from hmyframe.errors import ConfigError

__all__ = ["VALIDATOR_RATE_LIMIT", "RateLimit", "TokenBucket"]


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

    def reserve(self) -> float | None:
        """Take a token now or in the future; return the wait in seconds, or ``None`` if the
        wait would exceed the deadline (then nothing is taken)."""
        now = self._clock()
        elapsed = max(0.0, now - self._last)
        tokens = min(float(self.limit.burst), self._tokens + elapsed * self.limit.rate)
        tokens -= 1.0
        wait = 0.0 if tokens >= 0 else -tokens / self.limit.rate
        if wait > self.limit.deadline:
            return None
        self._tokens = tokens
        self._last = now
        return wait

    async def wait(self) -> None:
        """Wait for a token; raise :class:`RpcFault` (-32000) if it would exceed the deadline."""
        wait = self.reserve()
        if wait is None:
            raise RpcFault(-32000, "rate: Wait(n=1) would exceed context deadline")
        if wait > 0:
            await asyncio.sleep(wait)
