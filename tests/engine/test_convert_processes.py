"""Conversion in worker processes (``FetchOptions.convert_processes``): same files, same tables,
zero requests on re-read, and a worker that dies fails its chunks with a clear error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from hmyframe.datasets import sources
from hmyframe.devnet import Devnet, DevnetStats
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._ranges import fetch_range
from hmyframe.errors import ConversionWorkerError

NAMES = ["blocks", "transactions", "staking_transactions", "traces"]


async def test_worker_processes_write_the_same_cache_as_threads(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    options = FetchOptions(chunk_size=50, convert_processes=2)
    async with Session(
        devnet.url, trace_rpc=devnet.trace_url, cache=tmp_path / "procs", options=options
    ) as s:
        by_processes = await fetch_range(s, NAMES, 0, 199)
    async with Session(
        devnet.url,
        trace_rpc=devnet.trace_url,
        cache=tmp_path / "threads",
        options=FetchOptions(chunk_size=50),
    ) as s:
        by_threads = await fetch_range(s, NAMES, 0, 199)
    for name in NAMES:
        assert by_processes[name].equals(by_threads[name]), name
    assert by_processes["transactions"].num_rows > 0
    assert by_processes["traces"].num_rows > 0
    files = sorted(p.name for p in (tmp_path / "procs").rglob("*.parquet"))
    assert files == sorted(p.name for p in (tmp_path / "threads").rglob("*.parquet"))
    assert len(files) == len(NAMES) * 4  # 200 blocks in chunks of 50
    devnet_stats.reset()
    async with Session(
        devnet.url, trace_rpc=devnet.trace_url, cache=tmp_path / "procs", options=options
    ) as s:
        again = await fetch_range(s, NAMES, 0, 199)
    assert devnet_stats.http_requests == 0
    assert again["transactions"].equals(by_processes["transactions"])


@pytest.fixture
def dying_source() -> Iterator[str]:
    source = sources.RangeSource(
        name="dying",
        fills={"dying_blocks": sources.Fill(per_block=True)},
        plan=sources.BLOCKS.plan,
        transform="fetch_helpers:die_in_worker",
    )
    sources.register_source(source)
    yield "dying_blocks"
    sources.unregister_source("dying")


async def test_a_worker_that_dies_fails_its_chunks_with_a_clear_error(
    devnet: Devnet, dying_source: str
) -> None:
    options = FetchOptions(chunk_size=50, convert_processes=1)
    async with Session(devnet.url, cache=False, options=options) as session:
        with pytest.raises(
            ConversionWorkerError,
            match=r"conversion worker process died converting blocks \d+\.\.\d+ of shard 0.*not fetched \(100\): 0\.\.99",
        ):
            await fetch_range(session, [dying_source], 0, 99)
        # the next fetch starts new workers and is not affected
        tables = await fetch_range(session, ["blocks"], 0, 99)
    assert tables["blocks"]["block_number"].to_pylist() == list(range(100))
