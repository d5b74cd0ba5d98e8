"""An async token bucket, used for the client's requests-per-second cap and validator pacing.

The bucket holds up to ``burst`` tokens and refills at ``rate`` tokens per second. Each
:meth:`TokenBucket.acquire` takes one token, waiting if none is available. Waiters are
served in the order they called ``acquire`` (a reservation is made before sleeping, so a
later caller can never overtake an earlier one).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from hmyframe.errors import ConfigError
from hmyframe.rpc._check import is_int, is_real

__all__ = ["TokenBucket"]


class TokenBucket:
    """Token bucket rate limiter for coroutines.

    Parameters
    ----------
    rate
        Tokens added per second (the long-run rate); must be a finite number > 0.
    burst
        Bucket capacity (how many acquisitions may happen back to back after a quiet
        period); must be an integer >= 1.
    tokens
        Tokens in the bucket at the start, between 0 and ``burst``; ``None`` (the default)
        starts it full. ``0`` starts it empty, to mirror a server bucket known to be drained
        (the first acquisition then waits ``1 / rate`` seconds).
    clock
        Monotonic clock in seconds; ``time.monotonic`` by default.

    Raises
    ------
    ConfigError
        If ``rate``, ``burst`` or ``tokens`` is out of range.

    Examples
    --------
    >>> bucket = TokenBucket(rate=1.0, burst=3)
    >>> # await bucket.acquire()  -> returns the seconds it waited (0.0 while tokens last)
    """

    def __init__(
        self,
        rate: float,
        burst: int = 1,
        *,
        tokens: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not is_real(rate) or rate <= 0:
            raise ConfigError(
                f"token bucket rate must be a finite number > 0 (tokens per second), got {rate!r}"
            )
        if not is_int(burst) or burst < 1:
            raise ConfigError(f"token bucket burst must be an integer >= 1, got {burst!r}")
        if tokens is not None and (not is_real(tokens) or not 0 <= tokens <= burst):
            raise ConfigError(
                f"token bucket tokens must be a number between 0 and burst={burst} (or None for full), got {tokens!r}"
            )
        self.rate = float(rate)
        self.burst = burst
        self._clock = clock
        self._tokens = float(burst if tokens is None else tokens)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._last) * self.rate)
        self._last = now

    def reserve(self) -> float:
        """Take one token now, possibly going into debt; return how long to wait before using it.

        Returns
        -------
        float
            Seconds until the reserved token is due (0.0 if one was available).
        """
        self._refill()
        self._tokens -= 1.0
        return 0.0 if self._tokens >= 0 else -self._tokens / self.rate

    async def acquire(self) -> float:
        """Wait until a token is available and take it.

        Returns
        -------
        float
            Seconds spent waiting.
        """
        wait = self.reserve()
        if wait > 0:
            await asyncio.sleep(wait)
        return wait

    @property
    def available(self) -> float:
        """Tokens available right now (negative while callers are queued)."""
        self._refill()
        return self._tokens
