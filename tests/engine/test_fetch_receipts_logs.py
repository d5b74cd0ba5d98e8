"""``receipts``, ``logs`` and ``token_transfers`` through the engine (cache, resume, checks).

Two parts:

* Through a proxy in front of the devnet (``tests/hostile.py``), over real HTTP: the proxy
  answers ``getBlockReceipts``, ``getTransactionReceipt`` and ``hmy_getLogs`` from the devnet's
  own blocks (in the node's shapes, see ``../shared/reference/samples``), tampered where a test
  needs a bad answer, and forwards everything else (the blocks get the ``logsBloom`` of the
  proxy's logs, so blocks, receipts and logs agree). This exercises the plans, fallbacks, checks
  and cache with the real engine and client.
* At the end, the same datasets against the devnet itself (its token contracts, receipts and
  logs), with the method names the real node uses, in both generations and the legacy profile.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from hostile import Proxy, rpc_result

import hmyframe
from hmyframe import FetchOptions
from hmyframe._bloom import bloom_bits
from hmyframe.addresses import to_hex
from hmyframe.amounts import Uint256Dtype
from hmyframe.datasets.token_transfers import TRANSFER
from hmyframe.devnet import Devnet
from hmyframe.errors import InconsistentAnswerError, ResponseShapeError
from hmyframe.rpc import RetryPolicy

OPTIONS = FetchOptions(chunk_size=20, blocks_per_request=10, retry=RetryPolicy(attempts=1, backoff_base=0))
TOKEN = "0x0b585f8daefbc68a311fbd4cb20d9174ad174016"
DIRECTIVE = {"CreateValidator": 0, "EditValidator": 1, "Delegate": 2, "Undelegate": 3, "CollectRewards": 4}


async def _ask(url: str, method: str, params: list[Any]) -> Any:
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}) as resp,
    ):
        return (await resp.json())["result"]


def _hex(address: str) -> str:
    return to_hex(address) if address.startswith("one1") else address


def _receipts_of(block: dict[str, Any]) -> list[dict[str, Any]]:
    """The node's v2 receipts of a full block: plain ones, then staking ones; the block's gas on
    the first; each with its transaction's logs of :func:`_logs_of`."""
    out: list[dict[str, Any]] = []
    plain, staking = block["transactions"], block["stakingTransactions"]
    logs: dict[str, list[dict[str, Any]]] = {}
    for log in _logs_of(block):
        logs.setdefault(log["transactionHash"], []).append(log)
    cumulative = 0
    for i, tx in enumerate([*plain, *staking]):
        used = block["gasUsed"] if i == 0 else 0
        cumulative += used
        receipt = {
            "blockHash": block["hash"],
            "blockNumber": block["number"],
            "contractAddress": "0x" + "0" * 40,
            "cumulativeGasUsed": cumulative,
            "effectiveGasPrice": tx["gasPrice"],
            "gasUsed": used,
            "logs": logs.get(tx["hash"], []),
            "logsBloom": "0x" + "0" * 512,
            "root": "0x",
            "status": 0 if i % 5 == 4 else 1,
            "transactionHash": tx["hash"],
            "transactionIndex": i,
        }
        if i < len(plain):
            receipt.update({"from": tx["from"], "to": tx["to"], "shardID": tx["shardID"]})
        else:
            receipt.update({"sender": tx["from"], "type": DIRECTIVE[tx["type"]]})
        out.append(receipt)
    return out


def _logs_of(block: dict[str, Any]) -> list[dict[str, Any]]:
    """Made-up token logs of a block: an HRC-20 Transfer of each plain transfer's value."""
    logs: list[dict[str, Any]] = []
    for i, tx in enumerate(block["transactions"]):
        if not tx["to"]:
            continue  # a contract creation
        logs.append(
            {
                "address": TOKEN,
                "topics": [
                    TRANSFER,
                    "0x" + "0" * 24 + _hex(tx["from"])[2:],
                    "0x" + "0" * 24 + _hex(tx["to"])[2:],
                ],
                "data": "0x" + f"{tx['value']:064x}",
                "blockNumber": hex(block["number"]),
                "transactionHash": tx["hash"],
                "transactionIndex": hex(i),
                "blockHash": block["hash"],
                "logIndex": hex(len(logs)),
                "removed": False,
            }
        )
    return logs


