"""Fetches against a hostile world: tampered cache files, concurrent writers in real processes,
persistent endpoint faults, endpoints of another chain, and arguments that need a clear word.

Endpoints that misbehave are small proxies in front of a devnet (``tests/hostile.py``); the
devnet counts what reaches it, so "only the missing blocks are fetched" is checked server-side.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
from fetch_helpers import NO_WAIT, trace_rows
from fetch_helpers import transactions as truth_transactions
from hostile import Proxy, rpc_result

import hmyframe
from hmyframe import FetchOptions
from hmyframe.aio import export
from hmyframe.cache import CacheWarning
from hmyframe.devnet import Chain, Devnet, DevnetStats
from hmyframe.engine._session import chain_id_from_hash
from hmyframe.errors import ConfigError, HTTPStatusError, WrongChainError
from hmyframe.rpc import RetryPolicy

PER_BLOCK = FetchOptions(strategy="batch", chunk_size=50)
SEED = 7  # the session devnet's


def chain_id(net: Devnet) -> str:
    return chain_id_from_hash(net.chain.genesis_hash(0))


@pytest.fixture
def proxies() -> Iterator[Any]:
    made: list[Proxy] = []

    def make(target: str, rewrite: Any) -> Proxy:
        made.append(Proxy(target, rewrite, split_batches=True))  # (first contact is one batch)
        return made[-1]

    yield make
    for proxy in made:
        proxy.close()


def _parquet_under(root: Path) -> list[Path]:
    return sorted(root.rglob("*.parquet"))


def _calls(body: Any) -> list[Any]:
    return body if isinstance(body, list) else [body]


# --------------------------------------------------------------------------- 3. tampered files


def test_a_file_copied_over_its_neighbour_is_refetched_never_read_twice(
    devnet: Devnet, devnet_stats: DevnetStats, devnet_truth: Chain, tmp_path: Path
) -> None:
    hmyframe.transactions(0, 149, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    folder = tmp_path / chain_id(devnet) / "transactions" / "shard0"
    shutil.copyfile(
        folder / "transactions__0000000000_0000000049.parquet",
        folder / "transactions__0000000050_0000000099.parquet",
    )
    devnet_stats.reset()
    with pytest.warns(CacheWarning, match="corrupt"):
        df = hmyframe.transactions(0, 149, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert devnet_stats.calls_of("hmyv2_getBlockByNumber") == 50  # that file's blocks only
    truth = truth_transactions(devnet_truth, 0, 0, 149)
    assert df["transaction_hash"].tolist() == [t.hash for t in truth]
    assert df["transaction_hash"].is_unique
    assert sorted(pd.read_parquet(folder)["transaction_hash"]) == sorted(t.hash for t in truth)


def test_a_file_with_other_columns_under_kept_metadata_is_refetched_not_read_as_nulls(
    devnet: Devnet, devnet_stats: DevnetStats, tmp_path: Path
) -> None:
    first = hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    victim = tmp_path / chain_id(devnet) / "blocks" / "shard0" / "blocks__0000000050_0000000099.parquet"
    table = pq.read_table(victim)
    meta = table.schema.metadata
    tampered = table.drop_columns(["gas_used"]).rename_columns(
        ["miner" if c == "leader" else c for c in table.drop_columns(["gas_used"]).column_names]
    )
    pq.write_table(tampered.replace_schema_metadata(meta), victim)
    devnet_stats.reset()
    with pytest.warns(CacheWarning, match="columns differ"):
        df = hmyframe.blocks(0, 99, rpc=devnet, cache=tmp_path, options=PER_BLOCK)
    assert devnet_stats.calls_of("hmyv2_getBlockByNumber") == 50
    pd.testing.assert_frame_equal(df, first, check_exact=True)
    assert df["gas_used"].notna().all()


# --------------------------------------------------------------------------- 2. concurrent writers


@pytest.mark.slow
def test_concurrent_exports_with_other_chunk_sizes_never_duplicate_a_row(
    make_devnet: Any, tmp_path: Path
) -> None:
    net = make_devnet(blocks=3100, seed=3, validator_rate_limit=False)
    out = tmp_path / "shared"
    procs = []
    for chunk in ("1000", "700", "300"):
        argv = ["export", "blocks,transactions", "--start", "0", "--end", "2999", "--rpc", net.url]
        argv += ["--out", str(out), "--chunk-size", chunk, "--no-progress"]
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "hmyframe", *argv],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
        time.sleep(0.3)
    reports = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], reports
    truth = list(net.chain.iter_transactions(0, 0, 2999))
    tx_dir = out / chain_id(net) / "transactions" / "shard0"
    blocks_dir = out / chain_id(net) / "blocks" / "shard0"
    # no two files hold one block, whatever reads the folder
    for folder in (tx_dir, blocks_dir):
        spans = sorted(tuple(map(int, p.stem.split("__")[1].split("_"))) for p in folder.glob("*.parquet"))
        assert all(b[0] > a[1] for a, b in itertools.pairwise(spans)), spans
        assert spans[0][0] == 0
        assert spans[-1][1] == 2999
    tx = pd.read_parquet(tx_dir)
    assert len(tx) == len(truth)
    assert sorted(tx["transaction_hash"]) == sorted(t.hash for t in truth)
    count = duckdb.sql(
        f"select count(*), count(distinct transaction_hash) from read_parquet('{tx_dir}/*.parquet')"
    )
    assert count.fetchall() == [(len(truth), len(truth))]
    assert sorted(pd.read_parquet(blocks_dir)["block_number"]) == list(range(3000))
    # every summary tells what is on disk
    for stdout, _ in reports:
        line = next(x for x in stdout.splitlines() if x.split()[:1] == ["transactions"])
        assert line.split()[1] == f"{len(truth):,}"


# --------------------------------------------------------------------------- 8. persistent faults


async def test_persistent_faults_keep_every_finished_chunk_and_name_the_rest(
    make_devnet: Any, devnet_truth: Chain, proxies: Any, tmp_path: Path
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    broken = {120, 130, 160, 170}  # getBlocks starting there always get 502

    def rewrite(body: Any) -> tuple[int, bytes] | None:
        for call in _calls(body):
            if call["method"] == "hmyv2_getBlocks" and call["params"][0] in broken:
                return 502, b"bad gateway"
        return None

    proxy = proxies(net.url, rewrite)
    options = FetchOptions(
        chunk_size=20,
        blocks_per_request=10,
        max_concurrent_chunks=2,
        retry=RetryPolicy(attempts=2, backoff_base=0, jitter=False),
    )
    with pytest.raises(HTTPStatusError) as info:
        await hmyframe.aio.transactions(100, 199, rpc=proxy.url, cache=tmp_path, options=options)
    message = str(info.value)
    assert "3 of 5 chunks were fetched and are kept in the cache" in message
    assert "blocks not fetched (40): 120..139, 160..179 of shard 0" in message
    assert "Run the same command again to resume" in message
    assert info.value.unfetched == [(120, 139), (160, 179)]  # type: ignore[attr-defined]
    folder = tmp_path / chain_id(net) / "transactions" / "shard0"
    assert sorted(p.name for p in folder.glob("*.parquet")) == [
        "transactions__0000000100_0000000119.parquet",
        "transactions__0000000140_0000000159.parquet",
        "transactions__0000000180_0000000199.parquet",
    ]
    net.stats.reset()
    df = await hmyframe.aio.transactions(
        100, 199, rpc=net, cache=tmp_path, options=options.with_(retry=NO_WAIT)
    )
    assert net.stats.calls_of("hmyv2_getBlocks") == 4  # the two missing chunks only
    assert df["transaction_hash"].tolist() == [t.hash for t in truth_transactions(devnet_truth, 0, 100, 199)]


async def test_a_failure_that_is_not_the_endpoints_stops_new_chunks_but_keeps_finished_ones(
    make_devnet: Any, proxies: Any, tmp_path: Path
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)

    def rewrite(body: Any) -> tuple[int, bytes] | None:
        for call in _calls(body):
            if call["method"] == "hmyv2_getBlocks" and call["params"][0] == 140:
                return 200, rpc_result(body, [{"number": "not a block"}])
        return None

    proxy = proxies(net.url, rewrite)
    options = FetchOptions(chunk_size=20, blocks_per_request=20, max_concurrent_chunks=1, retry=NO_WAIT)
    with pytest.raises(Exception) as info:
        await hmyframe.aio.blocks(100, 199, rpc=proxy.url, cache=tmp_path, options=options)
    assert "blocks not fetched (60): 140..199 of shard 0" in str(info.value)
    folder = tmp_path / chain_id(net) / "blocks" / "shard0"
    assert len(list(folder.glob("*.parquet"))) == 2


# --------------------------------------------------------------------------- 4. another chain


def test_a_trace_endpoint_of_another_chain_is_refused_before_anything_is_cached(
    devnet: Devnet, make_devnet: Any, tmp_path: Path
) -> None:
    other = make_devnet(blocks=300, seed=SEED + 1, validator_rate_limit=False)
    with pytest.raises(
        WrongChainError, match=r"trace endpoint .* serves another chain .* genesis block hash"
    ):
        hmyframe.traces(100, 139, rpc=devnet.url, trace_rpc=other.trace_urls[0], cache=tmp_path)
    assert not list(tmp_path.rglob("*.parquet"))
    # the right one works
    df = hmyframe.traces(100, 139, rpc=devnet.url, trace_rpc=devnet.trace_urls[0], cache=tmp_path)
    assert len(df) == len(trace_rows(Chain(blocks=400, seed=SEED), 0, 100, 139))


def test_a_trace_only_endpoint_of_another_chain_is_caught_by_the_block_hashes(
    devnet: Devnet, make_devnet: Any, proxies: Any, tmp_path: Path
) -> None:
    other = make_devnet(blocks=300, seed=SEED + 1, validator_rate_limit=False)

    def hide_blocks(body: Any) -> tuple[int, bytes] | None:
        call = _calls(body)[0]
        if call["method"].endswith("getBlockByNumber"):
            error = {
                "code": -32601,
                "message": f"the method {call['method']} does not exist/is not available",
            }
            return 200, json.dumps({"jsonrpc": "2.0", "id": call["id"], "error": error}).encode()
        return None

    proxy = proxies(other.trace_urls[0], hide_blocks)
    with pytest.raises(WrongChainError, match=r"its trace of block \d+ names block hash"):
        hmyframe.traces(100, 139, rpc=devnet.url, trace_rpc=proxy.url, cache=tmp_path)
    assert not (tmp_path / chain_id(devnet) / "traces").exists()


def test_a_shard_url_of_another_network_learnt_from_the_node_is_refused(
    devnet: Devnet, make_devnet: Any, proxies: Any, tmp_path: Path
) -> None:
    other = make_devnet(blocks=300, seed=SEED + 1, validator_rate_limit=False)

    def foreign_shard_one(body: Any) -> tuple[int, bytes] | None:
        call = _calls(body)[0]
        if call["method"] == "hmy_getShardingStructure":
            listing = [
                {"current": True, "shardID": 0, "http": devnet.urls[0], "ws": ""},
                {"current": False, "shardID": 1, "http": other.urls[1], "ws": ""},
            ]
            return 200, rpc_result(body, listing)
        return None

    proxy = proxies(devnet.url, foreign_shard_one)
    with pytest.raises(WrongChainError, match=r"URL of shard 1, .* belongs to another network"):
        hmyframe.blocks(0, 49, 1, rpc=proxy.url, cache=tmp_path)
    assert not list(tmp_path.rglob("*.parquet"))
    assert other.stats.endpoint(1).calls_of("hmyv2_getBlocks") == 0


# --------------------------------------------------------------------------- 11. a clear word


async def test_a_start_past_the_head_names_the_head(devnet: Devnet, tmp_path: Path) -> None:
    head = await hmyframe.aio.head(rpc=devnet)
    message = rf"start block 5000 is beyond the head of shard 0: the head is block {head}"
    with pytest.raises(ConfigError, match=message):
        await hmyframe.aio.blocks(5000, rpc=devnet, cache=tmp_path)
    with pytest.raises(ConfigError, match=message):
        await export(["blocks"], 5000, rpc=devnet, out=tmp_path)


async def test_traces_without_a_trace_endpoint_fail_first_naming_every_way_to_give_one(
    devnet: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HMYFRAME_TRACE_RPC", raising=False)
    with pytest.raises(ConfigError, match=r"need a trace endpoint.*--trace-rpc") as info:
        await export(["blocks", "traces"], 0, 49, rpc=devnet.url, out=tmp_path)
    assert "trace_rpc=" in str(info.value)
    assert "HMYFRAME_TRACE_RPC" in str(info.value)
    assert _parquet_under(tmp_path) == []  # nothing was fetched or written before
