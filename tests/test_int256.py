"""The ``int256`` dtype: exact signed 256-bit integers (decoded ``intN`` arguments), the same array
design as ``atto`` and ``uint256`` over signed base-10 digit strings.

Values range over -2**255 .. 2**255 - 1 (77 digits and a sign): beyond float64, int64, decimal128
and decimal256, so any assertion below fails if a value passed through one of them.
"""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hmyframe._pandas_meta import DTYPE_KEY, PANDAS_KEY, pandas_metadata
from hmyframe.amounts import INT256_MAX, INT256_MIN, UINT256_MAX, Int256Array, Int256Dtype, Uint256Dtype
from hmyframe.datasets import to_pandas
from hmyframe.errors import AmountError, HmyframeError

int256s = st.one_of(
    st.sampled_from([0, -1, 1, INT256_MIN, INT256_MAX, INT256_MIN + 1]), st.integers(INT256_MIN, INT256_MAX)
)
maybe = st.one_of(st.none(), int256s)
FIELD = pa.field("delta", pa.string(), metadata={DTYPE_KEY: b"int256"})


def i256(values: list[object]) -> pd.Series:
    return pd.Series(values, dtype="int256")


def test_the_dtype_is_registered_by_name_and_holds_both_extremes_exactly():
    s = i256([INT256_MIN, INT256_MAX, None, "-0x10"])
    assert isinstance(s.dtype, Int256Dtype)
    assert isinstance(s.array, Int256Array)
    assert str(s.dtype) == "int256"
    assert s.tolist() == [-(2**255), 2**255 - 1, pd.NA, -16]
    assert type(s[0]) is int


@pytest.mark.parametrize("bad", [INT256_MIN - 1, INT256_MAX + 1, UINT256_MAX, -(2**300)])
def test_values_outside_the_signed_range_are_refused_naming_the_value(bad):
    with pytest.raises(AmountError, match=str(bad)) as info:
        i256([5, bad])
    assert isinstance(info.value, HmyframeError)
    assert "-2**255 .. 2**255 - 1" in str(info.value)
    s = i256([1])
    with pytest.raises(AmountError, match=str(bad)):
        s[0] = bad
    assert s.tolist() == [1]


@settings(max_examples=60, deadline=None)
@given(st.lists(maybe, max_size=30))
def test_sums_and_differences_are_exact_python_arithmetic(values):
    s = i256(values)
    present = [v for v in values if v is not None]
    assert s.sum() == sum(present)
    assert s.cumsum().dropna().tolist() == [sum(present[: i + 1]) for i in range(len(present))]
    assert (s - s).dropna().tolist() == [0] * len(present)
    assert (-s).dropna().tolist() == [-v for v in present]
    assert s.sort_values().dropna().tolist() == sorted(present)


@settings(max_examples=40, deadline=None)
@given(st.lists(maybe, min_size=1, max_size=20))
def test_arrow_and_parquet_round_trips_are_signed_digit_strings(tmp_path_factory, values):
    arr = pa.array(i256(values).array, type=pa.string())
    assert arr.to_pylist() == [None if v is None else str(v) for v in values]
    ext = pa.array(i256(values).array)
    assert ext.type.extension_name == "hmyframe.int256"
    path = tmp_path_factory.mktemp("i256") / "t.parquet"
    table = pa.Table.from_pandas(pd.DataFrame({"delta": i256(values)}), schema=pa.schema([FIELD]))
    pq.write_table(table, path)
    plain = pq.read_table(path)
    assert plain.schema.field("delta").type == pa.string()
    back = to_pandas(plain)
    assert back["delta"].dtype == Int256Dtype()
    assert [None if v is pd.NA else v for v in back["delta"]] == values


def test_a_value_beyond_the_range_in_memory_cannot_leave_for_arrow():
    doubled = i256([INT256_MAX]) * 2  # exact in memory
    assert doubled.tolist() == [2 * INT256_MAX]
    with pytest.raises(AmountError, match=rf"{2 * INT256_MAX} \(row 0\) does not fit int256"):
        pa.array(doubled.array)


def test_mixing_int256_with_uint256_or_atto_gives_int256():
    amounts_in = pd.Series([10**30, 5], dtype="uint256")
    amounts_out = pd.Series([2 * 10**30, 1], dtype="uint256")
    flow = amounts_in.astype("int256") - amounts_out
    assert flow.dtype == Int256Dtype()
    assert flow.tolist() == [-(10**30), 4]
    assert (pd.Series([7], dtype="atto") + i256([-8])).dtype == Int256Dtype()
    assert pd.concat([i256([-1]), pd.Series([2], dtype="uint256")]).dtype == Int256Dtype()
    assert i256([3]).astype("uint256").dtype == Uint256Dtype()
    with pytest.raises(AmountError, match="-3"):
        i256([-3]).astype("uint256")


def test_a_file_with_the_int256_alias_reads_as_int256_here_and_as_text_without_hmyframe(tmp_path):
    # what an events export writes: the plain string storage, the dtype named in the metadata
    table = pa.table({"delta": pa.array(["-5", str(INT256_MAX), None])}, schema=pa.schema([FIELD]))
    table = table.replace_schema_metadata({PANDAS_KEY: pandas_metadata(table.schema)})
    path = tmp_path / "events.parquet"
    pq.write_table(table, path)
    assert pd.read_parquet(path)["delta"].tolist() == [-5, INT256_MAX, pd.NA]
    assert pd.read_parquet(path)["delta"].dtype == Int256Dtype()
    plain = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import pandas as pd; print(pd.read_parquet({str(path)!r})['delta'].tolist()[:2])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert plain.stdout.strip() == f"['-5', '{INT256_MAX}']"


def test_dask_knows_the_int256_meta():
    dd = pytest.importorskip("dask.dataframe")
    from hmyframe.scale._frames import _register_atto

    _register_atto()
    ddf = dd.from_pandas(pd.DataFrame({"delta": i256([INT256_MIN, 1, -2])}), npartitions=2)
    assert ddf.dtypes["delta"] == Int256Dtype()
    assert ddf.delta.sum().compute() == INT256_MIN - 1
