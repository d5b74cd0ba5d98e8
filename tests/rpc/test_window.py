"""The window of work kept out at an endpoint (hmyframe.rpc.window), against simulated nodes.

The simulation is a fluid model of the node's limiter: ``limit`` calls a second shared equally by
the requests it is serving (each ``getBlocks`` takes one token per block, the requests' tokens
interleaved), plus a round trip; the client keeps ``max_in_flight`` requests out as the window
allows and sizes them as it advises. Time is a fake clock: nothing sleeps.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from hmyframe.devnet import Devnet
from hmyframe.rpc import Client
from hmyframe.rpc.window import BOUND_FOR, FIRST, TARGET, Window, call_cost


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class _Run:
    answers: list[tuple[float, float, int]] = field(default_factory=list)  # (sent, took, blocks)
    windows: list[float] = field(default_factory=list)
    limits: list[float | None] = field(default_factory=list)

    def served(self, after: float) -> float:
        """Blocks a second answered after ``after`` (from the first such answer's sending)."""
        late = [(s, t, b) for s, t, b in self.answers if s >= after]
        span = max(s + t for s, t, _ in late) - min(s for s, _, _ in late)
        return sum(b for _, _, b in late) / span


def _simulate(
    limit: float, seconds: float, *, rtt: float = 0.1, requests: int = 8, per_request: int = 100
) -> tuple[Window, _Run, _Clock]:
    clock = _Clock()
    window = Window(requests, clock=clock)
    run = _Run()
    began = clock.now

    async def go() -> None:
        serving: list[list[float]] = []  # [calls left, ticket index]
        delivering: list[tuple[float, int]] = []  # (answered at, ticket index)
        tickets: list[tuple[object, float, int]] = []  # (ticket, sent at, blocks)
        while clock.now - began < seconds:
            while len(serving) + len(delivering) < requests:
                size = min(per_request, window.request_calls() or per_request)
                if window.used and window.used + size > window.calls:
                    break
                ticket = await window.admit(size)
                window.sent(ticket)
                tickets.append((ticket, clock.now, size))
                serving.append([float(size), len(tickets) - 1])
            each = limit / len(serving) if serving else math.inf
            next_served = (
                0.0
                if serving and math.isinf(limit)
                else min((left / each for left, _ in serving), default=math.inf)
            )
            next_delivered = min((at for at, _ in delivering), default=math.inf) - clock.now
            step = min(next_served, next_delivered)
            clock.now += step
            for item in serving:
                item[0] = 0.0 if math.isinf(each) else item[0] - step * each
            for item in [s for s in serving if s[0] <= 1e-9]:
                serving.remove(item)
                delivering.append((clock.now + rtt, int(item[1])))
            for at, index in [d for d in delivering if d[0] <= clock.now + 1e-12]:
                delivering.remove((at, index))
                ticket, sent, blocks = tickets[index]
                window.done(ticket, "answered")  # type: ignore[arg-type]
                run.answers.append((sent - began, clock.now - sent, blocks))
                run.windows.append(window.calls)
                run.limits.append(window.node_limit())

    asyncio.run(go())
    return window, run, clock


def test_call_cost_counts_the_blocks_of_a_get_blocks() -> None:
    assert call_cost("hmyv2_getBlocks", [1, 100, {"fullTx": True}]) == 100
    assert call_cost("hmy_getBlocks", ["0x64", "0x65", {}]) == 2
    assert call_cost("hmyv2_getBlockByNumber", [5, {}]) == 1
    assert call_cost("hmyv2_getBlocks", [5, 4]) == 1  # an empty range still is a call
    assert call_cost("hmyv2_getBlocks", ["latest", 4]) == 1


@pytest.mark.parametrize("limit", [5.0, 20.0, 100.0])
def test_under_a_limit_the_window_keeps_answers_near_the_target_at_the_limits_rate(limit: float) -> None:
    window, run, _ = _simulate(limit, 400.0)
    _, first_took, first_blocks = run.answers[0]
    assert first_blocks == 100  # the first request keeps the caller's size
    # (the first window lets one 100-block request out alone: ~20 s at 5 calls/s, under 30 s)
    assert first_took <= 100 / limit + 0.2
    settled = [took for sent, took, _ in run.answers if sent > 60]
    assert max(settled) < 2 * TARGET
    assert sum(settled) / len(settled) == pytest.approx(TARGET, rel=0.4)
    assert run.served(after=60) >= 0.95 * limit
    assert window.calls == pytest.approx(limit * TARGET, rel=0.3)
    if window.epoch:  # (cut at least once: requests sized from the window)
        assert window.request_calls() == max(1, int(window.calls / 8))
    assert window.node_limit() == pytest.approx(limit, rel=0.15)


def test_without_a_limit_the_window_opens_at_once_and_requests_keep_their_size() -> None:
    window, run, _ = _simulate(math.inf, 5.0, rtt=0.1)
    assert [b for _, _, b in run.answers[:9]] == [100] * 9
    assert run.windows[0] == 8 * FIRST  # the first quick answer opened it 8 times
    assert window.request_calls() is None  # never cut: no advice, the caller's sizes
    assert window.node_limit() is None
    assert window.epoch == 0


async def test_a_rate_refusal_halves_the_window_once_per_epoch() -> None:
    clock = _Clock()
    window = Window(8, clock=clock)
    tickets = [await window.admit(16) for _ in range(8)]  # 128 calls: the first window, full
    for ticket in tickets:
        window.sent(ticket)
    clock.now += 1.0
    window.done(tickets[0], "refused")
    assert window.calls == FIRST / 2
    window.done(tickets[1], "refused")  # sent before the cut: says nothing of the new window
    assert window.calls == FIRST / 2
    for ticket in tickets[2:]:
        window.done(ticket, None)  # (given back unanswered: nothing learnt)
    assert window.calls == FIRST / 2
    assert window.used == 0
    fresh = await window.admit(4)
    window.sent(fresh)
    window.done(fresh, "slow")  # a timeout of the new epoch halves again
    assert window.calls == FIRST / 4
    assert window.request_calls() == int(FIRST / 4 / 8)


async def test_admission_waits_in_order_and_a_cancelled_waiter_leaves_no_trace() -> None:
    clock = _Clock()
    window = Window(2, clock=clock)
    first = await window.admit(100)
    big = asyncio.ensure_future(window.admit(100))  # 200 > 128: waits
    small = asyncio.ensure_future(window.admit(1))  # behind it, although it would fit
    await asyncio.sleep(0)
    assert not big.done()
    assert not small.done()
    big.cancel()
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    assert small.done()  # the cancelled one's place is given to the next
    assert window.used == 101
    window.done(first, None)
    window.done(small.result(), None)
    assert window.used == 0
    alone = await window.admit(10_000)  # alone, anything goes
    assert window.used == 10_000
    window.done(alone, None)


def test_the_limit_is_said_to_bound_the_speed_only_while_it_does() -> None:
    window, run, clock = _simulate(10.0, 120.0)
    # from the first answer on (it queued 10 s), the limit is known and shown
    assert all(limit == pytest.approx(10.0, rel=0.15) for limit in run.limits)
    assert window.node_limit() == pytest.approx(10.0, rel=0.15)
    clock.now += BOUND_FOR + 1  # no cut for a while: the limit no longer shown
    assert window.node_limit() is None


async def _shrink(window: Window, calls: float) -> None:
    while window.calls > calls:  # a refusal of the current epoch halves it
        ticket = await window.admit(1)
        window.sent(ticket)
        window.done(ticket, "refused")


@pytest.mark.parametrize(
    ("method", "first", "last"), [("hmyv2_getBlocks", 1, 50), ("hmy_getBlocks", "0x1", "0x32")]
)
async def test_a_get_blocks_larger_than_the_window_goes_in_parts_joined_as_one(
    make_devnet: Callable[..., Devnet], method: str, first: object, last: object
) -> None:
    net = make_devnet(shards=1, blocks=120, seed=5, validator_rate_limit=False)
    args = {"fullTx": True, "withSigners": False, "inclStaking": True}
    async with Client(net.url) as client:
        whole = await client.request_raw(method, [first, last, args])
        await _shrink(client.window(net.url, method), 16)  # 16 calls: 2 a request
        assert client.request_calls(net.url, method) == 2
        net.stats.reset()
        parted = await client.request_raw(method, [first, last, args])
        assert client.stats.parts == 24  # 25 ranges of 2 blocks
        assert net.stats.calls_of(method) == 25
        # (their quick answers opened the window again: no limit here)
        await _shrink(client.window(net.url, method), 16)
        decoded = await client.request(method, [first, last, args])
        assert client.stats.parts > 24  # (cut again: to what the window then advised)
    assert json.loads(parted) == json.loads(whole)
    assert [b["number"] for b in decoded] == [b["number"] for b in json.loads(whole)]


async def test_a_batch_larger_than_the_window_goes_as_smaller_batches(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(shards=1, blocks=120, seed=5, validator_rate_limit=False)
    async with Client(net.url) as client:
        await _shrink(client.window(net.url, "hmyv2_getBlockByNumber"), 8)  # 1 a request
        net.stats.reset()
        got = await client.batch([("hmyv2_getBlockByNumber", [n, {}]) for n in range(1, 9)])
    assert [b["number"] for b in got] == list(range(1, 9))
    assert net.stats.total().http_requests == 8  # one call a request, as the window advises
