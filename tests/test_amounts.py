"""The ``atto`` dtype: exact amounts that do ordinary pandas arithmetic.

Values are chosen beyond 2**64 (and beyond 2**53, where float64 stops being exact), so every
assertion below would fail if a value went through a float or a 64-bit integer.
"""

from __future__ import annotations

import io
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hmyframe
from hmyframe.amounts import AttoArray, AttoDtype, to_one
from hmyframe.datasets import to_pandas
from hmyframe.errors import AmountError, HmyframeError

BIG = 2**80 + 1  # 1208925819614629174706177: float64 would round it to 2**80
SUPPLY = 14_000_000_000 * 10**18  # about the whole ONE supply, in atto (29 digits)


def atto(values: list[object]) -> pd.Series:
    return pd.Series(values, dtype="atto")


# -- construction and conversion ---------------------------------------------------------


def test_the_dtype_is_registered_by_name_and_holds_python_ints():
    s = atto([BIG, 5, None])
    assert isinstance(s.dtype, AttoDtype)
    assert str(s.dtype) == "atto"
    assert s.tolist() == [BIG, 5, pd.NA]
    assert type(s[0]) is int
    assert s[0] == BIG
    assert s.isna().tolist() == [False, False, True]
    assert s.to_numpy().tolist() == [BIG, 5, pd.NA]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("1208925819614629174706177"), BIG),
        ("1208925819614629174706177", BIG),
        (hex(BIG), BIG),
        (np.int64(-7), -7),
        (np.uint64(2**64 - 1), 2**64 - 1),
        (2.0**52, 2**52),  # a float holding an exact integer is accepted
    ],
)
def test_integer_like_inputs_are_taken_exactly(value, expected):
    assert atto([value])[0] == expected


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1.5, "1.5"),
        (1e30, r"1e\+30"),  # a float beyond 2**53 is not an exact integer
        (True, "True"),
        ("12abc", "12abc"),
        (Decimal("2.5"), "2.5"),
        (object(), "object"),
    ],
)
def test_non_integers_are_refused_naming_the_value(value, shown):
    with pytest.raises(AmountError, match=shown) as info:
        atto([value])
    assert isinstance(info.value, HmyframeError)


def test_arrow_decimals_convert_both_ways_exactly_with_nulls_and_slices():
    values = [BIG, None, -(2**100) - 3, 0, 10**38 - 1, -5]
    arrow = pa.array(values, type=pa.decimal128(38, 0))
    for arr in (arrow, arrow.slice(1), pa.chunked_array([arrow.slice(0, 2), arrow.slice(2)])):
        got = AttoDtype().__from_arrow__(arr)
        expected = arr.to_pylist()
        assert [None if v is pd.NA else v for v in got] == expected
        back = pa.array(pd.Series(got))  # the hmyframe.atto extension type over decimal128
        assert back.type.extension_name == "hmyframe.atto"
        assert back.storage.type == pa.decimal128(38, 0)
        assert back.to_pylist() == expected
        plain = pa.array(pd.Series(got), type=pa.decimal128(38, 0))  # storage when asked for
        assert plain.type == pa.decimal128(38, 0)
        assert plain.to_pylist() == expected


def test_a_value_beyond_38_digits_cannot_become_arrow_and_the_error_names_it():
    s = atto([1, 10**38])
    with pytest.raises(AmountError, match=r"amount 100000000000000000000000000000000000000 \(row 1\)"):
        pa.Table.from_pandas(s.to_frame("value"))


def test_parquet_round_trip_through_pandas_keeps_every_atto(tmp_path):
    df = pd.DataFrame({"value": atto([BIG, SUPPLY, None, 3])})
    path = tmp_path / "x.parquet"
    df.to_parquet(path)
    table = pq.read_table(path)
    assert table.schema.field("value").type.storage_type == pa.decimal128(38, 0)
    assert table.column("value").to_pylist() == [BIG, SUPPLY, None, 3]
    assert pq.read_table(path, schema=pa.schema([("value", pa.decimal128(38, 0))])).column(
        "value"
    ).to_pylist() == [BIG, SUPPLY, None, 3]
    assert pd.read_parquet(path).equals(df)
    assert to_pandas(table)["value"].tolist() == [BIG, SUPPLY, pd.NA, 3]


# -- arithmetic ---------------------------------------------------------------------------


def test_addition_and_subtraction_stay_exact_and_atto():
    a, b = atto([BIG, SUPPLY]), atto([1, SUPPLY - 1])
    assert (a + b).tolist() == [BIG + 1, 2 * SUPPLY - 1]
    assert (a - b).tolist() == [BIG - 1, 1]
    assert (a + 1).tolist() == [BIG + 1, SUPPLY + 1]
    assert (1 - a).tolist() == [1 - BIG, 1 - SUPPLY]
    # a long chain never overflows a precision (decimal128(38, 0) grew by a digit per +)
    chain = a
    for _ in range(50):
        chain = chain + a
    assert chain.tolist() == [51 * BIG, 51 * SUPPLY]
    assert (a + b).dtype == "atto"


