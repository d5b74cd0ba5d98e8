"""``receipts``, ``logs`` and ``token_transfers``: parsers over every recorded receipt and getLogs
sample, the Transfer decoding (hypothesis), the checks against blocks, and the source plans."""

from __future__ import annotations

import json
import re
from typing import Any

import pyarrow as pa
import pytest
from ds_helpers import index, load
from hypothesis import given
from hypothesis import strategies as st

from hmyframe.addresses import to_one
from hmyframe.datasets import ConvertContext, get
from hmyframe.datasets import sources as src
from hmyframe.datasets._receiptlogs import decode_logs, decode_receipts
from hmyframe.datasets._transform import check_logs, check_receipts
from hmyframe.datasets.receipts import DIRECTIVES
from hmyframe.datasets.token_transfers import (
    TRANSFER,
    TRANSFER_BATCH,
    TRANSFER_SINGLE,
    UINT256,
    decode_transfer,
)
from hmyframe.errors import (
    InconsistentAnswerError,
    MethodNotFoundError,
    RateLimitError,
    ResponseShapeError,
    ResponseTooLargeError,
    RpcError,
)
from hmyframe.rpc.methods import Methods

CTX = ConvertContext(shard_id=0)
SAMPLES = [load(entry["file"]) for entry in index()]
RECEIPT_SAMPLES = [s for s in SAMPLES if s.method.endswith("_getTransactionReceipt")]
LOG_SAMPLES = [s for s in SAMPLES if s.method.endswith("_getLogs")]
MAX = 2**256 - 1


def _int(v: Any) -> int:
    return int(v, 16) if isinstance(v, str) else int(v)


def _payload(value: Any) -> bytes:
    return json.dumps(value).encode()


# --------------------------------------------------------------------------- receipts samples


def test_every_receipt_sample_is_covered() -> None:
    assert len(RECEIPT_SAMPLES) == 9  # v1 and v2, docs, CLI and harmony-test, plain and staking
    assert {s.method for s in RECEIPT_SAMPLES} == {"hmy_getTransactionReceipt", "hmyv2_getTransactionReceipt"}


@pytest.mark.parametrize("sample", RECEIPT_SAMPLES, ids=lambda s: s.file)
def test_receipt_samples_parse_to_their_values(sample: Any) -> None:
    raw = sample.result
    row = get("receipts").convert([_payload(raw)], CTX).to_pylist()[0]
    assert row["block_number"] == _int(raw["blockNumber"])
    assert row["block_hash"] == raw["blockHash"].lower()
    assert row["transaction_hash"] == raw["transactionHash"].lower()
    assert row["transaction_index"] == _int(raw["transactionIndex"])
    assert row["gas_used"] == _int(raw["gasUsed"])
    assert row["cumulative_gas_used"] == _int(raw["cumulativeGasUsed"])
    assert row["status"] == (None if "status" not in raw else _int(raw["status"]) == 1)
    staking = "sender" in raw
    assert row["is_staking"] is staking
    sender = raw["sender"] if staking else raw["from"]
    assert sender.lower() in (row["from_address"], row["from_address_hex"])
    assert row["directive"] == (DIRECTIVES[_int(raw["type"])] if staking else None)
    if staking:
        assert row["to_address"] is None
    else:
        assert raw["to"].lower() in (row["to_address"], row["to_address_hex"])
    assert row["contract_address"] is None
    assert row["log_count"] == len(raw["logs"]) == 0
    # without the block's transactions at hand, the gas price is the receipt's effectiveGasPrice
    if "effectiveGasPrice" in raw:
        price = _int(raw["effectiveGasPrice"])
        assert int(row["gas_price"]) == price
        assert int(row["fee"]) == price * _int(raw["gasUsed"])  # exact, no float on the way
    else:
        assert row["gas_price"] is None
        assert row["fee"] is None


