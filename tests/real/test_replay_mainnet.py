"""A real mainnet block exported end to end, every value checked against the node's raw answers.

Shard 0, block 42,379,341 (one contract call, a swap with 11 logs, 245 signer entries of 64
validators), served from its real answers by the replay node (``tests/real_node.py``), is
exported through the public API (``hmyframe.blocks(...)``, ``rpc=<replay URL>``) and through
the CLI (``hmyframe export ... --out``, Parquet read back with pyarrow), with ``--api 1``,
``--api 2`` and the default. Every value of every row is compared with what this file decodes
from the recorded answers itself, in plain Python (``int(x, 16)``, string slicing, the tests'
own BIP-173 bech32, ``bech32_codec.py``): no hmyframe code computes an expected value.

Then: the hash logs carry depends on the node's receipts cache (the Ethereum-form hash after an
``eth_`` call touched the block, else the Harmony hash; see ``real_node``): in every state the
``logs`` and ``token_transfers`` rows name the Harmony hash, with the Ethereum-form one beside
it, and logs, token transfers, receipts and transactions join completely on it.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from bech32_codec import hex_to_one, one_to_hex
from real_node import RealNode, collection

import hmyframe
from hmyframe.cli import main as cli_main
from hmyframe.engine import FetchOptions

BLOCK = 42_379_341
ANSWERS = collection("mainnet-2023")
RAW = {a.method: a.result for a in ANSWERS if "getBlockByNumber" not in a.method}
V2_BLOCK = RAW["hmyv2_getBlockByHash"]
V1_HEADERS = RAW["hmy_getBlockByHash"]
V2_RECEIPT = RAW["hmyv2_getBlockReceipts"][0]
V1_RECEIPT = RAW["hmy_getBlockReceipts"][0]
ETH_RECEIPT = RAW["eth_getBlockReceipts"][0]
(V2_TX,) = V2_BLOCK["transactions"]
HARMONY, ETH = V2_TX["hash"], V2_TX["ethHash"]
DATASETS = ("blocks", "transactions", "signers", "receipts", "logs", "token_transfers")
TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
APIS = [None, 1, 2]


# --------------------------------------------------------------------------- the tests' bech32 and the node


def test_the_bech32_here_agrees_with_the_node() -> None:
    # pairs the node itself gave: the miner in hmy_ and eth_ form, the sender and receiver
    empty = {a.namespace: a.result for a in ANSWERS if a.name == "getBlockByNumber"}
    assert one_to_hex(empty["hmy"]["miner"]) == empty["eth"]["miner"]
    assert one_to_hex(V2_RECEIPT["from"]) == ETH_RECEIPT["from"]
    assert one_to_hex(V2_RECEIPT["to"]) == ETH_RECEIPT["to"]
    assert hex_to_one(ETH_RECEIPT["to"]) == V2_RECEIPT["to"]


# --------------------------------------------------------------------------- expected rows


def _time(seconds: int) -> int:
    return seconds


def _topics(topics: list[str]) -> dict[str, Any]:
    return {f"topic{i}": topics[i] if i < len(topics) else None for i in range(4)}


def expected() -> dict[str, list[dict[str, Any]]]:
    """Every row of every dataset, decoded from the raw answers here."""
    b = V2_BLOCK
    # the hmy_ headers-only answer of the block says the same as the hmyv2_ one
    for key in ("number", "epoch", "viewID", "size", "gasLimit", "gasUsed", "timestamp"):
        assert int(V1_HEADERS[key], 16) == b[key], key
    assert V1_HEADERS["transactions"] == [HARMONY]
    assert V1_HEADERS["transactionsInEthHash"] == [ETH]
    blocks = [
        {
            "block_number": b["number"],
            "block_hash": b["hash"],
            "parent_hash": b["parentHash"],
            "timestamp": _time(b["timestamp"]),
            "epoch": b["epoch"],
            "view_id": b["viewID"],
            "shard_id": 0,
            "miner": b["miner"],
            "miner_hex": one_to_hex(b["miner"]),
            "size": b["size"],
            "gas_limit": b["gasLimit"],
            "gas_used": b["gasUsed"],
            "transaction_count": 1,
            "staking_transaction_count": 0,
            "signer_count": None,
            "state_root": b["stateRoot"],
            "transactions_root": b["transactionsRoot"],
            "receipts_root": b["receiptsRoot"],
            "extra_data": b["extraData"],
            "vrf": b["vrf"],
            "logs_bloom": b["logsBloom"],
        }
    ]
    tx = V2_TX
    transactions = [
        {
            "block_number": tx["blockNumber"],
            "block_hash": tx["blockHash"],
            "transaction_index": tx["transactionIndex"],
            "transaction_hash": HARMONY,
            "eth_hash": ETH,
            "timestamp": _time(tx["timestamp"]),
            "from_address": tx["from"],
            "from_address_hex": ETH_RECEIPT["from"],
            "to_address": tx["to"],
            "to_address_hex": ETH_RECEIPT["to"],
            "value": tx["value"],
            "value_one": tx["value"] / 10**18,
            "gas": tx["gas"],
            "gas_price": tx["gasPrice"],
            "gas_price_one": tx["gasPrice"] / 10**18,
            "nonce": tx["nonce"],
            "input": tx["input"],
            "shard_id": tx["shardID"],
            "to_shard_id": tx["toShardID"],
            "is_cross_shard": False,
            "is_contract_creation": False,
        }
    ]
    order: list[str] = []
    counts: dict[str, int] = {}
    for address in b["signers"]:
        if address not in counts:
            order.append(address)
        counts[address] = counts.get(address, 0) + 1
    signers = [
        {
            "block_number": b["number"],
            "block_hash": b["hash"],
            "shard_id": 0,
            "signer_index": i,
            "signer_address": address,
            "signer_address_hex": one_to_hex(address),
            "key_count": counts[address],
        }
        for i, address in enumerate(order)
    ]
    r = V2_RECEIPT
    # the three namespaces' receipts agree (v1 hex, eth hex with the Ethereum hash)
    assert int(V1_RECEIPT["gasUsed"], 16) == r["gasUsed"] == int(ETH_RECEIPT["gasUsed"], 16)
    assert int(V1_RECEIPT["status"], 16) == r["status"] == int(ETH_RECEIPT["status"], 16)
    assert r["transactionHash"] == V1_RECEIPT["transactionHash"] == HARMONY
    assert ETH_RECEIPT["transactionHash"] == ETH
    assert r["contractAddress"] == "0x" + "0" * 40
    assert ETH_RECEIPT["contractAddress"] is None
    fee = r["gasUsed"] * tx["gasPrice"]
    receipts = [
        {
            "block_number": r["blockNumber"],
            "block_hash": r["blockHash"],
            "shard_id": r["shardID"],
            "transaction_hash": HARMONY,
            "eth_hash": ETH,
            "transaction_index": r["transactionIndex"],
            "status": r["status"] == 1,
            "gas_used": r["gasUsed"],
            "cumulative_gas_used": r["cumulativeGasUsed"],
            "gas_price": tx["gasPrice"],
            "gas_price_one": tx["gasPrice"] / 10**18,
            "fee": fee,
            "fee_one": fee / 10**18,
            "from_address": r["from"],
            "from_address_hex": ETH_RECEIPT["from"],
            "to_address": r["to"],
            "to_address_hex": ETH_RECEIPT["to"],
            "contract_address": None,
            "contract_address_hex": None,
            "log_count": len(r["logs"]),
            "is_staking": False,
            "directive": None,
        }
    ]
    logs = []
    transfers = []
    for log in r["logs"]:
        row = {
            "block_number": int(log["blockNumber"], 16),
            "block_hash": log["blockHash"],
            "shard_id": 0,
            "transaction_hash": HARMONY,
            "eth_hash": ETH,
            "transaction_index": int(log["transactionIndex"], 16),
            "log_index": int(log["logIndex"], 16),
            "address": hex_to_one(log["address"]),
            "address_hex": log["address"],
            **_topics(log["topics"]),
            "topic_count": len(log["topics"]),
            "data": log["data"],
            "removed": log["removed"],
        }
        logs.append(row)
        topics = log["topics"]
        if topics[0] == TRANSFER and len(topics) == 3 and len(log["data"]) == 66:
            sender, receiver = "0x" + topics[1][26:], "0x" + topics[2][26:]
            transfers.append(
                {
                    **{k: row[k] for k in ("block_number", "block_hash", "shard_id", "transaction_hash")},
                    "eth_hash": ETH,
                    **{k: row[k] for k in ("transaction_index", "log_index")},
                    "batch_index": 0,
                    "standard": "hrc20",
                    "token_address": row["address"],
                    "token_address_hex": row["address_hex"],
                    "operator_address": None,
                    "operator_address_hex": None,
                    "from_address": hex_to_one(sender),
                    "from_address_hex": sender,
                    "to_address": hex_to_one(receiver),
                    "to_address_hex": receiver,
                    "amount": int(log["data"], 16),
                    "token_id": None,
                }
            )
    assert len(logs) == 11
    assert len(transfers) == 5
    return {
        "blocks": blocks,
        "transactions": transactions,
        "signers": signers,
        "receipts": receipts,
        "logs": logs,
        "token_transfers": transfers,
    }


EXPECTED = expected()


def plain(value: Any) -> Any:
    """A frame or Parquet value as plain Python (ints exact, times in seconds, NA as None)."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, pd.Timestamp | dt.datetime):
        stamp = value.timestamp()
        assert stamp == int(stamp)
        return int(stamp)
    if isinstance(value, decimal.Decimal):
        assert value == value.to_integral_value()
        return int(value)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def check_rows(name: str, rows: list[dict[str, Any]]) -> None:
    want = EXPECTED[name]
    assert len(rows) == len(want), name
    for i, (got, exp) in enumerate(zip(rows, want, strict=True)):
        assert set(got) == set(exp), f"{name} columns: {set(got) ^ set(exp)}"
        for column, value in exp.items():
            have = plain(got[column])
            if column in ("amount", "token_id") and have is not None:
                have = int(str(have))  # uint256: exact digits
            if isinstance(value, float):
                assert have == pytest.approx(value, rel=1e-12), (name, i, column)
            else:
                assert have == value, (name, i, column, have, value)
                assert type(have) is type(value), (name, i, column, type(have))


