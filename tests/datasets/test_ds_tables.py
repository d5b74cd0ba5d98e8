"""Schemas, registry, pandas / Parquet round trips, exactness, the dataset reference page and the ``schema`` command."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ds_helpers import as_bytes, consumed, current_validator, legacy_validator, token_answers, token_logs

from hmyframe.amounts import AttoDtype, Uint256Dtype
from hmyframe.cli import main
from hmyframe.datasets import (
    AMOUNT,
    DATASETS,
    SHARED,
    ConvertContext,
    describe,
    get,
    schema_fingerprint,
    to_pandas,
)
from hmyframe.datasets.docs import END, PAGE, START, render, replace_block
from hmyframe.datasets.token_transfers import UINT256

DATASETS_PAGE = Path(__file__).resolve().parents[2] / PAGE
CTX = ConvertContext(
    shard_id=0,
    block_numbers=[2],
    addresses_blocks=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1)],
    token_calls=[("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", 1, "name")],
)


def _sample_table(name: str) -> pa.Table:
    """Every consumed sample converted for ``name``, concatenated (nulls and real values mixed)."""
    tables = [DATASETS[name].convert([s.payload], CTX) for s, names in consumed() if name in names]
    if DATASETS[name].source == "validators":  # the samples have no undelegations nor metrics
        page = as_bytes([current_validator(), legacy_validator()])
        tables.append(DATASETS[name].convert([page], CTX))
    if DATASETS[name].source == "tokens":  # the one hmy_call sample answers "0x"
        payloads, calls = token_answers()
        tables.append(DATASETS[name].convert(payloads, ConvertContext(shard_id=0, token_calls=calls)))
    if DATASETS[name].source == "logs":  # the one recorded getLogs sample is not JSON
        tables.append(DATASETS[name].convert([as_bytes(token_logs())], CTX))
    if name == "token_balances":  # balanceOf answers: a balance, a missing function, a revert
        holders = [("one1rgl8538wyygp6ltyl0efkrm0rlpftaertskl80", "0x" + "11" * 20, 1)] * 3
        answers = [
            '"0x' + f"{2**255 + 7:064x}" + '"',
            '"0x"',
            '{"error": {"code": 3, "message": "execution reverted"}}',
        ]
        tables.append(
            DATASETS[name].convert(
                [a.encode() for a in answers], ConvertContext(shard_id=0, token_holders=holders)
            )
        )
    if name == "dex_pairs":  # token0 / token1 / getReserves answers: a pair, no contract, reverts
        tables.append(DATASETS[name].convert(*_pair_answers()))
    if name in ("native_transfers", "account_transactions"):  # derived from other datasets' tables
        txs = _sample_table("transactions")
        derived = (
            (txs, _sample_table("traces"))
            if name == "native_transfers"
            else (txs, txs["from_address_hex"].to_pylist())
        )
        tables.append(DATASETS[name].build(derived, CTX))
    return pa.concat_tables(tables)


def _pair_answers() -> tuple[list[bytes], ConvertContext]:
    """Three pairs' answers: one read (reserves past 2**64), one without code, one that reverts."""
    pair, nothing, reverting = "0x" + "21" * 20, "0x" + "22" * 20, "0x" + "23" * 20
    word = "0" * 24
    answers = [
        '"0x' + word + "aa" * 20 + '"',
        '"0x' + word + "bb" * 20 + '"',
        '"0x' + f"{2**111 + 3:064x}{5 * 10**20:064x}{1_700_000_000:064x}" + '"',
        *['"0x"'] * 3,
        *['{"error": {"code": 3, "message": "execution reverted: LOCKED"}}'] * 3,
    ]
    calls = [(p, 7, f) for p in (pair, nothing, reverting) for f in ("token0", "token1", "getReserves")]
    return [a.encode() for a in answers], ConvertContext(shard_id=1, token_calls=calls)


TABLES = {name: _sample_table(name) for name in DATASETS}


def test_registry_names_and_lookup():
    assert list(DATASETS) == [
        "blocks",
        "transactions",
        "staking_transactions",
        "signers",
        "traces",
        "receipts",
        "logs",
        "token_transfers",
        "validators",
        "voting_power",
        "delegations",
        "undelegations",
        "cx_receipts",
        "shards",
        "tx_counts",
        "tokens",
        "balances",
        "account_transactions",
        "delegator_delegations",
        "native_transfers",
        "rewards_collected",
        "token_balances",
        "dex_pairs",
    ]
    for name, ds in DATASETS.items():
        assert get(name) is ds
        assert ds.name == name