def test_missing_values_propagate_through_arithmetic():
    assert (atto([BIG, None]) + atto([None, 2])).isna().tolist() == [True, True]
    assert (atto([BIG, None]) * 2).tolist() == [2 * BIG, pd.NA]


def test_gas_times_gas_price_is_an_exact_fee_whichever_side():
    gas = pd.Series([21_000, 50_000], dtype=pd.ArrowDtype(pa.int64()))
    price = atto([BIG, 10**11])
    assert (gas * price).tolist() == [21_000 * BIG, 50_000 * 10**11]
    assert (price * gas).tolist() == [21_000 * BIG, 50_000 * 10**11]
    assert (gas * price).dtype == "atto"


def test_division_gives_correctly_rounded_floats():
    a = atto([10**18 + 1, BIG, 3, None])
    one = a / 10**18
    assert one.dtype == np.float64
    assert one.tolist()[:3] == [float(Fraction(10**18 + 1, 10**18)), float(Fraction(BIG, 10**18)), 3e-18]
    assert np.isnan(one.iloc[3])
    assert (a // 10**18).tolist() == [1, BIG // 10**18, 0, pd.NA]
    assert (a % 10**18).tolist() == [1, BIG % 10**18, 3, pd.NA]
    assert (a // 0).isna().all()
    assert (atto([1, -1, 0]) / 0).tolist()[:2] == [np.inf, -np.inf]


def test_comparisons_are_exact_even_against_floats():
    a = atto([BIG, 2**80, 5])
    assert (a > 2**80).tolist() == [True, False, False]
    assert (a == float(2**80)).tolist() == [False, True, False]  # 2**80 is a float exactly; BIG is not
    assert (a > atto([BIG - 1, 2**80, 6])).tolist() == [True, False, False]


def test_numpy_ufuncs_add_exactly_and_take_logs_on_the_float_view():
    a = atto([BIG, 10**20])
    assert np.add(a, 1).tolist() == [BIG + 1, 10**20 + 1]
    assert np.log10(a).tolist()[1] == pytest.approx(20.0)
    counts, _edges = np.histogram(a, bins=2)
    assert counts.tolist() == [1, 1]


# -- reductions, accumulations, ordering ------------------------------------------------------


def test_sum_cumsum_diff_min_max_are_exact():
    a = atto([BIG, 1, SUPPLY, None])
    assert a.sum() == BIG + 1 + SUPPLY
    assert type(a.sum()) is int
    assert a.cumsum().tolist() == [BIG, BIG + 1, BIG + 1 + SUPPLY, pd.NA]
    assert a.diff().tolist() == [pd.NA, 1 - BIG, SUPPLY - 1, pd.NA]
    assert (a.min(), a.max()) == (1, SUPPLY)
    assert a.cummax().tolist() == [BIG, BIG, SUPPLY, pd.NA]


def test_mean_std_median_and_quantiles_come_from_the_exact_integers():
    a = atto([BIG, BIG + 2])
    assert a.mean() == float(BIG + 1)
    assert a.median() == float(BIG + 1)
    assert a.std() == pytest.approx(2**0.5)  # a float view would give 0.0 (both round to 2**80)
    assert a.quantile([0.0, 1.0]).tolist() == [float(BIG), float(BIG + 2)]


def test_sort_values_orders_exactly_where_floats_tie():
    a = atto([BIG + 1, BIG, BIG - 1])  # one float value for all three
    assert a.sort_values().tolist() == [BIG - 1, BIG, BIG + 1]
    assert a.rank().tolist() == [3.0, 2.0, 1.0]
    assert a.idxmax() == 0


def test_nlargest_and_nsmallest_return_the_exact_values():
    a = atto([5, SUPPLY, 7 * 10**24, BIG, 1])
    assert a.nlargest(3).tolist() == [SUPPLY, 7 * 10**24, BIG]
    assert a.nsmallest(2).tolist() == [1, 5]
    df = pd.DataFrame({"who": list("abcde"), "value": a})
    assert df.nlargest(2, "value")["who"].tolist() == ["b", "c"]


def test_describe_covers_amount_columns():
    df = pd.DataFrame({"value": atto([SUPPLY, 2 * SUPPLY, 3 * SUPPLY]), "gas": [1, 2, 3]})
    d = df.describe()
    assert "value" in d.columns
    assert d.loc["count", "value"] == 3
    assert d.loc["mean", "value"] == float(2 * SUPPLY)
    assert d.loc["max", "value"] == float(3 * SUPPLY)
    assert df["value"].describe()["std"] == pytest.approx(float(SUPPLY))


def test_groupby_sum_min_max_cumsum_and_mean():
    df = pd.DataFrame({"k": ["x", "y", "x", "y"], "v": atto([BIG, 1, 1, None])})
    g = df.groupby("k")["v"]
    assert g.sum().to_dict() == {"x": BIG + 1, "y": 1}
    assert g.sum().dtype == "atto"
    assert g.min().to_dict() == {"x": 1, "y": 1}
    assert g.max().to_dict() == {"x": BIG, "y": 1}
    assert g.cumsum().tolist() == [BIG, 1, BIG + 1, pd.NA]
    assert g.mean().to_dict() == {"x": float(Fraction(BIG + 1, 2)), "y": 1.0}
    agg = df.groupby("k").agg(total=("v", "sum"), n=("v", "count"))
    assert agg.loc["x"].tolist() == [BIG + 1, 2]
    hourly = pd.DataFrame(
        {"v": pd.array([BIG, 1, 2], dtype="atto")},
        index=pd.to_datetime(["2026-01-01 00:10", "2026-01-01 00:50", "2026-01-01 01:05"]),
    )
    assert hourly.resample("h")["v"].sum().tolist() == [BIG + 1, 2]


def test_merge_two_snapshots_then_subtract():
    old = pd.DataFrame({"validator": ["a", "b", "c"], "stake": atto([SUPPLY, BIG, 10])})
    new = pd.DataFrame({"validator": ["c", "a", "d"], "stake": atto([12, SUPPLY + 1, 1])})
    both = old.merge(new, on="validator", how="outer", suffixes=("_old", "_new"))
    delta = both["stake_new"].fillna(0) - both["stake_old"].fillna(0)
    assert dict(zip(both["validator"], delta.tolist(), strict=True)) == {"a": 1, "b": -BIG, "c": 2, "d": 1}


def test_set_operations_are_exact():
    a = atto([BIG, BIG - 1, BIG, None])
    assert a.isin([BIG]).tolist() == [True, False, True, False]
    assert a.value_counts().to_dict() == {BIG: 2, BIG - 1: 1}
    assert a.drop_duplicates().tolist() == [BIG, BIG - 1, pd.NA]
    assert a.nunique() == 2
    assert pd.concat([a, atto([3])], ignore_index=True).tolist() == [BIG, BIG - 1, BIG, pd.NA, 3]
    assert a.shift(1).tolist() == [pd.NA, BIG, BIG - 1, BIG]


def test_cut_and_histogram_work_on_the_float_view():
    a = atto([10**18, 5 * 10**18, 9 * 10**18])
    bins = pd.cut(a, [0, 4 * 10**18, 10**19])
    assert bins.cat.codes.tolist() == [0, 1, 1]


# -- ONE -------------------------------------------------------------------------------------


def test_to_one_float_and_exact():
    s = atto([10**18, 10**18 + 1, None, SUPPLY])
    s.name = "stake"
    floats = to_one(s)
    assert floats.name == "stake"
    assert floats.tolist()[:2] == [1.0, 1.0]
    assert floats.iloc[3] == 14e9
    assert np.isnan(floats.iloc[2])
    exact = to_one(s, exact=True)
    assert exact.tolist() == [Decimal(1), Decimal("1.000000000000000001"), None, Decimal(14_000_000_000)]
    # any integer column, also Arrow decimals, and plain sequences
    arrow = pd.Series([BIG], dtype=pd.ArrowDtype(pa.decimal128(38, 0)))
    assert to_one(arrow, exact=True)[0] == Decimal(BIG) / Decimal(10**18)
    assert hmyframe.to_one([3 * 10**17]).tolist() == [0.3]


def test_to_one_refuses_fractions():
    with pytest.raises(AmountError, match=r"2\.5"):
        to_one([Decimal("2.5")])


def test_an_atto_array_is_what_pandas_builds():
    arr = pd.array([BIG, None], dtype="atto")
    assert isinstance(arr, AttoArray)
    buf = io.StringIO()
    pd.DataFrame({"v": arr, "n": [1, 2]}).to_csv(buf, index=False)
    assert buf.getvalue().splitlines() == ["v,n", f"{BIG},1", ",2"]


# -- frames from the fetchers ------------------------------------------------------------------


def test_fetched_frames_compute_exactly_without_astype(devnet, devnet_truth):
    tx = hmyframe.transactions(0, 199, rpc=devnet, cache=False)
    truth = list(devnet_truth.iter_transactions(0, 0, 199))
    assert len(tx) == len(truth) > 100
    assert tx["value"].dtype == "atto"
    assert tx["gas_price"].dtype == "atto"
    assert max(t.value for t in truth) > 2**64  # the devnet sends values beyond 64 bits
    assert tx["value"].sum() == sum(t.value for t in truth)
    assert (tx["value"] + 1).sum() == sum(t.value for t in truth) + len(truth)
    fee = tx["gas"] * tx["gas_price"]
    assert fee.tolist() == [t.gas * t.gas_price for t in truth]
    top = tx.groupby("from_address")["value"].sum().nlargest(3)
    by_sender: dict[str, int] = {}
    for t in truth:
        by_sender[t.sender] = by_sender.get(t.sender, 0) + t.value
    assert top.tolist() == sorted(by_sender.values(), reverse=True)[:3]
    described = tx.describe()
    assert {"value", "gas_price", "gas"} <= set(described.columns)
    assert described.loc["max", "value"] == float(max(t.value for t in truth))
    assert tx["value"].cumsum().iloc[-1] == tx["value"].sum()