def _bloom_of(logs: list[dict[str, Any]]) -> str:
    bloom = 0
    for log in logs:
        for value in (log["address"], *log["topics"]):
            bloom |= bloom_bits(value)
    return f"0x{bloom:0512x}"


FULL = {"fullTx": True, "inclStaking": True, "withSigners": False}
#: Receipt fields the v1 (``hmy_``) node sends as hex quantities.
V1_HEX = (
    "blockNumber",
    "cumulativeGasUsed",
    "effectiveGasPrice",
    "gasUsed",
    "status",
    "transactionIndex",
    "type",
)


def _v1(receipt: dict[str, Any]) -> dict[str, Any]:
    return {k: hex(v) if k in V1_HEX else v for k, v in receipt.items()}


class Node:
    """The proxy's answers: receipts and logs made from the devnet's blocks (tamper with ``bad_*``)."""

    def __init__(self, target: str, *, block_receipts: bool = True, max_logs: int | None = None) -> None:
        self.target = target
        self.block_receipts = block_receipts
        self.max_logs = max_logs
        self.bad_gas: int | None = None
        self.bad_log_hash: int | None = None
        self.bad_transfer: int | None = None
        self.calls: list[str] = []

    async def __call__(self, body: dict[str, Any]) -> tuple[int, bytes] | None:
        method, params = body["method"], body["params"]
        self.calls.append(method)
        prefix, _, name = method.partition("_")
        v1 = prefix == "hmy" and name in ("getBlockReceipts", "getTransactionReceipt")
        shape = _v1 if v1 else (lambda r: r)
        if name == "getBlockReceipts":
            if not self.block_receipts:
                return 200, json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "error": {
                            "code": -32601,
                            "message": f"the method {method} does not exist/is not available",
                        },
                    }
                ).encode()
            block = await _ask(self.target, "hmyv2_getBlockByHash", [params[0], FULL])
            return 200, rpc_result(body, [shape(r) for r in self._tamper(block, _receipts_of(block))])
        if name == "getTransactionReceipt":
            tx = await _ask(self.target, "hmyv2_getTransactionByHash", [params[0]])
            tx = tx or await _ask(self.target, "hmyv2_getStakingTransactionByHash", [params[0]])
            block = await _ask(self.target, "hmyv2_getBlockByNumber", [tx["blockNumber"], FULL])
            receipts = self._tamper(block, _receipts_of(block))
            return 200, rpc_result(
                body, shape(next(r for r in receipts if r["transactionHash"] == params[0]))
            )
        if name in ("getBlocks", "getBlockByNumber", "getBlockByHash"):
            # the devnet's blocks with the bloom of the logs this proxy makes up
            forwarded = await _ask(self.target, method, params)
            for block in forwarded if isinstance(forwarded, list) else [forwarded]:
                if isinstance(block, dict) and block.get("hash"):
                    full = await _ask(self.target, "hmyv2_getBlockByHash", [block["hash"], FULL])
                    block["logsBloom"] = _bloom_of(_logs_of(full))
            return 200, rpc_result(body, forwarded)
        if method == "hmy_getLogs":
            a, b = int(params[0]["fromBlock"], 16), int(params[0]["toBlock"], 16)
            blocks = await _ask(self.target, "hmyv2_getBlocks", [a, b, FULL])
            logs = [log for block in blocks for log in _logs_of(block)]
            if self.max_logs is not None and len(logs) > self.max_logs:
                error = {"code": -32005, "message": f"query returned more than {self.max_logs} results"}
                return 200, json.dumps({"jsonrpc": "2.0", "id": body["id"], "error": error}).encode()
            for log in logs:
                if int(log["blockNumber"], 16) == self.bad_log_hash:
                    log["blockHash"] = "0x" + "ee" * 32
                if int(log["blockNumber"], 16) == self.bad_transfer:
                    log["data"] += "00" * 32  # 3 topics and 64 bytes of data
            return 200, rpc_result(body, logs)
        return None

    def _tamper(self, block: dict[str, Any], receipts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if block["number"] == self.bad_gas and receipts:
            receipts[0]["gasUsed"] += 1
        return receipts


@pytest.fixture
def node_proxy(devnet: Devnet) -> Iterator[Any]:
    made: list[Proxy] = []

    def make(**kw: Any) -> tuple[Proxy, Node]:
        node = Node(devnet.url, **kw)
        made.append(Proxy(devnet.url, node, split_batches=True))
        return made[-1], node

    yield make
    for proxy in made:
        proxy.close()


def _assert_gas_sums(receipts: Any, blocks: Any) -> None:
    """Each block's receipts sum to its gas_used, and a block that used gas has receipts."""
    gas = dict(zip(blocks["block_number"], blocks["gas_used"], strict=True))
    sums = receipts.groupby("block_number")["gas_used"].sum().to_dict()
    assert sums == {n: gas[n] for n in sums}
    assert {n for n, g in gas.items() if g} <= set(sums)


def _cached_ranges(root: Path, name: str) -> list[tuple[int, int]]:
    """Block ranges of the cache files of dataset ``name`` (``name__A_B.parquet``)."""
    files = root.glob(f"*/{name}/shard0/*.parquet")
    return [(int(a), int(b)) for a, b in (p.stem.split("__")[1].split("_") for p in files)]


def _truth(devnet: Devnet, a: int, b: int) -> tuple[Any, Any, Any]:
    return (
        hmyframe.blocks(a, b, rpc=devnet.url, cache=False),
        hmyframe.transactions(a, b, rpc=devnet.url, cache=False),
        hmyframe.staking_transactions(a, b, rpc=devnet.url, cache=False),
    )


@pytest.mark.parametrize("version", [1, 2], ids=["hmy", "hmyv2"])
@pytest.mark.parametrize("block_receipts", [True, False], ids=["getBlockReceipts", "getTransactionReceipt"])
def test_receipts_are_one_row_per_transaction_with_exact_fees_and_cached(
    devnet: Devnet, node_proxy: Any, tmp_path: Path, block_receipts: bool, version: int
) -> None:
    proxy, node = node_proxy(block_receipts=block_receipts)
    blocks, plain, staking = _truth(devnet, 1, 40)
    options = FetchOptions(chunk_size=20, blocks_per_request=10, version=version, retry=OPTIONS.retry)
    df = hmyframe.receipts(1, 40, rpc=proxy.url, cache=tmp_path, options=options)
    assert len(df) == len(plain) + len(staking) > 0
    assert set(df["transaction_hash"]) == set(plain["transaction_hash"]) | set(staking["transaction_hash"])
    merged = df.merge(
        plain[["transaction_hash", "eth_hash", "gas_price"]], on="transaction_hash", suffixes=("", "_tx")
    )
    assert (merged["eth_hash"] == merged["eth_hash_tx"]).all()
    assert [int(p) for p in merged["gas_price"]] == [int(p) for p in merged["gas_price_tx"]]
    assert all(
        int(f) == g * int(p) for f, g, p in zip(df["fee"], df["gas_used"], df["gas_price"], strict=True)
    )
    _assert_gas_sums(df, blocks)
    assert df["is_staking"].sum() == len(staking)
    assert set(df.loc[df["is_staking"], "directive"]) <= set(DIRECTIVE)
    assert df.loc[~df["is_staking"], "directive"].isna().all()
    assert df["contract_address"].isna().all()
    prefix = "hmy_" if version == 1 else "hmyv2_"
    used = {m for m in node.calls if "Receipt" in m}
    names = {"getBlockReceipts"} if block_receipts else {"getBlockReceipts", "getTransactionReceipt"}
    assert used == {prefix + n for n in names}
    before = len(node.calls)
    again = hmyframe.receipts(1, 40, rpc=proxy.url, cache=tmp_path, options=options)
    assert len(node.calls) == before  # read back from the cache: no request
    assert again.equals(df)


def test_a_block_whose_receipts_do_not_sum_to_its_gas_is_named_and_none_of_its_chunk_cached(
    devnet: Devnet, node_proxy: Any, tmp_path: Path
) -> None:
    proxy, node = node_proxy()
    blocks, _, _ = _truth(devnet, 1, 40)
    bad = int(blocks.loc[blocks["gas_used"] > 0, "block_number"].iloc[-1])
    node.bad_gas = bad
    options = FetchOptions(chunk_size=20, blocks_per_request=10, max_concurrent_chunks=1, retry=OPTIONS.retry)
    with pytest.raises(
        InconsistentAnswerError, match=rf"receipts of shard 0 block {bad}: its receipts' gas_used sums to"
    ) as info:
        hmyframe.receipts(1, 40, rpc=proxy.url, cache=tmp_path, options=options)
    assert "nothing of its chunk was cached" in str(info.value)
    assert not any(a <= bad <= b for a, b in _cached_ranges(tmp_path, "receipts"))
    node.bad_gas = None
    df = hmyframe.receipts(
        1, 40, rpc=proxy.url, cache=tmp_path, options=options
    )  # resumes: only the bad chunk
    assert bad in set(df["block_number"])


def test_logs_and_token_transfers_come_from_one_getlogs_per_span_split_on_too_many_results(
    devnet: Devnet, node_proxy: Any, tmp_path: Path
) -> None:
    _, plain, _ = _truth(devnet, 1, 40)
    plain = plain[plain["to_address"].notna()]
    busiest = int(plain.groupby("block_number").size().max())
    proxy, node = node_proxy(max_logs=2 * busiest)  # a 20-block chunk has more: split until they fit
    logs = hmyframe.logs(1, 40, rpc=proxy.url, cache=tmp_path, options=OPTIONS)
    assert len(logs) == len(plain)
    assert set(logs["transaction_hash"]) == set(plain["transaction_hash"])
    assert (logs["address_hex"] == TOKEN).all()
    assert (logs["topic0"] == TRANSFER).all()
    getlogs = [m for m in node.calls if m == "hmy_getLogs"]
    assert len(getlogs) > 3  # more than one per chunk (3 chunks)
    calls_before = len(node.calls)
    transfers = hmyframe.token_transfers(1, 40, rpc=proxy.url, cache=tmp_path, options=OPTIONS)
    assert len(node.calls) == calls_before  # siblings: cached by the same fetch
    joined = transfers.merge(plain, on="transaction_hash", suffixes=("", "_tx"))
    assert len(joined) == len(plain)
    assert (joined["standard"] == "hrc20").all()
    assert [int(a) for a in joined["amount"]] == [int(v) for v in joined["value"]]  # exact
    assert (joined["from_address"] == joined["from_address_tx"]).all()


def test_logs_naming_another_block_hash_are_named_and_nothing_of_the_chunk_cached(
    devnet: Devnet, node_proxy: Any, tmp_path: Path
) -> None:
    proxy, node = node_proxy()
    _, plain, _ = _truth(devnet, 1, 40)
    plain = plain[plain["to_address"].notna()]
    bad = int(plain["block_number"].iloc[-1])
    node.bad_log_hash = bad
    with pytest.raises(
        InconsistentAnswerError, match=rf"logs of shard 0 block {bad}: log \d+ names block hash 0xeeee"
    ):
        hmyframe.token_transfers(1, 40, rpc=proxy.url, cache=tmp_path, options=OPTIONS)
    for name in ("logs", "token_transfers"):
        assert not any(a <= bad <= b for a, b in _cached_ranges(tmp_path, name))


def test_a_transfer_log_with_three_topics_and_64_bytes_of_data_is_named_and_nothing_cached(
    devnet: Devnet, node_proxy: Any, tmp_path: Path
) -> None:
    proxy, node = node_proxy()
    _, plain, _ = _truth(devnet, 1, 40)
    plain = plain[plain["to_address"].notna()]
    bad = int(plain["block_number"].iloc[0])
    node.bad_transfer = bad
    with pytest.raises(
        ResponseShapeError, match=rf"token_transfers: field 'block {bad} log \d+ \(token one1"
    ) as info:
        hmyframe.token_transfers(1, 40, rpc=proxy.url, cache=tmp_path, options=OPTIONS)
    assert "3 topics and 64-byte data" in str(info.value)
    for name in ("logs", "token_transfers"):
        assert not any(a <= bad <= b for a, b in _cached_ranges(tmp_path, name))


def test_an_export_in_worker_processes_reads_back_as_fetched(
    devnet: Devnet, node_proxy: Any, tmp_path: Path
) -> None:
    proxy, _ = node_proxy()
    options = FetchOptions(chunk_size=20, blocks_per_request=10, convert_processes=1, retry=OPTIONS.retry)
    hmyframe.export(
        ["receipts", "token_transfers"], 1, 40, rpc=proxy.url, out=tmp_path / "out", options=options
    )
    fetched = hmyframe.receipts(1, 40, rpc=proxy.url, cache=False, options=OPTIONS)
    read = hmyframe.read("receipts", tmp_path / "out")
    assert read.reset_index(drop=True).equals(fetched.reset_index(drop=True))
    assert [int(f) for f in read["fee"]] == [int(f) for f in fetched["fee"]]
    transfers = hmyframe.read("token_transfers", tmp_path / "out")
    assert len(transfers) > 0
    assert isinstance(transfers["amount"].dtype, Uint256Dtype)  # exact, read back as written
    assert (transfers["amount"] >= 0).all()


# --------------------------------------------------------------------------- against the devnet
# The devnet serves receipts, logs and token contracts as the node does (hmyframe/devnet/methods).


@pytest.mark.parametrize(("version", "profile"), [(2, "current"), (1, "current"), (2, "legacy")])
def test_devnet_receipts_agree_with_the_blocks(
    make_devnet: Any, tmp_path: Path, version: int, profile: str
) -> None:
    devnet = make_devnet(profile=profile)
    blocks, plain, staking = _truth(devnet, 0, 199)
    options = FetchOptions(version=version)
    df = hmyframe.receipts(0, 199, rpc=devnet.url, cache=tmp_path, options=options)
    assert len(df) == len(plain) + len(staking)
    _assert_gas_sums(df, blocks)
    assert not df["status"].all()  # the devnet's failed transfers (status 0) are there
    assert df.loc[~df["status"], "log_count"].eq(0).all()
    assert df["is_staking"].sum() == len(staking)


def test_devnet_token_transfers_of_every_standard(make_devnet: Any, tmp_path: Path) -> None:
    # a busier token devnet, so every standard is in shard 0's blocks
    devnet = make_devnet(blocks=200, seed=7, token_density=4, validator_rate_limit=False)
    end = hmyframe.head(rpc=devnet.url)
    logs = hmyframe.logs(0, end, rpc=devnet.url, cache=tmp_path)
    transfers = hmyframe.token_transfers(0, end, rpc=devnet.url, cache=tmp_path)
    receipts = hmyframe.receipts(0, end, rpc=devnet.url, cache=tmp_path)
    assert set(transfers["standard"]) == {"hrc20", "hrc721", "hrc1155"}
    assert max(int(a) for a in transfers["amount"]) > 10**38  # the token whose balances exceed 10^38
    assert len(logs) == int(receipts["log_count"].sum())
    assert set(logs["transaction_hash"]) <= set(receipts["transaction_hash"])
