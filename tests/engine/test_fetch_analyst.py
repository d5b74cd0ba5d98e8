"""What an analyst asks of the fetchers (issue 7): all shards at once, time ranges, headers-only
blocks, progress on snapshots and lookups, output types, small fixes. Against the devnet over HTTP."""

from __future__ import annotations

import asyncio
import json
import sys
import tomllib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime
from pathlib import Path

import aiohttp
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from aiohttp import web
from fetch_helpers import exact_sum

import hmyframe
from hmyframe import FetchOptions, aio
from hmyframe.addresses import to_hex, to_one
from hmyframe.aio import export
from hmyframe.datasets import DATASETS
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.engine import Session
from hmyframe.engine._ranges import fetch_range
from hmyframe.errors import ConfigError
from hmyframe.rpc import Client

UNPACED = FetchOptions(validator_pacing=None)


def first_at(chain: Chain, shard: int, when: int) -> int:
    return next(n for n in range(chain.head(shard) + 1) if chain.block(shard, n).timestamp >= when)


def last_at(chain: Chain, shard: int, when: int) -> int:
    return max(n for n in range(chain.head(shard) + 1) if chain.block(shard, n).timestamp <= when)


def utc(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


# --------------------------------------------------------------------------- point 3: all shards


@pytest.mark.parametrize("shard", ["all", [0, 1], (0, 1)])
def test_all_shards_come_as_one_frame_each_shard_cached_as_alone(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path, shard: object
) -> None:
    df = hmyframe.transactions(100, 149, shard, rpc=devnet, cache=tmp_path)  # type: ignore[arg-type]
    truth = [t for s in (0, 1) for t in devnet_truth.iter_transactions(s, 100, 149)]
    assert df["transaction_hash"].tolist() == [t.hash for t in truth]
    assert df["shard_id"].tolist() == [t.shard_id for t in truth]
    assert set(df["shard_id"]) == {0, 1}
    assert exact_sum(df["value"]) == sum(t.value for t in truth)
    # each shard cached as a fetch of that shard alone: reading one shard sends no request
    devnet.stats.reset()
    for s in (0, 1):
        alone = hmyframe.transactions(100, 149, s, rpc=devnet, cache=tmp_path)
        pd.testing.assert_frame_equal(alone, df[df["shard_id"] == s].reset_index(drop=True), check_exact=True)
    assert devnet.stats.http_requests == 0


def test_a_shard_list_keeps_its_order_and_traces_take_every_shard(
    devnet: Devnet, devnet_truth: Chain
) -> None:
    df = hmyframe.blocks(10, 19, [1, 0], rpc=devnet, cache=False)
    assert df["shard_id"].tolist() == [1] * 10 + [0] * 10
    assert df["block_hash"].tolist() == [devnet_truth.block(s, n).hash for s in (1, 0) for n in range(10, 20)]
    traces = hmyframe.traces(300, 309, "all", rpc=devnet, cache=False)
    assert set(traces["shard_id"]) == {0, 1}


async def _proxy(target: str, handle: Callable[[web.Request, bytes], object]) -> AsyncIterator[str]:
    """A real HTTP server on 127.0.0.1 forwarding JSON-RPC bodies to ``target``."""

    async def forward(request: web.Request) -> web.Response:
        body = await request.read()
        await handle(request, body)  # type: ignore[misc]
        headers = {"Content-Type": "application/json"}
        async with aiohttp.ClientSession() as http, http.post(target, data=body, headers=headers) as answer:
            data = await answer.read()
        return web.Response(body=data, content_type="application/json")

    app = web.Application()
    app.router.add_post("/", forward)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
    finally:
        await runner.cleanup()


async def test_shards_are_fetched_concurrently(devnet: Devnet, devnet_truth: Chain) -> None:
    """Shard 0's block requests are held until shard 1 has asked for blocks: a fetch that took the
    shards one after the other would wait forever (here: fail after 60 s)."""
    shard1_asked = asyncio.Event()

    async def hold(request: web.Request, body: bytes) -> None:
        if b"getBlocks" in body:
            await asyncio.wait_for(shard1_asked.wait(), 60)

    async def note(request: web.Request, body: bytes) -> None:
        if b"getBlocks" in body:
            shard1_asked.set()

    async with (
        contextlib_aclosing(_proxy(devnet.urls[0], hold)) as p0,
        contextlib_aclosing(_proxy(devnet.urls[1], note)) as p1,
    ):
        url0, url1 = await anext(p0), await anext(p1)
        async with Client(url0, shard_urls={0: url0, 1: url1}) as client:
            df = await aio.blocks(0, 49, "all", rpc=client, cache=False)
    assert df["block_hash"].tolist() == [devnet_truth.block(s, n).hash for s in (0, 1) for n in range(50)]


class contextlib_aclosing:
    def __init__(self, gen: AsyncIterator[str]) -> None:
        self.gen = gen

    async def __aenter__(self) -> AsyncIterator[str]:
        return self.gen

    async def __aexit__(self, *exc: object) -> None:
        await self.gen.aclose()  # type: ignore[attr-defined]


def test_shard_all_of_a_url_asks_the_sharding_structure(devnet: Devnet, devnet_stats: DevnetStats) -> None:
    df = hmyframe.blocks(0, 4, "all", rpc=devnet.url, cache=False)
    assert df["shard_id"].tolist() == [0] * 5 + [1] * 5
    # the home node lists the shards once; shard 1's listed URL is asked once more, to check it
    # serves the same network before anything is fetched from it
    assert devnet_stats.endpoint(0).calls_of("hmy_getShardingStructure") == 1
    assert devnet_stats.endpoint(1).calls_of("hmy_getShardingStructure") == 1


@pytest.mark.parametrize(
    ("shard", "message"),
    [
        ("al", "shard must be a shard id, a list of ids or 'all', got 'al'"),
        ([], "empty list"),
        ([0, -1], "-1"),
    ],
)
def test_bad_shards_are_config_errors(devnet: Devnet, shard: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        hmyframe.blocks(0, 9, shard, rpc=devnet, cache=False)  # type: ignore[arg-type]


def test_export_and_cli_take_every_shard(devnet: Devnet, devnet_truth: Chain, tmp_path: Path) -> None:
    summary = asyncio.run(export(["transactions"], 0, 49, "all", rpc=devnet, out=tmp_path))
    assert summary.ranges == {0: (0, 49), 1: (0, 49)}
    expected = sum(len(list(devnet_truth.iter_transactions(s, 0, 49))) for s in (0, 1))
    assert summary.datasets["transactions"].rows == expected
    assert "blocks 0..49 of shard 0, blocks 0..49 of shard 1" in summary.lines()[0]
    from hmyframe.cli import main

    assert main(["export", "blocks", "--start", "0", "--end", "9", "--shard", "0,1", "--rpc", devnet.url,
                 "--out", str(tmp_path / "cli"), "--no-progress"]) == 0  # fmt: skip
    back = hmyframe.read("blocks", tmp_path / "cli")
    assert back["shard_id"].tolist() == [0] * 10 + [1] * 10


# --------------------------------------------------------------------------- point 4: time ranges


def test_dates_and_times_resolve_per_shard(devnet: Devnet, devnet_truth: Chain) -> None:
    t0 = devnet_truth.block(0, 150).timestamp - 1  # between two blocks of shard 0
    t1 = devnet_truth.block(0, 250).timestamp + 1
    df = hmyframe.blocks(utc(t0), pd.Timestamp(t1, unit="s", tz="UTC"), "all", rpc=devnet, cache=False)
    for s in (0, 1):
        numbers = df.loc[df["shard_id"] == s, "block_number"].tolist()
        assert numbers == list(range(first_at(devnet_truth, s, t0), last_at(devnet_truth, s, t1) + 1))
    # shards run on their own clocks: the same times are other block numbers on shard 1
    assert df.loc[df["shard_id"] == 1, "block_number"].iloc[-1] != 250
    stamps = df["timestamp"]
    assert stamps.min() >= pd.Timestamp(t0, unit="s", tz="UTC")
    assert stamps.max() <= pd.Timestamp(t1, unit="s", tz="UTC")


def test_a_date_end_covers_its_whole_day_and_strings_work(devnet: Devnet, devnet_truth: Chain) -> None:
    # the devnet starts on 2026-01-01 00:00 UTC; all its 400 blocks fall on that day
    day = hmyframe.blocks("2026-01-01", "2026-01-01", rpc=devnet, cache=False)
    assert day["block_number"].tolist() == list(range(devnet_truth.head(0) + 1))
    assert hmyframe.blocks(date(2026, 1, 1), rpc=devnet, cache=False)["block_number"].iloc[0] == 0
    when = devnet_truth.block(0, 77).timestamp
    text = utc(when).strftime("%Y-%m-%dT%H:%M:%S")
    assert hmyframe.blocks(text, text, rpc=devnet, cache=False)["block_number"].tolist() == [77]
    naive = datetime(2026, 1, 1, 0, 0, 0) + (utc(when) - utc(devnet_truth.block(0, 0).timestamp))
    assert hmyframe.blocks(naive, "+3", rpc=devnet, cache=False)["block_number"].tolist() == [77, 78, 79]


@pytest.mark.parametrize(
    ("start", "end", "expected"),
    [
        ("-100:", None, (300, 399)),
        (-10, None, (390, 399)),
        (-10, 200, (191, 200)),
        ("0.1K:0.15K", None, (100, 150)),
        (":5", None, (0, 5)),
        ("390:", None, (390, 399)),
        ("1_00:+5", None, (100, 104)),
        ("latest", None, (399, 399)),
        ("380", "latest", (380, 399)),
    ],
)
def test_relative_and_cryo_like_specs(
    devnet: Devnet, start: object, end: object, expected: tuple[int, int]
) -> None:
    df = hmyframe.blocks(start, end, rpc=devnet, cache=False)  # type: ignore[arg-type]
    assert df["block_number"].tolist() == list(range(expected[0], expected[1] + 1))


def test_time_resolution_takes_a_handful_of_requests_and_is_remembered(
    make_devnet: Callable[..., Devnet], tmp_path: Path
) -> None:
    net = make_devnet(blocks=3000, seed=23, shards=1, validator_rate_limit=False)
    truth = net.chain
    start, end = truth.block(0, 1234).timestamp, truth.block(0, 2345).timestamp
    by_number = hmyframe.blocks(1234, 2345, rpc=net, cache=tmp_path)  # the blocks are cached
    net.stats.reset()
    df = hmyframe.blocks(utc(start), utc(end), rpc=net, cache=tmp_path)
    pd.testing.assert_frame_equal(df, by_number, check_exact=True)
    # the head, the two ends of the chain, then a few rounds of batched probes for each time
    assert net.stats.http_requests <= 8, net.stats.http_requests
    assert net.stats.calls_of("hmyv2_getBlockByNumber") <= 80
    net.stats.reset()
    again = hmyframe.blocks(utc(start), utc(end), rpc=net, cache=tmp_path)
    pd.testing.assert_frame_equal(again, df, check_exact=True)
    assert net.stats.http_requests == 0  # the resolutions and the blocks are remembered


@pytest.mark.parametrize(
    ("start", "end", "message"),
    [
        ("yesterday", None, "start 'yesterday' is not understood"),
        ("2026-13-01", None, "not a calendar date"),
        (0, "-5", "'-N' is only meaningful as a start"),
        ("2099-01-01", None, "no block at or after 2099-01-01 00:00:00 UTC"),
        (0, "2025-12-31", "no block before 2026-01-01 00:00:00 UTC"),
        ("10:20", 30, "already a whole range"),
    ],
)
def test_time_and_spec_errors_name_the_value(
    devnet: Devnet, start: object, end: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        hmyframe.transactions(start, end, rpc=devnet, cache=False)  # type: ignore[arg-type]
    if "understood" in message:
        assert "accepted:" in str(info.value)
        assert "'-1000:'" in str(info.value)


# --------------------------------------------------------------------------- point 5: headers only


@pytest.mark.parametrize("profile", ["current", "legacy"])
@pytest.mark.parametrize(("strategy", "version"), [("range", 2), ("range", 1), ("batch", 2), ("batch", 1)])
async def test_blocks_alone_are_fetched_without_transactions_and_are_identical(
    make_devnet: Callable[..., Devnet], profile: str, strategy: str, version: int
) -> None:
    net = make_devnet(blocks=120, seed=7, shards=1, profile=profile, validator_rate_limit=False)
    options = FetchOptions(strategy=strategy, version=version, blocks_per_request=20)  # type: ignore[arg-type]
    async with Session(net, cache=False, options=options) as session:
        net.stats.reset()
        alone = (await fetch_range(session, ["blocks"], 0, 119))["blocks"]
        headers_bytes = net.stats.total().bytes_out
        net.stats.reset()
        full = await fetch_range(session, ["blocks", "transactions", "staking_transactions"], 0, 119)
        full_bytes = net.stats.total().bytes_out
    assert alone.equals(full["blocks"])
    assert full["transactions"].num_rows > 1000
    counts = alone["transaction_count"].to_pylist()
    assert counts == [len(b.transactions) for b in net.chain.iter_blocks(0, 0, 119)]
    assert None not in alone["staking_transaction_count"].to_pylist()
    if profile == "current":
        assert headers_bytes * 3 < full_bytes, (headers_bytes, full_bytes)
    else:
        # an early-2020 node leaves the transaction list out of headers: full blocks are used
        assert headers_bytes > full_bytes / 2


def test_blocks_alone_write_no_transaction_files(devnet: Devnet, tmp_path: Path) -> None:
    hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path)
    assert {p.parent.parent.name for p in tmp_path.rglob("*.parquet")} == {"blocks"}
    # transactions then fetch full blocks; the blocks already cached are not rewritten
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("blocks__*.parquet")}
    hmyframe.transactions(0, 99, rpc=devnet, cache=tmp_path)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("blocks__*.parquet")} == before