def test_every_column_is_described_and_free_of_lists():
    for ds in DATASETS.values():
        assert ds.sort_by
        for f in ds.schema:
            assert describe(f), (ds.name, f.name)
            assert "\n" not in describe(f)
            assert not pa.types.is_nested(f.type), (ds.name, f.name)
            assert f.name == f.name.lower()


#: Token amounts and ids (exact uint256 in the token's units), named as the issue names them.
TOKEN_UNITS = {("token_transfers", "amount"), ("token_transfers", "token_id")}


def test_same_column_name_means_same_type_everywhere():
    seen: dict[str, pa.DataType] = {name: f.type for name, f in SHARED.items()}
    for ds in DATASETS.values():
        for f in ds.schema:
            if (ds.name, f.name) in TOKEN_UNITS:  # a token's own units (uint256), not atto
                assert f.type == UINT256
                continue
            if f.name in seen:
                assert f.type == seen[f.name], (ds.name, f.name, f.type, seen[f.name])
            seen[f.name] = f.type
    for name in ("value", "amount", "gas_price", "reward", "total_delegation", "effective_stake"):
        assert seen[name] == AMOUNT
    assert seen["timestamp"] == pa.timestamp("ms", tz="UTC")


def test_fingerprint_is_stable_and_sensitive():
    ds = DATASETS["blocks"]
    assert ds.fingerprint == schema_fingerprint(ds.schema)
    assert len({d.fingerprint for d in DATASETS.values()}) == len(DATASETS)
    renamed = ds.schema.set(0, ds.schema.field(0).with_name("height"))
    retyped = ds.schema.set(0, ds.schema.field(0).with_type(pa.int32()))
    redescribed = ds.schema.set(0, ds.schema.field(0).with_metadata({b"description": b"other"}))
    prints = {schema_fingerprint(s) for s in (ds.schema, renamed, retyped, redescribed)}
    assert len(prints) == 4


@pytest.mark.parametrize("name", list(DATASETS))
def test_pandas_parquet_round_trip_keeps_dtypes_and_values(name, tmp_path):
    table = TABLES[name]
    assert table.num_rows > 0
    df = to_pandas(table)
    # exact amounts come as the atto dtype, token amounts as uint256 (digit strings marked in
    # the field metadata), everything else keeps its Arrow type
    for f, dt in zip(table.schema, df.dtypes, strict=True):
        if f.type == AMOUNT:
            assert isinstance(dt, AttoDtype), f.name
        elif (f.metadata or {}).get(b"hmyframe.dtype") == b"uint256":
            assert isinstance(dt, Uint256Dtype), f.name
            assert f.type == pa.string(), f.name
        else:
            assert isinstance(dt, pd.ArrowDtype), f.name
            assert dt.pyarrow_dtype == f.type, f.name
    # back to Arrow: the same types and values
    assert pa.Table.from_pandas(df, preserve_index=False).cast(table.schema).equals(table)
    # with the dataset schema (how hmyframe writes its files): exactly the dataset's types
    assert pa.Table.from_pandas(df, schema=table.schema, preserve_index=False).equals(table)
    # without it, exact amounts become the hmyframe.atto extension type over the same storage
    own = pa.Table.from_pandas(df, preserve_index=False).schema
    assert [getattr(t, "storage_type", t) for t in own.types] == table.schema.types
    path = tmp_path / f"{name}.parquet"
    df.to_parquet(path)
    back = to_pandas(pq.read_table(path, schema=table.schema))
    pd.testing.assert_frame_equal(back, df)
    # pandas' own Arrow reader gives Arrow columns (here the hmyframe.atto extension type
    # over decimal128(38, 0): the file names it) with the same exact values
    arrow_back = pd.read_parquet(path, dtype_backend="pyarrow")
    # plain pandas still reads every table, exact values included
    plain = pd.read_parquet(path)
    assert list(plain.columns) == table.schema.names
    for f in table.schema:
        if f.type == AMOUNT:
            expected = table.column(f.name).to_pylist()
            got = [None if pd.isna(v) else Decimal(v) for v in plain[f.name]]
            assert got == expected, f.name
            assert arrow_back[f.name].dtype.pyarrow_dtype.storage_type == AMOUNT
            assert isinstance(plain[f.name].dtype, AttoDtype), f.name  # the file names it
            assert [None if pd.isna(v) else Decimal(v) for v in arrow_back[f.name]] == expected, f.name
        elif (f.metadata or {}).get(b"hmyframe.dtype") == b"uint256":  # digit strings, exact
            expected = table.column(f.name).to_pylist()
            assert [None if pd.isna(v) else str(v) for v in plain[f.name]] == expected, f.name


