"""Frames that travel (issue 19): every dataset fetched from the devnet keeps its dtypes and values
through pickle and ``DataFrame.copy``, and a cache / export file read by plain ``pd.read_parquet``
gives the dtypes of a fetch, while readers without hmyframe (pandas, pyarrow, polars, DuckDB) read
the same files as plain decimals and strings and never fail.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import hmyframe
from hmyframe import FetchOptions
from hmyframe._exactint import ExactIntDtype
from hmyframe.datasets import to_pandas
from hmyframe.devnet import Devnet
from hmyframe.export import export

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
def test_pickle_and_copy_keep_every_dtype_and_value(exported: Path, name: str) -> None:
    df = hmyframe.read(name, exported, shard=0)
    assert len(df) > 0, name
    for back in (pickle.loads(pickle.dumps(df)), df.copy(), df.copy(deep=False)):
        assert back.equals(df)
        assert back.dtypes.to_dict() == df.dtypes.to_dict()
    # the exact columns stay exact Python ints through pickle
    for column in df.columns:
        if isinstance(df[column].dtype, ExactIntDtype):
            assert pickle.loads(pickle.dumps(df[column])).tolist() == df[column].tolist()


@pytest.mark.parametrize("name", RANGE + SNAPSHOT)
def test_to_parquet_and_to_feather_keep_every_value_and_read_back_exactly(
    exported: Path, name: str, tmp_path: Path
) -> None:
    df = hmyframe.read(name, exported, shard=0)
    exact = [c for c in df.columns if isinstance(df[c].dtype, ExactIntDtype)]
    for path, write, read_table, read_plain in (
        (tmp_path / "x.parquet", df.to_parquet, pq.read_table, pd.read_parquet),
        (tmp_path / "x.feather", df.to_feather, feather.read_table, pd.read_feather),
    ):
        write(path)
        # through hmyframe's conversion: the same frame, dtypes included
        back = to_pandas(read_table(path))
        assert back.equals(df), path.suffix
        assert back.dtypes.to_dict() == df.dtypes.to_dict(), path.suffix
        # plain pandas: every value exact (amounts as Decimals), nothing lost
        plain = read_plain(path)
        assert list(plain.columns) == list(df.columns)
        for c in exact:
            assert [None if pd.isna(v) else int(v) for v in plain[c]] == [
                None if v is pd.NA else v for v in df[c]
            ], c


@pytest.mark.parametrize("name", RANGE + SNAPSHOT)
def test_plain_read_parquet_of_a_cache_file_gives_the_fetch_dtypes(exported: Path, name: str) -> None:
    fetched = hmyframe.read(name, exported, shard=0)
    plain = pd.concat([pd.read_parquet(p) for p in files_of(exported, name)], ignore_index=True)
    assert list(plain.columns) == list(fetched.columns)
    exact = [c for c in fetched.columns if isinstance(fetched[c].dtype, ExactIntDtype)]
    others = [c for c in fetched.columns if c not in exact]
    # every Arrow-typed column: the very dtype of a fetch (strings as string[pyarrow], not str)
    assert plain[others].dtypes.to_dict() == fetched[others].dtypes.to_dict()
    assert plain[others].equals(fetched[others])
    # exact amounts read by plain pandas as exact Decimals (their dtype names are not written)
    for c in exact:
        assert [None if pd.isna(v) else int(Decimal(v)) for v in plain[c]] == [
            None if v is pd.NA else v for v in fetched[c]
        ], c


def test_readers_without_hmyframe_read_the_same_files_plainly(exported: Path) -> None:
    files = [str(files_of(exported, name)[0]) for name in RANGE + SNAPSHOT]
    code = (
        "import json, sys, duckdb, pandas as pd, polars as pl, pyarrow.parquet as pq\n"
        "out = {}\n"
        "for f in sys.argv[1:]:\n"
        "    df = pd.read_parquet(f)\n"
        "    t = pq.read_table(f)\n"
        "    p = pl.read_parquet(f)\n"
        "    d = duckdb.sql(f\"select * from '{f}'\").types\n"
        "    out[f] = dict(rows=len(df), value=str(df.dtypes.get('value')), pa=str(t.schema.field(0).type),\n"
        "                  pl=str(p.schema.get('value')), duck=[str(x) for x in d])\n"
        "out['hmyframe_loaded'] = any(m.startswith('hmyframe') for m in sys.modules)\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out.pop("hmyframe_loaded") is False
    for f in files:
        assert out[f]["rows"] == pq.read_metadata(f).num_rows
    tx = out[files[RANGE.index("transactions")]]
    assert tx["value"] == "object"  # plain Decimals, as before
    assert tx["pl"] == "Decimal(precision=38, scale=0)"
    assert "DECIMAL(38,0)" in tx["duck"]
