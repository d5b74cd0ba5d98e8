"""The devnet over real HTTP: every served method (both generations, both profiles) and the
node's protocol behaviour. Ground truth comes from ``devnet_truth`` (same seed => same chain)."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import aiohttp
import pytest

from hmyframe.addresses import to_one as hex_to_one
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.chain import CX_PENDING_BLOCKS
from hmyframe.devnet.model import ZERO_HASH, Block, Transaction, flatten_trace
from hmyframe.devnet.node import served_methods
from hmyframe.errors import ConfigError

JSON = {"Content-Type": "application/json"}
CUR_FULL = {"fullTx": True, "inclStaking": True}


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture(scope="module")
def legacy() -> Iterator[Devnet]:
    """The session chain served in the early-2020 profile."""
    with Devnet(blocks=400, seed=7, profile="legacy", validator_rate_limit=False) as net:
        yield net


async def post(
    session: aiohttp.ClientSession, url: str, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    async with session.post(url, data=body, headers=JSON if headers is None else headers) as resp:
        return resp.status, await resp.read()


async def raw_call(session: aiohttp.ClientSession, url: str, method: str, params: Any, id_: Any = 1) -> bytes:
    status, body = await post(
        session, url, json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}).encode()
    )
    assert status == 200
    return body


async def call(session: aiohttp.ClientSession, url: str, method: str, params: Any) -> dict[str, Any]:
    envelope: dict[str, Any] = json.loads(await raw_call(session, url, method, params))
    assert envelope["jsonrpc"] == "2.0"
    assert envelope["id"] == 1
    return envelope


async def result(session: aiohttp.ClientSession, url: str, method: str, params: Any) -> Any:
    envelope = await call(session, url, method, params)
    assert "error" not in envelope, envelope
    return envelope["result"]


async def error(session: aiohttp.ClientSession, url: str, method: str, params: Any) -> tuple[int, str]:
    envelope = await call(session, url, method, params)
    assert "result" not in envelope, envelope
    return envelope["error"]["code"], envelope["error"]["message"]


def find_block(chain: Chain, shard: int, pred: Callable[[Block], bool]) -> Block:
    for n in range(chain.head(shard) + 1):
        block = chain.block(shard, n)
        if pred(block):
            return block
    raise AssertionError("no such block in the test chain")


def find_tx(chain: Chain, shard: int, pred: Callable[[Transaction], bool]) -> Transaction:
    for n in range(chain.head(shard) + 1):
        for tx in chain.block(shard, n).transactions:
            if pred(tx):
                return tx
    raise AssertionError("no such transaction in the test chain")


# -- simple methods --------------------------------------------------------------------------


async def test_block_number_both_generations(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    assert await result(http, devnet.url, "hmy_blockNumber", []) == "0x18f"
    assert await result(http, devnet.url, "hmyv2_blockNumber", []) == 399
    assert await result(http, devnet.urls[1], "hmyv2_blockNumber", []) == 399
    assert await error(http, devnet.url, "hmyv2_blockNumber", [1]) == (
        -32602,
        "too many arguments, want at most 0",
    )


async def test_epoch_chain_id_net_version(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    epoch = devnet_truth.epoch_of(399)
    assert await result(http, devnet.url, "hmy_getEpoch", []) == hex(epoch)
    assert await result(http, devnet.url, "hmyv2_getEpoch", []) == epoch
    assert await result(http, devnet.url, "hmy_chainId", []) == "0x2"
    assert await result(http, devnet.url, "hmyv2_chainId", []) == 2
    assert await result(http, devnet.url, "net_version", []) == "2"


async def test_sharding_structure(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    for shard, url in enumerate(devnet.urls):
        for method in ("hmy_getShardingStructure", "hmyv2_getShardingStructure"):
            entries = await result(http, url, method, [])
            assert [e["http"] for e in entries] == devnet.urls
            assert [e["current"] for e in entries] == [i == shard for i in range(2)]
            assert [e["shardID"] for e in entries] == [0, 1]
            assert all(e["ws"].startswith("ws://127.0.0.1:") for e in entries)
            assert list(entries[0]) == ["current", "http", "shardID", "ws"]


# -- blocks ----------------------------------------------------------------------------------


@pytest.mark.parametrize("form", ["0x5", 5, "5", 5.0])
async def test_block_number_param_forms(devnet: Devnet, http: aiohttp.ClientSession, form: Any) -> None:
    expected = await raw_call(http, devnet.url, "hmyv2_getBlockByNumber", [5, {}])
    assert await raw_call(http, devnet.url, "hmyv2_getBlockByNumber", [form, {}]) == expected


async def test_latest_earliest_and_minus_one(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    head = await raw_call(http, devnet.url, "hmy_getBlockByNumber", ["0x18f", False])
    assert await raw_call(http, devnet.url, "hmy_getBlockByNumber", ["latest", False]) == head
    assert await raw_call(http, devnet.url, "hmy_getBlockByNumber", [-1, False]) == head
    genesis = await raw_call(http, devnet.url, "hmy_getBlockByNumber", ["0x0", False])
    assert await raw_call(http, devnet.url, "hmy_getBlockByNumber", ["earliest", False]) == genesis


@pytest.mark.parametrize(
    ("param", "code", "message"),
    [
        ("pending", -32000, "pending block number not implemented"),
        ("0x190", -32000, "requested block number greater than current block number"),
        (10**6, -32000, "requested block number greater than current block number"),
        ("abc", -32602, "invalid argument 0: hex string without 0x prefix"),
        ("0x", -32602, 'invalid argument 0: hex string "0x"'),
        ("0x01", -32602, "invalid argument 0: hex number with leading zero digits"),
        ("0xzz", -32602, "invalid argument 0: invalid hex string"),
        ("0x10000000000000000", -32602, "invalid argument 0: hex number > 64 bits"),
        (2**63, -32602, "invalid argument 0: block number larger than int64"),
        (True, -32602, "invalid argument 0: hex string without 0x prefix"),
    ],
)
async def test_block_number_param_errors(
    devnet: Devnet, http: aiohttp.ClientSession, param: Any, code: int, message: str
) -> None:
    assert await error(http, devnet.url, "hmyv2_getBlockByNumber", [param, {}]) == (code, message)


async def test_block_args_rules(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    url = devnet.url
    assert await error(http, url, "hmy_getBlockByNumber", ["0x5"]) == (
        -32602,
        "missing value for required argument 1",
    )
    assert await error(http, url, "hmyv2_getBlockByNumber", [5]) == (
        -32602,
        "missing value for required argument 1",
    )
    assert await error(http, url, "hmy_getBlockByNumber", []) == (
        -32602,
        "missing value for required argument 0",
    )
    assert await error(http, url, "hmy_getBlockByNumber", ["0x5", True, 1]) == (
        -32602,
        "too many arguments, want at most 2",
    )
    assert await error(http, url, "hmy_getBlockByNumber", ["0x5", {"fullTx": True}]) == (
        -32000,
        "invalid type for block arguments",
    )
    assert await error(http, url, "hmyv2_getBlockByNumber", [5, True]) == (
        -32000,
        "json: cannot unmarshal bool into Go value of type common.BlockArgs",
    )
    assert await error(http, url, "hmyv2_getBlockByNumber", [5, {"fullTx": "yes"}]) == (
        -32000,
        "json: cannot unmarshal string into Go struct field BlockArgs.fullTx of type bool",
    )
    assert await error(http, url, "hmyv2_getBlockByNumber", [5, {}, 1]) == (
        -32602,
        "too many arguments, want at most 2",
    )
    # unknown keys ignored, keys matched case-insensitively as Go's encoding/json does
    plain = await raw_call(http, url, "hmyv2_getBlockByNumber", [5, {"fullTx": True}])
    assert await raw_call(http, url, "hmyv2_getBlockByNumber", [5, {"FULLTX": True, "inclTx": True}]) == plain
    assert await error(http, url, "hmyv2_getBlockByNumber", ["0x5"]) == (
        -32602,
        "missing value for required argument 1",
    )


@pytest.mark.parametrize("gen", [1, 2])
async def test_block_hash_only_current(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain, gen: int
) -> None:
    truth = find_block(devnet_truth, 0, lambda b: len(b.transactions) > 2 and len(b.staking_transactions) > 0)
    number: Any = hex(truth.number) if gen == 1 else truth.number
    method = "hmy_getBlockByNumber" if gen == 1 else "hmyv2_getBlockByNumber"
    block = await result(http, devnet.url, method, [number, False if gen == 1 else {}])
    assert block["hash"] == truth.hash
    assert block["number"] == number
    assert block["transactions"] == [tx.hash for tx in truth.transactions]
    assert block["transactionsInEthHash"] == [tx.eth_hash for tx in truth.transactions]
    # v1 always includes staking transactions; v2 only when inclStaking (default false): [] then
    assert block["stakingTransactions"] == ([s.hash for s in truth.staking_transactions] if gen == 1 else [])
    assert block["nonce"] == 0
    assert block["difficulty"] == 0
    assert block["miner"] == hex_to_one(truth.leader)
    assert block["epoch"] == (hex(truth.epoch) if gen == 1 else truth.epoch)
    assert "signers" not in block


@pytest.mark.parametrize("gen", [1, 2])
async def test_block_full_current(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain, gen: int
) -> None:
    truth = find_block(devnet_truth, 0, lambda b: len(b.transactions) > 2 and len(b.staking_transactions) > 0)
    if gen == 1:
        block = await result(http, devnet.url, "hmy_getBlockByNumber", [hex(truth.number), True])
    else:
        block = await result(http, devnet.url, "hmyv2_getBlockByNumber", [truth.number, CUR_FULL])
    assert "transactionsInEthHash" not in block
    txs = block["transactions"]
    assert [t["hash"] for t in txs] == [t.hash for t in truth.transactions]
    for got, want in zip(txs, truth.transactions, strict=True):
        assert got["value"] == (hex(want.value) if gen == 1 else want.value)
        assert got["gasPrice"] == (hex(want.gas_price) if gen == 1 else want.gas_price)
        assert got["shardID"] == want.shard_id
        assert got["ethHash"] == want.eth_hash
    staking = block["stakingTransactions"]
    assert [s["hash"] for s in staking] == [s.hash for s in truth.staking_transactions]
    assert all(s["type"] == t.directive for s, t in zip(staking, truth.staking_transactions, strict=True))


async def test_block_by_hash(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    truth = devnet_truth.block(1, 77)
    by_number = await raw_call(http, devnet.urls[1], "hmyv2_getBlockByNumber", [77, CUR_FULL])
    assert await raw_call(http, devnet.urls[1], "hmyv2_getBlockByHash", [truth.hash, CUR_FULL]) == by_number
    v1 = await result(
        http, devnet.urls[1], "hmy_getBlockByHash", [truth.hash.upper().replace("0X", "0x"), True]
    )
    assert v1["number"] == hex(77)
    # a block of the other shard is unknown here; an unknown hash is null
    assert await result(http, devnet.url, "hmyv2_getBlockByHash", [truth.hash, {}]) is None
    assert await result(http, devnet.url, "hmyv2_getBlockByHash", ["0x" + "12" * 32, {}]) is None
    assert await error(http, devnet.url, "hmyv2_getBlockByHash", ["0x1234", {}]) == (
        -32602,
        "invalid argument 0: hex string has length 4, want 64 for common.Hash",
    )
    assert await error(http, devnet.url, "hmyv2_getBlockByHash", ["12" * 32, {}]) == (
        -32602,
        "invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type common.Hash",
    )
    assert await error(http, devnet.url, "hmyv2_getBlockByHash", [12, {}]) == (
        -32602,
        "invalid argument 0: json: cannot unmarshal non-string into Go value of type common.Hash",
    )


async def test_with_signers(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    block = await result(http, devnet.url, "hmyv2_getBlockByNumber", [10, {"withSigners": True}])
    assert block["signers"] == [hex_to_one(a) for a in devnet_truth.signers(0, 10) or ()]
    assert len(block["signers"]) > 0
    assert await error(http, devnet.url, "hmyv2_getBlockByNumber", [399, {"withSigners": True}]) == (
        -32000,
        "GetSigners: getSignerData: block number 400 not found",
    )
    assert await result(http, devnet.url, "hmyv2_getBlockSigners", [10]) == block["signers"]
    assert await result(http, devnet.url, "hmy_getBlockSigners", ["0xa"]) == block["signers"]
    assert await error(http, devnet.url, "hmy_getBlockSigners", ["latest"]) == (
        -32000,
        "GetSigners: getSignerData: block number 400 not found",
    )


# -- getBlocks -------------------------------------------------------------------------------


async def test_get_blocks_matches_get_block_by_number(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    body = await raw_call(http, devnet.url, "hmyv2_getBlocks", [20, 24, CUR_FULL])
    blocks = json.loads(body)["result"]
    assert [b["number"] for b in blocks] == [20, 21, 22, 23, 24]
    for n in (20, 24):
        single = json.loads(await raw_call(http, devnet.url, "hmyv2_getBlockByNumber", [n, CUR_FULL]))[
            "result"
        ]
        assert blocks[n - 20] == single
    v1 = await result(http, devnet.url, "hmy_getBlocks", ["0x14", "0x15", {"fullTx": False}])
    assert [b["number"] for b in v1] == ["0x14", "0x15"]
    assert v1[0]["stakingTransactions"] == []  # getBlocks takes the BlockArgs as given, even in v1


async def test_get_blocks_limits(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    url = devnet.url
    assert await error(http, url, "hmyv2_getBlocks", [0, 1025, {}]) == (
        -32000,
        "GetBlocks query must be smaller than size 1024",
    )
    truncated = await result(http, url, "hmyv2_getBlocks", [395, 1000, {}])
    assert [b["number"] for b in truncated] == [395, 396, 397, 398, 399]
    assert await result(http, url, "hmyv2_getBlocks", [10, 9, {}]) == []
    assert await result(http, url, "hmyv2_getBlocks", [500, 600, {}]) == []
    assert await error(http, url, "hmyv2_getBlocks", [1, 2]) == (-32000, "method handler crashed")
    assert await error(http, url, "hmyv2_getBlocks", [1]) == (-32602, "missing value for required argument 1")
    assert await error(http, url, "hmyv2_getBlocks", [1, 2, True]) == (
        -32602,
        "invalid argument 2: json: cannot unmarshal bool into Go value of type common.BlockArgs",
    )
    latest = await result(http, url, "hmyv2_getBlocks", [398, "latest", {}])
    assert [b["number"] for b in latest] == [398, 399]


# -- transactions ----------------------------------------------------------------------------


async def test_transaction_by_hash(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    tx = find_tx(devnet_truth, 0, lambda t: t.value > 2**64 and t.to is not None)
    v1 = await result(http, devnet.url, "hmy_getTransactionByHash", [tx.hash])
    v2 = await result(http, devnet.url, "hmyv2_getTransactionByHash", [tx.hash])
    assert list(v1) == sorted(v1)  # the node's StructuredResponse map
    assert v1["value"] == hex(tx.value)
    assert v2["value"] == tx.value
    assert v2["blockNumber"] == tx.block_number
    assert v1["blockNumber"] == hex(tx.block_number)
    assert v2["from"] == hex_to_one(tx.sender)
    assert v2["ethHash"] == tx.eth_hash
    assert v1["v"].startswith("0x")
    assert v2["r"] == hex(tx.r)
    assert await result(http, devnet.url, "hmyv2_getTransactionByHash", ["0x" + "ab" * 32]) is None
    # a transaction of shard 0 is not on shard 1's node
    assert await result(http, devnet.urls[1], "hmyv2_getTransactionByHash", [tx.hash]) is None
    assert await error(http, devnet.url, "hmyv2_getTransactionByHash", ["0x123"]) == (
        -32602,
        "invalid argument 0: json: cannot unmarshal hex string of odd length into Go value of type common.Hash",
    )


async def test_contract_creation_and_cross_shard(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    creation = find_tx(devnet_truth, 0, lambda t: t.to is None)
    obj = await result(http, devnet.url, "hmyv2_getTransactionByHash", [creation.hash])
    assert obj["to"] == ""
    assert obj["from"] == creation.sender.lower()
    cross = find_tx(devnet_truth, 0, lambda t: t.is_cross_shard)
    obj = await result(http, devnet.url, "hmy_getTransactionByHash", [cross.hash])
    assert (obj["shardID"], obj["toShardID"]) == (0, cross.to_shard_id)
    # the node answers on the destination shard, with the block that credited the receipt
    assert await result(http, devnet.url, "hmyv2_getCXReceiptByHash", [cross.hash]) is None
    receipt = await result(http, devnet.urls[cross.to_shard_id], "hmyv2_getCXReceiptByHash", [cross.hash])
    credited = devnet_truth.block(cross.to_shard_id, cross.block_number + CX_PENDING_BLOCKS)
    assert receipt == {
        "blockHash": credited.hash,
        "blockNumber": credited.number,
        "hash": cross.hash,
        "from": hex_to_one(cross.sender),
        "to": hex_to_one(cross.to or ""),
        "shardID": 0,
        "toShardID": cross.to_shard_id,
        "value": cross.value,
    }
    assert await result(http, devnet.url, "hmyv2_getCXReceiptByHash", [creation.hash]) is None


async def test_transaction_by_block_and_index(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    block = find_block(devnet_truth, 0, lambda b: len(b.transactions) > 3)
    tx = block.transactions[2]
    by_hash = await raw_call(http, devnet.url, "hmyv2_getTransactionByHash", [tx.hash])
    assert (
        await raw_call(http, devnet.url, "hmyv2_getTransactionByBlockNumberAndIndex", [block.number, 2])
        == by_hash
    )
    assert (
        await raw_call(http, devnet.url, "hmyv2_getTransactionByBlockHashAndIndex", [block.hash, 2])
        == by_hash
    )
    v1 = await result(http, devnet.url, "hmy_getTransactionByBlockNumberAndIndex", [hex(block.number), "0x2"])
    assert v1["hash"] == tx.hash
    assert (
        await result(http, devnet.url, "hmyv2_getTransactionByBlockNumberAndIndex", [block.number, 999])
        is None
    )
    assert await result(http, devnet.url, "hmyv2_getBlockTransactionCountByNumber", [block.number]) == len(
        block.transactions
    )
    assert await result(http, devnet.url, "hmy_getBlockTransactionCountByHash", [block.hash]) == hex(
        len(block.transactions)
    )
    assert await result(http, devnet.url, "hmyv2_getBlockTransactionCountByNumber", [5000]) is None


async def test_transaction_index_forms(
    devnet: Devnet, legacy: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    """Today's node decodes the index as ``TransactionIndex`` in both generations (a number, a
    hex string or a decimal string: mainnet answered hmyv2_...AndIndex with ``"0x0"`` in 2023);
    the early-2020 node took a v1 ``hexutil.Uint`` and a v2 ``uint64``."""
    block = find_block(devnet_truth, 0, lambda b: len(b.transactions) > 3 and len(b.staking_transactions) > 0)
    want = block.transactions[2].hash
    for method in ("hmy_getTransactionByBlockNumberAndIndex", "hmyv2_getTransactionByBlockNumberAndIndex"):
        where = hex(block.number) if method.startswith("hmy_") else block.number
        for index in (2, "0x2", "2", "+2", "0x02", "0x+2"):
            assert (await result(http, devnet.url, method, [where, index]))["hash"] == want, (method, index)
    by_hash = "hmyv2_getTransactionByBlockHashAndIndex"
    assert (await result(http, devnet.url, by_hash, [block.hash, "0x2"]))["hash"] == want
    staking = "hmyv2_getStakingTransactionByBlockNumberAndIndex"
    got = await result(http, devnet.url, staking, [block.number, "0x0"])
    assert got["hash"] == block.staking_transactions[0].hash
    # a negative index wraps to a uint64, past every block's end; Go's ParseInt messages
    assert await result(http, devnet.url, by_hash, [block.hash, -1]) is None
    assert await result(http, devnet.url, by_hash, [block.hash, "0x-1"]) is None
    for bad, text in (
        ("0xzz", '"zz"'),
        ("0X2", '"0X2"'),
        ("0x", '""'),
        ("", '""'),
        (None, '"null"'),
        (True, '"true"'),
        (1.5, '"1.5"'),
        ("0x8000000000000000", '"8000000000000000": value out of range'),
    ):
        message = f"invalid argument 1: strconv.ParseInt: parsing {text}"
        assert (await error(http, devnet.url, by_hash, [block.hash, bad]))[1].startswith(message), bad
    # the early-2020 node
    number = "hmy_getTransactionByBlockNumberAndIndex"
    assert (await result(http, legacy.url, number, [hex(block.number), "0x2"]))["hash"] == want
    assert await error(http, legacy.url, number, [hex(block.number), 2]) == (
        -32602,
        "invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint",
    )
    assert await error(http, legacy.url, by_hash, [block.hash, "0x2"]) == (
        -32602,
        "invalid argument 1: json: cannot unmarshal string into Go value of type uint64",
    )
    assert await error(http, legacy.url, by_hash, [block.hash, -1]) == (
        -32602,
        "invalid argument 1: json: cannot unmarshal number -1 into Go value of type uint64",
    )


async def test_staking_transactions(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    block = find_block(
        devnet_truth, 0, lambda b: any(s.directive == "CreateValidator" for s in b.staking_transactions)
    )
    index, stx = next(
        (i, s) for i, s in enumerate(block.staking_transactions) if s.directive == "CreateValidator"
    )
    v2 = await result(http, devnet.url, "hmyv2_getStakingTransactionByHash", [stx.hash])
    assert v2["type"] == "CreateValidator"
    assert v2["msg"]["validatorAddress"] == hex_to_one(str(stx.msg["validatorAddress"]))
    assert v2["msg"]["amount"] == stx.msg["amount"]
    assert all(len(sig) == 96 for sig in v2["msg"]["slotKeySigs"])
    v1 = await result(http, devnet.url, "hmy_getStakingTransactionByHash", [stx.hash])
    assert v1["msg"]["amount"] == hex(int(str(stx.msg["amount"])))
    assert "slotKeySigs" not in v1["msg"]
    assert (
        await result(
            http, devnet.url, "hmyv2_getStakingTransactionByBlockNumberAndIndex", [block.number, index]
        )
        == v2
    )
    assert await result(http, devnet.urls[1], "hmyv2_getStakingTransactionByHash", [stx.hash]) is None
    plain = block.transactions[0].hash if block.transactions else "0x" + "00" * 32
    assert await result(http, devnet.url, "hmyv2_getStakingTransactionByHash", [plain]) is None


async def test_transaction_count(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    tx = find_tx(devnet_truth, 1, lambda t: t.nonce > 1)
    want = devnet_truth.transaction_count(1, tx.sender, 399)
    assert want > 1
    url = devnet.urls[1]
    assert await result(http, url, "hmy_getTransactionCount", [tx.sender, "latest"]) == hex(want)
    assert await result(http, url, "hmyv2_getTransactionCount", [hex_to_one(tx.sender), 399]) == want
    at_block = devnet_truth.transaction_count(1, tx.sender, tx.block_number)
    assert await result(http, url, "hmyv2_getTransactionCount", [tx.sender, hex(tx.block_number)]) == at_block
    assert await result(http, url, "hmyv2_getTransactionCount", [tx.sender, tx.block_hash]) == at_block
    assert (
        await result(
            http, url, "hmyv2_getTransactionCount", [tx.sender, {"blockNumber": hex(tx.block_number)}]
        )
        == at_block
    )
    assert await error(http, url, "hmyv2_getTransactionCount", ["one1bad", "latest"]) == (
        -32000,
        "invalid address: one1bad",
    )
    assert await error(http, url, "hmyv2_getTransactionCount", [tx.sender]) == (
        -32602,
        "missing value for required argument 1",
    )


# -- validators ------------------------------------------------------------------------------


async def test_validator_addresses_and_beacon_only(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    want = [hex_to_one(a) for a in devnet_truth.validator_addresses()]
    assert await result(http, devnet.url, "hmy_getAllValidatorAddresses", []) == want
    assert await result(http, devnet.url, "hmyv2_getAllValidatorAddresses", []) == want
    elected = await result(http, devnet.url, "hmyv2_getElectedValidatorAddresses", [])
    assert elected == [
        hex_to_one(v.address) for v in devnet_truth.validators(399) if v.currently_in_committee
    ]
    for method, params in [
        ("hmyv2_getAllValidatorAddresses", []),
        ("hmy_getAllValidatorInformation", [0]),
        ("hmyv2_getAllValidatorInformationByBlockNumber", [0, 5]),
        ("hmyv2_getValidatorInformation", [want[0]]),
    ]:
        assert await error(http, devnet.urls[1], method, params) == (
            -32000,
            "cannot call this rpc on non beaconchain node",
        )


async def test_validator_pages_current(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    addresses = [hex_to_one(a) for a in devnet_truth.validator_addresses()]
    pages = []
    for page in range(5):
        pages.append(await result(http, devnet.url, "hmyv2_getAllValidatorInformation", [page]))
    assert [len(p) for p in pages] == [100, 100, len(addresses) - 200, 0, 0]
    assert [v["validator"]["address"] for p in pages for v in p] == addresses
    v1_page = await result(http, devnet.url, "hmy_getAllValidatorInformation", [0])
    assert v1_page == pages[0]  # identical in v1 and v2
    assert await error(http, devnet.url, "hmyv2_getAllValidatorInformation", [-1]) == (
        -32000,
        "page given -1 cannot be less than 0",
    )
    assert await error(http, devnet.url, "hmyv2_getAllValidatorInformation", []) == (
        -32602,
        "missing value for required argument 0",
    )
    assert await error(http, devnet.url, "hmyv2_getAllValidatorInformation", ["0"]) == (
        -32602,
        "invalid argument 0: json: cannot unmarshal string into Go value of type int",
    )
    first = pages[0][0]
    truth = devnet_truth.validator(devnet_truth.validator_addresses()[0], 399)
    assert truth is not None
    assert first["total-delegation"] == truth.total_delegation
    assert first["validator"]["delegations"][0]["amount"] == truth.delegations[0].amount
    nulls = [v for p in pages for v in p if v["current-epoch-performance"] is None]
    assert nulls
    assert all(v["currently-in-committee"] is False for v in nulls)


async def test_historical_pages_skip_absent_validators(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    present = {v.address for v in devnet_truth.validators(1)}
    addresses = devnet_truth.validator_addresses()
    assert len(present) < len(addresses)  # some validators are created after block 1
    got: list[str] = []
    lengths = []
    for page in range(3):
        items = await result(http, devnet.url, "hmyv2_getAllValidatorInformationByBlockNumber", [page, 1])
        lengths.append(len(items))
        got.extend(v["validator"]["address"] for v in items)
    assert got == [hex_to_one(a) for a in addresses if a in present]
    assert sum(lengths) == len(present)
    hex_page = await result(http, devnet.url, "hmy_getAllValidatorInformationByBlockNumber", [0, "0x1"])
    assert [v["validator"]["address"] for v in hex_page] == got[: len(hex_page)]
    assert await error(http, devnet.url, "hmyv2_getAllValidatorInformationByBlockNumber", [0, 400]) == (
        -32000,
        "requested block number greater than current block number",
    )


async def test_validator_information(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    address = devnet_truth.validator_addresses()[3]
    info = await result(http, devnet.url, "hmyv2_getValidatorInformation", [hex_to_one(address)])
    page = await result(http, devnet.url, "hmyv2_getAllValidatorInformation", [0])
    assert info == page[3]
    old = await result(http, devnet.url, "hmy_getValidatorInformationByBlockNumber", [address, "0x5"])
    truth = devnet_truth.validator(address, 5)
    assert truth is not None
    assert old["validator"]["update-height"] == truth.update_height
    assert old["lifetime"]["blocks"] == {"to-sign": truth.lifetime_to_sign, "signed": truth.lifetime_signed}
    assert await error(http, devnet.url, "hmyv2_getValidatorInformation", ["0x" + "42" * 20]) == (
        -32000,
        "address not present in state",
    )


# -- cross-shard receipts ------------------------------------------------------------------------


async def test_pending_cx_receipts(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    for shard, url in enumerate(devnet.urls):
        proofs = devnet_truth.pending_cx_receipts(shard)
        got = await result(http, url, "hmyv2_getPendingCXReceipts", [])
        assert await result(http, url, "hmy_getPendingCXReceipts", []) == got
        assert len(got) == len(proofs)
        for obj, proof in zip(got, proofs, strict=True):
            assert [r["txHash"] for r in obj["receipts"]] == [r.tx_hash for r in proof.receipts]
            assert [r["amount"] for r in obj["receipts"]] == [r.amount for r in proof.receipts]
            assert obj["header"]["number"] == hex(proof.header.number)
            assert obj["header"]["viewID"] == proof.header.view_id
            assert obj["merkleProof"]["blockNum"] == proof.header.number


# -- traces ----------------------------------------------------------------------------------


async def test_trace_methods_only_on_trace_port(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    assert await error(http, devnet.url, "trace_block", ["0x5"]) == (
        -32601,
        "the method trace_block does not exist/is not available",
    )
    assert await error(http, devnet.url, "trace_transaction", ["0x" + "00" * 32]) == (
        -32601,
        "the method trace_transaction does not exist/is not available",
    )
    # the trace port serves everything the normal port serves too
    assert await result(http, devnet.trace_url, "hmyv2_blockNumber", []) == 399
    assert set(served_methods(trace_port=True)) - set(served_methods(trace_port=False)) == {
        "trace_block",
        "trace_transaction",
    }


async def test_trace_block_current(devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    block = find_block(
        devnet_truth, 0, lambda b: any(t.trace is not None and t.trace.children for t in b.transactions)
    )
    traces = await result(
        http, devnet.trace_url, "trace_block", [hex(block.number).upper().replace("0X", "0x")]
    )
    expected = [(t, addr) for t in block.transactions if t.trace for addr, _ in flatten_trace(t.trace)]
    assert len(traces) == len(expected)
    for entry, (tx, addr) in zip(traces, expected, strict=True):
        assert entry["transactionHash"] == tx.eth_hash
        assert entry["transactionPosition"] == tx.index
        assert entry["traceAddress"] == list(addr)
        assert entry["blockNumber"] == block.number
    empty = find_block(devnet_truth, 0, lambda b: not b.transactions)
    assert await result(http, devnet.trace_url, "trace_block", [hex(empty.number)]) == []
    assert await result(http, devnet.trace_url, "trace_block", ["0x5000"]) is None
    assert await result(http, devnet.trace_url, "trace_block", ["latest"]) is None
    assert await error(http, devnet.trace_url, "trace_block", [block.number]) == (
        -32602,
        "invalid argument 0: hex string without 0x prefix",
    )


async def test_trace_transaction_current(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    tx = find_tx(devnet_truth, 1, lambda t: t.trace is not None and len(t.trace.children) > 0)
    traces = await result(http, devnet.trace_urls[1], "trace_transaction", [tx.hash])
    assert traces
    assert all(e["transactionHash"] == ZERO_HASH for e in traces)
    block_traces = await result(http, devnet.trace_urls[1], "trace_block", [hex(tx.block_number)])
    mine = [e for e in block_traces if e["transactionPosition"] == tx.index]
    assert [{**e, "transactionHash": None} for e in mine] == [{**e, "transactionHash": None} for e in traces]
    missing = "0x" + "77" * 32
    assert await error(http, devnet.trace_urls[1], "trace_transaction", [missing]) == (
        -32000,
        f"transaction {missing} not found",
    )


async def test_failed_frames_have_no_result(
    devnet: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    tx = find_tx(
        devnet_truth, 0, lambda t: t.trace is not None and any(f.error for _, f in flatten_trace(t.trace))
    )
    traces = await result(http, devnet.trace_url, "trace_transaction", [tx.hash])
    failed = [e for e in traces if "error" in e]
    assert failed
    assert all(
        e["error"] == "Reverted" and "result" not in e and e["revert"].startswith("0x") for e in failed
    )


# -- legacy profile ------------------------------------------------------------------------------


async def test_legacy_blocks(legacy: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    truth = find_block(devnet_truth, 0, lambda b: len(b.transactions) > 0 and len(b.staking_transactions) > 0)
    hashes = await result(http, legacy.url, "hmy_getBlockByNumber", [hex(truth.number), False])
    assert list(hashes) == sorted(hashes)
    assert "transactions" not in hashes
    assert hashes["stakingTransactions"] == [s.hash for s in truth.staking_transactions]
    assert hashes["miner"] == truth.leader.lower()
    for key in ("viewID", "epoch", "vrf", "vrfProof", "transactionsInEthHash"):
        assert key not in hashes
    full = await result(http, legacy.url, "hmy_getBlockByNumber", [hex(truth.number), True])
    tx = full["transactions"][0]
    assert tx["from"] == truth.transactions[0].sender.lower()
    assert "timestamp" not in tx
    assert "ethHash" not in tx
    v2 = await result(http, legacy.url, "hmyv2_getBlockByNumber", [truth.number, {"fullTx": True}])
    assert v2["stakingTransactions"][0]["hash"] == truth.staking_transactions[0].hash  # present by default
    assert v2["transactions"][0]["from"] == hex_to_one(truth.transactions[0].sender)
    no_staking = await result(
        http, legacy.url, "hmyv2_getBlockByNumber", [truth.number, {"inclStaking": False}]
    )
    assert "stakingTransactions" not in no_staking
    signed = await result(http, legacy.url, "hmyv2_getBlocks", [0, 1, {"withSigners": True}])
    assert all(isinstance(b["signers"], list) for b in signed)


async def test_legacy_transactions(legacy: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain) -> None:
    creation = find_tx(devnet_truth, 0, lambda t: t.to is None)
    v1 = await result(http, legacy.url, "hmy_getTransactionByHash", [creation.hash])
    assert v1["to"] is None
    assert list(v1) == [
        "blockHash", "blockNumber", "from", "gas", "gasPrice", "hash", "input", "nonce", "to",
        "transactionIndex", "value", "v", "r", "s",
    ]  # fmt: skip
    v2 = await result(http, legacy.url, "hmyv2_getTransactionByHash", [creation.hash])
    assert v2["to"] is None
    assert v2["shardID"] == 0
    assert v2["timestamp"] == creation.timestamp


async def test_legacy_validator_pages(
    legacy: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    addresses = [hex_to_one(a) for a in devnet_truth.validator_addresses()]
    # pages count from 0, as on every node version (page 0 and page 1 are different pages)
    page1 = await result(http, legacy.url, "hmy_getAllValidatorInformation", [0])
    assert await result(http, legacy.url, "hmy_getAllValidatorInformation", []) == page1
    page2 = await result(http, legacy.url, "hmy_getAllValidatorInformation", [1])
    everything = await result(http, legacy.url, "hmy_getAllValidatorInformation", [-1])
    assert len(everything) == len(addresses)
    assert [e["result"]["validator"]["address"] for e in page1 + page2] == addresses[:200]
    assert [e["result"]["validator"]["address"] for e in everything] == addresses
    assert [e["id"] for e in page1[:3]] == ["0", "1", "2"]
    assert all(e["jsonrpc"] == "2.0" for e in page1)
    spellings = {k for e in everything for k in e["result"]["validator"]["availability"]}
    assert spellings == {"num-blocks-signed", "num-blocks-to-sign", "num-of-blocks-to-sign"}
    entry = page1[0]["result"]
    assert list(entry) == ["current-epoch-signing-percent", "current-epoch-voting-power", "validator"]
    assert "percentage" in entry["current-epoch-signing-percent"]
    by_block = await result(http, legacy.url, "hmy_getAllValidatorInformationByBlockNumber", [0, 399])
    assert by_block == page1
    assert await error(http, legacy.url, "hmy_getAllValidatorInformation", [-2]) == (
        -32000,
        "page given -2 cannot be less than -1",
    )
    single = await result(http, legacy.url, "hmyv2_getValidatorInformation", [addresses[0]])
    assert single == page1[0]["result"]


async def test_legacy_traces_use_harmony_hash(
    legacy: Devnet, http: aiohttp.ClientSession, devnet_truth: Chain
) -> None:
    tx = find_tx(devnet_truth, 0, lambda t: t.trace is not None)
    by_tx = await result(http, legacy.trace_url, "trace_transaction", [tx.hash])
    by_block = await result(http, legacy.trace_url, "trace_block", [hex(tx.block_number)])
    assert {e["transactionHash"] for e in by_tx} == {tx.hash}
    assert tx.hash in {e["transactionHash"] for e in by_block}


# -- JSON-RPC envelope and batches ---------------------------------------------------------------


async def test_unknown_method_and_envelope_errors(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    assert await error(http, devnet.url, "hmy_noSuchThing", []) == (
        -32601,
        "the method hmy_noSuchThing does not exist/is not available",
    )
    assert await post(http, devnet.url, b"{not json") == (
        200,
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}\n',
    )
    assert await post(http, devnet.url, b'"just a string"') == (
        200,
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}\n',
    )
    _status, body = await post(
        http, devnet.url, b'{"jsonrpc":"2.0","id":7,"method":"hmyv2_blockNumber","params":{"a":1}}'
    )
    assert json.loads(body)["error"] == {"code": -32602, "message": "non-array args"}
    _status, body = await post(http, devnet.url, b'{"jsonrpc":"2.0","id":"abc","method":"hmyv2_blockNumber"}')
    assert json.loads(body) == {"jsonrpc": "2.0", "id": "abc", "result": 399}
    _status, body = await post(http, devnet.url, b'{"jsonrpc":"2.0","id":null,"method":"hmyv2_blockNumber"}')
    assert json.loads(body) == {"jsonrpc": "2.0", "id": None, "result": 399}


async def test_batches(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": 3, "method": "hmyv2_blockNumber", "params": []},
        {"jsonrpc": "2.0", "method": "hmyv2_blockNumber", "params": []},  # notification
        {"jsonrpc": "2.0", "id": 1, "method": "hmy_nope", "params": []},
        5,
        {"jsonrpc": "2.0", "id": 2, "method": "hmy_blockNumber", "params": []},
    ]
    status, body = await post(http, devnet.url, json.dumps(batch).encode())
    answers = json.loads(body)
    assert status == 200
    assert [a["id"] for a in answers] == [3, 1, None, 2]
    assert answers[0]["result"] == 399
    assert answers[1]["error"]["code"] == -32601
    assert answers[2]["error"] == {"code": -32600, "message": "invalid request"}
    assert answers[3]["result"] == "0x18f"
    notes = [{"jsonrpc": "2.0", "method": "hmyv2_blockNumber", "params": []}] * 3
    assert await post(http, devnet.url, json.dumps(notes).encode()) == (200, b"")
    assert await post(http, devnet.url, b"[]") == (
        200,
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}\n',
    )
    assert await post(http, devnet.url, b"[1,") == (
        200,
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}\n',
    )


async def test_batch_of_blocks_equals_singles(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    batch = [
        {"jsonrpc": "2.0", "id": n, "method": "hmyv2_getBlockByNumber", "params": [n, CUR_FULL]}
        for n in range(30, 40)
    ]
    _, body = await post(http, devnet.url, json.dumps(batch).encode())
    answers = json.loads(body)
    singles = [
        json.loads(await raw_call(http, devnet.url, "hmyv2_getBlockByNumber", [n, CUR_FULL], id_=n))
        for n in range(30, 40)
    ]
    assert answers == singles


# -- HTTP level ------------------------------------------------------------------------------


async def test_http_rules(devnet: Devnet, http: aiohttp.ClientSession) -> None:
    ok = b'{"jsonrpc":"2.0","id":1,"method":"hmyv2_blockNumber","params":[]}'
    for content_type in (
        "application/json",
        "application/json-rpc",
        "application/jsonrequest",
        "application/json; charset=utf-8",
    ):
        status, body = await post(http, devnet.url, ok, {"Content-Type": content_type})
        assert status == 200
        assert json.loads(body)["result"] == 399
    assert await post(http, devnet.url, ok, {"Content-Type": "text/plain"}) == (
        415,
        b"invalid content type, only application/json is supported\n",
    )
    big = io.BytesIO(b"[" + b" " * (5 * 1024 * 1024) + b"]")
    async with http.post(devnet.url, data=big, headers=JSON) as resp:
        assert resp.status == 413
        assert await resp.read() == b"content length too large (5242882>5242880)\n"
    async with http.put(devnet.url, data=ok, headers=JSON) as resp:
        assert resp.status == 405
    async with http.delete(devnet.url) as resp:
        assert resp.status == 405
    async with http.get(devnet.url) as resp:
        assert resp.status == 200
        assert await resp.read() == b""


async def test_gzip_only_when_accepted(devnet: Devnet) -> None:
    ok = b'{"jsonrpc":"2.0","id":1,"method":"hmyv2_getBlocks","params":[0,20,{"fullTx":true}]}'
    async with aiohttp.ClientSession(auto_decompress=False) as raw:
        async with raw.post(devnet.url, data=ok, headers={**JSON, "Accept-Encoding": "gzip"}) as resp:
            assert resp.headers["Content-Encoding"] == "gzip"
            zipped = await resp.read()
        async with raw.post(devnet.url, data=ok, headers={**JSON, "Accept-Encoding": "identity"}) as resp:
            assert "Content-Encoding" not in resp.headers
            plain = await resp.read()
    assert gzip.decompress(zipped) == plain
    assert len(zipped) < len(plain)


async def test_without_gzip_every_client_gets_the_same_identity_bytes() -> None:
    ok = b'{"jsonrpc":"2.0","id":1,"method":"hmyv2_getBlocks","params":[0,20,{"fullTx":true}]}'
    bodies = []
    async with (
        Devnet(blocks=30, seed=2, shards=1, validators=20, gzip=False) as net,
        aiohttp.ClientSession(auto_decompress=False) as raw,
    ):
        for accept in ("gzip", "gzip, deflate", "identity"):
            async with raw.post(net.url, data=ok, headers={**JSON, "Accept-Encoding": accept}) as resp:
                assert "Content-Encoding" not in resp.headers
                bodies.append(await resp.read())
    assert bodies[0] == bodies[1] == bodies[2]
    assert b'"hash"' in bodies[0]


# -- runner ----------------------------------------------------------------------------------


async def test_async_context_serves_on_running_loop(http: aiohttp.ClientSession) -> None:
    async with Devnet(blocks=30, seed=2, shards=1, validators=20) as net:
        assert len(net.urls) == 1
        assert await result(http, net.url, "hmyv2_blockNumber", []) == 29
        net.mine(3)
        assert await result(http, net.url, "hmyv2_blockNumber", []) == 32
    assert not net.running
    with pytest.raises(ConfigError, match="not running"):
        _ = net.url


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"shards": 0}, "shards=0"),
        ({"blocks": "10"}, "blocks='10'"),
        ({"profile": "modern"}, "profile='modern'"),
        ({"latency_ms": -1}, "latency_ms=-1"),
        ({"port": 70000}, "port=70000"),
        ({"port": 65535, "shards": 2}, "port=65535"),
        ({"rpc_rate_limit": 0}, "rpc_rate_limit=0"),
        ({"validator_rate_limit": "yes"}, "validator_rate_limit='yes'"),
        ({"faults": "explode"}, "explode"),
    ],
)
def test_bad_devnet_arguments(kwargs: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError) as info:
        Devnet(**kwargs)
    assert named in str(info.value)


def test_mine_moves_the_head(make_devnet: Callable[..., Devnet]) -> None:
    net = make_devnet(blocks=20, seed=5, validators=20)

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            assert await error(http, net.url, "hmyv2_getBlockByNumber", [20, {}]) == (
                -32000,
                "requested block number greater than current block number",
            )
            assert await error(http, net.url, "hmyv2_getBlockByNumber", [19, {"withSigners": True}]) == (
                -32000,
                "GetSigners: getSignerData: block number 20 not found",
            )
            net.mine(2)
            assert await result(http, net.url, "hmyv2_blockNumber", []) == 21
            block = await result(http, net.url, "hmyv2_getBlockByNumber", [20, {}])
            assert block["number"] == 20
            signed = await result(http, net.url, "hmyv2_getBlockByNumber", [19, {"withSigners": True}])
            assert len(signed["signers"]) > 0
            assert await error(http, net.url, "hmyv2_getBlockByNumber", [21, {"withSigners": True}]) == (
                -32000,
                "GetSigners: getSignerData: block number 22 not found",
            )
            truth = Chain(seed=5, blocks=22, validators=20)
            assert block["hash"] == truth.block(0, 20).hash

    asyncio.run(scenario())


def test_same_seed_same_bytes(make_devnet: Callable[..., Devnet]) -> None:
    a = make_devnet(blocks=60, seed=11, validators=30)
    b = make_devnet(blocks=60, seed=11, validators=30)
    c = make_devnet(blocks=60, seed=12, validators=30)
    requests = [
        ("hmyv2_getBlocks", [0, 59, {"fullTx": True, "inclStaking": True}], False),
        ("hmy_getBlocks", ["0x0", "0x3b", {"fullTx": True, "withSigners": False}], False),
        ("hmyv2_getAllValidatorInformation", [0], False),
        ("hmy_getPendingCXReceipts", [], False),
        ("trace_block", ["0x2a"], True),
    ]

    async def fetch(net: Devnet) -> list[bytes]:
        async with aiohttp.ClientSession() as http:
            out = []
            for method, params, trace in requests:
                for url in net.trace_urls if trace else net.urls:
                    out.append(await raw_call(http, url, method, params))
            return out

    async def scenario() -> None:
        first, second, other = await fetch(a), await fetch(b), await fetch(c)
        assert first == second
        assert first[0] != other[0]

    asyncio.run(scenario())


def test_fixed_port_layout(make_devnet: Callable[..., Devnet]) -> None:
    import socket

    for _ in range(20):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        base = probe.getsockname()[1]
        probe.close()
        if base + 3 > 65535:
            continue
        try:
            net = make_devnet(blocks=10, seed=1, validators=10, port=base)
        except ConfigError:
            continue  # a port of the range was taken meanwhile: try another base
        assert net.urls == [f"http://127.0.0.1:{base}", f"http://127.0.0.1:{base + 2}"]
        assert net.trace_urls == [f"http://127.0.0.1:{base + 1}", f"http://127.0.0.1:{base + 3}"]
        return
    pytest.fail("could not find four free consecutive ports")