# --------------------------------------------------------------------------- point 7: progress


def test_snapshots_and_lookups_report_progress(devnet: Devnet, devnet_truth: Chain) -> None:
    steps: list[int] = []
    hmyframe.validators(rpc=devnet, cache=False, options=UNPACED, progress=steps.append)
    assert steps == [1, 1, 1, 1]  # 300 validators: pages 0, 1, 2 and the empty page 3
    steps.clear()
    txs = list(devnet_truth.iter_transactions(0, 10, 12))
    hmyframe.transactions_by_hash([t.hash for t in txs], rpc=devnet, progress=steps.append)
    assert sum(steps) == len(txs)
    steps.clear()
    hmyframe.tx_counts([t.sender for t in txs], 12, rpc=devnet, progress=steps.append)
    assert sum(steps) == len({to_hex(t.sender) for t in txs})
    steps.clear()
    hmyframe.pending_cx_receipts("all", rpc=devnet, progress=steps.append)
    assert steps == [1, 1]
    with pytest.raises(ConfigError, match="progress must be True, False or a callable"):
        hmyframe.validators(rpc=devnet, cache=False, progress="yes")  # type: ignore[arg-type]


def test_the_notebook_extra_installs_the_widget_bar() -> None:
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    assert any(r.startswith("ipywidgets") for r in extras["notebook"])
    assert not any(r.startswith("polars") for r in project["project"]["dependencies"])


