"""Exact JSON decoding shared by the package (hmyframe._json)."""

from __future__ import annotations

from decimal import Decimal

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmyframe import _json
from hmyframe.errors import ConfigError, ResponseShapeError


def test_big_integers_stay_exact() -> None:
    value = _json.decode(
        b'{"value": 100000000000000000000000000, "neg": -340282366920938463463374607431768211457}'
    )
    assert value["value"] == 10**26
    assert type(value["value"]) is int
    assert value["neg"] == -(2**128) - 1


def test_exponent_floats_decode_as_exact_decimal() -> None:
    value = _json.decode(b'{"amount": 3.46e+19, "rate": 0.1, "small": 1e-18}')
    assert value["amount"] == Decimal("3.46E+19")
    assert int(value["amount"]) == 34600000000000000000
    assert value["rate"] == Decimal("0.1")
    assert value["small"] == Decimal("1E-18")


def test_invalid_json_is_a_shape_error_naming_what() -> None:
    with pytest.raises(ResponseShapeError, match=r"hmyv2_getBlocks.*valid JSON"):
        _json.decode(b'{"result": [1, 2', what="hmyv2_getBlocks")


class _Tx(msgspec.Struct):
    hash: str
    value: int


def test_decode_as_validates_and_names_the_path() -> None:
    txs = _json.decode_as(b'[{"hash":"0x1","value":100000000000000000000000}]', list[_Tx])
    assert txs[0].value == 10**23
    with pytest.raises(ResponseShapeError) as info:
        _json.decode_as(b'[{"hash":"0x1","value":"12"}]', _json.decoder(list[_Tx]), what="transactions")
    assert info.value.field == "$[0].value"
    assert "transactions" in str(info.value)


def test_encode_keeps_big_ints_and_decimals_exact() -> None:
    assert _json.encode([2**100, Decimal("3.46E+19")]) == b"[1267650600228229401496703205376,3.46E+19]"


def test_encode_rejects_unencodable_values() -> None:
    with pytest.raises(ConfigError, match="object"):
        _json.encode([object()])


@given(st.integers(min_value=-(2**300), max_value=2**300))
def test_integer_round_trip_is_exact(n: int) -> None:
    assert _json.decode(_json.encode({"n": n}))["n"] == n
