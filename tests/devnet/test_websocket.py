"""The devnet's WebSocket port: newHeads subscriptions over real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.render import header_obj
from hmyframe.errors import ConfigError

CHAIN: dict[str, Any] = {"blocks": 30, "seed": 5, "validators": 20}


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as s:
        yield s


async def _call(ws: aiohttp.ClientWebSocketResponse, id_: int, method: str, params: Any) -> dict[str, Any]:
    """Send one call and return its answer (notifications arriving meanwhile are dropped)."""
    await ws.send_str(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}))
    while True:
        msg = json.loads(await ws.receive_str(timeout=5))
        if msg.get("id") == id_:
            return dict(msg)


async def _notifications(ws: aiohttp.ClientWebSocketResponse, n: int) -> list[dict[str, Any]]:
    out = []
    while len(out) < n:
        msg = json.loads(await ws.receive_str(timeout=5))
        assert "id" not in msg, msg
        out.append(msg)
    return out


async def test_subscribers_receive_each_new_head_in_order(session: aiohttp.ClientSession) -> None:
    truth = Chain(**CHAIN, shards=2)
    async with Devnet(**CHAIN, mine_every=0.5) as net, session.ws_connect(net.ws_urls[1]) as ws:
        answer = await _call(ws, 1, "hmy_subscribe", ["newHeads"])
        sub = answer["result"]
        assert re.fullmatch(r"0x[1-9a-f][0-9a-f]{0,31}", sub), answer
        head = net.chain.head(1)
        notes = await _notifications(ws, 4)
    numbers = [int(n["params"]["result"]["number"], 16) for n in notes]
    # every block after the subscription, one notification each, in order
    assert numbers == list(range(numbers[0], numbers[0] + 4))
    assert numbers[0] in (head, head + 1)
    for note, number in zip(notes, numbers, strict=True):
        assert note["jsonrpc"] == "2.0"
        assert note["method"] == "hmy_subscription"
        assert note["params"]["subscription"] == sub
        truth.mine(max(0, number - truth.head(1)))
        assert note["params"]["result"] == header_obj(truth.block(1, number))
        assert note["params"]["result"]["shardID"] == 1


async def test_hmy_and_eth_subscriptions_on_one_socket(session: aiohttp.ClientSession) -> None:
    async with Devnet(**CHAIN, mine_every=0.3) as net, session.ws_connect(net.ws_urls[0]) as ws:
        hmy = (await _call(ws, 1, "hmy_subscribe", ["newHeads"]))["result"]
        eth = (await _call(ws, 2, "eth_subscribe", ["newHeads"]))["result"]
        assert hmy != eth
        notes = await _notifications(ws, 4)
    by_sub: dict[str, list[int]] = {}
    for note in notes:
        method = {hmy: "hmy_subscription", eth: "eth_subscription"}[note["params"]["subscription"]]
        assert note["method"] == method
        by_sub.setdefault(method, []).append(int(note["params"]["result"]["number"], 16))
    # both subscriptions see the same blocks, in order
    first = min(min(v) for v in by_sub.values())
    for numbers in by_sub.values():
        assert numbers == sorted(numbers)
        assert numbers[0] - first <= 1


async def test_unsubscribe_stops_notifications(session: aiohttp.ClientSession) -> None:
    async with Devnet(**CHAIN, mine_every=0.2) as net, session.ws_connect(net.ws_urls[0]) as ws:
        sub = (await _call(ws, 1, "hmy_subscribe", ["newHeads"]))["result"]
        await _notifications(ws, 1)
        assert net.ws_subscribers(0) == 1
        assert await _call(ws, 2, "hmy_unsubscribe", [sub]) == {"jsonrpc": "2.0", "id": 2, "result": True}
        assert net.ws_subscribers(0) == 0
        head = net.chain.head(0)
        # blocks keep coming, notifications do not; the socket stays open for calls
        with pytest.raises(TimeoutError):
            await ws.receive_str(timeout=0.8)
        assert net.chain.head(0) >= head + 2
        again = await _call(ws, 3, "hmy_unsubscribe", [sub])
        assert again["error"] == {"code": -32000, "message": "subscription not found"}
        number = await _call(ws, 4, "hmyv2_blockNumber", [])
        assert number["result"] >= head + 2


async def test_closing_the_socket_ends_its_subscriptions(session: aiohttp.ClientSession) -> None:
    async with Devnet(**CHAIN) as net:
        async with session.ws_connect(net.ws_urls[0]) as ws:
            await _call(ws, 1, "hmy_subscribe", ["newHeads"])
            assert net.ws_subscribers(0) == 1
        for _ in range(50):
            if net.ws_subscribers(0) == 0:
                break
            await asyncio.sleep(0.02)
        assert net.ws_subscribers(0) == 0
        net.mine(2)  # nobody to notify: no error


async def test_subscription_errors_match_the_node(session: aiohttp.ClientSession) -> None:
    async with Devnet(**CHAIN) as net, session.ws_connect(net.ws_urls[0]) as ws:
        cases = [
            ("hmy_subscribe", ["logs"], -32601, 'no "logs" subscription in hmy namespace'),
            ("hmyv2_subscribe", ["newHeads"], -32601, 'no "newHeads" subscription in hmyv2 namespace'),
            ("hmy_subscribe", {"a": 1}, -32602, "non-array args"),
            ("hmy_subscribe", [7], -32602, "expected subscription name as first argument"),
            ("hmy_subscribe", ["newHeads", 1], -32602, "too many arguments, want at most 1"),
            ("eth_unsubscribe", ["0x1"], -32000, "subscription not found"),
        ]
        for i, (method, params, code, message) in enumerate(cases):
            answer = await _call(ws, i, method, params)
            assert answer["error"] == {"code": code, "message": message}, method
        # every ordinary method of the shard is served too, batches included
        await ws.send_str(
            '[{"jsonrpc":"2.0","id":"a","method":"hmy_blockNumber","params":[]},'
            '{"jsonrpc":"2.0","id":"b","method":"hmy_subscribe","params":["newHeads"]}]'
        )
        batch = json.loads(await ws.receive_str(timeout=5))
        assert batch[0] == {"jsonrpc": "2.0", "id": "a", "result": hex(net.chain.head(0))}
        assert batch[1]["id"] == "b"
        assert batch[1]["result"].startswith("0x")
        await ws.send_str("{not json")
        assert json.loads(await ws.receive_str(timeout=5))["error"]["code"] == -32700


async def test_legacy_profile_has_no_eth_namespace_and_short_headers(session: aiohttp.ClientSession) -> None:
    async with Devnet(**CHAIN, profile="legacy") as net, session.ws_connect(net.ws_urls[0]) as ws:
        refused = await _call(ws, 1, "eth_subscribe", ["newHeads"])
        assert refused["error"] == {"code": -32601, "message": 'no "newHeads" subscription in eth namespace'}
        await _call(ws, 2, "hmy_subscribe", ["newHeads"])
        net.mine(1)
        (note,) = await _notifications(ws, 1)
    header = note["params"]["result"]
    # the early-2020 header: today's without go-ethereum's constant fields and Harmony's own
    today = header_obj(Chain(**CHAIN).block(0, 1))
    dropped = {"sha3Uncles", "nonce", "difficulty", "viewID", "epoch", "shardID"}
    assert list(header) == [key for key in today if key not in dropped]
    assert len(header) == 13
    assert header["number"] == hex(CHAIN["blocks"])


@pytest.mark.parametrize("profile", ["current", "legacy"])
async def test_sharding_structure_lists_the_served_ws_urls(
    session: aiohttp.ClientSession, profile: str
) -> None:
    async with Devnet(**CHAIN, shards=3, profile=profile) as net:
        body = {"jsonrpc": "2.0", "id": 1, "method": "hmy_getShardingStructure", "params": []}
        async with session.post(net.urls[2], json=body) as resp:
            listed = (await resp.json())["result"]
        assert [e["ws"] for e in listed] == net.ws_urls
        assert [e["http"] for e in listed] == net.urls
        assert len(set(net.ws_urls) | set(net.urls) | set(net.trace_urls)) == 9
        for shard, url in enumerate(net.ws_urls):  # each listed URL serves its own shard
            async with session.ws_connect(url) as ws:
                await _call(ws, 1, "hmy_subscribe", ["newHeads"])
                net.mine(1)
                (note,) = await _notifications(ws, 1)
                assert note["params"]["result"]["hash"] == net.chain.block(shard, net.chain.head(shard)).hash
        # subscribing over HTTP is refused, as the node does
        body = {"jsonrpc": "2.0", "id": 2, "method": "hmy_subscribe", "params": ["newHeads"]}
        async with session.post(net.urls[0], json=body) as resp:
            assert (await resp.json())["error"] == {"code": -32000, "message": "notifications not supported"}
        # a plain HTTP request to the WebSocket port is refused as the node does
        async with session.get(net.ws_urls[0].replace("ws://", "http://")) as resp:
            assert resp.status == 400
            assert "not using the websocket protocol" in await resp.text()


async def test_stop_closes_open_sockets(session: aiohttp.ClientSession) -> None:
    net = Devnet(**CHAIN)
    await net.start()
    ws = await session.ws_connect(net.ws_urls[0])
    await _call(ws, 1, "hmy_subscribe", ["newHeads"])
    await asyncio.wait_for(net.stop(), timeout=5)  # aiohttp would wait 60 s for open handlers
    msg = await ws.receive(timeout=5)
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    await ws.close()


def test_mine_every_mines_in_the_background_thread_and_pauses() -> None:
    with Devnet(**CHAIN, mine_every=0.1) as net:
        start = net.chain.head(0)
        time.sleep(0.6)
        assert net.chain.head(0) >= start + 3
        net.mine_every = 0
        paused = net.chain.head(0)
        time.sleep(0.4)
        assert net.chain.head(0) <= paused + 1  # at most one block already due
    with pytest.raises(ConfigError, match=r"mine_every=-1 must be a number >= 0"):
        Devnet(**CHAIN, mine_every=-1)
    with pytest.raises(
        ConfigError, match=r"port=65300 leaves no room for 2 shards \(needs up to port\+302\)"
    ):
        Devnet(**CHAIN, port=65300)
