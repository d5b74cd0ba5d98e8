"""The cache at an fsspec URL (``memory://`` here): the same rules as a local folder.

Files are published under deterministic names, a range already on disk is not fetched again, a
tampered file is found from its footer and refetched, overlapping files of other chunk sizes
are repaired, and a filesystem that does not publish a file whole is caught by the
write-then-verify step. ``memory://`` is one store per process, shared by every thread.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pandas as pd
import pyarrow as pa
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from test_cache_integrity import CHAIN, DS, rows

import hmyframe
from hmyframe.aio import export
from hmyframe.cache import Cache, CacheWarning
from hmyframe.cli import main
from hmyframe.devnet import Devnet, DevnetStats
from hmyframe.engine import FetchOptions
from hmyframe.errors import CacheError, ConfigError
from hmyframe.storage import FsspecStorage, LocalStorage, open_storage

BLOCKS = "hmyv2_getBlocks"


@pytest.fixture
def url() -> Iterator[str]:
    """A fresh ``memory://`` root, removed afterwards."""
    root = f"memory://hmyframe-test-{secrets.token_hex(4)}"
    yield root
    fs = fsspec.filesystem("memory")
    if fs.exists(root):
        fs.rm(root, recursive=True)


def test_urls_choose_their_storage(tmp_path: Path) -> None:
    files, root = open_storage(f"file://{tmp_path}/x")
    assert isinstance(files, LocalStorage)
    assert root == tmp_path / "x"
    files, root = open_storage("memory://somewhere/deep")
    assert isinstance(files, FsspecStorage)
    assert files.url(root) == "memory:///somewhere/deep"
    with pytest.raises(ConfigError, match="nosuchfs"):
        open_storage("nosuchfs://bucket/x")
    with pytest.raises(ConfigError, match="names host"):
        open_storage("file://otherhost/x")


def test_fetches_cache_at_a_url_and_read_back(devnet: Devnet, devnet_stats: DevnetStats, url: str) -> None:
    first = hmyframe.transactions(0, 399, rpc=devnet, cache=url, options=FetchOptions(chunk_size=100))
    asked = devnet_stats.calls_of(BLOCKS)
    assert asked > 0
    again = hmyframe.transactions(0, 399, rpc=devnet, cache=url, options=FetchOptions(chunk_size=100))
    assert devnet_stats.calls_of(BLOCKS) == asked  # every chunk came from the URL
    pd.testing.assert_frame_equal(again, first)
    pd.testing.assert_frame_equal(hmyframe.read("transactions", url), first)
    cache = Cache(url)
    entries = cache.entries(dataset="transactions")
    assert [(e.start, e.end, e.status) for e in entries] == [(a, a + 99, "ok") for a in range(0, 400, 100)]
    assert all(str(e.path).startswith(cache.root.as_posix()) for e in entries)


def test_a_tampered_file_at_a_url_is_refetched(devnet: Devnet, devnet_stats: DevnetStats, url: str) -> None:
    options = FetchOptions(chunk_size=100, blocks_per_request=50)
    truth = hmyframe.blocks(0, 399, rpc=devnet, cache=url, options=options)
    cache = Cache(url)
    paths = [e.path for e in cache.entries(dataset="blocks")]
    fs = fsspec.filesystem("memory")
    fs.pipe_file(str(paths[2]), fs.cat_file(str(paths[1])))  # blocks 100..199 copied over 200..299
    devnet_stats.reset()
    with pytest.warns(CacheWarning, match="corrupt"):
        again = hmyframe.blocks(0, 399, rpc=devnet, cache=url, options=options)
    pd.testing.assert_frame_equal(again, truth)
    assert devnet_stats.calls_of(BLOCKS) == 2  # only blocks 200..299 (two calls of 50)
    assert [e.status for e in Cache(url).entries(dataset="blocks")] == ["ok"] * 4


