"""Robustness: answer order, injected HTTP faults and resets, failures mid-fetch, killed exports.

Fault rules go on devnets of their own (``make_devnet``), never on the session devnet. Retries
never sleep (``NO_WAIT``). Every fetch is compared with the ground truth: nothing lost, nothing
duplicated, same order.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from fetch_helpers import NO_WAIT, exact_sum, hidden_files, parquet_files, trace_rows
from fetch_helpers import transactions as truth_transactions

import hmyframe
from hmyframe import FetchOptions
from hmyframe.cli import main
from hmyframe.devnet import Chain, Devnet, FaultRule
from hmyframe.engine._session import chain_id_from_hash
from hmyframe.errors import RpcError

SEED = 7  # the session devnet's seed: its truth is `devnet_truth` for blocks <= 299
NAMES = ("blocks", "transactions", "staking_transactions", "signers", "traces")


def _options(**changes: object) -> FetchOptions:
    base = FetchOptions(chunk_size=20, blocks_per_request=5, max_concurrent_chunks=4, retry=NO_WAIT)
    return base.with_(**changes)


@pytest.fixture(scope="module")
def baseline(devnet: Devnet) -> dict[str, pd.DataFrame]:
    """The five range datasets of blocks 100..199 of shard 0, fetched without faults."""
    return {n: getattr(hmyframe, n)(100, 199, 0, rpc=devnet, cache=False) for n in NAMES}


@pytest.mark.parametrize("strategy", ["range", "batch"])
async def test_shuffled_and_delayed_answers_give_the_same_ordered_frames(
    make_devnet, baseline: dict[str, pd.DataFrame], strategy: str
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    net.faults.add(FaultRule("shuffle"))
    net.faults.add(FaultRule("delay", delay=0.05, times=3))  # the first answers come last
    net.faults.add(FaultRule("delay", delay=0.02, probability=0.3))
    for name in NAMES:
        df = await getattr(hmyframe.aio, name)(
            100, 199, 0, rpc=net, cache=False, options=_options(strategy=strategy)
        )
        pd.testing.assert_frame_equal(df, baseline[name], check_exact=True, obj=name)
    faults = net.stats.total().faults
    assert faults.get("shuffle", 0) > 10
    assert faults.get("delay", 0) >= 3
    assert max(net.stats.total().batch_sizes) > 1  # batches really were shuffled


#: One fault of each kind: (rule options, how the server statistics show it).
SURE_FAULTS = [
    ({"kind": "status", "status": 429}, ("status", 429)),
    ({"kind": "status", "status": 502}, ("status", 502)),
    ({"kind": "status", "status": 503}, ("status", 503)),
    ({"kind": "reset"}, ("fault", "reset")),
    ({"kind": "truncate"}, ("fault", "truncate")),
    ({"kind": "rpc_error"}, ("rpc", -32000)),  # the node's "rate: Wait(n=1) ..." refusal
]


@pytest.mark.parametrize("strategy", ["range", "batch"])
@pytest.mark.parametrize(("rule", "seen"), SURE_FAULTS, ids=[f"{k}-{v}" for _, (k, v) in SURE_FAULTS])
async def test_each_fault_kind_on_block_and_trace_requests_is_survived(
    make_devnet, baseline: dict[str, pd.DataFrame], strategy: str, rule: dict, seen: tuple
) -> None:
    # one rule at a time (several rules matching one request would all be spent on it)
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    block_method = "hmyv2_getBlocks" if strategy == "range" else "hmyv2_getBlockByNumber"
    for method in (block_method, "trace_block"):
        net.faults.add(FaultRule(**rule, method=method, times=2))
    df = await hmyframe.aio.traces(100, 139, rpc=net, cache=False, options=_options(strategy=strategy))
    expected = baseline["traces"][baseline["traces"]["block_number"] <= 139]
    pd.testing.assert_frame_equal(df, expected, check_exact=True)
    stats = net.stats.total()
    where, what = seen
    fired = {
        "status": stats.by_status.get(what, 0),
        "fault": stats.faults.get(what, 0),
        "rpc": stats.rpc_errors.get(what, 0),
    }[where]
    assert fired == 4  # twice on block requests, twice on trace requests, all retried


@pytest.mark.parametrize("strategy", ["range", "batch"])
async def test_http_errors_and_resets_lose_or_duplicate_no_row(
    make_devnet, baseline: dict[str, pd.DataFrame], devnet_truth: Chain, tmp_path: Path, strategy: str
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    for rule in (
        FaultRule("status", status=429, probability=0.1),
        FaultRule("status", status=502, probability=0.1),
        FaultRule("status", status=503, probability=0.1),
        FaultRule("reset", probability=0.08),
        FaultRule("truncate", probability=0.05),
        FaultRule("rpc_error", probability=0.05),  # the node's "rate: Wait(n=1) ..." refusal
    ):
        net.faults.add(rule)
    frames = {}
    for name in NAMES:
        frames[name] = await getattr(hmyframe.aio, name)(
            100, 199, 0, rpc=net, cache=tmp_path, options=_options(strategy=strategy)
        )
        pd.testing.assert_frame_equal(frames[name], baseline[name], check_exact=True, obj=name)
    stats = net.stats.total()
    assert sum(stats.faults.values()) > 10  # faults really happened (which ones is up to chance)
    # against the ground truth too, and read back from the cache after the faults
    truth = truth_transactions(devnet_truth, 0, 100, 199)
    net.faults.clear()
    net.stats.reset()
    cached = await hmyframe.aio.transactions(100, 199, rpc=net, cache=tmp_path, options=_options())
    assert net.stats.http_requests == 0
    assert cached["transaction_hash"].tolist() == [t.hash for t in truth]
    assert cached["transaction_hash"].is_unique
    assert exact_sum(cached["value"]) == sum(t.value for t in truth)
    traces = frames["traces"]
    assert len(traces) == len(trace_rows(devnet_truth, 0, 100, 199))
    assert not traces.duplicated(["transaction_hash", "trace_index"]).any()


async def test_failed_fetch_keeps_finished_chunks_and_resumes(
    make_devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    # trace_block of block 130 fails for good (not a retryable error)
    net.faults.add(
        FaultRule("rpc_error", code=-32603, message="trace store offline", method="trace_block", times=1)
    )
    options = _options(max_concurrent_chunks=1, chunk_size=20, blocks_per_request=20)
    with pytest.raises(RpcError, match="trace store offline"):
        await hmyframe.aio.traces(100, 199, rpc=net, cache=tmp_path, options=options)
    folder = tmp_path / chain_id_from_hash(net.chain.genesis_hash(0))
    # the failed chunk (its first one) wrote its blocks but no traces
    assert sorted(p.name for p in (folder / "transactions" / "shard0").glob("*.parquet")) == [
        "transactions__0000000100_0000000119.parquet"
    ]
    assert not (folder / "traces").exists()
    net.stats.reset()
    df = await hmyframe.aio.traces(100, 199, rpc=net, cache=tmp_path, options=options)
    assert net.stats.calls_of("trace_block") == 100
    assert net.stats.calls_of("hmyv2_getBlocks") == 4  # 120..199: the blocks of 100..119 were kept
    truth = trace_rows(devnet_truth, 0, 100, 199)
    assert df["transaction_hash"].tolist() == [r["transaction_hash"] for r in truth]


async def test_paced_validator_pages_never_trip_the_node_limiter(make_devnet, devnet_truth: Chain) -> None:
    net = make_devnet(blocks=400, seed=SEED)  # the node's limiter: 1 req/s, burst 3, 5 s wait
    vals = await hmyframe.aio.validators(rpc=net, cache=False)
    assert set(vals["validator_address_hex"]) == {v.address.lower() for v in devnet_truth.validators(399)}
    stats = net.stats.total()
    assert stats.calls_of("hmyv2_getAllValidatorInformationByBlockNumber") >= 3
    assert dict(stats.rpc_errors) == {}


# --------------------------------------------------------------------------- a killed export resumes


def _chunk_files(folder: Path) -> set[str]:
    return {p.name.split("__", 1)[1] for p in folder.glob("*.parquet")} if folder.is_dir() else set()


def test_killed_export_resumes_with_only_the_missing_chunks(
    make_devnet, devnet_truth: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    out = tmp_path / "out"
    chain = chain_id_from_hash(net.chain.genesis_hash(0))
    blocks_dir = out / chain / "blocks" / "shard0"
    tx_dir = out / chain / "transactions" / "shard0"
    args = [
        "export",
        "blocks,transactions",
        "--start",
        "0",
        "--end",
        "299",
        "--rpc",
        net.url,
        "--out",
        str(out),
    ]
    args += ["--chunk-size", "10", "--blocks-per-request", "10"]
    script = Path(sys.executable).with_name("hmyframe")
    log = tmp_path / "killed.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen([str(script), *args, "--rps", "15"], stdout=sink, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while len(_chunk_files(blocks_dir)) < 6:
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the export did not start writing"
                time.sleep(0.01)
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    done = _chunk_files(blocks_dir) & _chunk_files(tx_dir)
    assert 1 <= len(done) < 30, "killed mid-way"

    net.stats.reset()
    capsys.readouterr()
    assert main(args) == 0
    report = capsys.readouterr()
    missing = 30 - len(done)
    # server side: one getBlocks per missing chunk, nothing for the finished ones
    assert net.stats.calls_of("hmyv2_getBlocks") == missing
    assert f"fetched {missing * 10} blocks" in report.out
    assert report.err == ""  # no progress bar when not on a terminal

    # the final data equals the ground truth, with every file complete and readable
    truth = truth_transactions(devnet_truth, 0, 0, 299)
    assert len(_chunk_files(blocks_dir)) == len(_chunk_files(tx_dir)) == 30
    blocks = pd.read_parquet(blocks_dir)
    assert sorted(blocks["block_number"]) == list(range(300))
    assert sorted(blocks["block_hash"]) == sorted(devnet_truth.block(0, n).hash for n in range(300))
    tx = pd.read_parquet(tx_dir).sort_values(["block_number", "transaction_index"])
    assert tx["transaction_hash"].tolist() == [t.hash for t in truth]
    assert exact_sum(tx["value"]) == sum(t.value for t in truth)
    count = duckdb.sql(f"select count(*) from read_parquet('{tx_dir}/*.parquet')").fetchall()
    assert count == [(len(truth),)]
    # no temporary file of the killed writer is left where the rerun wrote
    leftovers = [p for p in hidden_files(out) if p.parent in (blocks_dir, tx_dir)]
    assert leftovers == []
    assert all(not p.name.startswith(".") for p in parquet_files(out))


def test_orphaned_temporary_files_are_removed_when_their_file_is_written(
    devnet: Devnet, tmp_path: Path
) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    folder = tmp_path / chain_id_from_hash(devnet.chain.genesis_hash(0)) / "blocks" / "shard0"
    folder.mkdir(parents=True)
    orphan = folder / f".blocks__0000000000_0000000049.parquet.{dead.pid}.tmp"
    orphan.write_bytes(b"half a parquet file")
    alive = folder / f".blocks__0000000000_0000000049.parquet.{os.getppid()}.tmp"
    alive.write_bytes(b"a concurrent writer's file")
    df = hmyframe.blocks(0, 49, rpc=devnet, cache=tmp_path, options=FetchOptions(chunk_size=50))
    assert len(df) == 50
    assert not orphan.exists()
    assert alive.exists()  # its writer still runs: left alone
    assert pd.read_parquet(folder)["block_number"].tolist() == list(range(50))


@pytest.mark.parametrize("version", [1, 2])
async def test_a_node_without_get_blocks_falls_back_to_batched_single_blocks(
    make_devnet, baseline: dict[str, pd.DataFrame], version: int
) -> None:
    net = make_devnet(blocks=300, seed=SEED, validator_rate_limit=False)
    prefix = "hmy_" if version == 1 else "hmyv2_"
    net.faults.add(
        FaultRule(
            "rpc_error",
            code=-32601,
            message=f"the method {prefix}getBlocks does not exist/is not available",
            method=f"{prefix}getBlocks",
        )
    )
    for name in ("signers", "transactions"):
        df = await getattr(hmyframe.aio, name)(
            100, 199, 0, rpc=net, cache=False, options=_options(version=version)
        )
        pd.testing.assert_frame_equal(df, baseline[name], check_exact=True, obj=name)
    stats = net.stats.total()
    assert stats.calls_of(f"{prefix}getBlockByNumber") >= 200
    if version == 1:  # hmy_getBlockByNumber cannot carry signers: asked per block
        assert stats.calls_of("hmy_getBlockSigners") == 100
