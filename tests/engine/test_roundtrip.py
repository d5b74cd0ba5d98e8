"""Frames that travel (issue 19): every dataset fetched from the devnet keeps its dtypes and values
through pickle, ``DataFrame.copy`` and ``df.to_parquet`` / ``df.to_feather``; a cache / export file
read by plain ``pd.read_parquet`` equals the fetch (dtypes included), while readers without
hmyframe (pandas, pyarrow, polars, DuckDB, Dask) read the same files as plain decimals and strings,
exactly, and never fail.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import dask
import dask.dataframe as dd
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from doc_examples import example

import hmyframe
from hmyframe import FetchOptions
from hmyframe._exactint import ExactIntDtype
from hmyframe.aio import export
from hmyframe.datasets import to_pandas
from hmyframe.devnet import Devnet

RANGE = ["blocks", "transactions", "staking_transactions", "signers", "traces"]
SNAPSHOT = ["validators", "voting_power", "delegations", "undelegations"]


@pytest.fixture(scope="module")
def exported(devnet: Devnet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An export of every cached dataset of shard 0 (range and snapshot) from the devnet."""
    out = tmp_path_factory.mktemp("roundtrip")
    options = FetchOptions(chunk_size=60, validator_pacing=None)
    asyncio.run(export(RANGE + SNAPSHOT, 0, 119, 0, block=200, rpc=devnet, out=out, options=options))
    return out


def files_of(exported: Path, name: str) -> list[Path]:
    found = sorted(exported.glob(f"*/{name}/shard0/*.parquet"))
    assert found, name
    return found


@pytest.mark.parametrize("name", RANGE + SNAPSHOT)
def test_pickle_copy_and_feather_keep_every_dtype_and_value(
    exported: Path, name: str, tmp_path: Path
) -> None:
    df = hmyframe.read(name, exported, shard=0)
    assert len(df) > 0, name
    path = tmp_path / "x.feather"
    df.to_feather(path)
    for how, back in (
        ("pickle", pickle.loads(pickle.dumps(df))),
        ("copy", df.copy()),
        ("shallow copy", df.copy(deep=False)),
        ("feather", to_pandas(feather.read_table(path))),
    ):
        assert back.equals(df), how
        assert back.dtypes.to_dict() == df.dtypes.to_dict(), how
    # the exact columns stay exact Python ints through pickle
    for column in df.columns:
        if isinstance(df[column].dtype, ExactIntDtype):
            assert pickle.loads(pickle.dumps(df[column])).tolist() == df[column].tolist()


def _string_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if df[c].dtype == pd.ArrowDtype(pa.string())]


@pytest.mark.parametrize("name", RANGE + SNAPSHOT)
def test_to_parquet_and_to_feather_read_back_by_plain_pandas_with_every_dtype(
    exported: Path, name: str, tmp_path: Path
) -> None:
    df = hmyframe.read(name, exported, shard=0)
    strings = _string_columns(df)
    for path, write, read_table, read_plain in (
        (tmp_path / "x.parquet", df.to_parquet, pq.read_table, pd.read_parquet),
        (tmp_path / "x.feather", df.to_feather, feather.read_table, pd.read_feather),
    ):
        write(path)
        # the file holds the hmyframe.atto extension type over plain decimal128(38, 0)
        types = {f.name: f.type for f in read_table(path).schema}
        for c in df.columns:
            if isinstance(df[c].dtype, ExactIntDtype):
                assert types[c].extension_name == f"hmyframe.{df[c].dtype.name}", c
        # through hmyframe's conversion: the same frame, dtypes included
        back = to_pandas(read_table(path))
        assert back.equals(df), path.suffix
        assert back.dtypes.to_dict() == df.dtypes.to_dict(), path.suffix
        # plain pandas: the same frame, atto included; strings come back as pandas' StringDtype
        # (pyarrow writes pd.ArrowDtype(pa.string()) by its name "string[pyarrow]", which
        # pandas resolves to StringDtype("pyarrow")): the one pandas limitation left
        plain = read_plain(path)
        assert plain.drop(columns=strings).equals(df.drop(columns=strings)), path.suffix
        assert plain.drop(columns=strings).dtypes.to_dict() == df.drop(columns=strings).dtypes.to_dict()
        for c in strings:
            assert plain[c].dtype == pd.StringDtype("pyarrow"), c
            assert plain[c].astype(df[c].dtype).equals(df[c]), c


@pytest.mark.parametrize("name", RANGE + SNAPSHOT)
def test_plain_read_parquet_of_a_cache_file_equals_the_fetch(exported: Path, name: str) -> None:
    fetched = hmyframe.read(name, exported, shard=0)
    plain = pd.concat([pd.read_parquet(p) for p in files_of(exported, name)], ignore_index=True)
    assert plain.dtypes.to_dict() == fetched.dtypes.to_dict()
    assert plain.equals(fetched)
    # the files stay plain: no extension type for pyarrow, polars or DuckDB to stumble on
    for p in files_of(exported, name):
        assert not any(isinstance(f.type, pa.BaseExtensionType) for f in pq.read_schema(p))
    # Dask: its string conversion maps decimals to Arrow decimals before the file's pandas
    # metadata is looked at; without it (convert-string off) the meta is the fetch's dtypes
    # (Dask itself calls reset_index(inplace=True), which pandas 3.1 deprecates)
    with dask.config.set({"dataframe.convert-string": False}), warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.Pandas4Warning)
        lazy = dd.read_parquet([str(p) for p in files_of(exported, name)])
        assert lazy._meta.dtypes.to_dict() == fetched.dtypes.to_dict()
        assert lazy.compute().reset_index(drop=True).equals(fetched)


