"""Piece files (hmyframe.cache._pieces): a chunk's converted pieces kept while it is fetched.

They hold the cache's guarantees: written atomically with the integrity record, checked before
use (a damaged one is removed), never seen by readers or planners, taken as a non-overlapping
cover, removed by ``clear`` and, when a writer died mid-write, their temporary files too.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pyarrow.dataset as pads
import pytest
from cache_helpers import CHAIN, DS, rows

from hmyframe.cache import Cache, piece_name


def _folder(tmp_path: Path) -> Path:
    return tmp_path / CHAIN / DS.name / "shard0"


def test_a_piece_is_kept_checked_and_read_back_exactly(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    path = cache.pieces.write(CHAIN, DS, 0, 10, 19, rows(10, 19))
    assert Path(path).name == piece_name(DS.name, 10, 19) == f".{DS.name}__0000000010_0000000019.piece"
    assert [(a, b) for a, b, _ in cache.pieces.held(CHAIN, DS, 0, 0, 99)] == [(10, 19)]
    table, _ = cache.pieces.read(DS, path)
    assert table.equals(rows(10, 19))
    assert all(column.num_chunks == 1 for column in table.columns)  # one array a column
    assert cache.pieces.held(CHAIN, DS, 0, 12, 99) == []  # only pieces inside the range asked
    assert cache.pieces.held(CHAIN, DS, 1, 0, 99) == []  # another shard holds none
    assert not [p for p in _folder(tmp_path).iterdir() if p.name.endswith(".tmp")]  # renamed in place


def test_no_reader_or_planner_sees_a_piece(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    cache.pieces.write(CHAIN, DS, 0, 10, 19, rows(10, 19))
    assert cache.missing(CHAIN, DS, 0, 0, 19) == [(10, 19)]  # the piece's blocks are not cached
    assert [(e.start, e.end) for e in cache.entries()] == [(0, 9)]
    folder = _folder(tmp_path)
    assert pads.dataset(str(folder), format="parquet").to_table().num_rows == rows(0, 9).num_rows
    ((count,),) = duckdb.sql(f"select count(*) from read_parquet('{tmp_path}/**/*.parquet')").fetchall()
    assert count == rows(0, 9).num_rows
    assert sorted(p.name for p in tmp_path.rglob("*.parquet")) == [
        f"{DS.name}__0000000000_0000000009.parquet"
    ]


def test_a_damaged_piece_is_removed_not_used(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    good = Path(cache.pieces.write(CHAIN, DS, 0, 0, 9, rows(0, 9)))
    bad = Path(cache.pieces.write(CHAIN, DS, 0, 10, 19, rows(10, 19)))
    shutil.copyfile(good, bad)  # another piece's rows under its name: its record says otherwise
    cut = Path(cache.pieces.write(CHAIN, DS, 0, 20, 29, rows(20, 29)))
    cut.write_bytes(cut.read_bytes()[:-100])  # cut off
    assert [(a, b) for a, b, _ in cache.pieces.held(CHAIN, DS, 0, 0, 99)] == [(0, 9)]
    assert not bad.exists()
    assert not cut.exists()


def test_overlapping_pieces_are_taken_as_a_cover(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    for a, b in [(0, 9), (0, 4), (5, 14), (10, 19), (20, 24)]:  # two writers' cuts of one chunk
        cache.pieces.write(CHAIN, DS, 0, a, b, rows(a, b))
    assert [(a, b) for a, b, _ in cache.pieces.held(CHAIN, DS, 0, 0, 99)] == [(0, 9), (10, 19), (20, 24)]


def test_pieces_are_dropped_by_range_and_cleared_with_the_cache(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    for a in range(0, 40, 10):
        cache.pieces.write(CHAIN, DS, 0, a, a + 9, rows(a, a + 9))
    assert cache.pieces.any_inside(CHAIN, DS.name, 0, 0, 19)
    assert cache.pieces.drop(CHAIN, DS.name, 0, 0, 19) == 2
    assert not cache.pieces.any_inside(CHAIN, DS.name, 0, 0, 19)
    assert [(a, b) for a, b, _ in cache.pieces.held(CHAIN, DS, 0, 0, 99)] == [(20, 29), (30, 39)]
    # a writer that died mid-write left its temporary file: removed with the others
    tmp = _folder(tmp_path) / f".{piece_name(DS.name, 40, 49)}.999999999-gone-abcd.tmp"
    tmp.write_bytes(b"half a piece")
    os.utime(tmp, (0, 0))
    assert cache.remove_orphans() == 1
    assert cache.clear() == 2
    assert not tmp_path.joinpath(CHAIN).exists()


def test_every_side_table_has_a_cache_view_its_builder_matches(tmp_path: Path) -> None:
    """Each side table the range sources declare can be kept in pieces: datasets.side_table gives
    its name and schema, and a piece of the table its builder makes is written and read back."""
    from hmyframe import datasets
    from hmyframe.datasets import sources
    from hmyframe.datasets._transform import transaction_positions
    from hmyframe.errors import ConfigError

    assert {sources.TX_POSITIONS} == sources.side_tables()
    view = datasets.side_table(sources.TX_POSITIONS)
    assert view.name == sources.TX_POSITIONS
    built = transaction_positions([], [], [])
    assert built.schema == view.schema
    cache = Cache(tmp_path)
    cache.pieces.write(CHAIN, view, 0, 0, 9, built)
    [(first, last, path)] = cache.pieces.held(CHAIN, view, 0, 0, 99)
    assert (first, last) == (0, 9)
    assert cache.pieces.read(view, path)[0].equals(built)
    assert cache.pieces.drop(CHAIN, view.name, 0, 0, 99) == 1
    assert not (tmp_path / CHAIN / view.name).exists()  # the side table's folder goes with its last piece
    with pytest.raises(ConfigError, match="unknown side table 'blocks'"):
        datasets.side_table("blocks")