def test_the_table_written_by_pyarrow_reads_back_identically():
    for name, table in TABLES.items():
        buf = io.BytesIO()
        pq.write_table(table, buf)
        buf.seek(0)
        assert pq.read_table(buf).equals(table), name


BIG = 2**64 + 12345  # above uint64
NEAR_SUPPLY = 12_999_999_999_999_999_999_999_999_999  # 29 digits, ~ total supply in atto
MAX38 = 10**38 - 1


def test_exact_amounts_survive_bytes_table_pandas_parquet_pandas(tmp_path):
    txs = []
    for i, value in enumerate([BIG, NEAR_SUPPLY, MAX38, 0]):
        txs.append(
            {
                "hash": "0x" + f"{i:064x}",
                "blockHash": "0x" + "12" * 32,
                "blockNumber": 10 + i,
                "transactionIndex": 0,
                "timestamp": 1_700_000_000,
                "from": "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9",
                "to": "one155jp2y76nazx8uw5sa94fr0m4s5aj8e5xm6fu3",
                "gas": 21000,
                "gasPrice": value,
                "nonce": i,
                "value": value,
                "input": "0x",
                "shardID": 0,
                "toShardID": 0,
            }
        )
    raw = json.dumps(txs).encode()
    assert str(NEAR_SUPPLY).encode() in raw
    assert str(BIG).encode() in raw
    table = DATASETS["transactions"].convert([raw], CTX)
    expected = [Decimal(BIG), Decimal(NEAR_SUPPLY), Decimal(MAX38), Decimal(0)]
    assert table.column("value").to_pylist() == expected
    assert table.column("gas_price").to_pylist() == expected
    df = to_pandas(table)
    assert df["value"].tolist() == expected
    path = tmp_path / "exact.parquet"
    df.to_parquet(path)
    back = pd.read_parquet(path, dtype_backend="pyarrow")
    assert back["value"].tolist() == expected
    assert pd.read_parquet(path)["value"].tolist() == expected
    assert back["value_one"].tolist()[1] == NEAR_SUPPLY / 10**18  # convenience float beside


def test_one_digit_too_many_is_rejected_with_the_field_named():
    from hmyframe.errors import ResponseShapeError

    tx = {"hash": "0x" + "1" * 64, "from": "one1a0x3d6xpmr6f8wsyaxd9v36pytvp48zckswvv9", "value": 10**38,
          "gas": 1, "gasPrice": 1, "nonce": 0, "input": "0x"}  # fmt: skip
    with pytest.raises(
        ResponseShapeError, match=r"transactions: field 'payload\[0\]\.value'.*38 decimal digits"
    ):
        DATASETS["transactions"].convert([json.dumps(tx).encode()], CTX)


def test_the_dataset_reference_page_is_up_to_date():
    text = DATASETS_PAGE.read_text(encoding="utf-8")
    assert START in text
    assert END in text
    assert replace_block(text, render()) == text, f"run: python -m hmyframe.datasets.docs --write {PAGE}"
    for name, ds in DATASETS.items():
        assert f"\n## `{name}`\n" in text
        for f in ds.schema:
            assert f"| `{f.name}` | `{f.type}` |" in text


def test_docs_module_check_and_write(tmp_path):
    from hmyframe.datasets.docs import main as docs_main

    stale = tmp_path / "R.md"
    stale.write_text(f"# x\n\n{START}\nSTALE-CONTENT\n{END}\n\nafter\n", encoding="utf-8")
    assert docs_main(["--check", str(stale)]) == 1
    assert docs_main(["--write", str(stale)]) == 0
    assert docs_main(["--check", str(stale)]) == 0
    text = stale.read_text(encoding="utf-8")
    assert text.startswith("# x\n")
    assert text.endswith(f"{END}\n\nafter\n")
    assert "STALE-CONTENT" not in text


def test_cli_schema_lists_and_prints(capsys):
    assert main(["schema"]) == 0
    out = capsys.readouterr().out
    for name in DATASETS:
        assert name in out
    assert main(["schema", "traces"]) == 0
    out = capsys.readouterr().out
    assert "trace_address" in out
    assert "decimal128(38, 0)" in out
    assert "Path of the call in the call tree" in out
    assert main(["schema", "validators", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["fingerprint"] == DATASETS["validators"].fingerprint
    assert [c["name"] for c in data["columns"]] == DATASETS["validators"].schema.names
    assert main(["schema", "blocks", "--format", "markdown"]) == 0
    assert "| `block_number` | `int64` |" in capsys.readouterr().out


def test_cli_schema_unknown_dataset(capsys):
    assert main(["schema", "blok"]) == 1
    err = capsys.readouterr().err
    assert "unknown dataset 'blok'" in err
    assert "valid names: blocks, transactions" in err