def frame_rows(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [dict(zip(frame.columns, row, strict=True)) for row in frame.itertuples(index=False, name=None)]


# --------------------------------------------------------------------------- the exports


@pytest.fixture(scope="module")
def node() -> Iterator[RealNode]:
    with RealNode(ANSWERS) as served:
        yield served


def _options(api: int | None) -> FetchOptions:
    return FetchOptions() if api is None else FetchOptions(version=api)  # type: ignore[arg-type]


@pytest.mark.parametrize("api", APIS)
def test_api_export_matches_the_raw_answers(node: RealNode, api: int | None) -> None:
    before = len(node.calls)
    for name in DATASETS:
        frame = getattr(hmyframe, name)(BLOCK, BLOCK, rpc=node.url, cache=False, options=_options(api))
        check_rows(name, frame_rows(frame))
    asked = node.calls[before:]
    if api == 1:
        assert not [m for m in asked if m.startswith("hmyv2_")]
    else:
        assert "hmyv2_getBlocks" in asked
    assert node.misses == []


def read_export(out: Path, name: str) -> list[dict[str, Any]]:
    files = sorted(out.glob(f"*/{name}/shard0/*.parquet"))
    assert len(files) == 1, files
    rows: list[dict[str, Any]] = pq.read_table(files[0]).to_pylist()
    return rows


@pytest.mark.parametrize("api", APIS)
def test_cli_export_matches_the_raw_answers(
    node: RealNode, api: int | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", ",".join(DATASETS), "--start", str(BLOCK), "--end", str(BLOCK)]
    argv += ["--rpc", node.url, "--out", str(tmp_path), "--no-progress"]
    argv += [] if api is None else ["--api", str(api)]
    before = len(node.calls)
    code = cli_main(argv)
    _, err = capsys.readouterr()
    assert code == 0, err
    for name in DATASETS:
        check_rows(name, read_export(tmp_path, name))
    hmyv2 = [m for m in node.calls[before:] if m.startswith("hmyv2_")]
    if api == 1:
        assert hmyv2 == []
    else:
        assert "hmyv2_getBlocks" in hmyv2


def test_a_node_serving_only_hmy_gives_the_whole_export_with_api_1(tmp_path: Path) -> None:
    with RealNode(ANSWERS, hide=("hmyv2",)) as only_hmy:
        for name in DATASETS:
            frame = getattr(hmyframe, name)(
                BLOCK, BLOCK, rpc=only_hmy.url, cache=tmp_path, options=_options(1)
            )
            check_rows(name, frame_rows(frame))
        assert not [m for m in only_hmy.calls if m.startswith("hmyv2_")]
        assert only_hmy.misses == []


@pytest.mark.parametrize("state", [None, "harmony", "eth"])
def test_logs_name_the_harmony_hash_in_every_cache_state(state: str | None) -> None:
    with RealNode(ANSWERS, log_tx_hash=state) as served:  # type: ignore[arg-type]
        for api in APIS:
            tables = {
                name: getattr(hmyframe, name)(
                    BLOCK, BLOCK, rpc=served.url, cache=False, options=_options(api)
                )
                for name in ("transactions", "receipts", "logs", "token_transfers")
            }
            check_rows("logs", frame_rows(tables["logs"]))
            check_rows("token_transfers", frame_rows(tables["token_transfers"]))
            on = "transaction_hash"
            tx = tables["transactions"]
            assert len(tables["logs"].merge(tx, on=on)) == 11
            assert len(tables["token_transfers"].merge(tx, on=on)) == 5
            assert len(tables["logs"].merge(tables["receipts"], on=on)) == 11
            assert len(tables["receipts"].merge(tx, on=[on, "eth_hash"])) == 1
            assert len(tables["logs"].merge(tx, on=[on, "eth_hash"])) == 11


def test_signers_count_each_validators_keys(node: RealNode) -> None:
    frame = hmyframe.signers(BLOCK, BLOCK, rpc=node.url, cache=False)
    assert len(frame) == 64
    assert int(frame["key_count"].sum()) == len(V2_BLOCK["signers"]) == 245
    assert frame["signer_address"].is_unique