# --------------------------------------------------------------------------- point 8: output types


def test_every_fetcher_returns_arrow_or_polars_on_request(devnet: Devnet, devnet_truth: Chain) -> None:
    frame = hmyframe.transactions(0, 29, rpc=devnet, cache=False)
    table = hmyframe.transactions(0, 29, rpc=devnet, cache=False, output="arrow")
    assert isinstance(table, pa.Table)
    assert table.schema.equals(DATASETS["transactions"].schema, check_metadata=False)
    assert table.to_pydict()["transaction_hash"] == frame["transaction_hash"].tolist()
    polars = hmyframe.transactions(0, 29, rpc=devnet, cache=False, output="polars")
    assert isinstance(polars, pl.DataFrame)
    assert polars["value"].dtype == pl.Decimal(38, 0)
    assert int(polars["value"].sum()) == exact_sum(frame["value"])
    snap = hmyframe.delegations(rpc=devnet, cache=False, options=UNPACED, output="arrow")
    assert json.loads(snap.schema.metadata[b"hmyframe.attrs"]) == {"snapshot_block": devnet_truth.head(0)}
    hashes = [t.hash for t in devnet_truth.iter_transactions(0, 5, 5)] + ["0x" + "ab" * 32]
    with pytest.warns(hmyframe.NotFoundWarning):
        found = hmyframe.transactions_by_hash(hashes, rpc=devnet, output="polars")
    assert found.height == len(hashes) - 1
    assert isinstance(hmyframe.shards(rpc=devnet, output="arrow"), pa.Table)
    assert hmyframe.blocks(0, 4, rpc=devnet, cache=False, output="arrow").num_rows == 5


