"""A session's first contact with a node: what it asks before its first block request.

The chain id (shard-0 genesis hash), the sharding structure (which shard the URL serves) and the
head are asked in one round trip, not three in a row; a URL serving another shard than the one
asked for gets its guesses dropped; a chain id already known sends nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from hmyframe.devnet import Devnet, StatsSnapshot
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._session import chain_id_from_hash

FIRST_CONTACT = {"hmy_getShardingStructure": 1, "hmyv2_getBlockByNumber": 1, "hmyv2_blockNumber": 1}


def _identify(url: str, net: Devnet, shard: int) -> tuple[str, int, StatsSnapshot, StatsSnapshot]:
    async def go() -> tuple[str, int, StatsSnapshot, StatsSnapshot]:
        async with Session(url, cache=False) as session:
            net.stats.reset()
            chain = await session.identify([shard])
            first = net.stats.total()
            head = await session.head(shard)
            return chain, head, first, net.stats.total()

    return asyncio.run(go())


def test_first_contact_is_one_round_trip_with_identity_structure_and_head(
    make_devnet: Callable[..., Devnet],
) -> None:
    net = make_devnet(shards=2, blocks=120, seed=41)  # a fresh URL: nothing is remembered of it
    chain, head, first, after = _identify(net.urls[0], net, 0)
    assert chain == chain_id_from_hash(net.chain.genesis_hash(0))
    assert head == net.chain.head(0)
    assert dict(first.calls_by_method) == FIRST_CONTACT
    assert first.http_requests == 1  # the three calls travel together
    assert after == first  # the head was learnt in that round trip


def test_a_url_of_another_shard_has_its_guesses_dropped(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(shards=2, blocks=120, seed=42)
    assert net.chain.genesis_hash(0) != net.chain.genesis_hash(1)
    chain, head, _, _ = _identify(net.urls[1], net, 0)  # shard 1's URL, shard 0 asked for
    assert chain == chain_id_from_hash(net.chain.genesis_hash(0))
    assert head == net.chain.head(0)
    # the genesis block and the head were asked of shard 0's own URL
    shard0 = net.stats.endpoint(0).calls_by_method
    assert shard0["hmyv2_getBlockByNumber"] == 1
    assert shard0["hmyv2_blockNumber"] == 1


def test_a_known_chain_id_sends_nothing(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(shards=1, blocks=120, seed=43)
    _identify(net.url, net, 0)

    async def again() -> str:
        async with Session(net.url, cache=False) as session:
            net.stats.reset()
            return await session.identify([0])

    assert asyncio.run(again()) == chain_id_from_hash(net.chain.genesis_hash(0))
    assert net.stats.http_requests == 0


def test_under_a_rate_cap_first_contact_asks_one_thing_at_a_time(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(shards=2, blocks=120, seed=44)

    async def go() -> tuple[str, StatsSnapshot]:
        options = FetchOptions(requests_per_second=100.0)
        async with Session(net.urls[0], cache=False, options=options) as session:
            net.stats.reset()
            chain = await session.identify([0])
            return chain, net.stats.total()

    chain, stats = asyncio.run(go())
    assert chain == chain_id_from_hash(net.chain.genesis_hash(0))
    # no guesses (they could be wasted tokens) and no head until it is needed
    assert dict(stats.calls_by_method) == {
        "hmy_getShardingStructure": 1,
        "hmyv2_getBlockByNumber": 1,
    }