@pytest.mark.parametrize("sample", RECEIPT_SAMPLES, ids=lambda s: s.file)
def test_a_block_receipts_array_gives_the_same_rows_as_single_receipts(sample: Any) -> None:
    single = get("receipts").convert([_payload(sample.result)], CTX)
    block_wide = get("receipts").convert([_payload([sample.result, None]), b"null"], CTX)
    assert block_wide.equals(single)


def test_v1_and_v2_receipts_of_the_same_transaction_agree() -> None:
    for test in ("test_transaction", "test_staking"):
        rows = [
            get("receipts").convert([_payload(s.result)], CTX).to_pylist()[0]
            for s in RECEIPT_SAMPLES
            if "harmony-test" in s.file and test in s.file
        ]
        assert len(rows) == 2
        assert rows[0] == rows[1]


def test_gas_price_comes_from_the_transaction_and_contract_creation_quirks_are_normalised() -> None:
    raw = dict(RECEIPT_SAMPLES[0].result)
    creator = "0xA5241513DA9F4463F1d4874b548dFBAC29D91f34"  # the node's EIP-55 `from` of a creation
    raw.update(
        {
            "from": creator,
            "to": "",
            "contractAddress": "0x0b585f8daefbc68a311fbd4cb20d9174ad174016",
            "status": "0x0",
        }
    )
    decoded = decode_receipts([_payload(raw)])
    decoded.tx_info = {raw["transactionHash"]: ("0x" + "ab" * 32, 10**30)}
    row = get("receipts").build(decoded, CTX).to_pylist()[0]
    assert row["from_address"] == "one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3"
    assert row["from_address_hex"] == creator.lower()
    assert row["to_address"] is None
    assert row["status"] is False
    assert row["contract_address"] == "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"
    assert row["eth_hash"] == "0x" + "ab" * 32
    assert int(row["fee"]) == 21000 * 10**30  # 35 digits, exact


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"status": "0x2"}, "status"),
        ({"type": "0x9", "sender": "one1" + "q" * 38}, "type"),
        ({"logs": None}, "logs"),
    ],
)
def test_a_malformed_receipt_is_one_line_naming_the_field(change: dict[str, Any], field: str) -> None:
    raw = {**RECEIPT_SAMPLES[-1].result, **change}
    if "sender" in change:
        raw.pop("from")
        raw["sender"] = "one109r0tns7av5sjew7a7fkekg4fs3pw0h76pp45e"
    with pytest.raises(ResponseShapeError, match=rf"receipts: field 'payload\[0\]\.{field}'") as info:
        get("receipts").convert([_payload(raw)], CTX)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- logs samples


def _repaired(sample: Any) -> Any:
    """The docs' getLogs sample, made JSON: its `// 1` comments and `{...}` placeholder removed."""
    text = re.sub(r"//[^\n]*", "", sample.data["response_text_verbatim"])
    text = re.sub(r",\s*\{\s*\.\.\.\s*\}", "", text)
    return json.loads(text)["result"]


def test_every_getlogs_sample_is_covered() -> None:
    assert [s.method for s in LOG_SAMPLES] == ["hmy_getLogs"]


@pytest.mark.parametrize("sample", LOG_SAMPLES, ids=lambda s: s.file)
def test_getlogs_samples_parse_or_are_refused_naming_the_bad_field(sample: Any) -> None:
    logs = _repaired(sample)
    raw = logs[0]
    bad_hash = len(raw["blockHash"]) != 66  # the docs sample's hashes are made up, 62 digits
    if bad_hash:
        with pytest.raises(ResponseShapeError, match=r"logs: field 'payload\[0\]\[0\]\.blockHash'"):
            get("logs").convert([_payload(logs)], CTX)
        raw = {**raw, "blockHash": "0x" + raw["blockHash"][2:].rjust(64, "0")}
        raw["transactionHash"] = "0x" + raw["transactionHash"][2:].rjust(64, "0")
    row = get("logs").convert([_payload([raw])], CTX).to_pylist()[0]
    assert row["block_number"] == _int(raw["blockNumber"]) == 436
    assert row["log_index"] == 1
    assert row["transaction_index"] == 0
    assert row["address_hex"] == raw["address"]
    assert row["address"] == to_one(raw["address"])
    assert row["topic0"] == raw["topics"][0]
    assert row["topic1"] is None
    assert row["topic_count"] == 1
    assert row["data"] == raw["data"]
    assert row["removed"] is False
    assert get("token_transfers").convert([_payload([raw])], CTX).num_rows == 0  # not a transfer


