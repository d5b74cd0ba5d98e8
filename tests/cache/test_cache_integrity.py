"""The cache checks itself: integrity records, overlap repair, and ``clear`` touching only its own files.

A file is tampered with the way a user or a crash would (copied over its neighbour, rewritten
with other columns or values but the same metadata, left overlapping by a writer that died);
the cache must notice from the footer alone and never hand out a block's rows twice.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cache_helpers import CHAIN, DS, SCHEMA, FakeDataset, rows

import hmyframe.cache._store as store_module
from hmyframe.cache import Cache, CacheWarning
from hmyframe.cache._record import content_check, predicted_check
from hmyframe.errors import ConfigError


def _rewrite_keeping_metadata(path: Path, table: pa.Table) -> None:
    """Rewrite ``path`` with ``table`` but the original key-value metadata (hmyframe.* included)."""
    meta = pq.read_schema(path).metadata
    pq.write_table(table.replace_schema_metadata(meta), path)


def _file_ranges(folder: Path) -> list[tuple[int, int]]:
    out = []
    for path in sorted(folder.glob("*.parquet")):
        start, end = path.stem.split("__")[1].split("_")
        out.append((int(start), int(end)))
    return out


# --------------------------------------------------------------------------- 3. integrity records


def test_a_file_copied_over_its_neighbour_is_corrupt_not_read(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    first = cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    second = cache.write_range(CHAIN, DS, 0, 10, 19, rows(10, 19))
    assert first is not None
    assert second is not None
    shutil.copyfile(first, second)
    with pytest.warns(CacheWarning, match=r"corrupt \(it records transactions range 0\.\.9"):
        assert cache.missing(CHAIN, DS, 0, 0, 19) == [(10, 19)]
    cache.write_range(CHAIN, DS, 0, 10, 19, rows(10, 19))
    table = cache.read_range(CHAIN, DS, 0, 0, 19)
    assert table["block_number"].to_pylist() == [b for b in range(20) for _ in range(2)]


def test_a_file_with_changed_columns_but_kept_metadata_is_corrupt(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    assert path is not None
    renamed = rows(0, 9).rename_columns(["block_number", "amount"])
    _rewrite_keeping_metadata(path, renamed)
    with pytest.warns(CacheWarning, match="columns differ from the dataset's schema"):
        assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]
    entry = cache.entries()[0]
    assert (entry.status, entry.rows) == ("corrupt", 20)


def test_a_file_with_changed_values_but_kept_metadata_fails_its_content_check(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    assert path is not None
    table = rows(0, 9)
    bumped = pa.array([v + 1 for v in table["value"].to_pylist()], SCHEMA.field("value").type)
    changed = table.set_column(1, SCHEMA.field("value"), bumped)
    _rewrite_keeping_metadata(path, changed)
    with pytest.warns(CacheWarning, match="content check does not match"):
        assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]


def test_a_file_with_fewer_rows_than_recorded_is_corrupt(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    assert path is not None
    _rewrite_keeping_metadata(path, rows(0, 9).slice(0, 19))
    with pytest.warns(CacheWarning, match="records 20 rows but holds 19"):
        assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]


def test_each_file_records_what_it_holds_in_its_footer(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.write_range(CHAIN, DS, 1, 10, 19, rows(10, 19, per_block=3))
    assert path is not None
    meta = pq.read_metadata(path).metadata
    record = {k.decode()[9:]: v.decode() for k, v in meta.items() if k.startswith(b"hmyframe.")}
    assert record["dataset"] == "transactions"
    assert record["fingerprint"] == "fp-1"
    assert (record["chain"], record["shard"], record["kind"]) == (CHAIN, "1", "range")
    assert (record["start"], record["end"], record["rows"]) == ("10", "19", "30")
    assert record["check"].startswith("sha256:")
    assert len(record["check"]) == len("sha256:") + 64


# --------------------------------------------------------------------------- 2. overlaps


def _plant(cache: Cache, other: Path, start: int, end: int) -> Path:
    """A valid file of ``start..end`` written elsewhere, moved into ``cache``'s folder unrepaired
    (as left by a writer that died between its rename and its repair, or by another machine)."""
    path = Cache(other / f"{start}-{end}").write_range(CHAIN, DS, 0, start, end, rows(start, end))
    assert path is not None
    target = cache.range_path(CHAIN, "transactions", 0, start, end)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    return target


def test_overlapping_files_found_later_are_repaired_so_no_reader_sees_a_block_twice(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "root")
    folder = cache.folder(CHAIN, "transactions", 0)
    for start, end in ((0, 999), (700, 1399), (1000, 1999), (1400, 2099), (0, 699)):
        _plant(cache, tmp_path / "elsewhere", start, end)
    assert len(_file_ranges(folder)) == 5
    assert pd.read_parquet(folder).shape[0] > 2 * 2100  # as the issue saw: duplicates
    # the next planner repairs the folder: the wider file wins, the rest is cut or dropped
    assert cache.missing(CHAIN, DS, 0, 0, 2099) == []
    ranges = _file_ranges(folder)
    assert ranges == [(0, 999), (1000, 1999), (2000, 2099)]
    expected = [b for b in range(2100) for _ in range(2)]
    assert sorted(pd.read_parquet(folder)["block_number"].tolist()) == expected
    total = duckdb.sql(
        f"select count(*), count(distinct block_number) from read_parquet('{folder}/*.parquet')"
    )
    assert total.fetchall() == [(4200, 2100)]
    assert cache.read_range(CHAIN, DS, 0, 0, 2099)["block_number"].to_pylist() == expected
    assert all(e.status == "ok" for e in cache.entries())


def test_a_partial_overlap_keeps_the_blocks_only_the_loser_held(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "root")
    _plant(cache, tmp_path / "a", 0, 9)
    _plant(cache, tmp_path / "b", 5, 19)  # wider: wins
    table = cache.read_range(CHAIN, DS, 0, 0, 19)
    assert table["block_number"].to_pylist() == [b for b in range(20) for _ in range(2)]
    assert _file_ranges(cache.folder(CHAIN, "transactions", 0)) == [(0, 4), (5, 19)]


def test_a_writer_publishes_only_what_other_writers_did_not_and_the_wider_file_wins(tmp_path: Path) -> None:
    slow, fast = Cache(tmp_path), Cache(tmp_path)  # two writers (processes) on one folder
    fast.write_range(CHAIN, DS, 0, 0, 699, rows(0, 699))
    fast.write_range(CHAIN, DS, 0, 700, 1399, rows(700, 1399))
    folder = slow.folder(CHAIN, "transactions", 0)
    # the slow writer fetched 0..999 and 1000..1999 before it saw the fast one's files
    assert slow.write_range(CHAIN, DS, 0, 0, 999, rows(0, 999)) is None  # all held: not published
    assert _file_ranges(folder) == [(0, 699), (700, 1399)]
    assert slow.write_range(CHAIN, DS, 0, 1000, 1999, rows(1000, 1999)) is not None  # wider: wins
    assert _file_ranges(folder) == [(0, 699), (700, 999), (1000, 1999)]
    numbers = pd.read_parquet(folder)["block_number"].tolist()
    assert sorted(numbers) == [b for b in range(2000) for _ in range(2)]


# --------------------------------------------------------------------------- 5. clear


def test_clear_touches_only_the_files_the_cache_wrote(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    folder = cache.folder(CHAIN, "transactions", 0)
    ours = folder / ".transactions__0000000010_0000000019.parquet.999999-otherhost-abcd1234.tmp"
    ours.write_bytes(b"a dead writer's half file")
    users = [
        tmp_path / "mine" / ".notes.tmp",
        tmp_path / ".scratch.tmp",
        folder / "README.txt",
        folder / ".notes.tmp",
        tmp_path / CHAIN / "notes.md",
    ]
    for path in users:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("mine")
    assert cache.clear(dataset="blocks") == 0  # another dataset: nothing of ours, nothing of theirs
    assert all(p.exists() for p in users)
    assert ours.exists()
    assert cache.clear() == 2  # the range file and our temporary file
    assert not ours.exists()
    assert all(p.read_text() == "mine" for p in users)
    assert folder.exists()  # still holds the user's files


def _footer_check(path: Path) -> str:
    return pq.read_metadata(path).metadata[b"hmyframe.check"].decode()


@pytest.mark.parametrize(
    "column",
    [
        pa.array([3, None, -7], pa.int32()),
        pa.array([0.0, None, 2.5]),  # Parquet writes a zero minimum as -0.0
        pa.array([-1.5, -0.0, None]),
        pa.array(["b", None, "ab\u00e9"]),
        pa.array([True, None, True]),
        pa.array([None, None, None], pa.string()),  # no min/max at all
        pa.array([1, None, 2], pa.timestamp("ms", tz="UTC")),
        pa.array([-(10**37), None, 10**30], pa.decimal128(38, 0)),
    ],
    ids=["int32", "float-zero", "float-neg-zero", "string", "bool", "all-null", "timestamp", "decimal"],
)
def test_the_check_predicted_in_memory_is_the_written_files_own(tmp_path: Path, column: pa.Array) -> None:
    schema = pa.schema([pa.field("block_number", pa.int64()), pa.field("x", column.type)])
    dataset = FakeDataset("transactions", schema, "fp-x")
    table = pa.table({"block_number": pa.array([0, 1, 2], pa.int64()), "x": column}, schema=schema)
    assert predicted_check(table) is not None
    Cache(tmp_path).write_range(CHAIN, dataset, 0, 0, 2, table)
    (path,) = tmp_path.rglob("*.parquet")
    footer = pq.read_metadata(path)
    # what the footer's statistics give is what was predicted (and recorded)
    assert content_check(footer) == predicted_check(table) == _footer_check(path)


def test_unmodelled_columns_fall_back_to_the_statistics_pass(tmp_path: Path) -> None:
    schema = pa.schema([pa.field("block_number", pa.int64()), pa.field("x", pa.list_(pa.int64()))])
    table = pa.table({"block_number": [0, 1], "x": [[1, 2], None]}, schema=schema)
    assert predicted_check(table) is None
    assert predicted_check(rows(0, 0, per_block=0)) is None  # an empty table
    assert predicted_check(pa.table({"f": pa.array([1.0, float("nan")])})) is None
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, FakeDataset("transactions", schema, "fp-l"), 0, 0, 1, table)
    (path,) = tmp_path.rglob("*.parquet")
    assert _footer_check(path) == content_check(pq.read_metadata(path))


def test_a_wrong_prediction_is_caught_by_the_written_footer_and_rewritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "predicted_check", lambda table: "sha256:wrong")
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    (path,) = tmp_path.rglob("*.parquet")
    assert _footer_check(path) == content_check(pq.read_metadata(path)) != "sha256:wrong"
    assert [e.status for e in cache.entries(CHAIN, "transactions")] == ["ok"]


# --------------------------------------------------------------------------- a follower's tails


def test_a_tail_grows_in_place_and_becomes_the_chunk_file_when_complete(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    folder = tmp_path / CHAIN / "transactions" / "shard0"
    tail = folder / "transactions__0000000010_tail.parquet"
    for a, b in [(10, 10), (11, 13), (14, 14)]:
        assert cache.write_range(CHAIN, DS, 0, a, b, rows(a, b), chunk=(10, 19)) == tail
        assert sorted(p.name for p in folder.glob("*.parquet")) == [tail.name]  # one file, same name
        assert pq.read_metadata(tail).metadata[b"hmyframe.end"] == str(b).encode()
        assert cache.missing(CHAIN, DS, 0, 10, 19) == [(b + 1, 19)]
        assert cache.read_range(CHAIN, DS, 0, 10, b).equals(rows(10, b))
    (entry,) = cache.entries()
    assert (entry.kind, entry.start, entry.end, entry.rows, entry.status) == ("range", 10, 14, 10, "ok")
    done = cache.write_range(CHAIN, DS, 0, 15, 19, rows(15, 19), chunk=(10, 19))
    assert done == folder / "transactions__0000000010_0000000019.parquet"
    assert sorted(p.name for p in folder.glob("*.parquet")) == [done.name]
    assert cache.read_range(CHAIN, DS, 0, 10, 19).equals(rows(10, 19))
    assert [(e.start, e.end, e.status) for e in cache.entries()] == [(10, 19, "ok")]


def test_a_tail_is_checked_like_any_file_and_refetched_when_corrupt(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    tail = cache.write_range(CHAIN, DS, 0, 20, 23, rows(20, 23), chunk=(20, 29))
    assert tail is not None
    _rewrite_keeping_metadata(Path(tail), rows(20, 23).slice(0, 7))
    with pytest.warns(CacheWarning, match="records 8 rows but holds 7"):
        assert cache.missing(CHAIN, DS, 0, 20, 29) == [(20, 29)]
    # its blocks written again replace it (same name), then the chunk completes
    assert cache.write_range(CHAIN, DS, 0, 20, 24, rows(20, 24), chunk=(20, 29)) == tail
    assert cache.missing(CHAIN, DS, 0, 20, 29) == [(25, 29)]
    meta = dict(pq.read_metadata(tail).metadata)
    del meta[b"hmyframe.end"]
    pq.write_table(rows(20, 24).replace_schema_metadata(meta), tail)
    with pytest.warns(CacheWarning, match="records no last block"):
        assert cache.missing(CHAIN, DS, 0, 20, 29) == [(20, 29)]


def test_a_plain_write_after_a_tail_takes_it_in_and_a_distant_one_leaves_it(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    folder = tmp_path / CHAIN / "transactions" / "shard0"
    cache.write_range(CHAIN, DS, 0, 0, 3, rows(0, 3), chunk=(0, 9))
    cache.write_range(CHAIN, DS, 0, 6, 9, rows(6, 9))  # not adjoining: the tail stays
    assert sorted(p.name for p in folder.glob("*.parquet")) == [
        "transactions__0000000000_tail.parquet",
        "transactions__0000000006_0000000009.parquet",
    ]
    cache.write_range(CHAIN, DS, 0, 4, 5, rows(4, 5))  # adjoining: the tail takes them and is renamed
    assert sorted(p.name for p in folder.glob("*.parquet")) == [
        "transactions__0000000000_0000000005.parquet",
        "transactions__0000000006_0000000009.parquet",
    ]
    assert cache.read_range(CHAIN, DS, 0, 0, 9).equals(rows(0, 9))
    with pytest.raises(ConfigError, match=r"blocks 12\.\.14 do not lie in the chunk 0\.\.9"):
        cache.write_range(CHAIN, DS, 0, 12, 14, rows(12, 14), chunk=(0, 9))
