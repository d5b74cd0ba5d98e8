"""The ``tokens`` dataset's decoding of call answers: strings, bytes32, reverts, missing functions,
malformed data, and the one-line errors for answers that are not call answers at all."""

from __future__ import annotations

import pytest
from ds_helpers import TOKEN, abi_string, as_bytes, token_answers
from hypothesis import given
from hypothesis import strategies as st

from hmyframe.addresses import to_one
from hmyframe.datasets import DATASETS, ConvertContext
from hmyframe.errors import AddressError, ConfigError, ResponseShapeError

TOKENS = DATASETS["tokens"]
FUNCTIONS = ("getCode", "name", "symbol", "decimals", "totalSupply")


def row(*answers: object, address: str = TOKEN, block: int = 7) -> dict[str, object]:
    """The one row of five answers (getCode, name, symbol, decimals, totalSupply)."""
    calls = [(address, block, f) for f in FUNCTIONS]
    (only,) = TOKENS.convert(
        [as_bytes(a) for a in answers], ConvertContext(shard_id=1, token_calls=calls)
    ).to_pylist()
    return only


def word(n: int) -> str:
    return "0x" + n.to_bytes(32, "big").hex()


def revert(message: str, code: int = 3) -> dict[str, object]:
    return {"error": {"code": code, "message": message}}


def test_a_complete_token_row() -> None:
    payloads, calls = token_answers()
    (r,) = TOKENS.convert(payloads, ConvertContext(shard_id=2, token_calls=calls)).to_pylist()
    assert r == {
        "address": to_one(TOKEN),
        "address_hex": TOKEN,
        "block_number": 7,
        "shard_id": 2,
        "name": "Sample Token",
        "symbol": "SMPL",
        "decimals": 18,
        "total_supply": str(2**200 + 1),
        "is_contract": True,
        "reason": None,
    }


def test_reverts_missing_functions_and_non_utf8() -> None:
    r = row(
        "0x60",
        revert("execution reverted: name is disabled"),
        abi_string(b"Caf\xe9"),
        "0x",
        revert("execution reverted"),
    )
    assert (r["name"], r["symbol"], r["decimals"], r["total_supply"]) == (None, None, None, None)
    assert r["reason"] == (
        "name() reverted: name is disabled; symbol not UTF-8; decimals() missing; totalSupply() reverted"
    )
    assert r["is_contract"] is True


def test_no_code_gives_one_reason() -> None:
    r = row("0x", "0x", "0x", "0x", "0x")
    assert r["is_contract"] is False
    assert r["reason"] == "no contract code"
    assert r["name"] is None
    assert r["total_supply"] is None


def test_malformed_answers_are_reasons_not_errors() -> None:
    bad_offset = "0x" + (999).to_bytes(32, "big").hex() + (3).to_bytes(32, "big").hex()
    too_long = "0x" + (32).to_bytes(32, "big").hex() + (99).to_bytes(32, "big").hex() + "61" * 32
    r = row("0x60", bad_offset, too_long, word(256), "0x0102")
    assert r["reason"] == (
        "name() returned 64 bytes, neither an ABI string nor a bytes32; "
        "symbol() returned 96 bytes, neither an ABI string nor a bytes32; "
        "decimals() out of range: 256; totalSupply() returned 2 bytes, not a uint256"
    )


def test_other_error_codes_are_named_and_a_missing_getcode_leaves_is_contract_null() -> None:
    r = row(
        revert("the method hmy_getCode does not exist", -32601),
        abi_string(b"T"),
        abi_string(b""),
        word(0),
        word(0),
    )
    assert r["is_contract"] is None
    assert (r["name"], r["symbol"], r["decimals"], r["total_supply"], r["reason"]) == ("T", "", 0, "0", None)
    r = row("0x60", revert("out of gas", -32000), abi_string(b"S"), word(1), word(1))
    assert r["reason"] == "name() failed: [-32000] out of gas"


def test_bytes32_is_stripped_of_its_right_padding() -> None:
    r = row(
        "0x60",
        "0x" + b"Maker".ljust(32, b"\0").hex(),
        "0x" + b"MKR".ljust(32, b"\0").hex(),
        word(18),
        word(5),
    )
    assert (r["name"], r["symbol"]) == ("Maker", "MKR")


@given(st.binary(max_size=100), st.integers(0, 2**256 - 1))
def test_any_abi_string_and_uint256_round_trip(text: bytes, supply: int) -> None:
    r = row("0x60", abi_string(text), abi_string(text), word(supply % 256), word(supply))
    assert r["total_supply"] == str(supply)
    assert r["decimals"] == supply % 256
    try:
        expected = text.decode("utf-8")
    except UnicodeDecodeError:
        assert r["name"] is None
        assert r["reason"] == "name not UTF-8; symbol not UTF-8"
    else:
        assert r["name"] == r["symbol"] == expected
        assert r["reason"] is None


def test_rows_are_the_distinct_address_block_pairs() -> None:
    calls = [(a, b, f) for a, b in ((TOKEN, 5), (to_one(TOKEN), 6)) for f in FUNCTIONS]
    answers = ["0x60", abi_string(b"A"), abi_string(b"B"), word(1), word(2)] * 2
    table = TOKENS.convert([as_bytes(a) for a in answers], ConvertContext(shard_id=0, token_calls=calls))
    assert table["block_number"].to_pylist() == [5, 6]
    assert set(table["address_hex"].to_pylist()) == {TOKEN}


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b'"0x123"', r"tokens: field 'payload\[0\]' has '0x123'; expected 0x hex bytes"),
        (b'"0xzz"', r"'0xzz'"),
        (b"12", r"payload\[0\].*12"),
        (b'{"error": {"code": "3"}}', r"payload\[0\]"),
    ],
)
def test_answers_that_are_not_call_answers_are_named(payload: bytes, message: str) -> None:
    with pytest.raises(ResponseShapeError, match=message):
        TOKENS.convert([payload], ConvertContext(shard_id=0, token_calls=[(TOKEN, 1, "name")]))


def test_bad_contexts_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match=r"token_calls must give one .* \(1 payloads, none given\)"):
        TOKENS.convert([b'"0x"'], ConvertContext(shard_id=0))
    with pytest.raises(ConfigError, match=r"token_calls\[0\] must be .*'balanceOf'"):
        TOKENS.convert([b'"0x"'], ConvertContext(shard_id=0, token_calls=[(TOKEN, 1, "balanceOf")]))
    with pytest.raises(ConfigError, match=r"token_calls\[0\] must be .*-1"):
        TOKENS.convert([b'"0x"'], ConvertContext(shard_id=0, token_calls=[(TOKEN, -1, "name")]))
    with pytest.raises(AddressError, match="one1bad"):
        TOKENS.convert([b'"0x"'], ConvertContext(shard_id=0, token_calls=[("one1bad", 1, "name")]))
