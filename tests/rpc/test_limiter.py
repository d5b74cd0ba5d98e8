"""The async token bucket."""

from __future__ import annotations

import asyncio

import pytest

from hmyframe.errors import ConfigError
from hmyframe.rpc.limiter import TokenBucket


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_rate() -> None:
    clock = _Clock()
    bucket = TokenBucket(rate=2.0, burst=3, clock=clock)
    assert [bucket.reserve() for _ in range(3)] == [0.0, 0.0, 0.0]
    # out of tokens: the 4th is due in 1/rate, the 5th one more interval later (FIFO debt)
    assert bucket.reserve() == pytest.approx(0.5)
    assert bucket.reserve() == pytest.approx(1.0)
    clock.now += 1.0  # pays the debt back exactly
    assert bucket.available == pytest.approx(0.0)
    clock.now += 10.0  # refill never exceeds the burst
    assert bucket.available == pytest.approx(3.0)


async def test_acquire_waits_what_reserve_says() -> None:
    bucket = TokenBucket(rate=1000.0, burst=1)
    first = await bucket.acquire()
    second = await bucket.acquire()
    assert first == 0.0
    assert 0.0 < second <= 0.001 + 1e-9


async def test_concurrent_acquirers_are_spaced() -> None:
    clock = _Clock()
    bucket = TokenBucket(rate=100.0, burst=2, clock=clock)
    waits = sorted(bucket.reserve() for _ in range(5))
    assert waits == pytest.approx([0.0, 0.0, 0.01, 0.02, 0.03])
    await asyncio.sleep(0)


@pytest.mark.parametrize(("rate", "burst"), [(0, 1), (-1, 1), (float("nan"), 1), (1, 0), (1, 1.5), (True, 1)])
def test_bad_settings(rate: float, burst: int) -> None:
    with pytest.raises(ConfigError, match="token bucket"):
        TokenBucket(rate, burst)
