"""The column builders' bulk paths give exactly what their row-by-row paths give.

Every builder in ``hmyframe.datasets._convert`` first tries a bulk path (pyarrow and numpy over
whole columns) and falls back to a row-by-row path, which is also the one that names a bad
value. Here both run on the same inputs (the bulk path switched off by monkeypatching) and must
agree on the array or on the error; and the float ONE column must equal Python's correctly
rounded ``atto / 10**18`` for every value, including those within a hair of a halfway point.
"""

from __future__ import annotations

import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmyframe.addresses import to_hex, to_one
from hmyframe.datasets import _convert
from hmyframe.datasets._convert import (
    Where,
    address_arrays,
    amount_array,
    bool_array,
    dec_amount_array,
    hash_array,
    hex_data_array,
    int_array,
    one_float_array,
    ratio_arrays,
    string_array,
    timestamp_array,
)
from hmyframe.errors import ResponseShapeError

WHERE = Where("t", lambda i: f"row[{i}]")
ATTO = 10**18
BULK = ("_int_words", "_strings", "_address_bulk")


def _outcome(build: Any, values: list[Any], **kw: Any) -> object:
    try:
        out = build(list(values), WHERE, "f", **kw)
    except ResponseShapeError as exc:
        return ("error", exc.field, exc.expected, str(exc))
    arrays = out if isinstance(out, tuple) else (out,)
    return [(a.type, _plain(a).to_pylist()) for a in arrays]


def _plain(a: pa.Array) -> pa.Array:
    return a.cast(pa.int64()) if pa.types.is_timestamp(a.type) else a  # years past 9999 are fine here


def _both(build: Any, values: list[Any], **kw: Any) -> tuple[object, object]:
    bulk = _outcome(build, values, **kw)
    with pytest.MonkeyPatch.context() as m:
        for name in BULK:
            m.setattr(_convert, name, lambda *a, **k: None)
        rows = _outcome(build, values, **kw)
    return bulk, rows


ints = st.one_of(
    st.integers(-5, 2**70),
    st.sampled_from([0, 2**31 - 1, 2**31, 2**63 - 1, 2**63, 2**64, 10**38 - 1, 10**38, 2**128]),
)
quantities = st.one_of(
    ints,
    st.none(),
    st.booleans(),
    st.sampled_from(["0x1f", "0x", "12", "x", "", Decimal("1.5"), Decimal("3.46E+19"), Decimal("2"), [1]]),
    st.integers(0, 2**140).map(hex),
    st.sampled_from(["0X1F", "0x00ff", "0x" + "f" * 32, "0x" + "0" * 33 + "1", "0x1g", "0x 1", "0xé"]),
)
RAW = [random.Random(7).randbytes(20) for _ in range(6)]
ADDRESSES = [to_one("0x" + r.hex()) for r in RAW] + ["0x" + r.hex() for r in RAW]
addresses = st.one_of(
    st.sampled_from(ADDRESSES),
    st.sampled_from(
        [
            "",
            None,
            "0x" + RAW[0].hex().upper(),
            to_one("0x" + RAW[1].hex()).upper(),
            to_one("0x" + RAW[1].hex())[:-1] + "q",  # bad checksum
            "0x" + "g" * 40,
            "one1" + "é" * 38,
            7,
        ]
    ),
)
hashes = st.one_of(
    st.sampled_from(["0x" + "ab" * 32, "0x" + "AB" * 32, "0x" + "0" * 64, "0x" + "1" * 63, "0x" + "zz" * 32]),
    st.none(),
    st.just(5),
)
hex_data = st.one_of(
    st.sampled_from(["0x", "0x12", "0xABcd", "12", "0xg", "0X12", "0x 1"]), st.none(), st.just(1)
)
texts = st.one_of(st.text(max_size=5), st.none(), st.just(3), st.booleans())
flags = st.one_of(st.booleans(), st.none(), st.just(1), st.just("true"))


@settings(max_examples=300, deadline=None)
@given(st.lists(quantities, max_size=8), st.booleans(), st.sampled_from([pa.int64(), pa.int32()]))
def test_int_columns_agree(values, required, type_):
    bulk, rows = _both(int_array, values, required=required, type_=type_)
    assert bulk == rows


@settings(max_examples=300, deadline=None)
@given(st.lists(quantities, max_size=8), st.booleans())
def test_amount_and_timestamp_columns_agree(values, required):
    for build in (amount_array, timestamp_array):
        bulk, rows = _both(build, values, required=required)
        assert bulk == rows


@settings(max_examples=300, deadline=None)
@given(st.lists(addresses, max_size=8), st.booleans())
def test_address_columns_agree(values, required):
    bulk, rows = _both(address_arrays, values, required=required)
    assert bulk == rows


@settings(max_examples=200, deadline=None)
@given(st.lists(hashes, max_size=6), st.booleans(), st.booleans())
def test_hash_columns_agree(values, required, zero_is_null):
    bulk, rows = _both(hash_array, values, required=required, zero_is_null=zero_is_null)
    assert bulk == rows


@settings(max_examples=200, deadline=None)
@given(
    st.lists(hex_data, max_size=6), st.lists(texts, max_size=6), st.lists(flags, max_size=6), st.booleans()
)
def test_text_columns_agree(data, strings, bools, required):
    assert len({str(x) for x in _both(hex_data_array, data, required=required)}) == 1
    assert len({str(x) for x in _both(string_array, strings, required=required)}) == 1
    assert len({str(x) for x in _both(bool_array, bools, required=required)}) == 1


