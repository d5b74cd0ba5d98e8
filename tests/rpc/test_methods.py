"""Every typed method, both generations, over real HTTP against the devnet, checked against ground truth."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from hmyframe import _json
from hmyframe.addresses import to_one
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.errors import AddressError, ConfigError, InvalidParamsError, MethodNotFoundError, NotFoundError
from hmyframe.rpc import Client, Methods

GENS = [1, 2]


def gen_of(client: Client, gen: int) -> Methods:
    return client.v1 if gen == 1 else client.v2


def q(gen: int, n: int) -> Any:
    """A quantity as the generation renders it."""
    return hex(n) if gen == 1 else n


def staking_tx(truth: Chain) -> Any:
    for block in truth.iter_blocks(0, 0, truth.head(0)):
        if block.staking_transactions:
            return block.staking_transactions[0]
    raise AssertionError("the devnet chain has no staking transaction")


def biggest_tx(truth: Chain) -> Any:
    return max(truth.iter_transactions(0, 0, truth.head(0)), key=lambda t: t.value)


# ---------------------------------------------------------------------------------- chain height


@pytest.mark.parametrize("gen", GENS)
async def test_block_number_per_generation_and_shard(client: Client, devnet_truth: Chain, gen: int) -> None:
    m = gen_of(client, gen)
    assert await m.block_number() == q(gen, devnet_truth.head(0))
    assert await m.block_number(shard=1) == q(gen, devnet_truth.head(1))


@pytest.mark.parametrize("gen", GENS)
async def test_sharding_structure(client: Client, devnet: Devnet, gen: int) -> None:
    result = await gen_of(client, gen).get_sharding_structure()
    assert [(e["shardID"], e["http"], e["current"]) for e in result] == [
        (0, devnet.urls[0], True),
        (1, devnet.urls[1], False),
    ]


# ---------------------------------------------------------------------------------- blocks


@pytest.mark.parametrize("gen", GENS)
async def test_get_block_by_number_full(client: Client, devnet_truth: Chain, gen: int) -> None:
    truth = devnet_truth.block(0, 5)
    block = await gen_of(client, gen).get_block_by_number(5)
    assert block["hash"] == truth.hash
    assert block["number"] == q(gen, 5)
    assert block["timestamp"] == q(gen, truth.timestamp)
    assert [tx["hash"] for tx in block["transactions"]] == [tx.hash for tx in truth.transactions]
    assert [tx["value"] for tx in block["transactions"]] == [q(gen, tx.value) for tx in truth.transactions]


@pytest.mark.parametrize("gen", GENS)
async def test_get_block_by_number_hashes_only(client: Client, devnet_truth: Chain, gen: int) -> None:
    block = await gen_of(client, gen).get_block_by_number(7, full_tx=False, shard=1)
    assert block["hash"] == devnet_truth.block(1, 7).hash
    assert block["transactions"] == [tx.hash for tx in devnet_truth.block(1, 7).transactions]


async def test_v2_block_args_staking_and_signers(client: Client, devnet_truth: Chain) -> None:
    number = staking_tx(devnet_truth).block_number
    with_staking = await client.v2.get_block_by_number(number, with_signers=True)
    assert [s["hash"] for s in with_staking["stakingTransactions"]] == [
        s.hash for s in devnet_truth.block(0, number).staking_transactions
    ]
    assert with_staking["signers"] == [to_one(a) for a in devnet_truth.signers(0, number) or ()]
    without = await client.v2.get_block_by_number(number, incl_staking=False)
    assert without["stakingTransactions"] == []
    assert "signers" not in without


async def test_v1_block_always_includes_staking(client: Client, devnet_truth: Chain) -> None:
    number = staking_tx(devnet_truth).block_number
    block = await client.v1.get_block_by_number(number)
    assert len(block["stakingTransactions"]) == len(devnet_truth.block(0, number).staking_transactions)


@pytest.mark.parametrize("kwargs", [{"with_signers": True}, {"incl_staking": False}])
async def test_v1_refuses_block_options_it_cannot_send(client: Client, kwargs: dict[str, bool]) -> None:
    with pytest.raises(ConfigError, match=r"use client\.v2"):
        await client.v1.get_block_by_number(3, **kwargs)


@pytest.mark.parametrize("gen", GENS)
async def test_latest_block(client: Client, devnet_truth: Chain, devnet_stats: DevnetStats, gen: int) -> None:
    block = await gen_of(client, gen).get_block_by_number("latest", full_tx=False)
    assert block["hash"] == devnet_truth.block(0, devnet_truth.head(0)).hash
    # v1 sends the tag; v2 resolves it to a number first (early-2020 v2 nodes take numbers only)
    assert devnet_stats.calls_of("hmyv2_blockNumber") == (1 if gen == 2 else 0)


@pytest.mark.parametrize("gen", GENS)
async def test_block_beyond_head_is_not_found(client: Client, devnet_truth: Chain, gen: int) -> None:
    with pytest.raises(NotFoundError, match="greater than current block number"):
        await gen_of(client, gen).get_block_by_number(devnet_truth.head(0) + 10)


@pytest.mark.parametrize("gen", GENS)
async def test_get_block_by_hash(client: Client, devnet_truth: Chain, gen: int) -> None:
    truth = devnet_truth.block(1, 12)
    m = gen_of(client, gen)
    block = await m.get_block_by_hash(truth.hash, shard=1)
    assert block["number"] == q(gen, 12)
    assert len(block["transactions"]) == len(truth.transactions)
    assert await m.get_block_by_hash("0x" + "ab" * 32, shard=1) is None
    raw = await m.get_block_by_hash_raw(truth.hash, full_tx=False, shard=1)
    assert _json.decode(raw)["hash"] == truth.hash


@pytest.mark.parametrize("gen", GENS)
async def test_get_blocks_and_raw_twin(client: Client, devnet_truth: Chain, gen: int) -> None:
    m = gen_of(client, gen)
    blocks = await m.get_blocks(10, 19, full_tx=False)
    assert [b["number"] for b in blocks] == [q(gen, n) for n in range(10, 20)]
    assert [b["hash"] for b in blocks] == [devnet_truth.block(0, n).hash for n in range(10, 20)]
    raw = await m.get_blocks_raw(10, 19, full_tx=False)
    assert isinstance(raw, bytes)
    assert _json.decode(raw) == blocks


async def test_get_blocks_accepts_exactly_1025_blocks(client: Client, devnet_truth: Chain) -> None:
    # 0..1024 is the node's largest range; it stops at the devnet's head
    blocks = await client.v2.get_blocks(0, 1024, full_tx=False)
    assert len(blocks) == devnet_truth.head(0) + 1


@pytest.mark.parametrize(
    ("start", "end", "needle"),
    [(0, 1025, "at most 1025"), (5, 4, "end must be >= start"), (-1, 3, "start"), (0, 2**64, "end")],
)
async def test_get_blocks_bad_ranges(client: Client, start: int, end: int, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        await client.v2.get_blocks(start, end)


@pytest.mark.parametrize("gen", GENS)
async def test_block_range_splits_into_concurrent_get_blocks(
    client: Client, devnet_truth: Chain, devnet_stats: DevnetStats, gen: int
) -> None:
    m = gen_of(client, gen)
    blocks = await m.block_range(3, 352, full_tx=False, chunk_size=100)
    assert [b["hash"] for b in blocks] == [devnet_truth.block(0, n).hash for n in range(3, 353)]
    name = m.method("getBlocks")
    assert devnet_stats.calls_of(name) == 4
    # range calls are never coalesced into one batch: 4 separate HTTP requests
    assert devnet_stats.total().batches == 0
    assert devnet_stats.http_requests == 4
    raws = await m.block_range_raw(3, 352, full_tx=False, chunk_size=100)
    assert [b for raw in raws for b in _json.decode(raw)] == blocks


async def test_block_range_default_chunks_are_1025(client: Client, devnet_stats: DevnetStats) -> None:
    blocks = await client.v2.block_range(0, 2100, full_tx=False)
    assert len(blocks) == 400  # the devnet's head is 399: later chunks come back empty
    assert devnet_stats.calls_of("hmyv2_getBlocks") == 3


async def test_block_range_rejects_bad_chunk_size(client: Client) -> None:
    with pytest.raises(ConfigError, match=r"chunk_size must be an integer in 1\.\.1025, got 2000"):
        await client.v2.block_range(0, 10, chunk_size=2000)


# ---------------------------------------------------------------------------------- transactions


@pytest.mark.parametrize("gen", GENS)
async def test_get_transaction_by_hash(client: Client, devnet_truth: Chain, gen: int) -> None:
    tx = biggest_tx(devnet_truth)
    m = gen_of(client, gen)
    got = await m.get_transaction_by_hash(tx.hash)
    assert got["hash"] == tx.hash
    assert got["value"] == q(gen, tx.value)
    assert got["blockNumber"] == q(gen, tx.block_number)
    assert await m.get_transaction_by_hash("0x" + "00" * 32) is None
    assert msgspec.json.decode(await m.get_transaction_by_hash_raw(tx.hash))["hash"] == tx.hash


@pytest.mark.parametrize("gen", GENS)
async def test_get_transaction_on_other_shard(client: Client, devnet_truth: Chain, gen: int) -> None:
    tx = next(devnet_truth.iter_transactions(1, 0, devnet_truth.head(1)))
    got = await gen_of(client, gen).get_transaction_by_hash(tx.hash, shard=1)
    assert got["hash"] == tx.hash
    assert got["shardID"] == 1


@pytest.mark.parametrize("gen", GENS)
async def test_staking_transaction_goes_to_shard_0(
    open_client: Callable[..., Client],
    devnet: Devnet,
    devnet_truth: Chain,
    devnet_stats: DevnetStats,
    gen: int,
) -> None:
    stx = staking_tx(devnet_truth)
    async with open_client(devnet.urls[1]) as shard1_client:
        m = gen_of(shard1_client, gen)
        got = await m.get_staking_transaction_by_hash(stx.hash)
        raw = await m.get_staking_transaction_by_hash_raw(stx.hash)
    assert got["hash"] == stx.hash
    assert got["type"] == stx.directive
    assert _json.decode(raw) == got
    name = m.method("getStakingTransactionByHash")
    assert devnet_stats.endpoint(0).calls_of(name) == 2
    assert devnet_stats.endpoint(1).calls_of(name) == 0


@pytest.mark.parametrize("gen", GENS)
async def test_get_transaction_count(
    client: Client, devnet_truth: Chain, devnet_stats: DevnetStats, gen: int
) -> None:
    tx = biggest_tx(devnet_truth)
    m = gen_of(client, gen)
    latest = await m.get_transaction_count(to_one(tx.sender))
    assert latest == q(gen, devnet_truth.transaction_count(0, tx.sender, devnet_truth.head(0)))
    at_block = await m.get_transaction_count(tx.sender, tx.block_number)
    assert at_block == q(gen, devnet_truth.transaction_count(0, tx.sender, tx.block_number))
    assert devnet_stats.calls_of("hmyv2_blockNumber") == (1 if gen == 2 else 0)


@pytest.mark.parametrize(
    "address",
    [
        "one1xyz",
        "0x1234",
        "ONE1Qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz",
        "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz",
        42,
    ],
)
async def test_bad_address_is_rejected_before_sending(
    client: Client, devnet_stats: DevnetStats, address: Any
) -> None:
    with pytest.raises(AddressError) as info:
        await client.v2.get_transaction_count(address)
    assert repr(address) in str(info.value) or str(address) in str(info.value)
    assert devnet_stats.http_requests == 0


@pytest.mark.parametrize("gen", GENS)
async def test_pending_cx_receipts(client: Client, devnet_truth: Chain, gen: int) -> None:
    m = gen_of(client, gen)
    proofs = await m.get_pending_cx_receipts(shard=1)
    truth = devnet_truth.pending_cx_receipts(1)
    assert [p["merkleProof"]["blockHash"] for p in proofs] == [p.header.hash for p in truth]
    assert [p["merkleProof"]["receiptHash"] for p in proofs] == [p.receipt_hash for p in truth]
    assert _json.decode(await m.get_pending_cx_receipts_raw(shard=1)) == proofs


# ---------------------------------------------------------------------------------- staking


@pytest.mark.parametrize("gen", GENS)
async def test_validator_pages(
    open_client: Callable[..., Client],
    devnet: Devnet,
    devnet_truth: Chain,
    devnet_stats: DevnetStats,
    gen: int,
) -> None:
    addresses = [to_one(a) for a in devnet_truth.validator_addresses()]
    async with open_client(devnet.urls[1]) as shard1_client:  # staking calls still go to shard 0
        m = gen_of(shard1_client, gen)
        assert await m.get_all_validator_addresses() == addresses
        page0 = await m.get_all_validator_information(0)
        last = await m.get_all_validator_information_raw(2)
        past = await m.get_all_validator_information(3)
    assert [v["validator"]["address"] for v in page0] == addresses[:100]
    assert [v["validator"]["address"] for v in _json.decode(last)] == addresses[200:300]
    assert past == []
    # the shard-1 node was only asked where shard 0 is
    assert dict(devnet_stats.endpoint(1).calls_by_method) == {"hmy_getShardingStructure": 1}


@pytest.mark.parametrize("gen", GENS)
async def test_validators_by_block_number(client: Client, devnet_truth: Chain, gen: int) -> None:
    m = gen_of(client, gen)
    block = 250
    truth = [to_one(v.address) for v in devnet_truth.validators(block)][:100]
    page = await m.get_all_validator_information_by_block_number(0, block)
    raw = await m.get_all_validator_information_by_block_number_raw(0, block)
    assert [v["validator"]["address"] for v in page] == truth
    assert _json.decode(raw) == page


@pytest.mark.parametrize(("page", "block"), [(-1, 5), (0, -5), ("0", 5), (True, 5)])
async def test_bad_page_or_block(client: Client, page: Any, block: Any) -> None:
    with pytest.raises(ConfigError, match=r"page|block"):
        await client.v2.get_all_validator_information_by_block_number(page, block)


# ---------------------------------------------------------------------------------- traces


async def test_trace_block_and_transaction_go_to_the_trace_port(
    client: Client, devnet_truth: Chain, devnet_stats: DevnetStats
) -> None:
    tx = next(t for t in devnet_truth.iter_transactions(0, 0, 100) if t.trace is not None)
    traces = await client.trace_block(tx.block_number)
    assert tx.eth_hash in {t["transactionHash"] for t in traces}
    assert all(t["blockNumber"] == tx.block_number for t in traces)
    assert _json.decode(await client.trace_block_raw(tx.block_number)) == traces
    by_tx = await client.trace_transaction(tx.hash)
    assert by_tx[0]["transactionPosition"] == tx.index
    assert _json.decode(await client.trace_transaction_raw(tx.hash)) == by_tx
    trace_stats = devnet_stats.endpoint(0, trace=True)
    assert trace_stats.calls_of("trace_block") == 2
    assert trace_stats.calls_of("trace_transaction") == 2
    assert devnet_stats.endpoint(0).calls_of("trace_block") == 0


async def test_trace_on_shard_1_uses_its_trace_url(
    client: Client, devnet_truth: Chain, devnet_stats: DevnetStats
) -> None:
    tx = next(t for t in devnet_truth.iter_transactions(1, 0, 200) if t.trace is not None)
    traces = await client.trace_block(tx.block_number, shard=1)
    assert {t["blockHash"] for t in traces} == {tx.block_hash}
    assert devnet_stats.endpoint(1, trace=True).calls_of("trace_block") == 1


async def test_trace_methods_are_not_on_the_normal_port(client: Client) -> None:
    with pytest.raises(MethodNotFoundError, match="trace_block"):
        await client.request("trace_block", ["0x5"])


async def test_unknown_transaction_trace_is_not_found(client: Client) -> None:
    with pytest.raises(NotFoundError):
        await client.trace_transaction("0x" + "12" * 32)


@pytest.mark.parametrize("value", ["0x12", "12" * 32, "0x" + "zz" * 32, None])
async def test_bad_hashes(client: Client, value: Any) -> None:
    with pytest.raises(ConfigError, match="64 hex digits"):
        await client.v1.get_transaction_by_hash(value)
    with pytest.raises(ConfigError, match="64 hex digits"):
        await client.trace_transaction(value)


async def test_missing_param_is_invalid_params(client: Client) -> None:
    # what the typed methods avoid: the node needs param 1 of getBlockByNumber
    with pytest.raises(InvalidParamsError, match="missing value for required argument 1"):
        await client.request("hmyv2_getBlockByNumber", [1])


# ---------------------------------------------------------------------------------- legacy profile


@pytest.fixture(scope="module")
def legacy_devnet() -> Any:
    with Devnet(shards=2, blocks=60, seed=3, profile="legacy", validator_rate_limit=False) as net:
        yield net


@pytest.fixture
async def legacy(legacy_devnet: Devnet, fast_retry: Any) -> Any:
    async with Client(legacy_devnet.url, trace_url=legacy_devnet.trace_url, retry=fast_retry) as c:
        yield c


async def test_legacy_v1_hash_only_block_has_no_transactions_key(
    legacy: Client, legacy_devnet: Devnet
) -> None:
    block = await legacy.v1.get_block_by_number(5, full_tx=False)
    assert "transactions" not in block
    assert block["hash"] == legacy_devnet.chain.block(0, 5).hash


async def test_legacy_v2_full_block_has_transactions(legacy: Client, legacy_devnet: Devnet) -> None:
    truth = legacy_devnet.chain.block(0, 5)
    block = await legacy.v2.get_block_by_number(5, with_signers=True)
    assert [t["hash"] for t in block["transactions"]] == [t.hash for t in truth.transactions]
    assert "signers" in block
    assert "viewID" not in block


async def test_legacy_transactions_and_traces(legacy: Client, legacy_devnet: Devnet) -> None:
    chain = legacy_devnet.chain
    tx = next(t for t in chain.iter_transactions(0, 0, chain.head(0)) if t.trace is not None)
    v1 = await legacy.v1.get_transaction_by_hash(tx.hash)
    assert v1["from"] == tx.sender  # the early-2020 v1 shape: 0x addresses
    assert "ethHash" not in v1
    traces = await legacy.trace_block(tx.block_number)
    assert tx.hash in {t["transactionHash"] for t in traces}


async def test_legacy_validator_pages_are_wrapped_and_count_from_zero(
    legacy: Client, legacy_devnet: Devnet
) -> None:
    addresses = [to_one(a) for a in legacy_devnet.chain.validator_addresses()]
    second = await legacy.v1.get_all_validator_information(1)
    assert [e["result"]["validator"]["address"] for e in second] == addresses[100:200]
    first = await legacy.v1.get_all_validator_information(0)
    assert {e["jsonrpc"] for e in first} == {"2.0"}
    assert [e["result"]["validator"]["address"] for e in first] == addresses[:100]
    by_block = await legacy.v1.get_all_validator_information_by_block_number(0, 40)
    assert [e["result"]["validator"]["address"] for e in by_block][:3] == [
        to_one(v.address) for v in legacy_devnet.chain.validators(40)
    ][:3]
