"""watch_heads over a devnet mining every 0.5 s: WebSocket newHeads and polling, real sockets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import pytest

from hmyframe.devnet import Devnet
from hmyframe.errors import ConfigError, WrongChainError
from hmyframe.rpc import Client
from hmyframe.rpc.heads import HeadReport, watch_heads

CHAIN: dict[str, Any] = {"blocks": 40, "seed": 3, "validators": 20}


async def _take(heads: AsyncGenerator[int, None], n: int, within: float = 15.0) -> list[int]:
    out: list[int] = []
    async with asyncio.timeout(within):
        async for head in heads:
            out.append(head)
            if len(out) == n:
                break
    await heads.aclose()
    return out


@pytest.fixture
async def mining() -> AsyncIterator[Devnet]:
    async with Devnet(**CHAIN, mine_every=0.5) as net:
        yield net


async def test_websocket_yields_the_current_head_then_each_new_one(mining: Devnet) -> None:
    reports: list[HeadReport] = []
    start = mining.chain.head(1)
    got = await _take(
        watch_heads(mining.urls[0], 1, ws_url="auto", stall_after=5, on_report=reports.append), 5
    )
    assert got[0] in (start, start + 1)
    assert got == list(range(got[0], got[0] + 5))
    assert got[-1] <= mining.chain.head(1)
    assert reports == []
    assert mining.ws_subscribers(1) == 0  # closing the iterator closed its socket


async def test_polling_yields_the_same_heads_as_the_websocket(mining: Devnet) -> None:
    async with Client(mining.url) as client:
        ws = watch_heads(client, 0, ws_url=mining.ws_urls[0], poll_interval=0.05)
        polled = watch_heads(client, 0, poll_interval=0.05)
        a, b = await asyncio.gather(_take(ws, 5), _take(polled, 5))
    assert a == list(range(a[0], a[0] + 5))
    assert b == list(range(b[0], b[0] + 5))
    assert abs(a[0] - b[0]) <= 1  # the same heads, started in the same block time (or the next)
    common = sorted(set(a) & set(b))
    assert len(common) >= 4


async def test_a_stalled_chain_is_reported_then_resumes(mining: Devnet) -> None:
    for ws_url in ("auto", None):
        reports: list[HeadReport] = []
        heads = watch_heads(
            mining.url, 0, ws_url=ws_url, poll_interval=0.05, stall_after=0.4, on_report=reports.append
        )
        first = await heads.__anext__()
        mining.mine_every = 0
        await asyncio.sleep(0.1)
        paused = mining.chain.head(0)
        loop = asyncio.get_running_loop()
        loop.call_later(1.0, setattr, mining, "mine_every", 0.5)
        async with asyncio.timeout(10):
            nxt = await heads.__anext__()
            while nxt <= paused:  # a block that was already due when mining paused
                nxt = await heads.__anext__()
        await heads.aclose()
        assert first <= paused < nxt
        kinds = [r.kind for r in reports]
        assert "stalled" in kinds, (ws_url, reports)
        assert kinds[-1] == "resumed", (ws_url, reports)
        stalled = next(r for r in reports if r.kind == "stalled")
        assert stalled.shard == 0
        assert stalled.head == paused
        assert f"shard 0: head still {paused:,} after" in stalled.message
        assert "\n" not in stalled.message


async def test_a_websocket_behind_the_http_node_is_reported_as_lower_and_waited_out(
    make_devnet: Any,
) -> None:
    # The HTTP node is at block 60; the WebSocket node (same chain) at 50 and mining fast:
    # its heads 51..60 are below what was seen, reported once, never yielded.
    ahead = make_devnet(**{**CHAIN, "blocks": 61})
    behind = make_devnet(**{**CHAIN, "blocks": 51}, mine_every=0.1)
    reports: list[HeadReport] = []
    got = await _take(
        watch_heads(ahead.url, 0, ws_url=behind.ws_urls[0], stall_after=5, on_report=reports.append), 3
    )
    assert got == [60, 61, 62]
    lower = [r for r in reports if r.kind == "lower"]
    assert len(lower) == 1, reports
    assert "newHeads reported head 5" in lower[0].message
    assert "below head 60 already seen" in lower[0].message


async def test_a_dropped_websocket_reconnects_without_losing_heads(mining: Devnet) -> None:
    reports: list[HeadReport] = []
    heads = watch_heads(
        mining.url, 0, ws_url="auto", poll_interval=0.1, max_backoff=0.4, on_report=reports.append
    )
    got: list[int] = []
    async with asyncio.timeout(15):
        async for head in heads:
            got.append(head)
            if len(got) == 2:
                mining.drop_websockets()
            if len(got) == 7:
                break
    await heads.aclose()
    assert got == list(range(got[0], got[0] + 7))  # polled meanwhile, no gap and no repeat
    kinds = [r.kind for r in reports]
    assert "disconnected" in kinds, reports
    assert "connected" in kinds[kinds.index("disconnected") :], reports


async def test_a_node_without_the_subscription_falls_back_to_polling() -> None:
    async with Devnet(**CHAIN, profile="legacy", mine_every=0.3) as net:
        reports: list[HeadReport] = []
        got = await _take(
            watch_heads(
                net.url, 0, ws_url="auto", namespace="eth", poll_interval=0.05, on_report=reports.append
            ),
            3,
        )
    assert got == list(range(got[0], got[0] + 3))
    assert [r.kind for r in reports] == ["unsupported"]
    assert 'no "newHeads" subscription in eth namespace' in reports[0].message


async def test_a_websocket_of_another_shard_is_refused(mining: Devnet) -> None:
    with pytest.raises(WrongChainError, match=r"sends heads of shard 1, not shard 0"):
        await _take(watch_heads(mining.url, 0, ws_url=mining.ws_urls[1]), 3)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shard": -1}, r"shard=-1 must be a shard id"),
        ({"ws_url": "http://x"}, r"ws_url='http://x' must be a ws:// or wss:// URL, 'auto' or None"),
        ({"poll_interval": 0}, r"poll_interval=0 must be a number of seconds >= 0.001"),
        ({"namespace": "hmyv2"}, r"namespace='hmyv2' must be 'hmy' or 'eth'"),
        ({"client_or_url": 5}, r"client_or_url=5 must be an HTTP URL or a Client"),
    ],
)
def test_bad_arguments_raise_when_called(kwargs: dict[str, Any], message: str) -> None:
    args = {"client_or_url": "http://127.0.0.1:1", **kwargs}
    with pytest.raises(ConfigError, match=message):
        watch_heads(**args)


async def test_a_url_that_is_not_a_websocket_endpoint_falls_back_to_polling(mining: Devnet) -> None:
    reports: list[HeadReport] = []
    not_ws = mining.url.replace("http://", "ws://")  # the HTTP port: handshake refused
    got = await _take(
        watch_heads(mining.url, 0, ws_url=not_ws, poll_interval=0.05, on_report=reports.append), 3
    )
    assert got == list(range(got[0], got[0] + 3))
    assert [r.kind for r in reports] == ["unsupported"]
    assert "refused the WebSocket handshake (HTTP" in reports[0].message


async def test_a_cancellation_landing_with_a_new_head_is_not_swallowed() -> None:
    # A follow being stopped (its task cancelled) in the same loop step as a head arrives must
    # end: asyncio.wait_for on 3.11 returned the head instead, and the stopped follow waited on.
    from hmyframe.rpc.heads import _Heads, _iterate

    heads = _Heads(0, lambda report: None)
    heads.observe(1, "test")
    numbers = _iterate(heads, 30.0)
    assert await anext(numbers) == 1
    waiting = asyncio.ensure_future(anext(numbers))
    for _ in range(3):
        await asyncio.sleep(0)  # the iterator now waits for the next head
    assert not waiting.done()
    heads.observe(2, "test")  # the head and the cancellation land in the same loop step
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await numbers.aclose()
