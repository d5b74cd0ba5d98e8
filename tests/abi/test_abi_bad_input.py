"""Bad input: a log (or call) that matches an event's topic (function's selector) but not its ABI is
listed in ``attrs["undecoded"]`` with its position and reason: never a crash, never a wrong row.
Each table below mixes good rows with one bad row; the good rows must decode exactly as when
alone."""

from __future__ import annotations

from typing import Any

import eth_abi
import pandas as pd
import pyarrow as pa
import pytest
from abi_tables import logs_table

from hmyframe.abi import decode, decode_calls, decode_logs, event_topic, function_selector
from hmyframe.amounts import Int256Dtype, Uint256Dtype
from hmyframe.errors import AbiDecodeError, AddressError, ConfigError, HmyframeError

SWAP = "Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)"
SWAP_TOPIC = event_topic("Swap(address,uint256,uint256,uint256,uint256,address)")
ALICE = "0x" + "a1" * 20
BOB = "0x" + "b0" * 20


def topic(address: str) -> str:
    return "0x" + "00" * 12 + address[2:]


def log(topics: list[str], data: str | bytes, index: int, block: int = 9) -> dict[str, Any]:
    text = data if isinstance(data, str) else "0x" + data.hex()
    return {
        "block_number": block,
        "transaction_hash": f"0x{index:064x}",
        "log_index": index,
        "address": "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz",
        "address_hex": "0x" + "00" * 20,
        **{f"topic{k}": (topics[k] if k < len(topics) else None) for k in range(4)},
        "topic_count": len(topics),
        "data": text,
    }


def good_swap(index: int) -> dict[str, Any]:
    amounts = [index, 2**200 + index, 0, 2**256 - 1 - index]
    return log([SWAP_TOPIC, topic(ALICE), topic(BOB)], eth_abi.encode(["uint256"] * 4, amounts), index)


def check_good_rows(frame: pd.DataFrame, indices: list[int]) -> None:
    assert frame["log_index"].tolist() == indices
    assert frame["amount1In"].tolist() == [2**200 + i for i in indices]
    assert frame["amount1Out"].tolist() == [2**256 - 1 - i for i in indices]
    assert frame["sender_hex"].tolist() == [ALICE] * len(indices)
    assert frame["to_hex"].tolist() == [BOB] * len(indices)


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (
            log([SWAP_TOPIC, topic(ALICE), topic(BOB)], "0x" + "00" * 96, 1),
            "data is 96 bytes; the arguments take 128",
        ),
        (
            log([SWAP_TOPIC, topic(ALICE), topic(BOB)], "0x" + "00" * 160, 1),
            "data is 160 bytes; the arguments take 128",
        ),
        (log([SWAP_TOPIC, topic(ALICE), topic(BOB)], "0x", 1), "data is 0 bytes"),
        (log([SWAP_TOPIC, topic(ALICE)], "0x" + "00" * 128, 1), "the log has 2 topics; the event has 3"),
        (
            log([SWAP_TOPIC, topic(ALICE), topic(BOB), topic(BOB)], "0x" + "00" * 128, 1),
            r"the log has 4 topics; the event has 3 \(topic0 and 2 indexed arguments\)",
        ),
        (
            log([SWAP_TOPIC, "0x" + "ff" * 32, topic(BOB)], "0x" + "00" * 128, 1),
            "argument sender: 0xffff.* is not an address \\(its first 12 bytes are not zero\\)",
        ),
        (
            log([SWAP_TOPIC, topic(ALICE), "0x1234"], "0x" + "00" * 128, 1),
            "topic of argument to is not a 32-byte hash",
        ),
        (log([SWAP_TOPIC, topic(ALICE), topic(BOB)], "0x" + "zz" * 128, 1), "data is not 0x hex"),
    ],
)
def test_a_swap_log_that_does_not_fit_the_abi_is_listed_not_decoded(bad: dict[str, Any], reason: str) -> None:
    frame = decode_logs(logs_table([good_swap(0), bad, good_swap(2)]), SWAP)
    check_good_rows(frame, [0, 2])
    (entry,) = frame.attrs["undecoded"]
    assert entry["block_number"] == 9
    assert entry["log_index"] == 1
    assert entry["transaction_hash"] == f"0x{1:064x}"
    assert entry["address"] == "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz"
    assert pd.Series([entry["reason"]]).str.contains(reason).all(), entry["reason"]


