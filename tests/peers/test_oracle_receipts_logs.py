"""ethereum-etl's ``export_receipts_and_logs`` and ``extract_token_transfers`` against the devnet's
``eth_`` endpoint: the receipts, logs and Transfer rows an independent client reads equal the
chain's own (the devnet truth). When the ``receipts`` / ``logs`` / ``token_transfers`` datasets
land, hmyframe's tables join these comparisons as a third side (same keys: the Ethereum
transaction hash, and the log index)."""

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
    read_csv,
    requires_etl,
)

from hmyframe.devnet import Devnet
from hmyframe.devnet.model import Transaction

pytestmark = requires_etl()

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
LAST = 60


@pytest.fixture(scope="module")
def exported(net: Devnet, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Transaction], Path]:
    """Shard 0's plain transactions of blocks 1..LAST and the folder ethereum-etl wrote them to."""
    txs = list(net.chain.iter_transactions(0, 1, LAST))
    folder = tmp_path_factory.mktemp("etl")
    export_receipts_and_logs(net.urls[0], [tx.eth_hash for tx in txs], folder)
    return txs, folder


def test_receipts_equal_the_chain(exported: tuple[list[Transaction], Path]) -> None:
    txs, folder = exported

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
    theirs = keyed(read_csv(folder / "receipts.csv"), "transaction_hash")
    compared = assert_same(
        truth,
        theirs,
        {
            "block_number": ("block_number", AS_INT),
            "block_hash": ("block_hash", AS_HEX),
            "transaction_index": ("transaction_index", AS_INT),
            "gas_used": ("gas_used", AS_INT),
            "status": ("status", AS_INT),
            "effective_gas_price": ("effective_gas_price", AS_INT),
        },
    )
    assert compared == 6 * len(txs)
    assert any(tx.success is False for tx in txs), "no failed transaction in the range"


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


def by_log(rows: list[dict[str, str]]) -> dict[tuple[Any, ...], Any]:
    """ethereum-etl rows by (Ethereum transaction hash, log index)."""
    return keyed(({**r, "log_index": int(r["log_index"])} for r in rows), "transaction_hash", "log_index")


def test_logs_equal_the_chain(exported: tuple[list[Transaction], Path]) -> None:
    txs, folder = exported

    truth = keyed(_logs(txs), "hash", "log_index")
    theirs = by_log(read_csv(folder / "logs.csv"))
    assert len(truth) > 20
    assert_same(
        truth,
        theirs,
        {
            "address": ("address", AS_HEX),
            "data": ("data", AS_HEX),
            "topics": ("topics", AS_HEX),
            "transaction_index": ("transaction_index", AS_INT),
            "block_number": ("block_number", AS_INT),
        },
    )


def test_token_transfers_are_the_chain_s_transfer_logs(exported: tuple[list[Transaction], Path]) -> None:
    txs, folder = exported
    transfers = extract_token_transfers(folder)
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
        "hash",
        "log_index",
    )
    theirs = by_log(transfers)
    assert {t["topic_count"] for t in truth.values()} == {3, 4}
    assert_same(
        truth,
        theirs,
        {
            "address": ("token_address", AS_HEX),
            "from": ("from_address", AS_HEX),
            "to": ("to_address", AS_HEX),
            "value": ("value", AS_INT),
            "block_number": ("block_number", AS_INT),
        },
    )