#: run without hmyframe: every reader reads every file; prints each file's exact columns as text
_PLAIN_READERS = """
import json, sys
import dask.dataframe as dd, duckdb, pandas as pd, polars as pl, pyarrow.parquet as pq

def text(v):
    return None if v is None or (not isinstance(v, str) and pd.isna(v)) else str(v)

out = {}
for f, columns in json.loads(sys.argv[1]).items():
    t = pq.read_table(f)
    duck = duckdb.sql(f"select * from '{f}'")
    readers = {
        "pandas": pd.read_parquet(f),
        "pandas_arrow": pd.read_parquet(f, dtype_backend="pyarrow"),
        "pyarrow": t.to_pandas(),
        "polars": pl.read_parquet(f).to_pandas(),
        "duckdb": duckdb.sql(f"select * from '{f}'").fetch_arrow_table().to_pandas(),
        "dask": dd.read_parquet(f).compute(),
    }
    out[f] = {
        who: {c: [text(v) for v in df[c].tolist()] for c in columns} for who, df in readers.items()
    }
    out[f]["types"] = {
        "pandas": {c: str(readers["pandas"][c].dtype) for c in columns},
        "polars": {c: str(pl.read_parquet_schema(f)[c]) for c in columns},
        "duckdb": dict(zip(duck.columns, [str(x) for x in duck.types], strict=True)),
    }
out["hmyframe_loaded"] = any(m.startswith("hmyframe") for m in sys.modules)
print(json.dumps(out))
"""


def test_readers_without_hmyframe_read_every_cache_file_exactly(exported: Path) -> None:
    wanted: dict[str, list[str]] = {}
    fetched: dict[str, pd.DataFrame] = {}
    for name in RANGE + SNAPSHOT:
        for p in files_of(exported, name):
            df = to_pandas(pq.read_table(p))
            exact = [c for c in df.columns if isinstance(df[c].dtype, ExactIntDtype)]
            wanted[str(p)] = exact + [c for c in df.columns if c in ("block_number", "hash")]
            fetched[str(p)] = df
    assert any(len(v) > 0 for v in wanted.values())
    done = subprocess.run(
        [sys.executable, "-c", _PLAIN_READERS, json.dumps(wanted)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    assert out.pop("hmyframe_loaded") is False
    for f, columns in wanted.items():
        df = fetched[f]
        for c in columns:
            expected = [None if v is pd.NA else str(v) for v in df[c].tolist()]
            for who in ("pandas", "pandas_arrow", "pyarrow", "polars", "duckdb", "dask"):
                assert out[f][who][c] == expected, (f, who, c)
            if isinstance(df[c].dtype, ExactIntDtype) and df[c].dtype.name == "atto":
                assert out[f]["types"]["pandas"][c] == "object", (f, c)  # exact Decimals
                assert out[f]["types"]["polars"][c] == "Decimal(precision=38, scale=0)", (f, c)
                assert out[f]["types"]["duckdb"][c] == "DECIMAL(38,0)", (f, c)


def test_a_user_file_without_hmyframe_needs_the_pyarrow_backend(exported: Path, tmp_path: Path) -> None:
    """pyarrow names the dtype ("atto") in a df.to_parquet file's pandas metadata; pandas
    without hmyframe cannot resolve it (pyarrow GH-39914) unless dtype_backend="pyarrow"."""
    df = hmyframe.read("transactions", exported, shard=0)
    path = tmp_path / "user.parquet"
    df.to_parquet(path)
    code = (
        "import sys, pandas as pd\n"
        "try:\n    pd.read_parquet(sys.argv[1])\nexcept TypeError as e:\n    print('error:', e)\n"
        "df = pd.read_parquet(sys.argv[1], dtype_backend='pyarrow')\n"
        "print(df['value'].dtype)\n"
        "print(','.join(str(v) for v in df['value'].tolist()))\n"
        "print(any(m.startswith('hmyframe') for m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    error, dtype, values, loaded = done.stdout.splitlines()
    assert "atto" in error
    assert "not understood" in error
    assert dtype == "decimal128(38, 0)[pyarrow]"
    assert values == ",".join(str(v) for v in df["value"].tolist())
    assert loaded == "False"


def test_the_docs_round_trip_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (block,) = example("roundtrip")  # docs/analysing.md, between its example:roundtrip markers
    language, code = block
    assert language == "python"
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/analysing.md:roundtrip-example", "exec"), {})
    assert (tmp_path / "frame.parquet").exists()
    assert (tmp_path / "frame.feather").exists()
