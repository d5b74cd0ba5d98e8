"""``hmyframe.sql`` and ``hmyframe sql``: DuckDB over a cache folder filled from the devnet."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import hmyframe
from hmyframe.amounts import AttoDtype
from hmyframe.cli import main
from hmyframe.devnet import Devnet
from hmyframe.errors import ConfigError, QueryError


@pytest.fixture(scope="module")
def cache(devnet: Devnet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sql-cache")
    hmyframe.transactions(0, 119, shard="all", rpc=devnet, cache=root)
    hmyframe.blocks(0, 119, shard="all", rpc=devnet, cache=root)
    return root


def test_a_join_of_transactions_and_blocks_counts_and_sums_exactly(cache: Path) -> None:
    df = hmyframe.sql(
        "select shard_id, count(*) as n, sum(value) as total, max(b.timestamp) as last_time "
        "from transactions join blocks b using (shard_id, block_number) group by 1 order by 1",
        cache,
    )
    tx = hmyframe.read("transactions", cache)
    blocks = hmyframe.read("blocks", cache)
    assert list(df["shard_id"]) == [0, 1]
    for _, row in df.iterrows():
        mine = tx[tx["shard_id"] == row["shard_id"]]
        assert row["n"] == len(mine)
        assert row["total"] == sum(int(v) for v in mine["value"])  # exact: Python ints, no float
        assert row["last_time"] == blocks[blocks["shard_id"] == row["shard_id"]]["timestamp"].max()
    assert isinstance(df["total"].dtype, AttoDtype)
    assert df["n"].dtype == pd.ArrowDtype(pa.int64())
    assert df["last_time"].dtype == pd.ArrowDtype(pa.timestamp("ms", tz="UTC"))


def test_select_star_gives_the_frame_read_gives(cache: Path) -> None:
    df = hmyframe.sql("select * from transactions order by shard_id, block_number, transaction_index", cache)
    expected = hmyframe.read("transactions", cache)
    assert df.dtypes.equals(expected.dtypes)
    assert df.equals(expected)
    table = hmyframe.sql("select * from blocks where shard_id = 1", cache, output="arrow")
    assert table.schema.equals(hmyframe.schema("blocks"))
    assert table.num_rows == 120


def test_params_travel_as_parameters(cache: Path) -> None:
    by_position = hmyframe.sql("select count(*) as n from blocks where block_number < ?", cache, params=[10])
    by_name = hmyframe.sql("select count(*) as n from blocks where shard_id = $s", cache, params={"s": 1})
    assert by_position["n"].tolist() == [20]  # 10 blocks of each of 2 shards
    assert by_name["n"].tolist() == [120]


def test_views_are_the_datasets_present_and_only_named_views_are_read(cache: Path, tmp_path: Path) -> None:
    assert list(hmyframe.query.views(cache)) == ["blocks", "transactions", "staking_transactions"]
    # a copy whose blocks files are garbage: a query of transactions alone never opens them
    copy = tmp_path / "copy"
    for path in cache.rglob("*.parquet"):
        target = copy / path.relative_to(cache)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"garbage" if path.name.startswith("blocks__") else path.read_bytes())
    n = hmyframe.sql("select count(*) as n from transactions", copy)["n"].item()
    assert n == len(hmyframe.read("transactions", cache))
    with pytest.raises(hmyframe.HmyframeError, match="blocks__"):
        hmyframe.sql("select count(*) from blocks", copy)


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("selec * from blocks", ["not valid SQL", "selec"]),
        ("select * from blockz", ["blockz", "views under", "blocks, transactions, staking_transactions"]),
        ("select no_such_column from blocks", ["no_such_column"]),
        ("select cast(block_hash as int) from blocks", ["Could not convert", "block_hash"]),
    ],
)
def test_bad_sql_is_a_query_error_naming_the_problem(cache: Path, query: str, words: list[str]) -> None:
    with pytest.raises(QueryError) as info:
        hmyframe.sql(query, cache)
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize("bad", [None, "", 42])
def test_a_query_that_is_not_text_is_refused(cache: Path, bad: object) -> None:
    with pytest.raises(ConfigError, match="query must be an SQL text"):
        hmyframe.sql(bad, cache)  # type: ignore[arg-type]


def test_an_empty_folder_has_no_views(tmp_path: Path) -> None:
    assert hmyframe.query.views(tmp_path) == {}
    with pytest.raises(QueryError, match=r"views under .*: none"):
        hmyframe.sql("select * from blocks", tmp_path)


def test_without_duckdb_the_message_names_the_extra(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "duckdb", None)  # import duckdb now raises ImportError
    with pytest.raises(ConfigError, match=r"pip install 'hmyframe\[sql\]'"):
        hmyframe.sql("select 1", cache)


def test_import_hmyframe_and_naming_sql_do_not_load_duckdb() -> None:
    code = "import sys, hmyframe\nhmyframe.sql\nprint('duckdb' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_sql_command_prints_lists_and_writes(
    cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "select shard_id, count(*) as n, sum(value) as total from transactions group by 1 order by 1"
    expected = hmyframe.sql(query, cache)
    assert main(["sql", query, "--path", str(cache)]) == 0
    printed = capsys.readouterr().out
    for total in expected["total"]:
        assert str(total) in printed  # exact digits, not a float's
    assert main(["sql", "--list", "--path", str(cache)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in listed] == ["blocks", "transactions", "staking_transactions"]
    assert "value decimal128(38, 0)" in listed[1]
    assert main(["sql", "select * from blocks", "--path", str(cache), "--max-rows", "4"]) == 0
    assert "[240 rows x" in capsys.readouterr().out
    out = tmp_path / "r.parquet"
    assert main(["sql", query, "--path", str(cache), "--out", str(out)]) == 0
    assert "wrote 2 rows" in capsys.readouterr().err
    assert pq.read_table(out).column("total").to_pylist() == [int(t) for t in expected["total"]]
    assert main(["sql", "select * from nowhere", "--path", str(cache)]) == 1
    assert "nowhere" in capsys.readouterr().err
    assert main(["sql", query, "--path", str(cache), "--out", str(tmp_path / "r.txt")]) == 1
    assert ".parquet or .csv" in capsys.readouterr().err


def test_a_url_folder_is_queried_like_a_local_one(devnet: Devnet, cache: Path) -> None:
    url = "memory://hmyframe-sql-test/cache"
    hmyframe.transactions(0, 119, shard="all", rpc=devnet, cache=url)
    query = "select shard_id, count(*) as n, sum(value) as total from transactions group by 1 order by 1"
    assert hmyframe.sql(query, url).equals(hmyframe.sql(query, cache))


def test_several_chains_need_chain(cache: Path, tmp_path: Path) -> None:
    (chain,) = [p.name for p in cache.iterdir()]
    other = "f" * 16
    for path in cache.rglob("*.parquet"):
        for name in (chain, other):
            target = tmp_path / name / path.relative_to(cache / chain)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    with pytest.raises(ConfigError, match=r"several chains .*chain="):
        hmyframe.sql("select count(*) from blocks", tmp_path)
    n = hmyframe.sql("select count(*) as n from blocks", tmp_path, chain=other)["n"].item()
    assert n == 240


def test_a_result_column_of_a_dataset_column_gets_its_field_back_dtype_metadata_included() -> None:
    from hmyframe._pandas_meta import DTYPE_KEY
    from hmyframe.query import _dataset_types

    declared = pa.schema(
        [
            pa.field("amount", pa.string(), metadata={DTYPE_KEY: b"uint256"}),
            pa.field("timestamp", pa.timestamp("ms", tz="UTC")),
        ]
    )
    moment = pa.array([1_700_000_000_123_000], pa.timestamp("us", tz="Etc/UTC"))
    result = pa.table({"amount": ["115792089237316195423570985008687907853269984665640564039457584007913129639935"],
                       "timestamp": moment, "later": moment, "amount_text": ["1"]})  # fmt: skip
    df = hmyframe.to_pandas(_dataset_types(result, [declared]))
    assert str(df["amount"].dtype) == "uint256"
    assert df["amount"][0] == 2**256 - 1
    assert df["timestamp"].dtype == df["later"].dtype == pd.ArrowDtype(pa.timestamp("ms", tz="UTC"))
    assert df["amount_text"].dtype == pd.ArrowDtype(pa.string())


def test_the_sql_command_prints_chain_text_escaped_and_cut(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Token names and symbols of a hostile devnet reach the terminal as visible escapes, cut
    short; hashes stay whole; ``--out`` keeps the values as they are."""
    with Devnet(blocks=60, seed=3, hostile_text=True) as net:
        tokens = [t.address for t in net.chain.tokens(0)]
        hmyframe.tokens(tokens, block=50, rpc=net, cache=tmp_path)
        hmyframe.blocks(0, 9, rpc=net, cache=tmp_path)
    query = "select symbol, name, address_hex from tokens order by address_hex"
    assert main(["sql", query, "--path", str(tmp_path), "--max-rows", "0"]) == 0
    printed = capsys.readouterr().out
    assert "\\u202eevil" in printed  # the right-to-left override, written out
    assert "\\x1b[31mRED\\x1b[0m" in printed  # an ANSI colour, written out
    assert "NL\\nCR\\rTAB\\tNUL\\x00BEL\\x07" in printed
    assert "ZERO\\u200b\\u200c\\u200d\\ufeffWIDTH\\u2060" in printed
    for raw in ("\u202e", "\x1b", "\x00", "\x07", "\u200b", "\r"):
        assert raw not in printed
    assert "W" * 64 not in printed
    assert "W" * 60 in printed
    assert all(len(line) < 400 for line in printed.splitlines())
    for address in tokens:
        assert address in printed  # hex is printed whole
    block_hash = hmyframe.read("blocks", tmp_path)["block_hash"].iloc[0]
    assert main(["sql", "select block_hash from blocks", "--path", str(tmp_path), "--max-rows", "0"]) == 0
    assert block_hash in capsys.readouterr().out
    out = tmp_path / "tokens.parquet"
    assert main(["sql", query, "--path", str(tmp_path), "--out", str(out)]) == 0
    assert "\u202eevil" in pq.read_table(out).column("symbol").to_pylist()