def test_address_column_of_many_repeats_keeps_row_order():
    values = [ADDRESSES[i % 5] for i in range(1000)] + [None, ""]
    ones, hexes = address_arrays(values, WHERE, "f")
    assert ones.to_pylist() == [to_one(v) for v in values[:-2]] + [None, None]
    assert hexes.to_pylist() == [to_hex(v) for v in values[:-2]] + [None, None]


def _near_halfway(rnd: random.Random, count: int) -> list[int]:
    """Atto amounts whose ONE value lies within a hair of a point halfway between two floats."""
    out: list[int] = []
    for _ in range(count):
        d = rnd.uniform(1e-6, 1e20) * rnd.choice([1.0, 2.0**-30, 1.0])
        halfway = (Fraction(d) + Fraction(float(np.nextafter(d, np.inf)))) / 2
        exact = halfway * ATTO
        offset = rnd.choice([0, 1, -1, 2 ** rnd.randint(0, 40), -(2 ** rnd.randint(0, 40))])
        v = int(exact) + offset
        if 0 <= v < 10**38:
            out.append(v)
    return out


def test_one_floats_are_correctly_rounded_everywhere():
    rnd = random.Random(3)
    values: list[int | None] = [0, 1, 10**18, 2**53, 2**64 - 1, 2**64, 10**38 - 1, None]
    values += [2**k for k in range(126)] + [ATTO * 2**k for k in range(60)]
    values += [rnd.randrange(10 ** rnd.randint(1, 38)) for _ in range(20_000)]
    values += _near_halfway(rnd, 20_000)
    expected = [None if v is None else v / ATTO for v in values]
    assert one_float_array(values).to_pylist() == expected
    exact = amount_array(values, WHERE, "f", parsed=True)
    assert one_float_array(values, exact=exact).to_pylist() == expected


hex_quantities = st.one_of(
    st.integers(0, 2**130).map(hex), st.none(), st.sampled_from(["0X1F", "0x007", "0x"])
)


@settings(max_examples=300, deadline=None)
@given(st.lists(hex_quantities, max_size=10), st.booleans())
def test_hex_quantity_columns_agree(values, required):
    for build in (int_array, amount_array, timestamp_array):
        bulk, rows = _both(build, values, required=required)
        assert bulk == rows
    if all(v is None or (v.startswith("0x") and 2 < len(v) <= 34) for v in values):
        expected = [None if v is None else int(v, 16) / ATTO for v in values]
        assert one_float_array(values).to_pylist() == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)), max_size=12), st.booleans()
)
def test_trace_index_counts_each_transactions_traces(keys, in_order):
    from hmyframe.datasets.traces import _trace_index

    keys = sorted(keys) if in_order else keys
    seen: dict[tuple[int, int, int], int] = {}
    expected = []
    for key in keys:
        expected.append(seen.get(key, 0))
        seen[key] = expected[-1] + 1
    columns = [list(c) for c in zip(*keys, strict=True)] if keys else [[], [], []]
    assert _trace_index(*columns) == expected


ratios = st.one_of(
    st.tuples(st.integers(0, 10**30), st.integers(0, 10**18 - 1), st.booleans()).map(
        lambda t: f"{'-' if t[2] else ''}{t[0]}.{t[1]:018d}"
    ),
    st.none(),
    st.sampled_from(["0.5", "1", "0.1234567890123456789", "x", "1e5", "-0.000000000000000001"]),
    st.sampled_from(
        [
            "1.00000000000000000\u0663",
            "1..00000000000000000",
            ".1000000000000000000",
            "1" * 61 + "." + "0" * 18,
        ]
    ),
    st.just(7),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(ratios, max_size=8), st.booleans())
def test_ratio_columns_agree(values, required):
    bulk, rows = _both(ratio_arrays, values, required=required)
    assert bulk == rows


stakes = st.one_of(
    st.integers(0, 10**39).map(lambda n: f"{n}.000000000000000000"),
    st.sampled_from(
        ["0.500000000000000000", "1.500000000000000000", "7", "x", "-1.000000000000000000", None, 3]
    ),
    st.sampled_from(["1.00000000000000000\u0660", "1..00000000000000000", "1" * 39 + ".000000000000000000"]),
)


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.text(alphabet="0123456789.-x \u0663", min_size=18, max_size=24), max_size=4),
    st.integers(1, 3),
)
def test_decimal_text_check_never_accepts_what_the_regex_refuses(texts, int_digits):
    import re

    pattern = re.compile(rf"[0-9]{{1,{int_digits}}}\.[0-9]{{18}}")
    if _convert._decimal_texts(texts, 0, int_digits):
        assert all(pattern.fullmatch(t) for t in texts)
    elif texts and all(pattern.fullmatch(t) and t.isascii() for t in texts):
        raise AssertionError(f"{texts} refused")


@settings(max_examples=300, deadline=None)
@given(st.lists(stakes, max_size=8))
def test_decimal_stake_columns_agree(values):
    bulk, rows = _both(dec_amount_array, values)
    assert bulk == rows
