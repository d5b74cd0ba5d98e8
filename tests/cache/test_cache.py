"""The Parquet cache: coverage planning, atomic writes, stale/corrupt detection, readability."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from cache_helpers import CHAIN, DS, SCHEMA, FakeDataset, rows

from hmyframe.cache import Cache, CacheWarning
from hmyframe.errors import CacheError, ConfigError


def test_missing_reports_gaps_around_cached_ranges(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    assert cache.missing(CHAIN, DS, 0, 0, 99) == [(0, 99)]
    cache.write_range(CHAIN, DS, 0, 10, 19, rows(10, 19))
    cache.write_range(CHAIN, DS, 0, 40, 49, rows(40, 49))
    assert cache.missing(CHAIN, DS, 0, 0, 99) == [(0, 9), (20, 39), (50, 99)]
    assert cache.missing(CHAIN, DS, 0, 12, 15) == []
    assert cache.missing(CHAIN, DS, 0, 15, 45) == [(20, 39)]
    # another shard and another chain share nothing
    assert cache.missing(CHAIN, DS, 1, 10, 19) == [(10, 19)]
    assert cache.missing("fedcba9876543210", DS, 0, 10, 19) == [(10, 19)]


def test_read_range_returns_exactly_the_requested_blocks(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    cache.write_range(CHAIN, DS, 0, 10, 19, rows(10, 19))
    table = cache.read_range(CHAIN, DS, 0, 5, 12)
    assert table["block_number"].to_pylist() == [b for b in range(5, 13) for _ in range(2)]
    # exact big values survive the round trip
    assert table["value"].to_pylist()[0] == 10**25 + 5
    with pytest.raises(CacheError, match=r"not cached"):
        cache.read_range(CHAIN, DS, 0, 5, 25)


def test_empty_range_file_counts_as_cached(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9, per_block=0))
    assert cache.missing(CHAIN, DS, 0, 0, 9) == []
    assert cache.read_range(CHAIN, DS, 0, 0, 9).num_rows == 0


def test_stale_fingerprint_is_reported_and_refetched_never_mixed(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    old = FakeDataset("transactions", SCHEMA, "fp-old")
    cache.write_range(CHAIN, old, 0, 0, 9, rows(0, 9))
    with pytest.warns(CacheWarning, match="stale"):
        assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]
    # writing the refetched range replaces the stale file
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9, per_block=3))
    statuses = [e.status for e in cache.entries(CHAIN, "transactions")]
    assert statuses == ["ok"]
    assert cache.read_range(CHAIN, DS, 0, 0, 9).num_rows == 30


def test_corrupt_file_is_detected(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    path.write_bytes(path.read_bytes()[:100])  # truncated, as after a crash of a non-atomic writer
    with pytest.warns(CacheWarning, match="corrupt"):
        assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]
    assert [e.status for e in cache.entries()] == ["corrupt"]


def test_leftover_temporary_files_are_invisible(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    folder = cache.folder(CHAIN, "transactions", 0)
    # a crash between writing the temporary file and the rename leaves this behind
    (folder / ".transactions__0000000010_0000000019.parquet.999.tmp").write_bytes(b"PAR1 partial")
    assert cache.missing(CHAIN, DS, 0, 0, 19) == [(10, 19)]
    assert len(cache.entries()) == 1
    assert pd.read_parquet(folder).shape[0] == 20
    assert list(folder.glob(".*")), "the test must really leave a temporary file behind"


def test_overlapping_files_are_not_double_counted(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    cache.write_range(CHAIN, DS, 0, 5, 14, rows(5, 14))  # e.g. written by a concurrent process
    table = cache.read_range(CHAIN, DS, 0, 0, 14)
    assert table["block_number"].to_pylist() == [b for b in range(15) for _ in range(2)]


def test_snapshots(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    snap = FakeDataset("validators", pa.schema([pa.field("address", pa.string())]), "v1")
    assert cache.read_snapshot(CHAIN, snap, 0, 100) is None
    cache.write_snapshot(CHAIN, snap, 0, 100, pa.table({"address": ["one1a", "one1b"]}, schema=snap.schema))
    got = cache.read_snapshot(CHAIN, snap, 0, 100)
    assert got is not None
    assert got["address"].to_pylist() == ["one1a", "one1b"]
    assert cache.read_snapshot(CHAIN, snap, 0, 101) is None


def test_files_are_readable_by_pandas_pyarrow_dataset_and_duckdb(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    cache.write_range(CHAIN, DS, 0, 10, 19, rows(10, 19))
    folder = tmp_path / CHAIN / "transactions"
    assert pd.read_parquet(folder).shape[0] == 40
    assert pads.dataset(folder, format="parquet").to_table().num_rows == 40
    total = duckdb.sql(
        f"select count(*), max(block_number) from read_parquet('{folder}/**/*.parquet')"
    ).fetchall()[0]
    assert total == (40, 19)


def test_refuses_foreign_schema_and_bad_arguments(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    wrong = pa.table({"block_number": pa.array([1], pa.int32())})
    with pytest.raises(CacheError, match="differs"):
        cache.write_range(CHAIN, DS, 0, 1, 1, wrong)
    with pytest.raises(ConfigError, match="block range"):
        cache.missing(CHAIN, DS, 0, 10, 5)
    with pytest.raises(ConfigError, match="chain id"):
        cache.folder("../etc", "transactions", 0)


def test_clear(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    cache.write_range(CHAIN, DS, 1, 0, 9, rows(0, 9))
    assert cache.clear(dataset="transactions") == 2
    assert cache.entries() == []
    assert not (tmp_path / CHAIN).exists()