def _log(topics: list[str], data: str, *, index: int = 0, number: int = 7) -> dict[str, Any]:
    return {
        "address": "0x0b585f8daefbc68a311fbd4cb20d9174ad174016",
        "topics": topics,
        "data": data,
        "blockNumber": hex(number),
        "transactionHash": "0x" + "11" * 32,
        "transactionIndex": "0x2",
        "blockHash": "0x" + "22" * 32,
        "logIndex": hex(index),
        "removed": False,
    }


def test_a_log_with_five_topics_is_refused() -> None:
    with pytest.raises(ResponseShapeError, match="at most 4"):
        get("logs").convert([_payload([_log([TRANSFER] * 5, "0x")])], CTX)


# --------------------------------------------------------------------------- Transfer decoding

addresses = st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())
uint256 = st.one_of(st.sampled_from([0, 1, MAX, MAX - 1, 10**38, 10**38 - 1]), st.integers(0, MAX))


def word(n: int) -> str:
    return f"{n:064x}"


def topic(address: str) -> str:
    return "0x" + "0" * 24 + address[2:]


@given(addresses, addresses, uint256)
def test_an_hrc20_transfer_decodes_exactly(sender: str, receiver: str, amount: int) -> None:
    log = _log([TRANSFER, topic(sender), topic(receiver)], "0x" + word(amount))
    assert decode_transfer(log["topics"], log["data"]) == [("hrc20", None, sender, receiver, amount, None)]
    row = get("token_transfers").convert([_payload([log])], CTX).to_pylist()[0]
    assert (row["standard"], row["amount"], row["token_id"]) == ("hrc20", str(amount), None)
    assert int(row["amount"]) == amount  # 0 and 2**256 - 1 included: no truncation, no float
    assert (row["from_address_hex"], row["to_address_hex"]) == (sender, receiver)
    assert row["from_address"] == to_one(sender)
    assert row["token_address"] == to_one(log["address"])
    assert row["block_number"] == 7
    assert row["transaction_hash"] == log["transactionHash"]


@given(addresses, addresses, uint256)
def test_an_hrc721_transfer_is_told_apart_by_its_fourth_topic(
    sender: str, receiver: str, token_id: int
) -> None:
    topics = [TRANSFER, topic(sender), topic(receiver), "0x" + word(token_id)]
    assert decode_transfer(topics, "0x") == [("hrc721", None, sender, receiver, 1, token_id)]
    row = get("token_transfers").convert([_payload([_log(topics, "0x")])], CTX).to_pylist()[0]
    assert (row["standard"], row["amount"], row["token_id"]) == ("hrc721", "1", str(token_id))


@given(st.integers(0, 200).filter(lambda n: n != 32), st.integers(0, 10**6))
def test_a_three_topic_transfer_without_32_bytes_of_data_is_one_line_naming_block_and_log(
    size: int, index: int
) -> None:
    log = _log([TRANSFER, topic("0x" + "1" * 40), topic("0x" + "2" * 40)], "0x" + "ab" * size, index=index)
    with pytest.raises(ResponseShapeError) as info:
        get("token_transfers").convert([_payload([log])], CTX)
    message = str(info.value)
    assert f"block 7 log {index} (token one1" in message
    assert f"{size}-byte data" in message
    assert "nothing of this chunk was cached" in message
    assert "\n" not in message


@given(st.integers(1, 100))
def test_a_four_topic_transfer_with_data_is_refused(size: int) -> None:
    topics = [TRANSFER, topic("0x" + "1" * 40), topic("0x" + "2" * 40), "0x" + word(5)]
    with pytest.raises(ResponseShapeError, match=f"4 topics and {size}-byte data"):
        decode_transfer(topics, "0x" + "00" * size, number=3, log_index=1)


