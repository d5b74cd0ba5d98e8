"""ethereum-etl's ``export_receipts_and_logs`` and ``extract_token_transfers`` against the devnet's
``eth_`` endpoint, three ways: ethereum-etl equals the chain's own receipts, logs and Transfer
rows (the devnet truth), and hmyframe's ``receipts``, ``logs`` and ``token_transfers`` equal
ethereum-etl's wherever both have the row.

Differences by design, checked as such: staking transactions have receipts in hmyframe only
(the node's ``eth_getTransactionReceipt`` answers null for them); HRC-1155 TransferSingle /
TransferBatch rows are token transfers in hmyframe only (ethereum-etl reads ERC-20/721
``Transfer`` events).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from oracle_helpers import (
    AS_HEX,
    AS_INT,
    assert_same,
    export_receipts_and_logs,
    extract_token_transfers,
    keyed,
    plain,
    read_csv,
    requires_etl,
)

import hmyframe
from hmyframe.datasets.rewards_collected import COLLECT_REWARDS_TOPIC
from hmyframe.devnet import Devnet
from hmyframe.devnet.model import Transaction

pytestmark = requires_etl()

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
LAST = 199  # the whole oracle devnet (blocks 0..199)

#: The receipt columns compared: ours -> (ethereum-etl's, reader).
RECEIPT_COLUMNS = {
    "block_number": ("block_number", AS_INT),
    "block_hash": ("block_hash", AS_HEX),
    "transaction_index": ("transaction_index", AS_INT),
    "gas_used": ("gas_used", AS_INT),
    "status": ("status", AS_INT),
}
LOG_COLUMNS = {
    "address": ("address", AS_HEX),
    "data": ("data", AS_HEX),
    "topics": ("topics", AS_HEX),
    "transaction_index": ("transaction_index", AS_INT),
}
TRANSFER_COLUMNS = {
    "address": ("token_address", AS_HEX),
    "from": ("from_address", AS_HEX),
    "to": ("to_address", AS_HEX),
    "value": ("value", AS_INT),
}


@pytest.fixture(scope="module")
def exported(net: Devnet, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Transaction], Path]:
    """Shard 0's plain transactions of blocks 1..LAST and the folder ethereum-etl wrote them to."""
    txs = list(net.chain.iter_transactions(0, 1, LAST))
    folder = tmp_path_factory.mktemp("etl")
    export_receipts_and_logs(net.urls[0], [tx.eth_hash for tx in txs], folder)
    return txs, folder


def by_log(rows: Any) -> dict[tuple[Any, ...], Any]:
    """Rows by (block number, log index): the log's place, the same in every namespace."""
    return keyed(
        ({**r, "block_number": int(r["block_number"]), "log_index": int(r["log_index"])} for r in rows),
        "block_number",
        "log_index",
    )


def records(df: Any) -> list[dict[str, Any]]:
    return [{k: plain(v) for k, v in r.items()} for r in df.to_dict("records")]


# --------------------------------------------------------------------------- receipts


def test_receipts_equal_the_chain_and_hmyframe(net: Devnet, exported: tuple[list[Transaction], Path]) -> None:
    txs, folder = exported
    theirs = keyed(read_csv(folder / "receipts.csv"), "transaction_hash")
    truth = keyed(
        (
            {
                "hash": tx.eth_hash,
                "block_number": tx.block_number,
                "block_hash": tx.block_hash,
                "transaction_index": tx.index,
                "gas_used": tx.gas_used,
                "status": int(tx.success),
                "effective_gas_price": tx.gas_price,
            }
            for tx in txs
        ),
        "hash",
    )
    columns = {**RECEIPT_COLUMNS, "effective_gas_price": ("effective_gas_price", AS_INT)}
    assert assert_same(truth, theirs, columns) == 6 * len(txs)
    assert any(tx.success is False for tx in txs), "no failed transaction in the range"

    df = hmyframe.receipts(1, LAST, rpc=net, cache=False)
    rows = records(df)
    staking = [r for r in rows if r["is_staking"]]
    assert len(staking) == sum(len(net.chain.block(0, n).staking_transactions) for n in range(1, LAST + 1))
    ours = keyed(
        (
            {**r, "status": int(r["status"]), "gas_price": int(r["gas_price"])}
            for r in rows
            if not r["is_staking"]  # by design: eth_getTransactionReceipt has no staking receipts
        ),
        "eth_hash",
    )
    compared = assert_same(
        ours,
        theirs,
        {
            **RECEIPT_COLUMNS,
            "cumulative_gas_used": ("cumulative_gas_used", AS_INT),
            "gas_price": ("effective_gas_price", AS_INT),
            "contract_address_hex": ("contract_address", AS_HEX),
        },
    )
    assert compared == 8 * len(txs)


