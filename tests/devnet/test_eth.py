"""The devnet's Ethereum namespace over real HTTP (what web3 clients, ethereum-etl and cryo
call), checked against the ground truth; and the per-block server cost."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.eth import CLIENT_VERSION, ETH_CHAIN_ID_BASE
from hmyframe.devnet.model import Block

JSON = {"Content-Type": "application/json"}


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def rpc(http: aiohttp.ClientSession, url: str, body: Any) -> Any:
    async with http.post(url, data=json.dumps(body).encode(), headers=JSON) as resp:
        assert resp.status == 200
        return json.loads(await resp.read())


async def result(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> Any:
    envelope = await rpc(http, url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert "error" not in envelope, envelope
    return envelope["result"]


async def error(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> tuple[int, str]:
    envelope = await rpc(http, url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    assert "result" not in envelope, envelope
    return envelope["error"]["code"], envelope["error"]["message"]


def busy_block(chain: Chain, shard: int, *, staking: bool = False) -> Block:
    """A block with several plain transactions (and staking ones if asked), a creation if any."""
    best: Block | None = None
    for n in range(chain.head(shard) + 1):
        block = chain.block(shard, n)
        if len(block.transactions) < 2 or (staking and not block.staking_transactions):
            continue
        if best is None or any(t.to is None for t in block.transactions):
            best = block
            if any(t.to is None for t in block.transactions):
                break
    assert best is not None, "no such block in the test chain"
    return best


async def test_head_chain_id_and_client_version(devnet: Devnet, devnet_truth: Chain, http):
    for shard, url in enumerate(devnet.urls):
        assert await result(http, url, "eth_blockNumber", []) == hex(devnet_truth.head(shard))
        assert await result(http, url, "eth_chainId", []) == hex(ETH_CHAIN_ID_BASE + shard)
        assert await result(http, url, "web3_clientVersion", []) == CLIENT_VERSION
    assert await error(http, devnet.url, "eth_blockNumber", [1]) == (
        -32602,
        "too many arguments, want at most 0",
    )


async def test_block_with_full_transactions_in_ethereum_form(devnet: Devnet, devnet_truth: Chain, http):
    block = busy_block(devnet_truth, 0, staking=True)
    got = await result(http, devnet.url, "eth_getBlockByNumber", [hex(block.number), True])
    assert list(got)[:4] == ["number", "hash", "parentHash", "nonce"]
    assert got["number"] == hex(block.number)
    assert got["hash"] == block.hash
    assert got["miner"] == block.leader.lower()
    assert got["timestamp"] == hex(block.timestamp)
    assert got["gasUsed"] == hex(block.gas_used)
    assert "stakingTransactions" not in got  # the Ethereum view has plain transactions only
    assert len(got["transactions"]) == len(block.transactions)
    for tx, obj in zip(block.transactions, got["transactions"], strict=True):
        assert obj["hash"] == tx.eth_hash != tx.hash
        assert obj["blockHash"] == block.hash
        assert obj["from"] == tx.sender.lower()
        assert obj["to"] == (None if tx.to is None else tx.to.lower())
        assert int(obj["value"], 16) == tx.value
        assert int(obj["gasPrice"], 16) == tx.gas_price
        assert obj["transactionIndex"] == hex(tx.index)
        assert "shardID" not in obj
    hashes = await result(http, devnet.url, "eth_getBlockByNumber", [block.number, False])
    assert hashes["transactions"] == [tx.eth_hash for tx in block.transactions]


async def test_blocks_in_a_batch_come_back_in_order_and_beyond_head_is_null(
    devnet: Devnet, devnet_truth, http
):
    head = devnet_truth.head(1)
    numbers = [head - 3, head, head + 1, 5]
    batch = [
        {"jsonrpc": "2.0", "id": i, "method": "eth_getBlockByNumber", "params": [hex(n), True]}
        for i, n in enumerate(numbers)
    ]
    answers = await rpc(http, devnet.urls[1], batch)
    assert [a["id"] for a in answers] == [0, 1, 2, 3]
    assert answers[2]["result"] is None  # unlike hmy_getBlockByNumber, which errors
    for answer, n in zip(answers, numbers, strict=True):
        if n <= head:
            assert answer["result"]["hash"] == devnet_truth.block(1, n).hash
    latest = await result(http, devnet.urls[1], "eth_getBlockByNumber", ["latest", False])
    assert latest["number"] == hex(head)
    code, message = await error(http, devnet.url, "eth_getBlockByNumber", ["0x1", {"fullTx": True}])
    assert (code, message) == (-32000, "invalid type for block arguments")
    assert await error(http, devnet.url, "eth_getBlockByNumber", ["0x1"]) == (
        -32602,
        "missing value for required argument 1",
    )


async def test_receipts_by_either_hash_and_by_block_hash(devnet: Devnet, devnet_truth: Chain, http):
    block = busy_block(devnet_truth, 0, staking=True)
    receipts = await result(http, devnet.url, "eth_getBlockReceipts", [block.hash])
    plain = len(block.transactions)
    assert receipts[plain:] == [None] * len(block.staking_transactions)
    cumulative = 0
    for tx, receipt in zip(block.transactions, receipts, strict=False):
        cumulative += tx.gas_used
        assert list(receipt) == sorted(receipt)  # the node builds a map: keys come out sorted
        assert receipt["transactionHash"] == tx.eth_hash
        assert receipt["blockHash"] == block.hash
        assert receipt["gasUsed"] == hex(tx.gas_used)
        assert receipt["cumulativeGasUsed"] == hex(cumulative)
        assert receipt["status"] == ("0x1" if tx.success else "0x0")
        assert receipt["contractAddress"] == (
            None if tx.contract_address is None else tx.contract_address.lower()
        )
        assert receipt["effectiveGasPrice"] == hex(tx.gas_price)
        assert receipt["logs"] == []
        for key in (tx.eth_hash, tx.hash, tx.hash.upper().replace("0X", "0x")):
            assert await result(http, devnet.url, "eth_getTransactionReceipt", [key]) == receipt
    staking_hash = block.staking_transactions[0].hash
    assert await result(http, devnet.url, "eth_getTransactionReceipt", [staking_hash]) is None
    assert await result(http, devnet.url, "eth_getTransactionReceipt", ["0x" + "ab" * 32]) is None


async def test_block_receipts_take_a_hash_as_the_node_does(devnet: Devnet, devnet_truth: Chain, http):
    code, message = await error(http, devnet.url, "eth_getBlockReceipts", ["0x1f"])
    assert code == -32602
    assert message.startswith("invalid argument 0:")
    assert await error(http, devnet.url, "eth_getBlockReceipts", ["0x" + "ab" * 32]) == (
        -32000,
        "method handler crashed",
    )
    other_shard_block = busy_block(devnet_truth, 1)
    assert (await error(http, devnet.url, "eth_getBlockReceipts", [other_shard_block.hash]))[0] == -32000


async def test_the_legacy_node_has_no_ethereum_namespace(make_devnet, http):
    legacy = make_devnet(blocks=20, seed=3, shards=1, profile="legacy")
    for method, params in (("eth_blockNumber", []), ("web3_clientVersion", [])):
        code, message = await error(http, legacy.url, method, params)
        assert (code, message) == (-32601, f"the method {method} does not exist/is not available")


async def test_same_seed_gives_the_same_bytes(make_devnet, http):
    first = make_devnet(blocks=60, seed=11, shards=1)
    second = make_devnet(blocks=60, seed=11, shards=1)
    chain = Chain(blocks=60, seed=11, shards=1)
    block = busy_block(chain, 0)
    bodies = []
    for net in (first, second):
        batch = [
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "eth_getBlockByNumber",
                "params": [hex(block.number), True],
            },
            {"jsonrpc": "2.0", "id": 2, "method": "eth_getBlockReceipts", "params": [block.hash]},
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "eth_getTransactionReceipt",
                "params": [block.transactions[0].hash],
            },
        ]
        async with http.post(net.url, data=json.dumps(batch).encode(), headers=JSON) as resp:
            bodies.append(await resp.read())
    assert bodies[0] == bodies[1]
    assert b'"error"' not in bodies[0]


async def test_block_cost_is_paid_per_block_and_concurrently_across_requests(make_devnet, http):
    net = make_devnet(blocks=40, seed=5, shards=1, block_cost_ms=40)
    blocks_call = {"jsonrpc": "2.0", "id": 1, "method": "hmyv2_getBlocks", "params": [0, 9, {"fullTx": True}]}
    started = time.perf_counter()
    await rpc(http, net.url, blocks_call)
    one = time.perf_counter() - started
    assert one >= 10 * 0.040  # ten blocks, read one after the other
    started = time.perf_counter()
    await asyncio.gather(*(rpc(http, net.url, blocks_call) for _ in range(4)))
    four = time.perf_counter() - started
    assert four >= 10 * 0.040
    assert four < 4 * 10 * 0.040 * 0.75  # not one after the other (that would be 1.6 s)
    started = time.perf_counter()
    await result(http, net.url, "eth_getBlockByNumber", ["0x3", True])
    assert time.perf_counter() - started >= 0.040
