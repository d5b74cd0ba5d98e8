"""The replay node (``tests/real_node.py``) serves the recorded answers as the node would.

Its derived answers are checked against recorded ones of the same blocks: the ``hmy_`` block
rendered from the ``hmyv2_`` object must be the recorded ``hmy_`` object (headers of block
42,379,341; the whole empty block 8,540,908), a headers-only block made from a full one must be
the recorded headers-only answer, ``getLogs`` is the receipts' logs.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from real_node import FOREIGN_HASH, STAND_IN_GENESIS_HASH, LogEdit, RealNode, collection

BLOCK = 42_379_341
BLOCK_HASH = "0x910c18611575d42685a4d122a71c9d359a68c3f9786e1ca5a18c27819f8504ff"
EMPTY = 8_540_908
HARMONY = "0xef7ec4991840bd66569fa070ea9ab39b38a2233bbc5b3cfd272fa456e893b135"
ETH = "0x48a4124c61f3e81f8a3fe7b885a6705e8096343ece3bac530dc88a864c9c0439"
FULL = {"fullTx": True, "inclTx": True, "inclStaking": True, "withSigners": False}
HEADERS = {"fullTx": False, "inclTx": True, "inclStaking": True, "withSigners": False}


def recorded(method: str, block: object = None) -> Any:
    for answer in (a for a in collection("mainnet-2023") if a.method == method):
        if block is None or json.dumps(answer.params).lower().find(str(block).lower()) >= 0:
            return answer.result
    raise AssertionError(f"no recorded {method} for {block}")


def post(url: str, body: object) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def call(url: str, method: str, *params: object) -> Any:
    answer = post(url, {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params)})
    assert "error" not in answer, answer
    return answer["result"]


@pytest.fixture(scope="module")
def node() -> Any:
    with RealNode(collection("mainnet-2023")) as served:
        yield served


def test_recorded_calls_are_answered_as_recorded(node: RealNode) -> None:
    for answer in collection("mainnet-2023"):
        if answer.namespace not in ("hmy", "hmyv2", "eth") or not answer.has_result:
            continue
        got = post(node.url, {"jsonrpc": "2.0", "id": 7, "method": answer.method, "params": answer.params})
        assert got["id"] == 7
        assert got.get("result") == answer.result, answer.id


def test_v1_blocks_derived_from_v2_are_the_recorded_v1_objects(node: RealNode) -> None:
    # headers of the block (recorded hmy_ headers-only) from the hmyv2 full object
    v1_headers = recorded("hmy_getBlockByHash", BLOCK_HASH)
    assert call(node.url, "hmy_getBlocks", hex(BLOCK), hex(BLOCK), HEADERS) == [v1_headers]
    derived = call(node.url, "hmy_getBlocks", hex(BLOCK), hex(BLOCK), FULL)[0]
    assert node.derived >= 1
    assert {k: v for k, v in derived.items() if k != "transactions"} == {
        k: v for k, v in v1_headers.items() if k not in ("transactions", "transactionsInEthHash")
    }
    (tx,) = derived["transactions"]
    v2_tx = recorded("hmyv2_getTransactionByHash")
    assert tx["hash"] == HARMONY
    assert tx["ethHash"] == ETH
    assert int(tx["gasPrice"], 16) == v2_tx["gasPrice"]
    assert int(tx["nonce"], 16) == v2_tx["nonce"]
    assert tx["shardID"] == v2_tx["shardID"] == 0  # a uint32 stays a number in v1
    # the whole empty block: recorded in both generations
    v1_empty = recorded("hmy_getBlockByNumber", "0x8252ec")
    assert call(node.url, "hmy_getBlockByNumber", hex(EMPTY), True) == v1_empty


def test_headers_only_from_full_and_signers_on_request(node: RealNode) -> None:
    v2 = recorded("hmyv2_getBlockByHash", BLOCK_HASH)
    (headers,) = call(node.url, "hmyv2_getBlocks", BLOCK, BLOCK, HEADERS)
    assert headers["transactions"] == [HARMONY]
    assert headers["transactionsInEthHash"] == [ETH]
    assert "signers" not in headers
    (signed,) = call(node.url, "hmyv2_getBlocks", BLOCK, BLOCK, {**FULL, "withSigners": True})
    assert signed == v2
    assert call(node.url, "hmy_getBlockSigners", hex(BLOCK)) == v2["signers"]
    assert len(v2["signers"]) == 245
    assert len(set(v2["signers"])) == 64


def test_head_structure_and_stand_in_genesis(node: RealNode) -> None:
    assert call(node.url, "hmyv2_blockNumber") == BLOCK + 1
    assert call(node.url, "hmy_blockNumber") == hex(BLOCK + 1)
    (shard,) = call(node.url, "hmy_getShardingStructure")
    assert shard["current"] is True
    assert shard["shardID"] == 0
    assert node.url.startswith(shard["http"])
    assert call(node.url, "hmyv2_getBlockByNumber", 0, HEADERS)["hash"] == STAND_IN_GENESIS_HASH
    assert bytes.fromhex(STAND_IN_GENESIS_HASH[2:18]) == b"STAND-IN"


def test_unknown_calls_and_unrecorded_blocks(node: RealNode) -> None:
    answer = post(node.url, {"jsonrpc": "2.0", "id": 1, "method": "web3_clientVersion", "params": []})
    assert answer["error"] == {
        "code": -32601,
        "message": "the method web3_clientVersion does not exist/is not available",
    }
    answer = post(
        node.url, {"jsonrpc": "2.0", "id": 2, "method": "hmyv2_getBlocks", "params": [5, 6, HEADERS]}
    )
    assert answer["error"]["code"] == -32000
    assert "block 5 is not in the recorded answers" in answer["error"]["message"]


def test_batches_keep_ids_and_order(node: RealNode) -> None:
    got = post(
        node.url,
        [
            {"jsonrpc": "2.0", "id": 3, "method": "hmyv2_blockNumber", "params": []},
            {"jsonrpc": "2.0", "id": "x", "method": "hmy_blockNumber", "params": []},
        ],
    )
    assert [(a["id"], a["result"]) for a in got] == [(3, BLOCK + 1), ("x", hex(BLOCK + 1))]


def _logs(url: str, method: str = "hmy_getLogs") -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = call(url, method, {"fromBlock": hex(BLOCK), "toBlock": hex(BLOCK)})
    return result


def test_get_logs_are_the_receipts_logs_in_the_cache_state_asked() -> None:
    hmy_logs = recorded("hmy_getBlockReceipts")[0]["logs"]
    v2_logs = recorded("hmyv2_getBlockReceipts")[0]["logs"]
    with RealNode(collection("mainnet-2023")) as node:
        assert _logs(node.url) == hmy_logs  # as the hmy_ receipts show them: Ethereum-form hashes
        assert {g["transactionHash"] for g in _logs(node.url, "eth_getLogs")} == {ETH}
        assert call(node.url, "hmy_getLogs", {"fromBlock": hex(EMPTY), "toBlock": hex(EMPTY)}) == []
    with RealNode(collection("mainnet-2023"), log_tx_hash="harmony") as node:
        assert _logs(node.url) == v2_logs
        receipts = call(node.url, "hmy_getBlockReceipts", BLOCK_HASH)
        assert {g["transactionHash"] for g in receipts[0]["logs"]} == {HARMONY}
    with RealNode(collection("mainnet-2023"), log_tx_hash="eth") as node:
        receipts = call(node.url, "hmyv2_getBlockReceipts", BLOCK_HASH)
        assert {g["transactionHash"] for g in receipts[0]["logs"]} == {ETH}
        assert receipts[0]["transactionHash"] == HARMONY  # the receipt's own hash is not touched


def test_log_edits_and_hidden_namespaces() -> None:
    logs = recorded("hmy_getBlockReceipts")[0]["logs"]
    edits = {
        "repeat": (LogEdit("repeat", 3), logs[:4] + logs[3:]),
        "drop": (LogEdit("drop", -1), logs[:-1]),
        "foreign": (
            LogEdit("foreign", 2),
            [*logs[:2], {**logs[2], "transactionHash": FOREIGN_HASH}, *logs[3:]],
        ),
    }
    for edit, expected in edits.values():
        with RealNode(collection("mainnet-2023"), log_edits=[edit]) as node:
            assert _logs(node.url) == expected
    with RealNode(collection("mainnet-2023"), hide=("hmyv2",)) as node:
        answer = post(node.url, {"jsonrpc": "2.0", "id": 1, "method": "hmyv2_blockNumber", "params": []})
        assert answer["error"]["code"] == -32601
        assert call(node.url, "hmy_blockNumber") == hex(BLOCK + 1)
        assert node.calls == ["hmyv2_blockNumber", "hmy_blockNumber"]
