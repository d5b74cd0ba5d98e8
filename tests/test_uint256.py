"""The ``uint256`` dtype: exact token amounts up to 2**256 - 1, the same array design as ``atto``.

Values range over the whole of 0 .. 2**256 - 1 (78 digits): beyond float64, int64, decimal128
and decimal256, so any assertion below fails if a value passed through one of them.
"""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hmyframe
from hmyframe._pandas_meta import DTYPE_KEY
from hmyframe.amounts import UINT256_MAX, AttoDtype, Uint256Array, Uint256Dtype
from hmyframe.datasets import to_pandas
from hmyframe.errors import AmountError, HmyframeError

uint256s = st.one_of(
    st.sampled_from([0, 1, UINT256_MAX, UINT256_MAX - 1, 2**255]), st.integers(0, UINT256_MAX)
)
maybe = st.one_of(st.none(), uint256s)
FIELD = pa.field("amount", pa.string(), metadata={DTYPE_KEY: b"uint256"})


def u256(values: list[object]) -> pd.Series:
    return pd.Series(values, dtype="uint256")


def test_the_dtype_is_registered_by_name_and_holds_the_extremes_exactly():
    s = u256([0, UINT256_MAX, None])
    assert isinstance(s.dtype, Uint256Dtype)
    assert isinstance(s.array, Uint256Array)
    assert str(s.dtype) == "uint256"
    assert s.tolist() == [0, 2**256 - 1, pd.NA]
    assert type(s[1]) is int


@pytest.mark.parametrize("bad", [-1, UINT256_MAX + 1, -(2**300), 2**300])
def test_values_outside_0_to_2_256_are_refused_naming_the_value(bad):
    with pytest.raises(AmountError, match=str(bad)) as info:
        u256([5, bad])
    assert isinstance(info.value, HmyframeError)
    assert "0 .. 2**256 - 1" in str(info.value)


def test_assignment_and_arrow_input_are_range_checked_too():
    s = u256([1, 2])
    with pytest.raises(AmountError, match="-3"):
        s[0] = -3
    assert s.tolist() == [1, 2]
    with pytest.raises(AmountError, match=str(UINT256_MAX + 1)):
        Uint256Dtype().__from_arrow__(pa.array([str(UINT256_MAX + 1)]))
    with pytest.raises(AmountError, match="12x"):
        Uint256Dtype().__from_arrow__(pa.array(["12x"]))


def test_a_negative_difference_stays_exact_in_memory_but_cannot_leave_for_arrow():
    diff = u256([1]) - u256([2])
    assert diff.tolist() == [-1]
    with pytest.raises(AmountError, match=r"-1 \(row 0\)"):
        pa.array(diff.array)


@settings(max_examples=60, deadline=None)
@given(st.lists(maybe, max_size=30))
def test_sums_are_exact_python_sums(values):
    s = u256(values)
    present = [v for v in values if v is not None]
    assert s.sum() == sum(present)
    assert s.cumsum().dropna().tolist() == [sum(present[: i + 1]) for i in range(len(present))]
    assert s.max() is pd.NA if not present else s.max() == max(present)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), maybe), max_size=30))
def test_groupby_sum_min_max_are_exact(rows):
    df = pd.DataFrame({"g": [g for g, _ in rows], "amount": u256([v for _, v in rows])})
    got = df.groupby("g").amount.agg(["sum", "min", "max"])
    for g, row in got.iterrows():
        present = [v for k, v in rows if k == g and v is not None]
        assert row["sum"] == sum(present)
        if present:
            assert (row["min"], row["max"]) == (min(present), max(present))
    assert got["sum"].dtype == Uint256Dtype()


@settings(max_examples=60, deadline=None)
@given(st.lists(maybe, max_size=30))
def test_arrow_round_trip_is_plain_digit_strings(values):
    # pa.array(column) gives the hmyframe.uint256 extension type over the digit strings;
    # asked for its storage type (a schema, as hmyframe writes its files): plain strings
    ext = pa.array(u256(values).array)
    assert ext.type.extension_name == "hmyframe.uint256"
    arr = pa.array(u256(values).array, type=pa.string())
    assert arr.type == pa.string()
    assert ext.storage.equals(arr)
    assert arr.to_pylist() == [None if v is None else str(v) for v in values]
    back = Uint256Dtype().__from_arrow__(pa.chunked_array([arr.slice(0, 3), arr.slice(3)]))
    assert [None if v is pd.NA else v for v in back] == values