@pytest.mark.parametrize(
    ("signature", "good_word", "word", "reason"),
    [
        ("Flag(bool on)", 1, 2, r"argument on: 0x0+02 is not a bool \(0 or 1\)"),
        ("Small(uint8 x)", 255, 256, r"argument x: 0x100 is out of range for uint8"),
        (
            "Small(uint112 reserve)",
            2**112 - 1,
            2**112,
            r"argument reserve: 0x1(0){28} is out of range for uint112",
        ),
        ("Signed(int8 x)", 2**256 - 128, 128, r"argument x: 0x0+80 is not a sign-extended int8"),
        ("Signed(int8 x)", 127, 2**256 - 129, r"argument x: 0xf+7f is not a sign-extended int8"),
        (
            "Who(address a)",
            2**160 - 1,
            2**160,
            r"argument a: 0x0+10+ is not an address \(its first 12 bytes are not zero\)",
        ),
        ("Code(bytes2 c)", 2**255, 1, r"argument c: 0x0+1 is not a bytes2 \(non-zero padding\)"),
    ],
)
def test_a_value_out_of_range_for_its_type_is_listed(
    signature: str, good_word: int, word: int, reason: str
) -> None:
    arg = signature.split("(")[1].split()[0]
    topic0 = event_topic(f"{signature.split('(')[0]}({arg})")
    rows = [
        log([topic0], good_word.to_bytes(32, "big"), 0),
        log([topic0], word.to_bytes(32, "big"), 1),
    ]
    frame = decode_logs(logs_table(rows), signature)
    assert len(frame) == 1
    assert frame["log_index"].tolist() == [0]
    (entry,) = frame.attrs["undecoded"]
    assert entry["log_index"] == 1
    assert pd.Series([entry["reason"]]).str.fullmatch(reason).all(), entry["reason"]
    # the general decoder refuses the same word, as eth-abi refuses it
    with pytest.raises(AbiDecodeError):
        decode([arg], word.to_bytes(32, "big"))
    with pytest.raises(eth_abi.exceptions.DecodingError):
        eth_abi.decode([arg], word.to_bytes(32, "big"))


def test_the_good_value_of_each_of_those_types_decodes() -> None:
    rows = [log([event_topic("Signed(int8)")], (2**256 - 128).to_bytes(32, "big"), 0)]
    signed = decode_logs(logs_table(rows), "Signed(int8 x)")
    assert signed["x"].tolist() == [-128]
    assert signed["x"].dtype == Int256Dtype()  # every intN: the exact int256 dtype
    rows = [log([event_topic("Small(uint8)")], (255).to_bytes(32, "big"), 0)]
    assert (
        decode_logs(logs_table(rows), "Small(uint8 x)")["x"].dtype == Uint256Dtype()
    )  # every uintN: uint256
    rows = [log([event_topic("Code(bytes2)")], bytes.fromhex("beef") + bytes(30), 0)]
    assert decode_logs(logs_table(rows), "Code(bytes2 c)")["c"].tolist() == ["0xbeef"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            eth_abi.encode(["string"], ["ok"])[:64],
            r"argument text: data too short: string of 2 bytes at byte 64 needs 96 bytes, has 64",
        ),
        (
            (2**200).to_bytes(32, "big") + bytes(64),
            r"argument text: offset \d+ points to byte \d+, outside the tail \(bytes 32 .. 95\)",
        ),
        (
            (0).to_bytes(32, "big") + bytes(64),
            r"argument text: offset 0 points to byte 0, outside the tail \(bytes 32 .. 95\)",
        ),
        (
            eth_abi.encode(["bytes"], [b"\xff\xfe"]),
            r"argument text: string is not UTF-8 \(invalid start byte at byte 0\)",
        ),
        (
            eth_abi.encode(["string"], ["ok"])[:-1] + b"\x01",
            r"argument text: non-zero padding after the string's 2 bytes",
        ),
        (b"", r"argument text: data too short: the offset at byte 0 needs 32 bytes, has 0"),
    ],
)
def test_dynamic_data_that_does_not_decode_is_listed(data: bytes, reason: str) -> None:
    topic0 = event_topic("Said(string)")
    rows = [log([topic0], eth_abi.encode(["string"], ["héllo"]), 0), log([topic0], data, 1)]
    frame = decode_logs(logs_table(rows), "Said(string text)")
    assert frame["text"].tolist() == ["héllo"]
    (entry,) = frame.attrs["undecoded"]
    assert entry["log_index"] == 1
    assert pd.Series([entry["reason"]]).str.fullmatch(reason).all(), entry["reason"]


