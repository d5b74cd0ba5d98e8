"""A session's first contact with a node: what it asks before its first block request.

The chain id (shard-0 genesis hash), the sharding structure (which shard the URL serves) and the
head are asked in one round trip, not three in a row; a URL serving another shard than the one
asked for gets its guesses dropped; a chain id already known sends nothing. A range fetch's first
data requests travel beside that round trip, kept only once the chain is confirmed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import hmyframe
from hmyframe.devnet import Devnet, StatsSnapshot
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._session import chain_id_from_hash
from hmyframe.errors import WrongChainError

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


# --------------------------------------------------------------------------- data with the first contact


def test_the_first_data_requests_leave_with_the_first_contact(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    """A fetch from a URL met for the first time: its first getBlocks (and the node's version its
    files record) travel beside the first contact, not a round trip after it; each is asked once."""
    latency = 0.6
    warm = make_devnet(shards=1, blocks=20, seed=44, validator_rate_limit=False)
    hmyframe.blocks(1, 2, rpc=warm.url, cache=tmp_path / "warm")  # (imports and the like, untimed)
    net = make_devnet(shards=1, blocks=300, seed=45, latency_ms=latency * 1000, validator_rate_limit=False)
    began = time.monotonic()
    df = hmyframe.blocks(1, 100, rpc=net.url, cache=tmp_path)
    took = time.monotonic() - began
    assert df["block_number"].tolist() == list(range(1, 101))
    assert df["block_hash"].tolist() == [b.hash for b in net.chain.iter_blocks(0, 1, 100)]
    stats = net.stats.total()
    assert stats.calls_of("hmyv2_getBlocks") == 1  # the guess was taken, not asked again
    assert stats.calls_of("web3_clientVersion") == 1
    assert stats.http_requests == 2  # the first contact's batch (with the version), the blocks beside it
    # one round trip and the work, where identity, blocks and version in a row took three
    assert took < 2 * latency, f"{took:.2f} s"


def test_a_guess_for_a_shard_the_url_does_not_serve_is_dropped(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(shards=2, blocks=120, seed=46, validator_rate_limit=False)
    # shard 1's URL, shard 0 asked for: the guess goes to the URL given, which serves shard 1
    df = hmyframe.blocks(0, 49, 0, rpc=net.urls[1], cache=tmp_path)
    assert df["block_hash"].tolist() == [b.hash for b in net.chain.iter_blocks(0, 0, 49)]
    assert net.stats.endpoint(1).calls_of("hmyv2_getBlocks") == 1  # the guess, dropped
    assert net.stats.endpoint(0).calls_of("hmyv2_getBlocks") == 1  # what was kept: shard 0's own
    # another shard than 0 from a URL: no guess (the URL given is taken to serve shard 0)
    net.stats.reset()
    hmyframe.blocks(0, 49, 1, rpc=net.urls[0], cache=tmp_path)
    assert net.stats.endpoint(0).calls_of("hmyv2_getBlocks") == 0
    assert net.stats.endpoint(1).calls_of("hmyv2_getBlocks") == 1


def test_a_guess_is_never_written_when_the_chain_check_fails(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    """The blocks were asked with the first contact and had arrived; the trace endpoint then turned
    out to serve another chain: nothing is written."""
    net = make_devnet(shards=1, blocks=300, seed=47, validator_rate_limit=False)
    other = make_devnet(shards=1, blocks=300, seed=48, validator_rate_limit=False)
    with pytest.raises(WrongChainError, match="serves another chain"):
        hmyframe.export(
            ["blocks", "traces"], 100, 139, rpc=net.url, trace_rpc=other.trace_urls[0], out=tmp_path
        )
    assert net.stats.calls_of("hmyv2_getBlocks") == 1  # the guess went out
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []
    # the same with the right trace endpoint writes the blocks and their traces
    summary = hmyframe.export(
        ["blocks", "traces"], 100, 139, rpc=net.url, trace_rpc=net.trace_urls[0], out=tmp_path
    )
    assert summary.datasets["blocks"].rows == 40
