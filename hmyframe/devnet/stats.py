"""Server-side request statistics of a devnet, per endpoint and in total.

Every HTTP request the devnet receives is counted exactly: requests, JSON-RPC calls by
method, batch sizes, requests in flight (current and maximum), bytes in and out (as on the
wire, i.e. compressed when gzip was used), answers by HTTP status, JSON-RPC errors by code
and injected faults by kind. Updates and reads take a lock, so tests may read the figures
from another thread while the devnet serves.

Endpoints are named ``"s<shard>"`` (the shard's normal port) and ``"s<shard>-trace"``
(its trace port).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = ["DevnetStats", "StatsSnapshot", "endpoint_name"]


def endpoint_name(shard: int, trace: bool) -> str:
    """Name of an endpoint in the statistics: ``"s0"``, ``"s0-trace"``, ``"s1"``..."""
    return f"s{shard}-trace" if trace else f"s{shard}"


@dataclass(frozen=True, slots=True)
class StatsSnapshot:
    """A frozen copy of the counters of one endpoint (or of all of them).

    Attributes
    ----------
    http_requests
        HTTP requests received (any method, any outcome).
    calls
        JSON-RPC calls received (a batch of 10 counts 10; notifications count too).
    calls_by_method
        ``calls`` broken down by method name.
    batches
        HTTP requests whose body was a JSON array.
    batch_sizes
        Number of batches of each size (``{size: count}``).
    in_flight
        Requests being handled right now.
    max_in_flight
        Largest number of requests handled at the same time since the last reset.
    bytes_in, bytes_out
        Request body bytes read (bodies of requests refused with 405/413/415 are not read)
        and response body bytes sent (compressed when gzip was used).
    by_status
        Answers by HTTP status (connection resets are not answers and are not counted here).
    rpc_errors
        JSON-RPC error objects sent, by code.
    faults
        Injected faults by kind.
    """

    http_requests: int = 0
    calls: int = 0
    calls_by_method: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    batches: int = 0
    batch_sizes: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    in_flight: int = 0
    max_in_flight: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    by_status: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    rpc_errors: Mapping[int, int] = field(default_factory=lambda: MappingProxyType({}))
    faults: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    def calls_of(self, method: str) -> int:
        """Number of calls of ``method`` (0 if never called)."""
        return self.calls_by_method.get(method, 0)


class _Counters:
    __slots__ = (
        "batch_sizes",
        "batches",
        "by_status",
        "bytes_in",
        "bytes_out",
        "calls",
        "calls_by_method",
        "faults",
        "http_requests",
        "in_flight",
        "max_in_flight",
        "rpc_errors",
    )

    def __init__(self) -> None:
        self.in_flight = 0
        self.reset()

    def reset(self) -> None:
        """Zero the counters; requests in flight stay counted."""
        self.http_requests = 0
        self.calls = 0
        self.calls_by_method: Counter[str] = Counter()
        self.batches = 0
        self.batch_sizes: Counter[int] = Counter()
        self.max_in_flight = self.in_flight
        self.bytes_in = 0
        self.bytes_out = 0
        self.by_status: Counter[int] = Counter()
        self.rpc_errors: Counter[int] = Counter()
        self.faults: Counter[str] = Counter()

    def snapshot(self) -> StatsSnapshot:
        return StatsSnapshot(
            http_requests=self.http_requests,
            calls=self.calls,
            calls_by_method=MappingProxyType(dict(self.calls_by_method)),
            batches=self.batches,
            batch_sizes=MappingProxyType(dict(self.batch_sizes)),
            in_flight=self.in_flight,
            max_in_flight=self.max_in_flight,
            bytes_in=self.bytes_in,
            bytes_out=self.bytes_out,
            by_status=MappingProxyType(dict(self.by_status)),
            rpc_errors=MappingProxyType(dict(self.rpc_errors)),
            faults=MappingProxyType(dict(self.faults)),
        )


class DevnetStats:
    """Thread-safe request statistics of one devnet (``devnet.stats``).

    Examples
    --------
    >>> stats = DevnetStats()
    >>> stats.reset()
    >>> stats.total().http_requests
    0
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._total = _Counters()
        self._endpoints: dict[str, _Counters] = {}

    def _endpoint(self, name: str) -> _Counters:
        counters = self._endpoints.get(name)
        if counters is None:
            counters = self._endpoints[name] = _Counters()
        return counters

    # -- recording (called by the server) -------------------------------------------------

    @contextmanager
    def in_flight(self, endpoint: str) -> Iterator[None]:
        """Count one HTTP request as received and in flight for the duration of the block."""
        with self._lock:
            for c in (self._total, self._endpoint(endpoint)):
                c.http_requests += 1
                c.in_flight += 1
                c.max_in_flight = max(c.max_in_flight, c.in_flight)
        try:
            yield
        finally:
            with self._lock:
                for c in (self._total, self._endpoint(endpoint)):
                    c.in_flight = max(0, c.in_flight - 1)

    def record_request(
        self, endpoint: str, *, bytes_in: int, methods: list[str], batch_size: int | None
    ) -> None:
        """Record a request body: its size, its calls and (for a batch) its size."""
        with self._lock:
            for c in (self._total, self._endpoint(endpoint)):
                c.bytes_in += bytes_in
                c.calls += len(methods)
                c.calls_by_method.update(methods)
                if batch_size is not None:
                    c.batches += 1
                    c.batch_sizes[batch_size] += 1

    def record_response(
        self, endpoint: str, *, status: int | None, bytes_out: int, rpc_errors: list[int]
    ) -> None:
        """Record an answer (``status=None`` for a dropped connection)."""
        with self._lock:
            for c in (self._total, self._endpoint(endpoint)):
                c.bytes_out += bytes_out
                if status is not None:
                    c.by_status[status] += 1
                c.rpc_errors.update(rpc_errors)

    def record_faults(self, endpoint: str, kinds: list[str]) -> None:
        """Record injected faults by kind."""
        if not kinds:
            return
        with self._lock:
            for c in (self._total, self._endpoint(endpoint)):
                c.faults.update(kinds)

    # -- reading ------------------------------------------------------------------------------

    def total(self) -> StatsSnapshot:
        """Counters summed over every endpoint (``max_in_flight`` is over all endpoints at once)."""
        with self._lock:
            return self._total.snapshot()

    def endpoint(self, shard: int, *, trace: bool = False) -> StatsSnapshot:
        """Counters of one endpoint (zeros if it never received a request)."""
        with self._lock:
            counters = self._endpoints.get(endpoint_name(shard, trace))
            return counters.snapshot() if counters is not None else StatsSnapshot()

    def endpoints(self) -> dict[str, StatsSnapshot]:
        """Counters of every endpoint that received a request, by name (``"s0"``, ``"s0-trace"``...)."""
        with self._lock:
            return {name: c.snapshot() for name, c in sorted(self._endpoints.items())}

    def reset(self) -> None:
        """Zero every counter (requests still in flight stay counted as in flight)."""
        with self._lock:
            self._total.reset()
            for c in self._endpoints.values():
                c.reset()

    # -- shortcuts on the total -------------------------------------------------------------

    @property
    def http_requests(self) -> int:
        """Total HTTP requests."""
        return self.total().http_requests

    @property
    def calls(self) -> int:
        """Total JSON-RPC calls."""
        return self.total().calls

    @property
    def max_in_flight(self) -> int:
        """Largest number of requests in flight at once, over all endpoints."""
        return self.total().max_in_flight

    def calls_of(self, method: str) -> int:
        """Total calls of ``method``."""
        return self.total().calls_of(method)

    def __repr__(self) -> str:
        t = self.total()
        return (
            f"DevnetStats(http_requests={t.http_requests}, calls={t.calls}, max_in_flight={t.max_in_flight})"
        )
