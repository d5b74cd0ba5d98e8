"""The devnet's token activity over real HTTP: receipts (plain and staking), logs and blooms,
getLogs and filters, token metadata calls, in both generations, the legacy profile and the
``eth_`` namespace, checked against the chain's ledger and against each other."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from typing import Any

import aiohttp
import pytest
from Crypto.Hash import keccak

from hmyframe.addresses import to_one
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet._gen_accounts import COLLECT_REWARDS_TOPIC
from hmyframe.devnet.model import ZERO_ADDRESS
from hmyframe.errors import ConfigError

JSON = {"Content-Type": "application/json"}
TRANSFER = "0x" + keccak.new(digest_bits=256, data=b"Transfer(address,address,uint256)").hexdigest()
SINGLE = (
    "0x"
    + keccak.new(digest_bits=256, data=b"TransferSingle(address,address,address,uint256,uint256)").hexdigest()
)
BATCH = (
    "0x"
    + keccak.new(
        digest_bits=256, data=b"TransferBatch(address,address,address,uint256[],uint256[])"
    ).hexdigest()
)
HEAD_BLOCKS = 260


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(blocks=HEAD_BLOCKS, seed=11, token_density=3, validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture(scope="module")
def legacy() -> Iterator[Devnet]:
    with Devnet(blocks=120, seed=11, token_density=3, profile="legacy", validator_rate_limit=False) as devnet:
        yield devnet


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def envelope(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    async with http.post(url, data=body, headers=JSON) as resp:
        assert resp.status == 200
        return json.loads(await resp.read())


async def result(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> Any:
    answer = await envelope(http, url, method, params)
    assert "error" not in answer, (method, params, answer)
    return answer["result"]


async def error(http: aiohttp.ClientSession, url: str, method: str, params: list[Any]) -> tuple[int, str]:
    answer = await envelope(http, url, method, params)
    assert "result" not in answer, (method, params, answer)
    return answer["error"]["code"], answer["error"]["message"]


def bloom_has(bloom: str, value: str) -> bool:
    """Independent check of the Ethereum bloom rule (3 bits of keccak(value))."""
    digest = keccak.new(digest_bits=256, data=bytes.fromhex(value[2:])).digest()
    number = int(bloom, 16)
    return all(number >> (((digest[i] << 8) | digest[i + 1]) & 0x7FF) & 1 for i in (0, 2, 4))


def address_of(topic: str) -> str:
    return "0x" + topic[-40:]


# --------------------------------------------------------------------------- receipts


async def test_block_receipts_sum_to_block_gas(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    url = net.urls[0]
    checked_staking = 0
    for number in range(1, 120):
        block = chain.block(0, number)
        if not block.transactions and not block.staking_transactions:
            continue
        header = await result(http, url, "hmyv2_getBlockByNumber", [number, {"fullTx": False}])
        receipts = await result(http, url, "hmyv2_getBlockReceipts", [block.hash])
        assert len(receipts) == len(block.transactions) + len(block.staking_transactions)
        assert sum(r["gasUsed"] for r in receipts) == header["gasUsed"] == block.gas_used
        assert receipts[-1]["cumulativeGasUsed"] == header["gasUsed"]
        cumulative = 0
        for position, receipt in enumerate(receipts):
            cumulative += receipt["gasUsed"]
            assert receipt["cumulativeGasUsed"] == cumulative
            assert receipt["transactionIndex"] == position
            assert receipt["blockHash"] == block.hash
            single = await result(http, url, "hmyv2_getTransactionReceipt", [receipt["transactionHash"]])
            assert single == receipt
        for stx, receipt in zip(block.staking_transactions, receipts[len(block.transactions) :], strict=True):
            assert receipt["sender"] == to_one(stx.sender)
            assert receipt["type"] in range(5)
            assert "from" not in receipt
            assert receipt["status"] == 1
            checked_staking += 1
        v1 = await result(http, url, "hmy_getBlockReceipts", [block.hash])
        assert [int(r["gasUsed"], 16) for r in v1] == [r["gasUsed"] for r in receipts]
        assert all(r["status"] in ("0x0", "0x1") for r in v1)
    assert checked_staking > 0, "no staking receipt in the range"


async def test_failed_token_transfers_have_status_0_and_no_logs(
    net: Devnet, http: aiohttp.ClientSession
) -> None:
    chain = net.chain
    tokens = {t.address for t in chain.tokens(1)}
    failed = [
        tx
        for n in range(1, HEAD_BLOCKS)
        for tx in chain.block(1, n).transactions
        if tx.to in tokens and not tx.success
    ]
    assert len(failed) >= 10
    for tx in failed[:15]:
        receipt = await result(http, net.urls[1], "hmyv2_getTransactionReceipt", [tx.hash])
        assert receipt["status"] == 0
        assert receipt["logs"] == []
        assert int(receipt["logsBloom"], 16) == 0
        assert 0 < receipt["gasUsed"] <= tx.gas
        assert tx.trace is not None
        assert tx.trace.error == "Reverted"
        eth = await result(http, net.urls[1], "eth_getTransactionReceipt", [tx.eth_hash])
        assert eth["status"] == "0x0"
        assert eth["logs"] == []


async def test_unknown_receipts_and_blocks(net: Devnet, http: aiohttp.ClientSession) -> None:
    url = net.urls[0]
    assert await result(http, url, "hmy_getTransactionReceipt", ["0x" + "ab" * 32]) is None
    assert await error(http, url, "hmyv2_getBlockReceipts", ["0x" + "ab" * 32]) == (
        -32000,
        "method handler crashed",
    )
    code, message = await error(http, url, "hmyv2_getBlockReceipts", [5])
    assert code == -32602
    assert "common.Hash" in message
    # a staking transaction: one method for both kinds in hmy_/hmyv2_ (v1: hex type), null in eth_
    stx = next(s for b in net.chain.iter_blocks(0, 1, 100) for s in b.staking_transactions)
    v1 = await result(http, url, "hmy_getTransactionReceipt", [stx.hash])
    assert v1["type"] == hex(
        ["CreateValidator", "EditValidator", "Delegate", "Undelegate", "CollectRewards"].index(stx.directive)
    )
    assert v1["sender"] == to_one(stx.sender)
    assert v1["gasUsed"] == hex(stx.gas_used)
    assert await result(http, url, "eth_getTransactionReceipt", [stx.hash]) is None
    # a transaction of the other shard is not this node's
    tx = next(t for n in range(1, 50) for t in net.chain.block(1, n).transactions)
    assert await result(http, url, "hmyv2_getTransactionReceipt", [tx.hash]) is None


# --------------------------------------------------------------------------- logs and blooms


async def all_logs(
    http: aiohttp.ClientSession, url: str, head: int, method: str = "hmy_getLogs"
) -> list[Any]:
    logs: list[Any] = []
    for start in range(0, head + 1, 1025):
        crit = {"fromBlock": hex(start), "toBlock": hex(min(start + 1024, head))}
        logs.extend(await result(http, url, method, [crit]))
    return logs


async def test_transfer_logs_match_the_ledger(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    head = chain.head(0)
    logs = await all_logs(http, net.urls[0], head)
    ledger = chain.token_ledger(0, head)
    holders = {chain.token_holder(i): i for i in range(400)}
    tokens = chain.tokens(0)
    for index, token in enumerate(tokens):
        if token.standard != "hrc20":
            continue
        balances: Counter[str] = Counter()
        supply = 0
        for log in logs:
            if log["address"] != token.address or log["topics"][0] != TRANSFER:
                continue
            assert len(log["topics"]) == 3
            amount = int(log["data"], 16)
            sender, receiver = address_of(log["topics"][1]), address_of(log["topics"][2])
            if sender == ZERO_ADDRESS:
                supply += amount
            else:
                balances[sender] -= amount
                assert balances[sender] >= 0
            if receiver == ZERO_ADDRESS:
                supply -= amount
            else:
                balances[receiver] += amount
        assert supply == ledger.supply[index]
        assert {holders[a]: b for a, b in balances.items() if b} == {
            h: b for h, b in ledger.balances[index].items() if b
        }
        total = await result(
            http, net.urls[0], "hmy_call", [{"to": token.address, "data": "0x18160ddd"}, hex(head)]
        )
        assert int(total, 16) == supply
        richest = max(balances, key=lambda a: balances[a])
        data = "0x70a08231" + "0" * 24 + richest[2:]
        balance = await result(http, net.urls[0], "hmyv2_call", [{"to": token.address, "data": data}, head])
        assert int(balance, 16) == balances[richest]
    assert max(ledger.supply.values()) > 10**38  # the big-balance token


async def test_logs_agree_with_receipts_and_blooms(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    url = net.urls[0]
    logs = await all_logs(http, url, chain.head(0))
    by_block: dict[str, list[Any]] = defaultdict(list)
    for log in logs:
        by_block[log["blockHash"]].append(log)
    assert len(by_block) > 20
    for block_hash, block_logs in list(by_block.items())[:40]:
        header = await result(http, url, "hmy_getBlockByHash", [block_hash, False])
        receipts = await result(http, url, "hmy_getBlockReceipts", [block_hash])
        from_receipts = [log for r in receipts for log in r["logs"]]
        assert from_receipts == block_logs
        assert [int(log["logIndex"], 16) for log in block_logs] == list(range(len(block_logs)))
        for log in block_logs:
            assert bloom_has(header["logsBloom"], log["address"])
            assert all(bloom_has(header["logsBloom"], t) for t in log["topics"])
            receipt = next(r for r in receipts if r["transactionHash"] == log["transactionHash"])
            assert bloom_has(receipt["logsBloom"], log["address"])
            assert log["transactionIndex"] == receipt["transactionIndex"]
    quiet = next(b for b in chain.iter_blocks(0, 1, 100) if not any(t.logs for t in b.transactions))
    header = await result(http, url, "hmy_getBlockByNumber", [hex(quiet.number), False])
    assert int(header["logsBloom"], 16) == 0


async def test_nft_and_multi_token_logs(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    nft, multi = chain.tokens(0)[6], chain.tokens(0)[7]
    head = chain.head(0)
    nft_logs = await result(
        http, net.urls[0], "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": hex(head), "address": nft.address}]
    )
    owners: dict[int, str] = {}
    for log in nft_logs:
        assert len(log["topics"]) == 4
        assert log["data"] == "0x"
        token_id = int(log["topics"][3], 16)
        receiver = address_of(log["topics"][2])
        if receiver == ZERO_ADDRESS:
            del owners[token_id]
        else:
            owners[token_id] = receiver
    ledger = chain.token_ledger(0, head)
    assert {i: chain.token_holder(h) for i, h in ledger.nft_owner.items()} == owners
    crit = {"fromBlock": "0x0", "toBlock": hex(head), "address": [multi.address], "topics": [[SINGLE, BATCH]]}
    multi_logs = await result(http, net.urls[0], "hmy_getLogs", [crit])
    kinds = Counter(log["topics"][0] for log in multi_logs)
    assert kinds[SINGLE] > 0
    assert kinds[BATCH] > 0
    for log in multi_logs:
        if log["topics"][0] == BATCH:
            data = bytes.fromhex(log["data"][2:])
            words = [int.from_bytes(data[i : i + 32], "big") for i in range(0, len(data), 32)]
            n = words[2]
            assert words[0] == 64
            assert words[1] == 64 + 32 * (n + 1)
            assert words[3 + n] == n
            assert len(words) == 4 + 2 * n


async def test_get_logs_limits_and_errors(net: Devnet, http: aiohttp.ClientSession) -> None:
    url = net.urls[0]
    assert await error(http, url, "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": hex(1025)}]) == (
        -32000,
        "GetLogs query must be smaller than size 1024",
    )
    assert isinstance(
        await result(http, url, "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": hex(1024)}]), list
    )
    token = net.chain.tokens(0)[0].address
    code, message = await error(http, url, "hmy_getLogs", [{"address": to_one(token)}])
    assert (code, message) == (-32602, "invalid argument 0: invalid address: hex string without 0x prefix")
    code, message = await error(
        http, url, "hmy_getLogs", [{"blockHash": "0x" + "00" * 32, "fromBlock": "0x1"}]
    )
    assert code == -32602
    assert "cannot specify both BlockHash and FromBlock/ToBlock" in message
    assert await error(http, url, "hmy_getLogs", [{"blockHash": "0x" + "ab" * 32}]) == (
        -32000,
        "unknown block",
    )
    assert (await error(http, url, "hmyv2_getLogs", [{}]))[0] == -32601
    # topics filter by position, null as a wildcard
    head = net.chain.head(0)
    everything = await result(http, url, "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": "latest"}])
    minted = await result(
        http, url, "hmy_getLogs", [{"fromBlock": "0x0", "topics": [None, "0x" + "00" * 32]}]
    )
    assert minted == [
        log for log in everything if len(log["topics"]) > 1 and log["topics"][1] == "0x" + "00" * 32
    ]
    assert minted
    assert (
        await result(http, url, "hmy_getLogs", [{"fromBlock": hex(head + 5), "toBlock": hex(head + 50)}])
        == []
    )


async def test_eth_namespace_receipts_and_logs(net: Devnet, http: aiohttp.ClientSession) -> None:
    url = net.urls[0]
    head = net.chain.head(0)
    hmy_logs = await result(http, url, "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": hex(head)}])
    eth_logs = await result(http, url, "eth_getLogs", [{"fromBlock": "0x0", "toBlock": hex(head)}])
    assert len(hmy_logs) == len(eth_logs) > 0
    for a, b in zip(hmy_logs, eth_logs, strict=True):
        tx = net.chain.find_transaction(a["transactionHash"])
        if tx is None:  # a CollectRewards' payout log: a staking receipt's, with its own hash
            assert a["topics"] == [COLLECT_REWARDS_TOPIC]
            assert b == a
            continue
        assert b["transactionHash"] == tx.eth_hash
        assert {k: v for k, v in a.items() if k != "transactionHash"} == {
            k: v for k, v in b.items() if k != "transactionHash"
        }
    tx = net.chain.find_transaction(hmy_logs[0]["transactionHash"])
    assert tx is not None
    receipt = await result(http, url, "eth_getTransactionReceipt", [tx.eth_hash])
    assert receipt["logs"][0]["transactionHash"] == tx.eth_hash
    assert receipt["status"] == "0x1"
    block = await result(http, url, "eth_getBlockByNumber", [hex(tx.block_number), False])
    assert bloom_has(block["logsBloom"], tx.logs[0].address)
    assert block["gasUsed"] == hex(net.chain.block(0, tx.block_number).gas_used)


# --------------------------------------------------------------------------- calls and code


async def call(http: aiohttp.ClientSession, url: str, to: str, data: str, method: str = "hmy_call") -> Any:
    return await envelope(http, url, method, [{"to": to, "data": data}, "latest"])


def abi_string(hex_data: str) -> bytes:
    raw = bytes.fromhex(hex_data[2:])
    length = int.from_bytes(raw[32:64], "big")
    return raw[64 : 64 + length]


async def test_token_metadata_calls(net: Devnet, http: aiohttp.ClientSession) -> None:
    url = net.urls[1]
    usd, huge, b32, noname, cafe, nodec, nft, multi = net.chain.tokens(1)
    for method in ("hmy_call", "hmyv2_call", "eth_call"):
        assert int((await call(http, url, usd.address, "0x313ce567", method))["result"], 16) == 6
        assert (
            abi_string((await call(http, url, usd.address, "0x06fdde03", method))["result"]) == b"Devnet USD"
        )
    assert abi_string((await call(http, url, huge.address, "0x95d89b41"))["result"]) == b"HUGE"
    word = (await call(http, url, b32.address, "0x95d89b41"))["result"]
    assert len(word) == 66
    assert bytes.fromhex(word[2:]).rstrip(b"\0") == b"B32"
    reverted = await call(http, url, noname.address, "0x06fdde03")
    assert reverted["error"] == {"code": 3, "message": "execution reverted: name is disabled"}
    assert abi_string((await call(http, url, noname.address, "0x95d89b41"))["result"]) == b"NONAME"
    name = abi_string((await call(http, url, cafe.address, "0x06fdde03"))["result"])
    with pytest.raises(UnicodeDecodeError):
        name.decode("utf-8")
    assert (await call(http, url, nodec.address, "0x313ce567"))["result"] == "0x"
    assert (await call(http, url, nft.address, "0x313ce567"))["result"] == "0x"
    assert (await call(http, url, multi.address, "0x06fdde03"))["result"] == "0x"
    # an account without code answers "0x"; a token of another shard has no code here
    assert (await call(http, url, net.chain.token_holder(3), "0x06fdde03"))["result"] == "0x"
    assert (await call(http, url, net.chain.tokens(0)[0].address, "0x313ce567"))["result"] == "0x"
    code, message = await error(
        http, url, "hmy_call", [{"to": to_one(usd.address), "data": "0x313ce567"}, "latest"]
    )
    assert code == -32602
    assert "CallArgs.to" in message
    assert (await error(http, url, "hmy_call", [{"to": usd.address}]))[
        1
    ] == "missing value for required argument 1"
    for method in ("hmy_getCode", "hmyv2_getCode", "eth_getCode"):
        assert await result(http, url, method, [usd.address, "latest"]) == usd.code
    assert await result(http, url, "hmy_getCode", [to_one(usd.address), "latest"]) == usd.code
    assert await result(http, url, "hmy_getCode", [net.chain.token_holder(2), "latest"]) == "0x"


async def test_total_supply_at_past_blocks(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    token = chain.tokens(0)[0]
    seen = set()
    for number in (1, 40, 129, 200, chain.head(0)):
        expected = chain.token_ledger(0, number).supply[0]
        got = await result(
            http, net.urls[0], "hmy_call", [{"to": token.address, "data": "0x18160ddd"}, hex(number)]
        )
        assert int(got, 16) == expected
        seen.add(expected)
    assert len(seen) > 2


async def test_token_senders_nonces(net: Devnet, http: aiohttp.ClientSession) -> None:
    chain = net.chain
    head = chain.head(0)
    sent: Counter[str] = Counter()
    tokens = {t.address for t in chain.tokens(0)}
    for n in range(1, head + 1):
        for tx in chain.block(0, n).transactions:
            if tx.to in tokens:
                assert tx.nonce == sent[tx.sender]
                sent[tx.sender] += 1
    for sender, count in sent.most_common(5):
        assert await result(http, net.urls[0], "hmyv2_getTransactionCount", [to_one(sender), head]) == count


# --------------------------------------------------------------------------- filters


async def test_filters(make_devnet: Any, http: aiohttp.ClientSession) -> None:
    net = make_devnet(blocks=50, seed=11, token_density=3, validator_rate_limit=False)
    url = net.urls[0]
    log_filter = await result(http, url, "hmy_newFilter", [{"fromBlock": "0x0"}])
    block_filter = await result(http, url, "eth_newBlockFilter", [])
    assert await result(http, url, "hmy_getFilterChanges", [log_filter]) == []
    net.mine(30)
    changes = await result(http, url, "hmy_getFilterChanges", [log_filter])
    expected = await result(http, url, "hmy_getLogs", [{"fromBlock": hex(50), "toBlock": hex(79)}])
    assert changes == expected
    assert changes
    assert await result(http, url, "hmy_getFilterChanges", [log_filter]) == []
    assert await result(http, url, "eth_getFilterChanges", [block_filter]) == [
        net.chain.block(0, n).hash for n in range(50, 80)
    ]
    everything = await result(http, url, "hmy_getFilterLogs", [log_filter])
    assert everything == await result(http, url, "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": hex(79)}])
    assert await result(http, url, "hmy_uninstallFilter", [log_filter]) is True
    assert await result(http, url, "hmy_uninstallFilter", [log_filter]) is False
    assert await error(http, url, "hmy_getFilterChanges", [log_filter]) == (-32000, "filter not found")


# --------------------------------------------------------------------------- legacy profile, density


async def test_legacy_profile_receipts(legacy: Devnet, http: aiohttp.ClientSession) -> None:
    chain = legacy.chain
    block = next(b for b in chain.iter_blocks(0, 1, 119) if any(t.logs for t in b.transactions))
    tx = next(t for t in block.transactions if t.logs)
    v1 = await result(http, legacy.urls[0], "hmy_getTransactionReceipt", [tx.hash])
    v2 = await result(http, legacy.urls[0], "hmyv2_getTransactionReceipt", [tx.hash])
    for receipt in (v1, v2):
        assert "effectiveGasPrice" not in receipt
        assert receipt["contractAddress"] is None
        assert receipt["root"] == block.state_root
        assert receipt["from"] == to_one(tx.sender)
        assert len(receipt["logs"]) == len(tx.logs)
    assert v1["status"] == "0x1"
    assert v2["status"] == 1
    assert (await error(http, legacy.urls[0], "hmy_getBlockReceipts", [block.hash]))[0] == -32601
    assert (await error(http, legacy.urls[0], "eth_getLogs", [{}]))[0] == -32601
    assert len(await result(http, legacy.urls[0], "hmy_getLogs", [{"blockHash": block.hash}])) == sum(
        len(t.logs) for t in block.transactions
    )


def test_token_density_leaves_plain_transactions_alone() -> None:
    plain = Chain(seed=5, blocks=300, token_density=0)
    busy = Chain(seed=5, blocks=300, token_density=4)
    extra = 0
    for n in range(300):
        a, b = plain.block(1, n), busy.block(1, n)
        assert b.transactions[: len(a.transactions)] == a.transactions
        assert (a.state_root, a.vrf, a.view_id, a.hash) == (b.state_root, b.vrf, b.view_id, b.hash)
        if not a.transactions:
            assert not b.transactions  # empty blocks stay empty
        extra += len(b.transactions) - len(a.transactions)
        assert plain.transaction_counts(1, n, n) == [len(a.transactions)]
        assert busy.transaction_counts(1, n, n) == [len(b.transactions)]
    assert extra > 300
    assert all(not t.logs for n in range(300) for t in plain.block(1, n).transactions)


def test_token_density_is_checked() -> None:
    with pytest.raises(
        ConfigError, match=r"token_density=-1 must be a number of transactions per block from 0 to 50"
    ):
        Chain(token_density=-1)
    with pytest.raises(ConfigError, match="token_density"):
        Devnet(token_density="lots")  # type: ignore[arg-type]


def test_random_access_equals_sequential_generation() -> None:
    forward = Chain(seed=8, blocks=700, token_density=2)
    blocks = [forward.block(0, n) for n in range(700)]
    backward = Chain(seed=8, blocks=700, token_density=2)
    for n in (650, 3, 300, 129, 128, 127, 699):
        assert backward.block(0, n) == blocks[n]
