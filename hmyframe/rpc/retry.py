"""Retry policy (plain data) and the classification of failures.

:class:`RetryPolicy` says *what* is retried and *how long* to wait; the client applies it.
The classification helpers decide, for one failed attempt, whether it may be retried and
whether it counts as a rate-limit refusal (which ends in :class:`~hmyframe.errors.RateLimitError`
once the attempts are used up).

Failure reasons (the keys of ``ClientStats.retries``):

``connect``      connection refused, DNS failure
``reset``        connection reset / server disconnected mid-request
``timeout``      no complete answer within the client's timeout
``truncated``    the body ended early (content length not met)
``bad_body``     a 2xx body that is not JSON (cut off, HTML error page...)
``http_<code>``  a retryable HTTP status (``http_429``, ``http_503``...)
``rpc_rate_limit``  the node's ``-32000`` ``rate: Wait(n=1) would exceed context deadline``
                 or ``context deadline exceeded``
``missing``      a batch answer lacked the item with this id
``too_large``    the answer passed the client's size cap (never retried as is: a batch of
                 several items is retried in halves, a single call fails)

Time: each HTTP attempt has the client's ``timeout``; a whole call, retries and waits
included, has the policy's ``max_elapsed`` budget. A ``Retry-After`` longer than
``retry_after_max`` ends the call at once (waiting less would only be refused again).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from hmyframe.errors import (
    ConfigError,
    InvalidParamsError,
    MethodNotFoundError,
    NotFoundError,
    RpcError,
)
from hmyframe.rpc._check import is_int, is_real

__all__ = [
    "RATE_LIMIT_MESSAGES",
    "RetryPolicy",
    "is_rate_limit_message",
    "parse_retry_after",
    "rpc_error_class",
]

#: Substrings of node ``-32000`` messages that mean "rate limited, try again later".
RATE_LIMIT_MESSAGES: tuple[str, ...] = ("rate: wait", "context deadline exceeded")

#: Substrings of node messages that mean "the block / transaction does not exist".
_NOT_FOUND_MESSAGES: tuple[str, ...] = ("requested block number greater than current block number",)


@dataclass(frozen=True)
class RetryPolicy:
    """How failed requests are retried.

    Parameters
    ----------
    attempts
        Total tries per call, the first one included (``1`` = never retry).
    backoff_base
        Wait before the 2nd try, in seconds; it doubles each try (``base * 2**(n-1)``).
    backoff_max
        Upper bound of the exponential wait, in seconds.
    jitter
        Randomise each wait to between half and all of its value (spreads retries of many
        clients apart).
    retry_statuses
        HTTP statuses that are retried (proxies' 429/502/503/504 by default).
    rate_limit_statuses
        The subset of statuses that mean "rate limited": when they exhaust the attempts the
        error is :class:`~hmyframe.errors.RateLimitError` instead of ``HTTPStatusError``.
    honour_retry_after
        Wait what a ``Retry-After`` header says (seconds or an HTTP date) instead of the
        exponential wait, when the answer carries one.
    retry_after_max
        Longest ``Retry-After`` honoured, in seconds. An answer asking for a longer wait
        ends the call at once with an error saying how long the endpoint asked to wait.
    max_elapsed
        Time budget of one call in seconds, all its attempts and waits included: no attempt
        runs past it (its timeout is shortened to what is left) and no retry starts when the
        wait would end past it. ``None`` for no budget. The client never lets it be shorter
        than its per-request ``timeout``.
    rate_limit_messages
        Case-insensitive substrings of JSON-RPC error messages that are rate-limit refusals
        and are retried (the node's ``rate: Wait(n=1) would exceed context deadline``).
    retry_connection_errors
        Retry refused/reset connections and DNS failures.
    retry_timeouts
        Retry requests that hit the client's timeout.
    retry_bad_bodies
        Retry 2xx answers whose body is truncated or not JSON.
    retry_missing
        Retry batch items the answer left out.
    split_reasons
        Failure reasons (see the module docstring) after which a failed batch of several
        items is retried in two halves, and the endpoint's later batches are halved too:
        the failures a too-large batch causes behind a proxy.

    Raises
    ------
    ConfigError
        If a number is out of range.

    Examples
    --------
    A policy for tests that never sleeps:

    >>> RetryPolicy(backoff_base=0, jitter=False, honour_retry_after=False).delay(3)
    0.0
    """

    attempts: int = 6
    backoff_base: float = 0.25
    backoff_max: float = 20.0
    jitter: bool = True
    retry_statuses: frozenset[int] = frozenset({429, 502, 503, 504})
    rate_limit_statuses: frozenset[int] = frozenset({429})
    honour_retry_after: bool = True
    retry_after_max: float = 60.0
    max_elapsed: float | None = 180.0
    rate_limit_messages: tuple[str, ...] = RATE_LIMIT_MESSAGES
    retry_connection_errors: bool = True
    retry_timeouts: bool = True
    retry_bad_bodies: bool = True
    retry_missing: bool = True
    split_reasons: frozenset[str] = frozenset(
        {"http_502", "http_504", "timeout", "reset", "truncated", "bad_body", "too_large"}
    )
    _rng: random.Random = field(default_factory=random.Random, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not is_int(self.attempts) or self.attempts < 1:
            raise ConfigError(f"RetryPolicy.attempts must be an integer >= 1, got {self.attempts!r}")
        for name in ("backoff_base", "backoff_max", "retry_after_max"):
            value = getattr(self, name)
            if not is_real(value) or value < 0:
                raise ConfigError(
                    f"RetryPolicy.{name} must be a finite number of seconds >= 0, got {value!r}"
                )
        if self.max_elapsed is not None and (not is_real(self.max_elapsed) or self.max_elapsed <= 0):
            raise ConfigError(
                f"RetryPolicy.max_elapsed must be None or a finite number of seconds > 0, got {self.max_elapsed!r}"
            )
        for status in self.retry_statuses | self.rate_limit_statuses:
            if not is_int(status) or not 100 <= status <= 599:
                raise ConfigError(f"RetryPolicy statuses must be HTTP status codes 100-599, got {status!r}")
        messages: object = self.rate_limit_messages
        if not isinstance(messages, tuple) or not all(isinstance(m, str) and m for m in messages):
            raise ConfigError(
                f"RetryPolicy.rate_limit_messages must be a tuple of non-empty strings, got {self.rate_limit_messages!r}"
            )

    def backoff(self, attempt: int) -> float:
        """Exponential wait after failed attempt number ``attempt`` (1-based), jittered.

        Parameters
        ----------
        attempt
            How many attempts have failed so far (>= 1).

        Returns
        -------
        float
            Seconds to wait; ``0.0`` when ``backoff_base`` is 0.
        """
        if self.backoff_base <= 0:
            return 0.0
        exponent = min(max(attempt - 1, 0), 64)
        wait = min(self.backoff_max, self.backoff_base * (2.0**exponent))
        if self.jitter:
            wait = wait / 2 + self._rng.uniform(0, wait / 2)
        return wait

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Wait before the next try: ``Retry-After`` if given and honoured, else :meth:`backoff`.

        Parameters
        ----------
        attempt
            How many attempts have failed so far (>= 1).
        retry_after
            Seconds the server asked for, if any.

        Returns
        -------
        float
            Seconds to wait.
        """
        if retry_after is not None and self.honour_retry_after:
            return min(max(retry_after, 0.0), self.retry_after_max)
        return self.backoff(attempt)

    def is_rate_limit_message(self, message: str) -> bool:
        """Whether a JSON-RPC error message is one of this policy's rate-limit refusals."""
        return is_rate_limit_message(message, self.rate_limit_messages)

    def retries_status(self, status: int) -> bool:
        """Whether HTTP ``status`` is retried."""
        return status in self.retry_statuses

    def retries_reason(self, reason: str) -> bool:
        """Whether a transport failure ``reason`` (see the module docstring) is retried."""
        flags: Mapping[str, bool] = {
            "connect": self.retry_connection_errors,
            "reset": self.retry_connection_errors,
            "timeout": self.retry_timeouts,
            "truncated": self.retry_bad_bodies,
            "bad_body": self.retry_bad_bodies,
            "missing": self.retry_missing,
            "rpc_rate_limit": True,
        }
        if reason.startswith("http_"):
            return True
        return flags.get(reason, False)


def is_rate_limit_message(message: str, needles: tuple[str, ...] = RATE_LIMIT_MESSAGES) -> bool:
    """Whether a JSON-RPC error ``message`` is a rate-limit refusal.

    Parameters
    ----------
    message
        The node's error message.
    needles
        Case-insensitive substrings that mark a rate-limit refusal.

    Returns
    -------
    bool
        ``True`` for ``rate: Wait(n=1) would exceed context deadline`` and
        ``context deadline exceeded`` with the default needles.
    """
    lower = message.lower()
    return any(n.lower() in lower for n in needles)


def rpc_error_class(code: int, message: str) -> type[RpcError]:
    """The :class:`~hmyframe.errors.RpcError` subclass for a JSON-RPC error object.

    Parameters
    ----------
    code
        The error code.
    message
        The error message.

    Returns
    -------
    type[RpcError]
        ``MethodNotFoundError`` for -32601, ``InvalidParamsError`` for -32602,
        ``NotFoundError`` for the node's "requested block number greater than current block
        number" and "transaction ... not found" messages, ``RpcError`` otherwise.
    """
    if code == -32601:
        return MethodNotFoundError
    if code == -32602:
        return InvalidParamsError
    lower = message.lower()
    if any(n in lower for n in _NOT_FOUND_MESSAGES) or (
        lower.startswith("transaction ") and lower.rstrip().endswith("not found")
    ):
        return NotFoundError
    return RpcError


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Parse a ``Retry-After`` header: delay seconds or an HTTP date.

    Parameters
    ----------
    value
        The header value, or ``None`` when absent.
    now
        The current time (for HTTP dates); ``datetime.now(UTC)`` by default.

    Returns
    -------
    float or None
        Seconds to wait (never negative), or ``None`` if absent or unparseable.

    Examples
    --------
    >>> parse_retry_after("3")
    3.0
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT",
    ...                   now=datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC))
    5.0
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now if now is not None else datetime.now(UTC)
    return max((when - current).total_seconds(), 0.0)