@settings(max_examples=25, deadline=None)
@given(st.lists(maybe, min_size=1, max_size=20))
def test_parquet_round_trip_through_hmyframe_keeps_every_value(tmp_path_factory, values):
    path = tmp_path_factory.mktemp("u256") / "t.parquet"
    df = pd.DataFrame({"amount": u256(values)})
    table = pa.Table.from_pandas(df, schema=pa.schema([FIELD]), preserve_index=False)
    pq.write_table(table, path)
    plain = pq.read_table(path)
    assert plain.schema.field("amount").type == pa.string()  # what any Parquet reader sees
    back = to_pandas(plain)
    assert back["amount"].dtype == Uint256Dtype()
    assert back["amount"].equals(df["amount"])


def test_mixing_atto_with_uint256_gives_uint256_exactly():
    fee = pd.Series([10**30, 7, None], dtype="atto")
    tokens = u256([UINT256_MAX - 10**30, 3, 1])
    for total in (fee + tokens, tokens + fee):
        assert total.dtype == Uint256Dtype()
        assert total.tolist() == [UINT256_MAX, 10, pd.NA]
    assert (tokens * fee).dtype == Uint256Dtype()
    assert pd.concat([fee, tokens]).dtype == Uint256Dtype()
    assert fee.astype("uint256").dtype == Uint256Dtype()
    assert u256([5]).astype("atto").dtype == AttoDtype()
    with pytest.raises(AmountError, match="does not fit decimal128"):
        pa.array(u256([UINT256_MAX]).astype("atto").array)


def shifted(n: int, decimals: int) -> Decimal:
    """``n / 10**decimals`` written out exactly (Decimal arithmetic would round at 28 digits)."""
    digits = str(n)
    return Decimal(f"{digits[:-decimals]}.{digits[-decimals:]}")


def test_to_units_is_exact_at_any_decimals_and_to_one_shares_it():
    s = u256([1_500_000, UINT256_MAX, None])
    got = hmyframe.to_units(s, 6)
    assert got[0] == Decimal("1.5")
    assert got[1] == shifted(UINT256_MAX, 6)
    assert str(got[1]).replace(".", "") == str(UINT256_MAX)  # no digit lost
    assert got[2] is None
    per_row = hmyframe.to_units(s, [0, 18, 6])
    assert per_row.tolist()[:2] == [Decimal(1_500_000), shifted(UINT256_MAX, 18)]
    assert per_row[2] is None
    assert hmyframe.to_units(s, 6, exact=False)[0] == 1.5
    assert hmyframe.to_units([10**18 + 1], 18).tolist() == hmyframe.to_one([10**18 + 1], exact=True).tolist()


@pytest.mark.parametrize("bad", [-1, 1.5, "6", 256, True])
def test_to_units_refuses_decimals_that_are_not_a_small_integer(bad):
    with pytest.raises(AmountError, match="decimals"):
        hmyframe.to_units([1], bad)


def test_dask_knows_the_uint256_meta():
    dd = pytest.importorskip("dask.dataframe")
    from hmyframe.scale._frames import _register_atto

    _register_atto()
    df = pd.DataFrame({"g": [1, 1, 2], "amount": u256([UINT256_MAX - 1, 1, 5])})
    ddf = dd.from_pandas(df, npartitions=2)
    assert ddf.dtypes["amount"] == Uint256Dtype()
    assert ddf.amount.sum().compute() == UINT256_MAX + 5
    assert ddf.groupby("g").amount.sum().compute().sort_index().tolist() == [UINT256_MAX, 5]


def test_a_frame_written_by_pandas_reads_back_as_uint256_through_hmyframe(tmp_path):
    df = pd.DataFrame({"amount": u256([UINT256_MAX, None, 0])})
    path = tmp_path / "user.parquet"
    df.to_parquet(path)
    table = pq.read_table(path)
    assert table.schema.field("amount").type.storage_type == pa.string()  # plain without hmyframe
    assert pd.read_parquet(path)["amount"].equals(df["amount"])
    back = to_pandas(table)
    assert back["amount"].dtype == Uint256Dtype()
    assert back["amount"].equals(df["amount"])
