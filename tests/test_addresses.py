"""one1 <-> 0x: the notes' vectors, errors with reasons, and the vectorised path against the scalar one."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hmyframe.addresses as addresses
from hmyframe.addresses import (
    ZERO_ADDRESS_HEX,
    ZERO_ADDRESS_ONE,
    is_address,
    normalize_many,
    to_hex,
    to_hex_many,
    to_one,
    to_one_many,
)
from hmyframe.errors import AddressError, ConfigError

# notes §5 (pyhmy tests, pyhmy README, docs, harmony-test block miner, pyhmy conftest)
VECTORS = [
    ("0xebcd16e8c1d8f493ba04e99a56474122d81a9c58", "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9"),
    ("0xA5241513DA9F4463F1d4874b548dFBAC29D91f34", "one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3"),
    ("0x0B585F8DaEfBC68a311FbD4cB20d9174aD174016", "one1pdv9lrdwl0rg5vglh4xtyrv3wjk3wsqket7zxy"),
    ("0x0000000000000000000000000000000000000000", "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqquzw7vz"),
    ("0x1f2213a52f7409ff4f103458e6d202e0b3aa805a", "one1ru3p8ff0wsyl7ncsx3vwd5szuze64qz60upg37"),
]
CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


@pytest.mark.parametrize(("hex_", "one"), VECTORS)
def test_vectors_both_ways(hex_, one):
    assert to_one(hex_) == one
    assert to_hex(one) == hex_.lower()
    assert to_hex(hex_) == hex_.lower()
    assert to_one(one) == one
    assert to_one(one.upper()) == one  # all-upper-case bech32 is valid
    assert is_address(hex_)
    assert is_address(one)


def test_zero_address_constants():
    assert to_one(ZERO_ADDRESS_HEX) == ZERO_ADDRESS_ONE
    assert to_hex(ZERO_ADDRESS_ONE) == ZERO_ADDRESS_HEX


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv8", "bad bech32 checksum"),
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvvb", "bad character 'b' at position 41"),
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvvo", "bad character 'o'"),
        ("One1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "mixed upper and lower case"),
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswv", "bad bech32 checksum"),
        ("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", "wrong human-readable part 'bc'"),
        ("one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqgz2lez", "wrong length"),  # valid checksum, 25 bytes
        ("0x1234", "wrong length: 4 hex digits"),
        ("0xzz2213a52f7409ff4f103458e6d202e0b3aa805a", "bad character 'z' in hex address"),
        ("ebcd16e8c1d8f493ba04e99a56474122d81a9c58", "without the 0x prefix"),
        ("hello", "neither a one1 bech32 address nor a 0x hex address"),
        ("one1", "too short"),
        ("", "empty string"),
        ("oné1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "non-ASCII"),
    ],
)
def test_bad_addresses_name_value_and_reason(text, reason):
    with pytest.raises(AddressError) as info:
        to_hex(text)
    assert reason in info.value.reason
    assert info.value.value == text
    assert repr(text)[:40] in str(info.value)
    assert isinstance(info.value, ConfigError)
    assert not is_address(text)
    if text:  # "" passes through the bulk functions as None (contract creation "to")
        with pytest.raises(AddressError, match="invalid address"):
            to_hex_many([VECTORS[0][1]] * 3 + [text])


def test_wrong_length_vector_really_has_a_valid_checksum():
    # the bech32 string above encodes 25 bytes with a correct checksum: the length check is what fails
    data = addresses._regroup(bytes(25), 8, 5, pad=True)
    assert data is not None
    chk = addresses._polymod([*addresses._hrp_expand("one"), *data, 0, 0, 0, 0, 0, 0]) ^ 1
    text = (
        "one1"
        + "".join(CHARSET[d] for d in data)
        + "".join(CHARSET[(chk >> 5 * (5 - i)) & 31] for i in range(6))
    )
    assert text == "one1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqgz2lez"


def test_non_strings():
    for value in (None, 5, b"one1", ["one1"]):
        assert not is_address(value)
        with pytest.raises(AddressError, match="expected a string"):
            to_hex(value)  # type: ignore[arg-type]
    with pytest.raises(AddressError, match="expected a string, got int"):
        to_hex_many(["one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", 7])  # type: ignore[list-item]


def test_many_passes_none_and_empty_through_and_keeps_order():
    values = [VECTORS[1][1], None, "", VECTORS[0][0], VECTORS[1][1]]
    assert to_hex_many(values) == [VECTORS[1][0].lower(), None, None, VECTORS[0][0], VECTORS[1][0].lower()]
    assert to_one_many(values) == [VECTORS[1][1], None, None, VECTORS[0][1], VECTORS[1][1]]
    ones, hexes = normalize_many(values)
    assert ones == to_one_many(values)
    assert hexes == to_hex_many(values)
    assert to_hex_many([]) == []


def _random_raw(n: int, seed: int) -> list[bytes]:
    rnd = random.Random(seed)
    return [rnd.randbytes(20) for _ in range(n)]


def test_vectorised_path_equals_scalar_path():
    raws = _random_raw(3000, 1)
    hexes = ["0x" + r.hex() for r in raws]
    ones = [addresses._encode_one(r) for r in raws]
    mixed = [h.upper().replace("0X", "0x") if i % 3 == 0 else h for i, h in enumerate(hexes)]
    assert len(set(ones)) > addresses._VECTOR_MIN  # really the numpy path
    assert to_one_many(mixed) == ones
    assert to_hex_many(ones) == hexes
    assert to_hex_many([o.upper() for o in ones]) == hexes
    half = ones[:1500] + hexes[1500:]
    assert normalize_many(half) == (ones, hexes)
    # and each agrees with the scalar codec
    assert [to_hex(o) for o in ones[:200]] == hexes[:200]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv8", "bad bech32 checksum"),
        ("One1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "mixed upper and lower case"),
        ("0xzz2213a52f7409ff4f103458e6d202e0b3aa805a", "bad character 'z'"),
        ("two1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "wrong human-readable part 'two'"),
        ("one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv\x19", "bad character '\\x19'"),
    ],
)
def test_vectorised_path_reports_the_bad_value(bad, reason):
    """Also: control characters must not be folded into valid bech32 characters."""
    ones = [addresses._encode_one(r) for r in _random_raw(200, 2)]
    with pytest.raises(AddressError) as info:
        to_hex_many([*ones[:100], bad, *ones[100:]])
    assert info.value.value == bad
    assert reason in info.value.reason


raw20 = st.binary(min_size=20, max_size=20)


@settings(max_examples=200, deadline=None)
@given(raw20)
def test_round_trip_property(raw):
    one = to_one("0x" + raw.hex())
    assert one.startswith("one1")
    assert len(one) == 42
    assert to_hex(one) == "0x" + raw.hex()


@settings(max_examples=300, deadline=None)
@given(raw20, st.integers(4, 41), st.integers(1, 31))
def test_any_single_character_substitution_is_detected(raw, pos, shift):
    one = to_one("0x" + raw.hex())
    new_char = CHARSET[(CHARSET.index(one[pos]) + shift) % 32]
    mutated = one[:pos] + new_char + one[pos + 1 :]
    with pytest.raises(AddressError, match="checksum"):
        to_hex(mutated)
    many = [to_one("0x" + r.hex()) for r in _random_raw(60, pos)] + [mutated]
    with pytest.raises(AddressError, match="checksum"):
        to_hex_many(many)