@given(st.integers(1, 2), st.binary(max_size=96))
def test_a_transfer_with_unindexed_parties_is_not_a_transfer_row(count: int, data: bytes) -> None:
    assert decode_transfer([TRANSFER, *[topic("0x" + "1" * 40)] * (count - 1)], "0x" + data.hex()) == []


def test_an_address_topic_with_high_bytes_set_is_refused() -> None:
    topics = [TRANSFER, "0x" + "ff" * 32, topic("0x" + "2" * 40)]
    with pytest.raises(ResponseShapeError, match="an address in topic 1"):
        decode_transfer(topics, "0x" + word(1), number=9, log_index=4)


def _batch_data(ids: list[int], values: list[int]) -> str:
    head = [64, 64 + 32 * (len(ids) + 1)]
    body = [len(ids), *ids, len(values), *values]
    return "0x" + "".join(word(w) for w in [*head, *body])


@given(addresses, addresses, addresses, st.lists(st.tuples(uint256, uint256), max_size=6))
def test_an_hrc1155_batch_is_exploded_one_row_per_id(
    operator: str, sender: str, receiver: str, pairs: list[tuple[int, int]]
) -> None:
    ids, values = [p[0] for p in pairs], [p[1] for p in pairs]
    log = _log([TRANSFER_BATCH, topic(operator), topic(sender), topic(receiver)], _batch_data(ids, values))
    rows = get("token_transfers").convert([_payload([log])], CTX).to_pylist()
    assert [(r["batch_index"], r["token_id"], r["amount"]) for r in rows] == [
        (i, str(t), str(v)) for i, (t, v) in enumerate(pairs)
    ]
    assert all(r["standard"] == "hrc1155" and r["operator_address_hex"] == operator for r in rows)


@given(addresses, uint256, uint256)
def test_an_hrc1155_single_transfer_decodes_id_and_value(operator: str, token_id: int, value: int) -> None:
    topics = [TRANSFER_SINGLE, topic(operator), topic("0x" + "0" * 40), topic("0x" + "3" * 40)]
    rows = decode_transfer(topics, "0x" + word(token_id) + word(value))
    assert rows == [("hrc1155", operator, "0x" + "0" * 40, "0x" + "3" * 40, value, token_id)]


@pytest.mark.parametrize(
    ("topics", "data", "expected"),
    [
        ([TRANSFER_SINGLE, topic("0x" + "1" * 40)], "0x" + word(1) * 2, "4 topics"),
        ([TRANSFER_SINGLE, *[topic("0x" + "1" * 40)] * 3], "0x" + word(1), "64-byte data"),
        ([TRANSFER_BATCH, *[topic("0x" + "1" * 40)] * 3], _batch_data([1, 2], [3])[:-64], "equal length"),
        (
            [TRANSFER_BATCH, *[topic("0x" + "1" * 40)] * 3],
            "0x" + word(64) + word(4096) + word(0) * 2,
            "equal length",
        ),
        ([TRANSFER_BATCH, *[topic("0x" + "1" * 40)] * 3], "0x" + word(1)[:-2], "whole 32-byte words"),
    ],
)
def test_malformed_hrc1155_logs_are_refused(topics: list[str], data: str, expected: str) -> None:
    with pytest.raises(ResponseShapeError, match=expected):
        decode_transfer(topics, data, number=1, log_index=2)


def test_the_uint256_columns_are_declared_once_as_exact_digit_strings() -> None:
    schema = get("token_transfers").schema
    assert pa.string() == UINT256
    assert schema.field("amount").type == schema.field("token_id").type == UINT256


# --------------------------------------------------------------------------- checks against blocks

H = ["0x" + f"{i:064x}" for i in range(1, 10)]


