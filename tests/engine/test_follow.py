"""Following the chain live (issue 18): ``export(follow=True)`` / ``export --follow`` and
``hmyframe.follow``, against a devnet mining a block every 0.5 s on two shards."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pandas as pd
import pyarrow.dataset as pads
import pytest
from follow_helpers import Miner, Watcher, lags, range_files, raw_blocks, shard_folder, summary, tail_files

import hmyframe
from hmyframe import aio
from hmyframe.cli import main
from hmyframe.datasets import DATASETS
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine._follow import follow_shards, head_source
from hmyframe.engine._ranges import fetch_range, split_aligned
from hmyframe.errors import ConfigError, FollowWarning
from hmyframe.rpc.heads import HeadSource, ShardHeads

BLOCK_TIME = 0.5
POLL = 0.2
CHUNK = 20
BUILD = Path(__file__).resolve().parents[2] / "build"


def _check_layout(root: Path, dataset: str, shard: int, first: int, last: int) -> None:
    """The files a plain export of ``first..last`` writes, one per chunk; the head chunk in its
    tail while it is not complete."""
    folder = shard_folder(root, dataset, shard)
    assert range_files(folder) == split_aligned([(first, last)], CHUNK)  # every block once, in order
    head = max(first, last // CHUNK * CHUNK)
    complete = (last + 1) % CHUNK == 0
    assert tail_files(folder) == ([] if complete else [f"{dataset}__{head:010d}_tail.parquet"])


def _check_read_back(out: Path, net: Devnet, start: int, end: int) -> None:
    """Read back: every block of both shards once, the transactions those of a plain fetch."""
    blocks = hmyframe.read("blocks", out)
    assert blocks.groupby("shard_id")["block_number"].apply(list).to_dict() == {
        s: list(range(start, end + 1)) for s in (0, 1)
    }
    tx = hmyframe.read("transactions", out)
    plain = hmyframe.transactions(start, end, [0, 1], rpc=net, cache=False)
    pd.testing.assert_frame_equal(tx.reset_index(drop=True), plain.reset_index(drop=True), check_exact=True)


def _head_polls(net: Devnet) -> int:
    """Calls asking a shard's head over HTTP (a follower polling, or a socket's first head)."""
    total = net.stats.total()
    return total.calls_of("hmyv2_blockNumber") + total.calls_of("hmy_blockNumber")


@pytest.mark.parametrize("heads", ["poll", "ws"])
def test_export_follow_two_shards_every_block_once_lag_bounded_and_standard_files(
    make_devnet: Callable[..., Devnet], tmp_path: Path, heads: str
) -> None:
    net = make_devnet(blocks=100, seed=3, validator_rate_limit=False)
    out = tmp_path / "out"
    start = 85
    options = FetchOptions(chunk_size=CHUNK)
    with Miner(net, BLOCK_TIME) as miner, Watcher(out, "blocks", (0, 1)) as watcher:
        time.sleep(0.1)
        end = net.chain.head(0) + int(20 / BLOCK_TIME)  # about 20 s of new blocks
        began = time.time()
        summary_ = hmyframe.export(
            ["blocks", "transactions"],
            start,
            end,
            [0, 1],
            rpc=net,
            out=out,
            options=options,
            follow=True,
            poll=POLL,
            heads=heads,
        )
        took = time.time() - began
        time.sleep(0.1)
    assert summary_.ranges == {0: (start, end), 1: (start, end)}
    assert 15 < took < 40
    if heads == "ws":  # the heads came over the sockets: HTTP asked each shard's head a few times only
        assert _head_polls(net) < 12, net.stats.total().calls_by_method
    else:  # every POLL seconds on each shard
        assert _head_polls(net) > 2 * 15 / POLL / 2, net.stats.total().calls_by_method
    assert not watcher.errors, watcher.errors[:3]
    # readers during the follow: every read held each block once, a gap-free prefix from start
    assert len(watcher.reads) > 20
    for seen in watcher.reads:
        for numbers in seen.values():
            assert numbers == list(range(start, start + len(numbers)))
    # and so did pyarrow.dataset reading the folders raw, knowing nothing of hmyframe or tails
    assert len(watcher.raw) > 100
    for seen in watcher.raw:
        for numbers in seen.values():
            assert numbers == list(range(start, start + len(numbers)))
    # afterwards: every block from start to end exactly once, the same rows as a plain fetch
    for dataset in ("blocks", "transactions", "staking_transactions"):
        for shard in (0, 1):
            _check_layout(out, dataset, shard, start, end)
    _check_read_back(out, net, start, end)
    folder = shard_folder(out, "blocks", 0)
    raw = pads.dataset(str(folder), format="parquet").to_table(columns=["block_number"])
    assert sorted(raw["block_number"].to_pylist()) == list(range(start, end + 1))
    # lag: from the block being mined to its file being on disk, both shards followed at once
    followed = [n for n in range(start, end + 1) if n in miner.mined]
    assert len(followed) >= int(15 / BLOCK_TIME)
    measured = {s: summary(lags(miner, watcher, s, followed)) for s in (0, 1)}
    both = lags(miner, watcher, 0, followed) + lags(miner, watcher, 1, followed)
    median, worst = summary(both)
    BUILD.mkdir(exist_ok=True)
    (BUILD / f"follow_lag_{heads}.json").write_text(
        json.dumps(
            {
                "heads": heads,
                "block_time": BLOCK_TIME,
                "poll": POLL,
                "blocks": len(followed),
                "median_s": median,
                "max_s": worst,
                "per_shard": {s: {"median_s": m, "max_s": x} for s, (m, x) in measured.items()},
            },
            indent=1,
        )
    )
    print(
        f"follow lag ({heads}) over {len(followed)} blocks x 2 shards: median {median:.3f} s, max {worst:.3f} s"
    )
    if heads == "ws":  # a notification within milliseconds, then one block's fetch and write
        assert median < 0.35
        assert worst < BLOCK_TIME + 2.5
    else:
        assert median < POLL + 0.5
        assert worst < POLL + BLOCK_TIME + 2.5  # poll + a batch's fetch and tail write, loaded machine


def _cli(*args: str, out: Path, url: str, log: Path) -> subprocess.Popen[bytes]:
    """``hmyframe export blocks,transactions --follow ...`` in a subprocess, its output in ``log``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "hmyframe", "export", "blocks,transactions", "--shard", "0,1"]
    command += ["--out", str(out), "--rpc", url, "--follow", "--poll", str(POLL), "--chunk-size", str(CHUNK)]
    with log.open("wb") as sink:
        return subprocess.Popen(
            [*command, "--no-progress", *args], stdout=sink, stderr=subprocess.STDOUT, env=env
        )