def test_an_array_longer_than_its_data_is_refused_before_anything_is_made() -> None:
    topic0 = event_topic("Ids(uint256[])")
    huge = (32).to_bytes(32, "big") + (2**255).to_bytes(32, "big")
    frame = decode_logs(logs_table([log([topic0], huge, 0)]), "Ids(uint256[] ids)")
    assert frame.empty
    assert (
        "an array of 57896044618658097711785492504343953926634992332820282019728792003956564819968 elements"
        in (frame.attrs["undecoded"][0]["reason"])
    )


def test_calls_that_do_not_decode_are_listed_and_short_inputs_are_not_calls() -> None:
    selector = function_selector("transfer(address,uint256)")
    good = selector + eth_abi.encode(["address", "uint256"], [ALICE, 5]).hex()
    rows = pd.DataFrame(
        {
            "block_number": [1, 1, 2, 2, 3],
            "transaction_hash": [f"0x{i:064x}" for i in range(5)],
            "to_address_hex": [BOB] * 5,
            "input": [
                good,
                selector + "00" * 40,  # too short for the arguments
                good + "c0ffee",  # trailing bytes: allowed, as the EVM allows them
                "0x1234",  # not even a selector: not a call of any function
                "0xdeadbeef" + "00" * 64,  # a selector the ABI does not have
            ],
        }
    )
    frame = decode_calls(rows, "hrc20", function="transfer")
    assert frame["transaction_hash"].tolist() == [f"0x{0:064x}", f"0x{2:064x}"]
    assert frame["to_hex"].tolist() == [ALICE, ALICE]
    assert frame["value"].tolist() == [5, 5]
    (entry,) = frame.attrs["undecoded"]
    assert entry["transaction_hash"] == f"0x{1:064x}"
    assert entry["reason"] == "input too short: 40 bytes; the arguments take 64"
    assert frame.attrs["unknown_selectors"] == [{"selector": "0xdeadbeef", "calls": 1}]
    assert frame.attrs["selector"] == selector


def test_bad_arguments_to_the_decoders_are_one_line_errors() -> None:
    with pytest.raises(
        ConfigError, match="the logs table lacks topic_count, data: expected the logs dataset"
    ):
        decode_logs(
            pa.table(
                {
                    "topic0": ["0x"],
                    "topic1": [None],
                    "topic2": [None],
                    "topic3": [None],
                    "address_hex": ["0x"],
                }
            ),
            SWAP,
        )
    with pytest.raises(ConfigError, match="expected the logs dataset as a DataFrame or pyarrow Table, got 5"):
        decode_logs(5, SWAP)
    with pytest.raises(AddressError, match="invalid address 'one1nope'"):
        decode_logs(logs_table([good_swap(0)]), SWAP, address="one1nope")
    with pytest.raises(ConfigError, match="output must be one of"):
        decode_logs(logs_table([good_swap(0)]), SWAP, output="excel")  # type: ignore[arg-type]
    with pytest.raises(AbiDecodeError, match="data is not hex") as info:
        decode(["uint256"], "0xzz")
    assert isinstance(info.value, HmyframeError)


def test_slices_of_a_long_table_decode_as_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    import hmyframe.abi._decode as decoding

    rows = [good_swap(i) for i in range(8)]
    rows[1] = log([SWAP_TOPIC, topic(ALICE), topic(BOB)], "0x" + "00" * 96, 1)
    rows[5] = log([SWAP_TOPIC, "0x" + "ff" * 32, topic(BOB)], "0x" + "00" * 128, 5)
    whole = decode_logs(logs_table(rows), SWAP)
    monkeypatch.setattr(decoding, "_SLICE", 3)  # slices 0-2, 3-5, 6-7
    sliced = decode_logs(logs_table(rows), SWAP)
    pd.testing.assert_frame_equal(sliced, whole, check_exact=True)
    assert sliced.attrs["undecoded"] == whole.attrs["undecoded"]
    check_good_rows(sliced, [0, 2, 3, 4, 6, 7])
    assert [(u["log_index"], u["reason"][:12]) for u in sliced.attrs["undecoded"]] == [
        (1, "data is 96 b"),
        (5, "argument sen"),
    ]