def _blocks(gas: dict[int, int]) -> pa.Table:
    numbers = sorted(gas)
    return pa.table(
        {
            "block_number": pa.array(numbers, pa.int64()),
            "block_hash": [H[n] for n in numbers],
            "gas_used": pa.array([gas[n] for n in numbers], pa.int64()),
        }
    )


def _txs(rows: list[tuple[int, str]]) -> pa.Table:
    return pa.table(
        {"block_number": pa.array([n for n, _ in rows], pa.int64()), "transaction_hash": [h for _, h in rows]}
    )


def _receipts(rows: list[tuple[int, str, str, int]]) -> pa.Table:
    return pa.table(
        {
            "block_number": pa.array([r[0] for r in rows], pa.int64()),
            "block_hash": [r[1] for r in rows],
            "transaction_hash": [r[2] for r in rows],
            "gas_used": pa.array([r[3] for r in rows], pa.int64()),
        }
    )


TX_A, TX_B, TX_S = "0x" + "a" * 64, "0x" + "b" * 64, "0x" + "c" * 64


def _check(receipts: list[tuple[int, str, str, int]]) -> None:
    blocks = _blocks({1: 30, 2: 0, 3: 5})
    check_receipts(_receipts(receipts), blocks, [_txs([(1, TX_A), (1, TX_B)]), _txs([(3, TX_S)])], 0)


def test_receipts_that_agree_with_their_blocks_pass() -> None:
    _check([(1, H[1], TX_A, 21), (1, H[1], TX_B, 9), (3, H[3], TX_S, 5)])


@pytest.mark.parametrize(
    ("receipts", "message"),
    [
        (
            [(1, H[2], TX_A, 21), (1, H[1], TX_B, 9), (3, H[3], TX_S, 5)],
            rf"block 1: receipt of {TX_A} names block hash {H[2]}",
        ),
        ([(1, H[1], TX_A, 30), (3, H[3], TX_S, 5)], rf"block 1: no receipt of its transaction {TX_B}"),
        (
            [(1, H[1], TX_A, 21), (1, H[1], TX_B, 9), (3, H[3], TX_S, 5), (2, H[2], "0x" + "d" * 64, 0)],
            r"block 2: receipt of transaction 0xd+, which the block does not have",
        ),
        (
            [(1, H[1], TX_A, 21), (1, H[1], TX_B, 8), (3, H[3], TX_S, 5)],
            r"block 1: its receipts' gas_used sums to 29, the block's gasUsed is 30",
        ),
        (
            [(1, H[1], TX_A, 21), (1, H[1], TX_B, 9), (1, H[1], TX_B, 0), (3, H[3], TX_S, 5)],
            r"block 1: two receipts",
        ),
    ],
)
def test_receipts_contradicting_their_blocks_are_one_line_naming_the_block(
    receipts: list[tuple[int, str, str, int]], message: str
) -> None:
    with pytest.raises(InconsistentAnswerError, match=message) as info:
        _check(receipts)
    assert str(info.value).startswith("receipts of shard 0 block ")
    assert str(info.value).endswith("nothing of its chunk was cached")
    assert "\n" not in str(info.value)


def test_logs_naming_another_block_hash_are_refused() -> None:
    logs = get("logs").convert([_payload([_log([TRANSFER], "0x", number=2, index=0)])], CTX)
    blocks = _blocks({2: 0})
    plain = pa.table(
        {
            "block_number": pa.array([2, 2, 2], pa.int64()),
            "transaction_index": pa.array([0, 1, 2], pa.int64()),
            "transaction_hash": [H[5], H[6], "0x" + "11" * 32],
            "eth_hash": [H[7], H[8], "0x" + "33" * 32],
        }
    )
    staking = plain.slice(0, 0).drop_columns(["eth_hash"])
    with pytest.raises(
        InconsistentAnswerError, match=rf"logs of shard 0 block 2: log 0 names block hash 0x2222.*{H[2]}"
    ):
        check_logs(logs, blocks, plain, staking, 0)
    fixed = logs.set_column(1, "block_hash", pa.array([H[2]]))
    assert check_logs(fixed, blocks, plain, staking, 0) == (["0x" + "11" * 32], ["0x" + "33" * 32])
    with pytest.raises(InconsistentAnswerError, match="not asked for"):
        check_logs(fixed, _blocks({3: 0}), plain, staking, 0)


