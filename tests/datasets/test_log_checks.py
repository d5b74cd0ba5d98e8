"""``check_logs``: a block's logs against its blocks, transactions and receipts, on small tables;
and the headers' hash lists (``transaction_positions``) logs are resolved through when the blocks'
transactions tables are not at hand.

Each case is one block's worth of tables built here: what the check accepts (either hash of a
transaction, staking transactions' logs after the plain ones, a gap the receipts account for)
and each contradiction it refuses, in one line naming the shard, block and log.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from hmyframe._bloom import EMPTY_BLOOM, bloom_bits
from hmyframe.datasets._decode import decode_blocks
from hmyframe.datasets._transform import check_logs, transaction_positions
from hmyframe.datasets.sources import Refetch
from hmyframe.errors import InconsistentAnswerError, ResponseShapeError

BLOCK = 7
BLOCK_HASH = "0x" + "b7" * 32
PLAIN = [("0x" + "a1" * 32, "0x" + "e1" * 32), ("0x" + "a2" * 32, "0x" + "e2" * 32)]
STAKING = "0x" + "5a" * 32
TOKEN = "0x" + "0b" * 20
DELEGATOR = "0x" + "de" * 20
TOPIC = "0x" + "70" * 32


def _log(tx: str, position: int, index: int, address: str = TOKEN) -> dict[str, Any]:
    return {"transaction_hash": tx, "transaction_index": position, "log_index": index, "address_hex": address}


def _bloom(logs: list[dict[str, Any]]) -> str:
    bits = 0
    for log in logs:
        bits |= bloom_bits(log["address_hex"]) | bloom_bits(TOPIC)
    return f"0x{bits:0512x}"


def _tables(logs: list[dict[str, Any]], bloom: str | None) -> tuple[pa.Table, ...]:
    n = len(logs)
    table = pa.table(
        {
            "block_number": pa.array([BLOCK] * n, pa.int64()),
            "block_hash": [BLOCK_HASH] * n,
            "transaction_hash": [g["transaction_hash"] for g in logs],
            "transaction_index": pa.array([g["transaction_index"] for g in logs], pa.int64()),
            "log_index": pa.array([g["log_index"] for g in logs], pa.int64()),
            "address_hex": [g["address_hex"] for g in logs],
            "topic0": [TOPIC] * n,
            **{f"topic{k}": pa.nulls(n, pa.string()) for k in (1, 2, 3)},
        }
    )
    blocks = pa.table(
        {"block_number": pa.array([BLOCK], pa.int64()), "block_hash": [BLOCK_HASH], "logs_bloom": [bloom]}
    )
    plain = pa.table(
        {
            "block_number": pa.array([BLOCK, BLOCK], pa.int64()),
            "transaction_index": pa.array([0, 1], pa.int64()),
            "transaction_hash": [h for h, _ in PLAIN],
            "eth_hash": [e for _, e in PLAIN],
        }
    )
    staking = pa.table(
        {
            "block_number": pa.array([BLOCK], pa.int64()),
            "transaction_index": pa.array([0], pa.int64()),
            "transaction_hash": [STAKING],
        }
    )
    return table, blocks, plain, staking


def _receipts(counts: dict[str, int]) -> pa.Table:
    return pa.table(
        {
            "block_number": pa.array([BLOCK] * len(counts), pa.int64()),
            "transaction_hash": list(counts),
            "log_count": pa.array(list(counts.values()), pa.int64()),
        }
    )


def check(logs: list[dict[str, Any]], *, bloom: str | None = "auto", receipts: pa.Table | None = None) -> Any:
    table, blocks, plain, staking = _tables(logs, _bloom(logs) if bloom == "auto" else bloom)
    return check_logs(table, blocks, plain, staking, 0, receipts=receipts)


# a block as a node under each receipts-cache state answers it: the first transaction's logs
# named by either hash, a staking transaction's (CollectRewards) after the plain ones
GOOD = [
    _log(PLAIN[0][1], 0, 0),
    _log(PLAIN[0][0], 0, 1),
    _log(PLAIN[1][1], 1, 2),
    _log(STAKING, 2, 3, DELEGATOR),
]


def test_either_hash_resolves_to_the_harmony_one_and_staking_logs_keep_theirs() -> None:
    harmony, eth = check(GOOD)
    assert harmony == [PLAIN[0][0], PLAIN[0][0], PLAIN[1][0], STAKING]
    assert eth == [PLAIN[0][1], PLAIN[0][1], PLAIN[1][1], None]
    assert check([]) == ([], [])
    assert check(GOOD, bloom=None) == (harmony, eth)  # no bloom at hand: not checked


@pytest.mark.parametrize(
    ("logs", "receipts", "bloom", "message"),
    [
        ([*GOOD[:2], GOOD[1], *GOOD[2:]], None, "auto", "log index 1 appears twice"),
        (
            [GOOD[0], GOOD[2], GOOD[3]],
            None,
            "auto",
            r"log index 1 is missing \(its 3 logs have indexes 0..3\)",
        ),
        (
            [_log(PLAIN[1][0], 0, 0)],
            None,
            "auto",
            rf"log 0 names transaction {PLAIN[1][0]} at position 0, where the block has transaction "
            rf"{PLAIN[0][0]} \({PLAIN[0][1]}\)",
        ),
        (
            [_log(STAKING, 5, 0)],
            None,
            "auto",
            "log 0 names transaction .* at position 5, where the block has no transaction",
        ),
        (
            GOOD,
            _receipts({PLAIN[0][0]: 3, PLAIN[1][0]: 1, STAKING: 1}),
            "auto",
            rf"transaction {PLAIN[0][0]} has 2 logs, its receipt lists 3",
        ),
        (GOOD, None, EMPTY_BLOOM, "4 logs, but the block's logsBloom is empty"),
        ([], None, _bloom(GOOD), "no log, but the block's logsBloom is not empty"),
        (
            GOOD,
            None,
            _bloom(GOOD[:3]),
            r"log 3's address or topics are not in the block's logsBloom \(a log of another block\)",
        ),
        (
            GOOD[:3],
            None,
            _bloom(GOOD),
            r"the block's logsBloom has bits none of its 3 logs sets \(a log is missing\)",
        ),
    ],
    ids=[
        "repeated",
        "gap",
        "other-position",
        "no-such-position",
        "receipt-count",
        "empty-bloom",
        "no-logs",
        "foreign-bits",
        "missing-bits",
    ],
)
def test_contradictions_are_one_line_naming_shard_block_and_log(
    logs: list[dict[str, Any]], receipts: pa.Table | None, bloom: str, message: str
) -> None:
    with pytest.raises(
        InconsistentAnswerError, match=rf"^logs of shard 0 block {BLOCK}: {message}; nothing"
    ) as info:
        check(logs, bloom=bloom, receipts=receipts)
    assert "\n" not in str(info.value)


def test_a_gap_the_receipts_account_for_is_accepted() -> None:
    # indexes 0, 2, 3: a gap, but every transaction has the logs its receipt lists
    logs = [GOOD[0], {**GOOD[2], "log_index": 2}, {**GOOD[3], "log_index": 3}]
    receipts = _receipts({PLAIN[0][0]: 1, PLAIN[1][0]: 1, STAKING: 1})
    assert check(logs, receipts=receipts)[0] == [PLAIN[0][0], PLAIN[1][0], STAKING]
    with pytest.raises(InconsistentAnswerError, match="log index 1 is missing"):
        check(logs)


# --------------------------------------------------------------------------- the headers' hash lists


def _block(**lists: object) -> bytes:
    return json.dumps([{"number": BLOCK, "hash": BLOCK_HASH, "gasLimit": 1, **lists}]).encode()


HEADERS = {
    "transactions": [h for h, _ in PLAIN],
    "transactionsInEthHash": [e for _, e in PLAIN],
    "stakingTransactions": [STAKING],
}
FULL = {
    "transactions": [{"hash": h, "ethHash": e, "from": TOKEN} for h, e in PLAIN],
    "stakingTransactions": [{"hash": STAKING, "type": "CollectRewards"}],
}


def _positions(payload: bytes) -> pa.Table:
    decoded = decode_blocks([payload], eth_hashes=True)
    return transaction_positions(decoded.blocks, decoded.block_paths, [BLOCK])


def test_the_headers_lists_resolve_logs_as_the_transactions_tables_do() -> None:
    table = _positions(_block(**HEADERS))
    assert table.to_pylist() == [
        {
            "block_number": BLOCK,
            "transaction_index": 0,
            "transaction_hash": PLAIN[0][0],
            "eth_hash": PLAIN[0][1],
        },
        {
            "block_number": BLOCK,
            "transaction_index": 1,
            "transaction_hash": PLAIN[1][0],
            "eth_hash": PLAIN[1][1],
        },
        {"block_number": BLOCK, "transaction_index": 2, "transaction_hash": STAKING, "eth_hash": None},
    ]
    assert _positions(_block(**FULL)).equals(table)  # full blocks give the same table
    logs, blocks, _, _ = _tables(GOOD, _bloom(GOOD))
    assert check_logs(logs, blocks, table, table.slice(0, 0), 0) == check(GOOD)


def test_headers_without_eth_hashes_ask_for_full_blocks_and_bad_lists_are_named() -> None:
    with pytest.raises(Refetch) as refetch:
        _positions(_block(transactions=HEADERS["transactions"]))
    assert refetch.value.state == {"headers_only": False}
    with pytest.raises(
        ResponseShapeError,
        match=r"payload\[0\]\[0\]\.transactionsInEthHash.*one per transaction of the block \(2\)",
    ):
        _positions(_block(**{**HEADERS, "transactionsInEthHash": [PLAIN[0][1]]}))
    with pytest.raises(ResponseShapeError, match=r"payload\[0\]\[0\]\.stakingTransactions\[0\]"):
        _positions(_block(**{**HEADERS, "stakingTransactions": ["0x12"]}))
    with pytest.raises(ResponseShapeError, match=r"payload\[0\]\[0\]\.transactions\[1\]\.ethHash"):
        _positions(_block(transactions=[FULL["transactions"][0], {"hash": PLAIN[1][0], "ethHash": "0xzz"}]))