# --------------------------------------------------------------------------- logs


def _logs(txs: list[Transaction]) -> list[dict[str, Any]]:
    return [
        {
            "hash": tx.eth_hash,
            "log_index": log.log_index,
            "address": log.address,
            "data": log.data,
            "topics": ",".join(log.topics),
            "transaction_index": tx.index,
            "block_number": tx.block_number,
            "topic_count": len(log.topics),
        }
        for tx in txs
        for log in tx.logs
    ]


def test_logs_equal_the_chain_and_hmyframe(net: Devnet, exported: tuple[list[Transaction], Path]) -> None:
    txs, folder = exported
    theirs = by_log(read_csv(folder / "logs.csv"))
    truth = keyed(_logs(txs), "block_number", "log_index")
    assert len(truth) > 20
    assert assert_same(truth, theirs, LOG_COLUMNS) == 4 * len(truth)

    df = hmyframe.logs(1, LAST, rpc=net, cache=False)
    ours = by_log(
        {
            **r,
            "address": r["address_hex"],
            "topics": ",".join(r[f"topic{i}"] for i in range(4) if r[f"topic{i}"] is not None),
        }
        for r in records(df)
        # a CollectRewards' payout log is a staking receipt's: getLogs lists it (the node's block
        # receipts hold the staking ones), ethereum-etl reads the plain transactions' receipts
        if r["topic0"] != COLLECT_REWARDS_TOPIC
    )
    assert assert_same(ours, theirs, LOG_COLUMNS) == 4 * len(truth)


# --------------------------------------------------------------------------- token transfers


def test_token_transfers_equal_the_chain_and_hmyframe(
    net: Devnet, exported: tuple[list[Transaction], Path]
) -> None:
    txs, folder = exported
    theirs = by_log(extract_token_transfers(folder))
    # ethereum-etl reads a Transfer as four words (topics + data): HRC-20 (3 topics, 1 data word)
    # and HRC-721 (4 topics: the id indexed); HRC-1155 TransferSingle/Batch are not Transfers
    truth = keyed(
        (
            {
                **log,
                "from": "0x" + log["topics"].split(",")[1][-40:],
                "to": "0x" + log["topics"].split(",")[2][-40:],
                "value": int(log["topics"].split(",")[3] if log["topic_count"] == 4 else log["data"], 16),
            }
            for log in _logs(txs)
            if log["topics"].startswith(TRANSFER)
        ),
        "block_number",
        "log_index",
    )
    assert {t["topic_count"] for t in truth.values()} == {3, 4}
    assert assert_same(truth, theirs, TRANSFER_COLUMNS) == 4 * len(truth)

    rows = records(hmyframe.token_transfers(1, LAST, rpc=net, cache=False))
    assert {r["standard"] for r in rows} == {"hrc20", "hrc721", "hrc1155"}
    ours = by_log(
        {
            **r,
            "address": r["token_address_hex"],
            "from": r["from_address_hex"],
            "to": r["to_address_hex"],
            # ethereum-etl's value is the amount of an HRC-20 Transfer and the id of an HRC-721 one
            "value": int(r["amount"] if r["standard"] == "hrc20" else r["token_id"]),
        }
        for r in rows
        if r["standard"] != "hrc1155"  # by design: not ERC-20/721 Transfer events
    )
    assert assert_same(ours, theirs, TRANSFER_COLUMNS) == 4 * len(truth)
