"""Retry paths driven by the devnet's fault injection, and the node's validator limiter."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from hmyframe.devnet import Devnet, RateLimit
from hmyframe.errors import (
    ConnectionFailedError,
    HTTPStatusError,
    RateLimitError,
    RpcError,
)
from hmyframe.rpc import Client, RetryPolicy

FAST = RetryPolicy(backoff_base=0, jitter=False)


@pytest.fixture
def quiet_net(make_devnet: Callable[..., Devnet]) -> Devnet:
    """A small private devnet (fault rules are added by each test)."""
    return make_devnet(blocks=40, seed=5, validator_rate_limit=False)


# ---------------------------------------------------------------------------------- HTTP statuses


async def test_429_retry_after_is_honoured(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=429, retry_after=0.4, times=2)
    loop = asyncio.get_running_loop()
    async with Client(quiet_net.url, retry=FAST) as c:
        start = loop.time()
        assert await c.v2.block_number() == 39
        elapsed = loop.time() - start
        assert c.stats.retries["http_429"] == 2
        assert c.stats.retry_wait == pytest.approx(0.8)
    assert elapsed >= 0.8 - 0.02  # two Retry-After waits although the policy's own backoff is zero
    assert dict(quiet_net.stats.total().by_status) == {429: 2, 200: 1}


async def test_retry_after_can_be_ignored(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=429, retry_after=30, times=1)
    async with Client(quiet_net.url, retry=RetryPolicy(backoff_base=0, honour_retry_after=False)) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retry_wait == 0.0


async def test_retry_after_beyond_the_cap_ends_the_call_at_once(quiet_net: Devnet) -> None:
    # waiting less than the endpoint asked would only be refused again; waiting an hour is silent
    quiet_net.faults.add("status", status=503, retry_after=3600, times=1)
    async with Client(quiet_net.url, retry=RetryPolicy(backoff_base=0, retry_after_max=0.05)) as c:
        with pytest.raises(
            HTTPStatusError, match=r"asked to wait 3600 s \(Retry-After\).*retry_after_max=0.05 s"
        ):
            await c.v2.block_number()
        assert c.stats.retry_wait == 0.0
    assert quiet_net.stats.http_requests == 1
    quiet_net.faults.add("status", status=503, retry_after=0.05, times=1)
    async with Client(quiet_net.url, retry=RetryPolicy(backoff_base=0, retry_after_max=0.05)) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retry_wait == pytest.approx(0.05)


@pytest.mark.parametrize("status", [502, 503, 504])
async def test_gateway_statuses_are_retried(quiet_net: Devnet, status: int) -> None:
    quiet_net.faults.add("status", status=status, times=2)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v1.block_number() == "0x27"
        assert c.stats.retries == {f"http_{status}": 2}
    assert quiet_net.stats.total().by_status[status] == 2


async def test_exhausted_503_is_an_http_status_error(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=503)
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=3, backoff_base=0)) as c:
        with pytest.raises(HTTPStatusError) as info:
            await c.v2.get_block_by_number(4)
    assert info.value.status == 503
    assert "gave up after 3 attempts" in str(info.value)
    assert "hmyv2_getBlockByNumber([4," in str(info.value)
    assert quiet_net.stats.http_requests == 3


async def test_exhausted_429_is_a_rate_limit_error(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=429, retry_after=0)
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=4, backoff_base=0)) as c:
        with pytest.raises(RateLimitError, match=r"HTTP 429.*gave up after 4 attempts") as info:
            await c.v2.block_number()
    assert info.value.retry_after == 0.0
    assert info.value.method == "hmyv2_blockNumber"
    assert quiet_net.stats.http_requests == 4


async def test_the_backoff_is_exponential(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=502, times=3)
    policy = RetryPolicy(backoff_base=0.01, backoff_max=1.0, jitter=False)
    async with Client(quiet_net.url, retry=policy) as c:
        await c.v2.block_number()
        assert c.stats.retry_wait == pytest.approx(0.01 + 0.02 + 0.04)


# ---------------------------------------------------------------------------------- broken transport


async def test_connection_resets_are_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("reset", times=2)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retries == {"reset": 2}
    assert quiet_net.stats.http_requests == 3


async def test_exhausted_resets_are_connection_failures(quiet_net: Devnet) -> None:
    quiet_net.faults.add("reset")
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=3, backoff_base=0)) as c:
        with pytest.raises(ConnectionFailedError, match="gave up after 3 attempts") as info:
            await c.v2.block_number()
    assert info.value.endpoint == quiet_net.url


async def test_truncated_bodies_are_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("truncate", times=2)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v2.get_block_by_number(3, full_tx=False) is not None
        assert c.stats.retries == {"bad_body": 2}


async def test_truncated_batches_are_retried_in_halves(quiet_net: Devnet) -> None:
    quiet_net.faults.add("truncate", times=2)
    async with Client(quiet_net.url, retry=FAST) as c:
        blocks = await c.batch([("hmyv2_getBlockByNumber", [n, {}]) for n in range(5)])
        assert [b["number"] for b in blocks] == list(range(5))
        assert c.stats.batch_splits == 2  # 5 -> 3 + 2, then the half that was cut again
    assert quiet_net.stats.total().faults["truncate"] == 2


async def test_exhausted_truncation_is_a_connection_failure(quiet_net: Devnet) -> None:
    quiet_net.faults.add("truncate")
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=2, backoff_base=0)) as c:
        with pytest.raises(ConnectionFailedError, match="not JSON"):
            await c.v2.get_block_by_number(1)


async def test_timeouts_are_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("delay", delay=0.6, times=1)
    async with Client(quiet_net.url, retry=FAST, timeout=0.15) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retries == {"timeout": 1}


async def test_exhausted_timeouts_are_connection_failures(quiet_net: Devnet) -> None:
    quiet_net.faults.add("delay", delay=0.4, times=2)
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=2, backoff_base=0), timeout=0.1) as c:
        with pytest.raises(ConnectionFailedError, match=r"no complete answer within 0\.1 s"):
            await c.v2.block_number()


# ---------------------------------------------------------------------------------- batch splitting


async def test_a_batch_failing_with_502_is_retried_in_halves(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=502, times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        got = await c.batch([("hmyv2_getBlockByNumber", [n, {}]) for n in range(8)])
        assert [b["number"] for b in got] == list(range(8))
        assert c.stats.batch_splits == 1
        # later batches on this endpoint are halved too ...
        await asyncio.gather(*(c.v2.block_number() for _ in range(100)))
    sizes = dict(quiet_net.stats.total().batch_sizes)
    assert sizes == {8: 1, 4: 2, 50: 2}


async def test_halved_batches_recover_after_successes(quiet_net: Devnet) -> None:
    quiet_net.faults.add("reset", times=1)
    async with Client(quiet_net.url, retry=FAST, batch_size=8) as c:
        await c.batch([("hmyv2_blockNumber", [])] * 8)
        assert c.stats.batch_splits == 1
        for _ in range(16):  # ... until 16 requests in a row succeed
            await asyncio.gather(*(c.v2.block_number() for _ in range(8)))
        quiet_net.stats.reset()
        await asyncio.gather(*(c.v2.block_number() for _ in range(8)))
    assert dict(quiet_net.stats.total().batch_sizes) == {8: 1}


async def test_rate_limits_do_not_split_batches(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=429, retry_after=0, times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        await c.batch([("hmyv2_blockNumber", [])] * 6)
        assert c.stats.batch_splits == 0
    assert dict(quiet_net.stats.total().batch_sizes) == {6: 2}


# ---------------------------------------------------------------------------------- JSON-RPC errors


async def test_node_rate_limit_message_is_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error", times=2)  # -32000 "rate: Wait(n=1) would exceed context deadline"
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retries == {"rpc_rate_limit": 2}


async def test_context_deadline_message_is_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error", message="context deadline exceeded", times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v2.block_number() == 39
        assert c.stats.retries == {"rpc_rate_limit": 1}


async def test_exhausted_node_rate_limit_is_a_rate_limit_error(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error")
    async with Client(quiet_net.url, retry=RetryPolicy(attempts=3, backoff_base=0)) as c:
        with pytest.raises(RateLimitError, match=r"rate: Wait\(n=1\) would exceed context deadline"):
            await c.v2.get_block_by_number(2)
    assert quiet_net.stats.calls == 3


async def test_other_rpc_errors_are_not_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error", code=-32603, message="internal boom", times=5)
    async with Client(quiet_net.url, retry=FAST) as c:
        with pytest.raises(RpcError, match="internal boom") as info:
            await c.v2.block_number()
        assert c.stats.total_retries == 0
    assert info.value.code == -32603
    assert type(info.value) is RpcError
    assert quiet_net.stats.http_requests == 1


async def test_only_the_failed_batch_items_are_retried(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error", method="hmyv2_getBlockByNumber", times=3)
    async with Client(quiet_net.url, retry=FAST) as c:
        results = await c.batch(
            [("hmyv2_getBlockByNumber", [n, {}]) for n in range(8)] + [("hmyv2_blockNumber", [])] * 2
        )
        assert [b["number"] for b in results[:8]] == list(range(8))
        assert results[8:] == [39, 39]
        assert c.stats.retries == {"rpc_rate_limit": 3}
    total = quiet_net.stats.total()
    assert dict(total.batch_sizes) == {10: 1, 3: 1}
    assert total.calls == 13


async def test_auto_batched_retries_go_alone_when_one_item_fails(quiet_net: Devnet) -> None:
    quiet_net.faults.add("rpc_error", method="hmyv2_blockNumber", times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        got = await asyncio.gather(c.v2.block_number(), *(c.v2.get_block_by_number(n) for n in range(4)))
        assert got[0] == 39
    total = quiet_net.stats.total()
    assert dict(total.batch_sizes) == {5: 1}
    assert total.http_requests == 2  # the retried call was sent alone, as a plain object


# ---------------------------------------------------------------------------------- validator limiter


async def test_default_pacing_lets_the_node_limiter_wait(make_devnet: Callable[..., Devnet]) -> None:
    # "auto" sends the five listings at once; the node's own limiter (burst 3, 5 s deadline)
    # makes the 4th and 5th wait 1 s and 2 s, well within its deadline: nothing is refused, so
    # the client never needs to pace
    net = make_devnet(blocks=40, seed=5, validator_rate_limit=True)  # the node's 1 req/s, burst 3
    async with Client(net.url, retry=RetryPolicy(attempts=1)) as c:  # default validator_pacing="auto"
        pages = await asyncio.gather(*(c.v2.get_all_validator_information(p % 2) for p in range(5)))
        assert c.stats.pacing_wait == 0
        assert c.stats.pacing_engaged == 0
    assert [len(p) for p in pages] == [100, 100, 100, 100, 100]
    total = net.stats.total()
    assert dict(total.rpc_errors) == {}
    assert total.calls_of("hmyv2_getAllValidatorInformation") == 5
    assert total.http_requests == 6  # + one hmy_getShardingStructure to learn that shard 0 is home
    assert total.batches == 0  # validator listings are never batched together


async def test_fixed_pacing_never_trips_the_node_limiter(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=40, seed=5, validator_rate_limit=True)  # the node's 1 req/s, burst 3
    async with Client(net.url, retry=RetryPolicy(attempts=1), validator_pacing=(1.0, 3)) as c:
        pages = await asyncio.gather(*(c.v2.get_all_validator_information(p % 2) for p in range(5)))
        assert c.stats.pacing_wait == pytest.approx(1.0 + 2.0, abs=0.1)
        assert c.stats.pacing_engaged == 0  # fixed pacing is on from the start, never "engaged"
    assert [len(p) for p in pages] == [100, 100, 100, 100, 100]
    total = net.stats.total()
    assert dict(total.rpc_errors) == {}
    assert total.calls_of("hmyv2_getAllValidatorInformation") == 5
    assert total.batches == 0


async def test_an_unpaced_burst_trips_the_node_limiter(make_devnet: Callable[..., Devnet]) -> None:
    # the node's burst, a slow refill (one token per 60 s) and a short wait deadline: the burst
    # of 3 passes and the other 5 are refused however slowly a loaded machine sends them
    net = make_devnet(blocks=40, seed=5, validator_rate_limit=RateLimit(1 / 60, 3, 0.5))
    async with Client(net.url, retry=RetryPolicy(attempts=1), validator_pacing=None) as c:
        results = await asyncio.gather(
            *(c.v2.get_all_validator_information(0) for _ in range(8)), return_exceptions=True
        )
    refused = [r for r in results if isinstance(r, RateLimitError)]
    assert len(refused) == 5
    assert all("rate: Wait(n=1)" in str(r) for r in refused)
    assert net.stats.total().rpc_errors[-32000] == 5


async def test_paced_calls_against_the_same_limiter(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=40, seed=5, validator_rate_limit=RateLimit(1.0, 3, 0.5))
    async with Client(net.url, retry=RetryPolicy(attempts=1), validator_pacing=(1.0, 3)) as c:
        results = await asyncio.gather(*(c.v1.get_all_validator_information(0) for _ in range(4)))
    assert all(len(r) == 100 for r in results)
    assert dict(net.stats.total().rpc_errors) == {}


# ---------------------------------------------------------------------------------- auto pacing


async def _all_pages(c: Client) -> list[list[Any]]:
    """Every ``getAllValidatorInformation`` page, asked one after the other, the empty last one included."""
    pages: list[list[Any]] = []
    while not pages or pages[-1]:
        pages.append(await c.v2.get_all_validator_information(len(pages)))
    return pages


async def test_auto_pacing_sends_unpaced_to_a_node_without_the_limiter(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(blocks=40, seed=5, validators=800, validator_rate_limit=False)
    async with Client(net.url) as c:
        pages = await _all_pages(c)
        assert c.stats.pacing_wait == 0
        assert c.stats.pacing_engaged == 0
    assert len(pages) == 9  # 800 validators created, 705 of them exist at the head: 8 pages and an empty one
    assert [len(p) for p in pages[:7]] == [100] * 7
    assert 0 < len(pages[7]) <= 100
    assert pages[8] == []
    assert len({v["validator"]["address"] for p in pages for v in p}) == sum(len(p) for p in pages)
    total = net.stats.total()
    assert total.calls_of("hmyv2_getAllValidatorInformation") == 9
    assert dict(total.rpc_errors) == {}


async def test_auto_pacing_engages_after_the_first_refusals(make_devnet: Callable[..., Devnet]) -> None:
    reference = make_devnet(blocks=40, seed=5, validators=800, validator_rate_limit=False)
    async with Client(reference.url, validator_pacing=None) as c:
        expected = await asyncio.gather(*(c.v2.get_all_validator_information(p) for p in range(8)))
    # the node's rate and burst with a short deadline: of 8 listings sent at once the burst of 3
    # passes, the others are refused (at least the 5th: the 4th may squeeze into the deadline
    # on a slow machine), and every refusal switches this endpoint's pacing on
    net = make_devnet(blocks=40, seed=5, validators=800, validator_rate_limit=RateLimit(1.0, 3, 0.5))
    # One retry per call, no back-off. A retry is sent after its call's refusal came back, so
    # after pacing was engaged; were any paced retry refused, its call would have no attempt left
    # and fail with RateLimitError. All 8 succeeding proves no call was refused after engagement.
    policy = RetryPolicy(attempts=2, backoff_base=0, jitter=False)
    async with Client(net.url, retry=policy) as c:
        got = await asyncio.gather(*(c.v2.get_all_validator_information(p) for p in range(8)))
        assert c.stats.pacing_engaged == 1
        refused = c.stats.retries["rpc_rate_limit"]
    assert got == expected
    total = net.stats.total()
    assert 1 <= total.rpc_errors[-32000] <= 5  # only the first wave: 8 minus the node's burst
    assert total.rpc_errors[-32000] == refused  # each refusal was retried once, and only once
    assert total.calls_of("hmyv2_getAllValidatorInformation") == 8 + refused


async def test_auto_pacing_starts_empty_and_stays(quiet_net: Devnet) -> None:
    # an HTTP 429 on a validator listing engages pacing too; the bucket starts empty (the node's
    # was just drained), so even the retry of the refused call waits for a token
    quiet_net.faults.add("status", status=429, method="hmyv2_getAllValidatorInformation", times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert len(await c.v2.get_all_validator_information(0)) == 100
        assert c.stats.retries == {"http_429": 1}
        assert c.stats.pacing_engaged == 1
        first_wait = c.stats.pacing_wait
        assert first_wait > 0.5  # one token at 1 req/s, from an empty bucket
        c.stats.reset()
        assert len(await c.v2.get_all_validator_information(1)) == 100
        assert c.stats.pacing_engaged == 0  # reset zeroes the count, not the pacing
        assert dict(c.stats.retries) == {}


async def test_a_rate_limit_on_other_methods_does_not_engage_pacing(quiet_net: Devnet) -> None:
    quiet_net.faults.add("status", status=429, method="hmyv2_blockNumber", times=1)
    quiet_net.faults.add("rpc_error", method="hmyv2_getBlockByNumber", times=1)
    async with Client(quiet_net.url, retry=FAST) as c:
        assert await c.v2.block_number() == 39
        assert (await c.v2.get_block_by_number(3))["number"] == 3
        assert c.stats.retries == {"http_429": 1, "rpc_rate_limit": 1}
        pages = await asyncio.gather(*(c.v2.get_all_validator_information(p % 2) for p in range(6)))
        assert c.stats.pacing_engaged == 0
        assert c.stats.pacing_wait == 0
    assert [len(p) for p in pages] == [100, 100, 100, 100, 100, 100]