def test_bad_output_and_missing_polars_are_clear_errors(
    devnet: Devnet, devnet_stats: DevnetStats, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match="output must be one of 'pandas', 'arrow', 'polars', got 'numpy'"):
        hmyframe.blocks(0, 4, rpc=devnet, cache=False, output="numpy")  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "polars", None)  # as if not installed
    with pytest.raises(ConfigError, match=r"needs the polars package.*pip install 'hmyframe\[polars\]'"):
        hmyframe.validators(rpc=devnet, cache=False, output="polars")
    assert devnet_stats.http_requests == 0  # refused before any request


# --------------------------------------------------------------------------- point 2 on real frames


@pytest.mark.parametrize("name", ["validators", "voting_power", "delegations", "undelegations"])
def test_snapshot_one_columns_equal_the_exact_amounts(devnet: Devnet, name: str) -> None:
    df = getattr(hmyframe, name)(rpc=devnet, cache=False, options=UNPACED)
    amounts = [c for c in df.columns if f"{c}_one" in df.columns]
    assert amounts
    for column in amounts:
        exact = df[column]
        expected = [None if pd.isna(v) else int(v) / 10**18 for v in exact.tolist()]
        got = [None if pd.isna(v) else v for v in df[f"{column}_one"].tolist()]
        assert got == expected, column
        pd.testing.assert_series_equal(
            hmyframe.to_one(exact).astype("float64"), df[f"{column}_one"].astype("float64"), check_names=False
        )


# --------------------------------------------------------------------------- point 10: small ones


def test_tx_counts_lists_each_address_once(devnet: Devnet, devnet_truth: Chain) -> None:
    senders = list(dict.fromkeys(t.sender for t in devnet_truth.iter_transactions(0, 0, 20)))
    sender, other = senders[0], senders[1]
    df = hmyframe.tx_counts([sender, to_hex(sender), to_one(sender), other, sender], 50, rpc=devnet)
    assert len(df) == 2
    assert df.set_index("address_hex")["transaction_count"].to_dict() == {
        to_hex(a): devnet_truth.transaction_count(0, a, 50) for a in (sender, other)
    }


def test_a_snapshot_export_summary_counts_no_blocks(devnet: Devnet, tmp_path: Path) -> None:
    summary = asyncio.run(export(["validators"], block=300, rpc=devnet, out=tmp_path, options=UNPACED))
    header = summary.lines()[0]
    assert header.startswith(f"chain {summary.chain_id}: validator snapshot at block 300; done in ")
    assert "blocks/s" not in header
    assert "fetched" not in header