def _wait_for_tails(out: Path, after: int, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        files = range_files(shard_folder(out, "blocks", 1))
        if files and files[-1][1] > after:
            return
        time.sleep(0.05)
    raise AssertionError(f"no block after {after} on disk within {timeout} s")


@pytest.mark.parametrize("heads", ["poll", "ws"])
def test_export_follow_restarts_gap_free_after_sigkill_and_stops_cleanly_on_sigterm(
    make_devnet: Callable[..., Devnet], tmp_path: Path, heads: str
) -> None:
    net = make_devnet(blocks=60, seed=4, validator_rate_limit=False, mine_every=BLOCK_TIME)
    out = tmp_path / "out"
    start = 50  # the devnet mines a block every BLOCK_TIME on its own
    first = _cli("--start", str(start), "--heads", heads, out=out, url=net.url, log=tmp_path / "first.log")
    _wait_for_tails(out, net.chain.head(0) + 4)
    first.send_signal(signal.SIGKILL)
    first.wait(30)
    killed_at = max(b for _, b in range_files(shard_folder(out, "blocks", 0)))
    time.sleep(2)  # the chain moves on while nothing follows it
    # a second follower picks up where the first stopped, then stops cleanly on SIGTERM
    second = _cli("--start", str(start), "--heads", heads, out=out, url=net.url, log=tmp_path / "second.log")
    _wait_for_tails(out, net.chain.head(0) + 3)
    second.send_signal(signal.SIGTERM)
    code = second.wait(30)
    said = (tmp_path / "second.log").read_text()
    assert code == 0, said
    assert "stopped" in said
    # a third, told where to stop, ends by itself with the summary
    end = net.chain.head(0) + 4
    third = _cli(
        "--start",
        str(start),
        "--end",
        str(end),
        "--heads",
        heads,
        out=out,
        url=net.url,
        log=tmp_path / "third.log",
    )
    code = third.wait(60)
    stdout = (tmp_path / "third.log").read_text()
    assert code == 0, stdout
    assert f"blocks {start}..{end} of shard 0" in stdout
    assert killed_at < end
    for dataset in ("blocks", "transactions"):
        for shard in (0, 1):
            _check_layout(out, dataset, shard, start, end)
    _check_read_back(out, net, start, end)


def test_follow_yields_batches_with_the_dtypes_of_a_fetch(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(blocks=40, seed=5, validator_rate_limit=False, mine_every=BLOCK_TIME)
    head = net.chain.head(0)
    end = head + 6
    frames = list(
        hmyframe.follow("transactions", head - 5, [0, 1], end=end, rpc=net, cache=tmp_path, poll=POLL)
    )
    assert {f.attrs["shard"] for f in frames} == {0, 1}
    assert len(frames) >= 2 + 2 * 3  # the catch-up batch of each shard, then several new ones
    for shard in (0, 1):
        mine = [f for f in frames if f.attrs["shard"] == shard]
        spans = [(f.attrs["first"], f.attrs["last"]) for f in mine]
        assert spans[0][0] == head - 5
        assert spans[-1][1] == end
        assert all(b[0] == a[1] + 1 for a, b in itertools.pairwise(spans))  # no gap, no overlap
        got = pd.concat(mine, ignore_index=True)
        plain = hmyframe.transactions(head - 5, end, shard, rpc=net, cache=False)
        assert dict(got.dtypes) == dict(plain.dtypes)
        pd.testing.assert_frame_equal(got, plain, check_exact=True)


async def test_aio_follow_and_the_sync_generator_inside_a_running_loop(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(blocks=40, seed=6, validator_rate_limit=False)
    asyncio.get_running_loop()  # the Jupyter case
    with Miner(net, BLOCK_TIME):
        head = net.chain.head(0)
        tables = [
            t
            async for t in aio.follow(
                "blocks", head + 1, 0, end=head + 3, rpc=net, cache=False, output="arrow", poll=POLL
            )
        ]
        assert all(t.schema.equals(DATASETS["blocks"].schema, check_metadata=False) for t in tables)
        assert [n for t in tables for n in t["block_number"].to_pylist()] == [head + 1, head + 2, head + 3]
        # the sync generator from inside the loop, left early: it closes its follower
        gen = hmyframe.follow("blocks", rpc=net, cache=tmp_path, poll=POLL)
        df = next(gen)
        gen.close()
        assert len(df) >= 1
        assert df["block_number"].iloc[0] > head + 3 - 1
        assert str(df["block_number"].dtype) == "int64[pyarrow]"


class _Scripted:
    """Heads of a real polling source, with a lower head slipped in after the third one."""

    def __init__(self, inner: HeadSource) -> None:
        self.inner = inner

    async def heads(self, shard: int) -> AsyncIterator[int]:
        count = 0
        async for head in self.inner.heads(shard):
            count += 1
            if count in (4, 5):
                yield head - 3  # a node behind a load balancer answered
            yield head


async def test_a_lower_head_a_stall_and_refused_blocks_are_reported_and_waited_out(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(blocks=40, seed=8, validator_rate_limit=False)
    with Miner(net, BLOCK_TIME) as miner, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with Session(net, cache=tmp_path) as session:
            head = await session.head(0, refresh=True)
            end = head + 16
            batches = []
            troubled = False
            source = _Scripted(head_source(session, POLL, "poll", stall_after=1.0))
            async for batch in follow_shards(
                session, ["blocks"], head + 1, [0], end=end, heads=source, stall_after=1.0
            ):
                batches.append(batch)
                if batch.last >= head + 4 and not troubled:
                    troubled = True
                    miner.paused.set()  # the node stalls for 2 s
                    await asyncio.sleep(2.0)
                    # then it cannot serve the blocks it announces (behind its own head)
                    net.faults.add("rpc_error=-32603,message=behind,times=2,method=hmyv2_getBlocks")
                    # and cannot say its head for a while
                    net.faults.add("rpc_error=-32603,message=down,times=2,method=hmyv2_blockNumber")
                    miner.paused.clear()
    messages = [str(w.message) for w in caught if issubclass(w.category, FollowWarning)]
    assert any("lower than" in m for m in messages), messages
    assert any("no new block" in m for m in messages), messages
    assert any("could not be fetched" in m for m in messages), messages
    assert any("cannot read the head" in m for m in messages), messages
    assert any("answers again" in m for m in messages), messages
    numbers = [n for b in batches for n in range(b.first, b.last + 1)]
    assert numbers == list(range(head + 1, end + 1))
    df = hmyframe.read("blocks", tmp_path)
    assert df["block_number"].tolist() == list(range(head + 1, end + 1))


async def test_websocket_heads_a_stall_and_lost_sockets_are_reported_and_waited_out(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(blocks=40, seed=10, validator_rate_limit=False, mine_every=BLOCK_TIME)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        async with Session(net, cache=tmp_path) as session:
            source = head_source(session, POLL, "ws", stall_after=1.0)
            assert isinstance(source, ShardHeads)
            assert source.mode == "ws"
            head = await session.head(0, refresh=True)
            end = head + 14
            batches = []
            troubled = False
            async for batch in follow_shards(
                session, ["blocks"], head + 1, [0, 1], end=end, heads=source, stall_after=1.0
            ):
                batches.append(batch)
                if batch.last >= head + 3 and not troubled:
                    troubled = True
                    net.mine_every = 0  # the chain stalls for 2 s
                    await asyncio.sleep(2.0)
                    net.drop_websockets()  # then the node restarts: every socket is closed
                    await asyncio.sleep(0.3)
                    net.mine_every = BLOCK_TIME
    assert source.used == {0: net.ws_urls[0], 1: net.ws_urls[1]}
    messages = [str(w.message) for w in caught if issubclass(w.category, FollowWarning)]
    for shard in (0, 1):
        mine = [m for m in messages if m.startswith(f"shard {shard}: ")]
        assert any("head still" in m and "waiting" in m for m in mine), messages  # the stall
        assert any("reconnecting" in m for m in mine), messages
        assert any("subscribed again" in m for m in mine), messages
        numbers = [n for b in batches if b.shard == shard for n in range(b.first, b.last + 1)]
        assert numbers == list(range(head + 1, end + 1))
    df = hmyframe.read("blocks", tmp_path)
    assert df.groupby("shard_id")["block_number"].apply(list).to_dict() == {
        s: list(range(head + 1, end + 1)) for s in (0, 1)
    }


def test_follow_refuses_what_it_cannot_do(tmp_path: Path, devnet: Devnet) -> None:
    with pytest.raises(ConfigError, match="snapshots"):
        hmyframe.export(["validators"], follow=True, rpc=devnet, out=tmp_path)
    with pytest.raises(ConfigError, match="Parquet"):
        hmyframe.export(["blocks"], 0, follow=True, format="csv", rpc=devnet, out=tmp_path)
    with pytest.raises(ConfigError, match="end must be a block number"):
        hmyframe.export(["blocks"], 0, "2026-01-01", follow=True, rpc=devnet, out=tmp_path)
    with pytest.raises(ConfigError, match="block-range dataset"):
        next(hmyframe.follow("validators", rpc=devnet))
    with pytest.raises(ConfigError, match="poll"):
        next(hmyframe.follow("blocks", rpc=devnet, poll=0))
    with pytest.raises(
        ConfigError, match="heads must be one of 'auto', 'ws', 'poll' or a HeadSource, got 'sse'"
    ):
        hmyframe.export(["blocks"], 0, follow=True, heads="sse", rpc=devnet, out=tmp_path)
    with pytest.raises(ConfigError, match="heads must be"):
        next(hmyframe.follow("blocks", rpc=devnet, heads=None))


def test_export_follow_command_reports_node_trouble_in_one_line(
    make_devnet: Callable[..., Devnet], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = make_devnet(blocks=40, seed=9, validator_rate_limit=False)
    trouble = threading.Timer(
        1.5, net.faults.add, ["rpc_error=-32603,message=down,times=2,method=hmyv2_blockNumber"]
    )
    with Miner(net, BLOCK_TIME):
        end = net.chain.head(0) + 8
        trouble.start()
        capsys.readouterr()
        argv = ["export", "blocks", "--rpc", net.url, "--end", str(end), "--out", str(tmp_path)]  # no --start
        code = main([*argv, "--follow", "--heads", "poll", "--poll", str(POLL), "--no-progress"])
        out, err = capsys.readouterr()
        trouble.join()
    assert code == 0, err
    numbers = hmyframe.read("blocks", tmp_path)["block_number"].tolist()
    assert numbers[0] >= 40  # from the block after the head
    assert numbers == list(range(numbers[0], end + 1))
    assert f"blocks {numbers[0]}..{end} of shard 0" in out
    lines = [line for line in err.splitlines() if "cannot read the head" in line]
    assert lines, err
    assert all(line.startswith("hmyframe export: shard 0: cannot read the head (") for line in lines)
    assert "FollowWarning" not in err


async def test_a_chunk_fills_through_one_tail_then_becomes_its_range_file(
    devnet: Devnet, tmp_path: Path
) -> None:
    names = ["blocks", "transactions"]
    async with Session(devnet, cache=tmp_path, options=FetchOptions(chunk_size=1000)) as other:
        await fetch_range(other, names, 250, 310, 0, collect=False)  # another chunking: crosses 300
    async with Session(devnet, cache=tmp_path, options=FetchOptions(chunk_size=100)) as session:
        chain = await session.chain_id()
        assert session.cache is not None
        folder = tmp_path / chain / "blocks" / "shard0"
        for n in range(100, 106):  # a follower's batches of one block: one tail, rewritten
            await fetch_range(session, names, n, n, 0, collect=False, tails=True)
            assert tail_files(folder) == ["blocks__0000000100_tail.parquet"]
            assert range_files(folder) == [(100, n), (250, 310)]
            assert sorted(raw_blocks(folder)) == [*range(100, n + 1), *range(250, 311)]
        # the batch that completes the chunk renames the tail to the chunk's range file
        await fetch_range(session, names, 106, 199, 0, collect=False, tails=True)
        for name in ("blocks", "transactions", "staking_transactions"):
            assert tail_files(tmp_path / chain / name / "shard0") == [], name
            assert range_files(tmp_path / chain / name / "shard0") == [(100, 199), (250, 310)], name
        # the next chunk's first batch begins its tail; a plain export past it takes it in
        await fetch_range(session, names, 200, 205, 0, collect=False, tails=True)
        assert tail_files(folder) == ["blocks__0000000200_tail.parquet"]
        tails = [e for e in session.cache.entries(chain, "blocks") if "tail" in e.path.name]
        assert [(e.start, e.end, e.status, e.rows) for e in tails] == [(200, 205, "ok", 6)]
        await fetch_range(session, names, 206, 249, 0, collect=False)
        assert tail_files(folder) == []
        assert range_files(folder) == [(100, 199), (200, 249), (250, 310)]
    got = hmyframe.read("transactions", tmp_path, start=100, end=249)
    plain = await aio.transactions(100, 249, 0, rpc=devnet, cache=False)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), plain, check_exact=True)


def test_raw_readers_never_see_a_block_twice_while_tails_grow_and_complete(
    devnet: Devnet, tmp_path: Path
) -> None:
    """pyarrow.dataset reads the folder in a loop while a follower's batches (one block each)
    fill chunks of 4 through their tails: every read is a gap-free run of blocks, each once."""
    reads: list[list[int]] = []
    done = threading.Event()
    folder: list[Path] = []

    def reader() -> None:
        while not done.is_set():
            if folder and folder[0].is_dir():
                reads.append(sorted(raw_blocks(folder[0])))

    async def follow_like() -> None:
        async with Session(devnet, cache=tmp_path, options=FetchOptions(chunk_size=4)) as session:
            chain = await session.chain_id()
            folder.append(tmp_path / chain / "blocks" / "shard0")
            for n in range(10, 52):
                await fetch_range(session, ["blocks"], n, n, 0, collect=False, tails=True)
                seen = len(reads)  # at least one whole read between two batches, however loaded
                for _ in range(2000):
                    if len(reads) > seen + 1:
                        break
                    await asyncio.sleep(0.005)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        asyncio.run(follow_like())
    finally:
        done.set()
        thread.join()
    assert len(reads) > 40
    for numbers in reads:
        assert numbers == list(range(10, 10 + len(numbers)))
    assert reads[-1] == list(range(10, 52))
    assert range_files(folder[0]) == split_aligned([(10, 51)], 4)
    assert tail_files(folder[0]) == []  # 51 ends the chunk 48..51