def test_overlapping_chunkings_at_a_url_are_repaired(url: str) -> None:
    one, two = Cache(url), Cache(url)  # two writers with other chunk sizes
    one.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    two.write_range(CHAIN, DS, 0, 5, 14, rows(5, 14))
    reader = Cache(url)
    cover = reader.cached_ranges(CHAIN, DS, 0)
    assert [(a, b) for a, b, _ in cover] == [(0, 9), (10, 14)]
    table = reader.read_range(CHAIN, DS, 0, 0, 14)
    assert table["block_number"].to_pylist() == rows(0, 14)["block_number"].to_pylist()
    assert not [p for p in reader.files.listdir(reader.folder(CHAIN, DS.name, 0)) if p.name.endswith(".tmp")]
    assert reader.clear() == 2
    assert reader.entries() == []


class _TornMemoryFileSystem(MemoryFileSystem):  # type: ignore[misc]
    """A memory filesystem whose move publishes only the first half of a file (what an
    object store without whole-object publishing could show)."""

    protocol = "tornmemory"

    @classmethod
    def _strip_protocol(cls, path: str) -> str:
        return super()._strip_protocol(path.removeprefix("tornmemory://"))  # type: ignore[no-any-return]

    def mv(self, path1: str, path2: str, **kwargs: object) -> None:
        data = self.cat_file(path1)
        self.pipe_file(path2, data[: len(data) // 2])
        self.rm_file(path1)


def test_a_file_not_published_whole_is_caught_by_write_then_verify() -> None:
    fsspec.register_implementation("tornmemory", _TornMemoryFileSystem, clobber=True)
    root = f"tornmemory://hmyframe-torn-{secrets.token_hex(4)}"
    cache = Cache(root)
    with pytest.raises(CacheError, match=r"does not read back.*it was removed"):
        cache.write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    assert cache.files.listdir(cache.folder(CHAIN, DS.name, 0)) == []  # neither the torn file nor a temporary
    assert cache.missing(CHAIN, DS, 0, 0, 9) == [(0, 9)]


def test_cli_cache_ls_and_clear_at_a_url(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    Cache(url).write_range(CHAIN, DS, 0, 0, 9, rows(0, 9))
    assert main(["cache", "ls", "--dir", url]) == 0
    out = capsys.readouterr().out
    assert CHAIN in out
    assert "transactions" in out
    assert main(["cache", "clear", "--dir", url]) == 0
    assert "removed 1 files from memory:///" in capsys.readouterr().out


async def test_export_to_a_url_equals_a_local_export(devnet: Devnet, url: str, tmp_path: Path) -> None:
    options = FetchOptions(chunk_size=150)
    remote = await export(
        ["blocks", "transactions"], 0, 399, shard="all", rpc=devnet, out=url, options=options
    )
    local = await export(
        ["blocks", "transactions"], 0, 399, shard="all", rpc=devnet, out=tmp_path, options=options
    )
    for name in ("blocks", "transactions"):
        assert remote.datasets[name].rows == local.datasets[name].rows > 0
        assert [p.name for p in remote.datasets[name].files] == [p.name for p in local.datasets[name].files]
        pd.testing.assert_frame_equal(hmyframe.read(name, url), hmyframe.read(name, tmp_path))
    with pytest.raises(ConfigError, match="CSV exports are written to a local folder"):
        await export(["blocks"], 0, 9, rpc=devnet, out=url, format="csv")


def test_the_storage_round_trips_a_table(url: str) -> None:
    files, root = open_storage(url)
    table = rows(0, 3)
    footers: list[pa.parquet.FileMetaData] = []
    files.mkdir(root / "a")
    files.write_parquet(table, root / "a" / ".t.tmp", footers)
    files.publish(root / "a" / ".t.tmp", root / "a" / "t.parquet")
    assert [p.name for p in files.listdir(root / "a")] == ["t.parquet"]
    assert files.read_table(root / "a" / "t.parquet").equals(table)
    assert files.stat(root / "a" / "t.parquet").size > 0
    files.unlink(root / "a" / "t.parquet")
    with pytest.raises(FileNotFoundError):
        files.stat(root / "a" / "t.parquet")