# --------------------------------------------------------------------------- plans and fallbacks


def _request(first: int, last: int, state: dict[str, Any] | None = None, **kw: Any) -> src.ChunkRequest:
    return src.ChunkRequest(
        first=first,
        last=last,
        detail=frozenset(),
        rpc=Methods(None, 2),  # type: ignore[arg-type]
        blocks_per_request=kw.pop("per_request", 100),
        strategy="range",
        state=state or {},
        **kw,
    )


def test_getlogs_spans_keep_to_the_node_cap_and_halve_on_too_many_results() -> None:
    pieces = src._plan_logs(_request(0, 2999))
    params = [p.calls[0].params[0] for p in pieces]
    assert [p.calls[0].method for p in pieces] == ["hmy_getLogs"] * 3
    assert params[0] == {"fromBlock": "0x0", "toBlock": hex(1023)}
    assert all(int(q["toBlock"], 16) - int(q["fromBlock"], 16) < 1024 for q in params)
    too_many = RpcError(-32005, "query returned more than 10000 results", method="hmy_getLogs")
    assert src._logs_fallback({}, too_many) == {"logs_span": 512}
    assert src._logs_fallback({"logs_span": 512}, ResponseTooLargeError("answer over 64 MiB")) == {
        "logs_span": 256
    }
    assert src._logs_fallback({"logs_span": 1}, too_many) is None
    short = RpcError(
        -32005, "too many results", method="hmy_getLogs", params=[{"fromBlock": "0x14", "toBlock": "0x27"}]
    )
    assert src._logs_fallback({}, short) == {"logs_span": 10}  # half the 20 blocks refused
    assert src._logs_fallback({}, RateLimitError("rate: Wait(n=1) would exceed context deadline")) is None
    assert (
        src._logs_fallback({}, MethodNotFoundError(-32601, "the method hmy_getLogs does not exist")) is None
    )
    assert len(src._plan_logs(_request(0, 2999, {"logs_span": 512}))) == 6


def test_receipts_are_asked_per_block_then_per_transaction_on_a_node_without_the_block_method() -> None:
    needed = {
        "blocks": _blocks({1: 30, 2: 0, 3: 5}),
        "transactions": _txs([(1, TX_A), (1, TX_B)]),
        "staking_transactions": _txs([(3, TX_S)]),
    }
    pieces = src._plan_receipts(_request(1, 3, needed=needed))
    assert [(c.method, c.params) for p in pieces for c in p.calls] == [
        ("hmyv2_getBlockReceipts", (H[1],)),
        ("hmyv2_getBlockReceipts", (H[3],)),
    ]
    state = src._receipts_fallback({}, MethodNotFoundError(-32601, "no getBlockReceipts"))
    assert state == {"receipts_by": "tx"}
    assert src._receipts_fallback(state, MethodNotFoundError(-32601, "no getTransactionReceipt")) is None
    pieces = src._plan_receipts(_request(1, 3, dict(state), needed=needed, per_request=2))
    assert [(p.first, p.last) for p in pieces] == [(1, 2), (3, 3)]
    assert [c.params[0] for p in pieces for c in p.calls] == [TX_A, TX_B, TX_S]
    assert {c.method for p in pieces for c in p.calls} == {"hmyv2_getTransactionReceipt"}


def test_decoders_reject_a_wrong_shape_naming_the_payload() -> None:
    with pytest.raises(ResponseShapeError, match=r"logs: field 'payload\[1\]'"):
        decode_logs([b"[]", b'{"a": 1}'])
    with pytest.raises(ResponseShapeError, match=r"receipts: field 'payload\[0\]"):
        decode_receipts([b"[1]"])
