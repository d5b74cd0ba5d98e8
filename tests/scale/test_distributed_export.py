"""Exports as Dask tasks (issue 11): a LocalCluster of 2 worker processes against devnets on
127.0.0.1 writes exactly what a local export writes, resumes, shares a rate limit, survives a
worker killed mid-run; a ``memory://`` output with a threaded cluster; ``hmyframe.read(...,
engine="dask")`` gives the same frames and dtypes."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fsspec
import pandas as pd
import pytest
from conftest import distributed, local_cluster

import hmyframe
from hmyframe.amounts import AttoDtype
from hmyframe.devnet import Devnet, RateLimit
from hmyframe.engine import FetchOptions
from hmyframe.errors import ConfigError, HTTPStatusError, RateLimitError
from hmyframe.exporting import ExportSummary
from hmyframe.rpc import Client, RetryPolicy
from hmyframe.scale import check_client

DATASETS = ["blocks", "transactions", "staking_transactions", "signers", "traces"]
BLOCKS = "hmyv2_getBlocks"


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    """A devnet of 2 shards served from this process (the workers reach it over HTTP)."""
    with Devnet(blocks=2100, seed=11, validator_rate_limit=False) as served:
        yield served


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@dataclass
class Exported:
    local: Path
    remote: Path
    here: ExportSummary
    there: ExportSummary
    ticks: list[int]


@pytest.fixture(scope="module")
def exported(net: Devnet, cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> Exported:
    """Blocks 0..999 of both shards, every range dataset, exported locally and on the cluster."""
    options = FetchOptions(chunk_size=250)
    root = tmp_path_factory.mktemp("exported")
    local, remote = root / "local", root / "dask"
    ticks: list[int] = []
    here = hmyframe.export(DATASETS, 0, 999, shard="all", rpc=net, out=local, options=options)
    there = hmyframe.export(
        DATASETS,
        0,
        999,
        shard="all",
        rpc=net,
        out=remote,
        options=options,
        client=cluster,
        progress=ticks.append,
    )
    return Exported(local, remote, here, there, ticks)


def test_a_distributed_export_writes_what_a_local_export_writes(exported: Exported) -> None:
    assert _files(exported.remote) == _files(exported.local)
    assert (
        len(_files(exported.remote)) == 5 * 2 * 4
    )  # datasets x shards x chunks, nothing else (no temporary file)
    for name in DATASETS:
        frame = hmyframe.read(name, exported.local)
        pd.testing.assert_frame_equal(hmyframe.read(name, exported.remote), frame)
        assert exported.there.datasets[name].rows == exported.here.datasets[name].rows == len(frame) > 0
    assert exported.there.ranges == exported.here.ranges == {0: (0, 999), 1: (0, 999)}
    assert exported.there.fetched_blocks == 2000
    assert sorted(exported.ticks) == [250] * 8  # progress from the client, one tick per chunk


def test_a_second_distributed_export_fetches_nothing(net: Devnet, cluster: Any, exported: Exported) -> None:
    net.stats.reset()
    again = hmyframe.export(DATASETS, 0, 999, shard="all", rpc=net, out=exported.remote,
                            options=FetchOptions(chunk_size=250), client=cluster)  # fmt: skip
    assert again.fetched_blocks == 0
    assert net.stats.calls == 0  # planned against the output: no task, no request
    assert _files(exported.remote) == _files(exported.local)


def test_read_with_the_dask_engine(exported: Exported) -> None:
    folder = exported.remote
    for name in DATASETS:
        eager = hmyframe.read(name, folder)
        lazy = hmyframe.read(name, folder, engine="dask")
        assert lazy.npartitions == 8  # one partition per file: 4 chunks x 2 shards
        assert list(lazy.dtypes) == list(eager.dtypes)
        assert list(lazy._meta.dtypes) == list(eager.dtypes)
        pd.testing.assert_frame_equal(lazy.compute(scheduler="sync").reset_index(drop=True), eager)
    tx = hmyframe.read("transactions", folder)
    lazy = hmyframe.read("transactions", folder, engine="dask")
    assert isinstance(lazy["value"].dtype, AttoDtype)
    assert isinstance(lazy._meta["value"].dtype, AttoDtype)
    total = lazy["value"].sum().compute(scheduler="sync")
    assert isinstance(total, int)
    assert total == tx["value"].sum()
    assert total > 2**64  # exact beyond what any float or int64 holds
    per_shard = lazy.groupby("shard_id")["value"].sum().compute(scheduler="sync")
    pd.testing.assert_series_equal(per_shard.sort_index(), tx.groupby("shard_id")["value"].sum())
    subset = hmyframe.read("transactions", folder, shard=1, start=600, end=899, engine="dask")
    assert subset.npartitions == 2  # the files holding blocks 600..899
    pd.testing.assert_frame_equal(
        subset.compute(scheduler="sync").reset_index(drop=True),
        hmyframe.read("transactions", folder, shard=1, start=600, end=899),
    )
    with pytest.raises(ConfigError, match="output must be 'pandas'"):
        hmyframe.read("transactions", folder, engine="dask", output="arrow")
    with pytest.raises(ConfigError, match="engine must be"):
        hmyframe.read("transactions", folder, engine="spark")  # type: ignore[arg-type]


def test_workers_together_keep_to_the_rate_limit(cluster: Any, tmp_path: Path) -> None:
    """The node counts every call (a getBlocks counts each block): fetch with one call per
    request, so that both sides count the same thing."""
    rate = 50.0
    leases = 2  # the cluster's worker threads
    # the node refuses at once what exceeds the rate beyond a burst of the leases, plus 4 (80 ms)
    # for the jitter between a request's send time and its arrival on a loaded machine
    limit = RateLimit(rate, leases + 4, deadline=0.0)
    with Devnet(blocks=300, seed=12, validator_rate_limit=False, rpc_rate_limit=limit) as limited:
        options = FetchOptions(
            chunk_size=50,
            strategy="batch",
            batch_size=1,
            requests_per_second=rate,
            retry=RetryPolicy(attempts=1),
        )
        summary = hmyframe.export(["blocks"], 0, 199, rpc=limited, out=tmp_path / "ok", options=options,
                                  client=cluster)  # fmt: skip
        assert summary.datasets["blocks"].rows == 200
        served = limited.stats.total()
        # the blocks, and block 0 once per worker thread (its session checks the chain once)
        assert 200 + 1 <= served.calls_of("hmyv2_getBlockByNumber") <= 200 + leases
        assert dict(served.rpc_errors) == {}  # the node never had to refuse a request
        # control: had each worker taken the whole limit, the node would have refused requests
        limited.stats.reset()
        with pytest.raises(RateLimitError):
            hmyframe.export(["blocks"], 0, 199, rpc=limited, out=tmp_path / "over",
                            options=options.with_(requests_per_second=rate * leases), client=cluster)  # fmt: skip
        assert limited.stats.total().rpc_errors.get(-32000, 0) > 0


def test_two_endpoints_one_failing_part_of_the_time(net: Devnet, cluster: Any, tmp_path: Path) -> None:
    """Every task spreads its calls over both endpoints; the flaky one's failures are retried on
    the other, and the export equals a local one from the good endpoint alone."""
    with Devnet(blocks=2100, seed=11, validator_rate_limit=False) as flaky:
        flaky.faults.add("status", status=503, probability=0.3)
        flaky.faults.add("reset", probability=0.1)
        options = FetchOptions(chunk_size=250, blocks_per_request=25)
        summary = hmyframe.export(["blocks", "transactions"], 0, 999, rpc=[flaky, net], out=tmp_path / "two",
                                  options=options, client=cluster)  # fmt: skip
        hmyframe.export(["blocks", "transactions"], 0, 999, rpc=net, out=tmp_path / "one", options=options)
        served = flaky.stats.total()
    for name in ("blocks", "transactions"):
        pd.testing.assert_frame_equal(
            hmyframe.read(name, tmp_path / "two"), hmyframe.read(name, tmp_path / "one")
        )
    assert summary.fetched_blocks == 1000
    assert sum(served.faults.values()) >= 1  # it did fail
    assert served.by_status.get(200, 0) >= 1  # and it served too


def test_a_failed_chunk_is_named_and_a_rerun_fetches_only_it(
    net: Devnet, cluster: Any, tmp_path: Path
) -> None:
    options = FetchOptions(chunk_size=500, retry=RetryPolicy(attempts=1))
    net.faults.add("status", status=500, times=1, method=BLOCKS, shard=1)
    try:
        with pytest.raises(HTTPStatusError) as caught:
            hmyframe.export(
                ["blocks"], 0, 1999, shard=1, rpc=net, out=tmp_path, options=options, client=cluster
            )
    finally:
        net.faults.clear()
    message = str(caught.value)
    assert "HTTP 500" in message
    assert "3 of 4 chunks were fetched" in message
    assert "of 1 chunks" not in message  # the task's own account of its one chunk is not repeated
    assert "Run the same command again to resume" in message
    net.stats.reset()
    summary = hmyframe.export(
        ["blocks"], 0, 1999, shard=1, rpc=net, out=tmp_path, options=options, client=cluster
    )
    assert summary.fetched_blocks == 500
    assert net.stats.calls_of(BLOCKS) == 5  # one chunk of 500 blocks, 100 per call
    assert hmyframe.read("blocks", tmp_path)["block_number"].tolist() == list(range(2000))


def test_what_a_distributed_export_refuses(net: Devnet, cluster: Any, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"distributed\.Client"):
        check_client("tcp://127.0.0.1:1")
    with pytest.raises(ConfigError, match="open Client cannot hand its endpoints"):
        hmyframe.export(["blocks"], 0, 9, rpc=Client(net.url), out=tmp_path, client=cluster)


def test_an_export_survives_a_worker_killed_mid_run(tmp_path: Path) -> None:
    with Devnet(blocks=2000, seed=13, validator_rate_limit=False, latency_ms=60) as slow:
        options = FetchOptions(chunk_size=250, blocks_per_request=10)
        with local_cluster() as made, distributed.Client(made) as client:
            pids = set(client.run(os.getpid).values())
            result: dict[str, Any] = {}

            def run() -> None:
                try:
                    result["summary"] = hmyframe.export(
                        ["blocks", "transactions"],
                        0,
                        1999,
                        rpc=slow,
                        out=tmp_path,
                        options=options,
                        client=client,
                    )
                except BaseException as exc:  # noqa: BLE001  (handed to the test thread)
                    result["error"] = exc

            worker = threading.Thread(target=run)
            worker.start()
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and len(list(tmp_path.rglob("blocks__*.parquet"))) < 2:
                time.sleep(0.05)
            assert worker.is_alive(), result  # still running: chunks remain
            victim = sorted(pids)[0]
            os.kill(victim, signal.SIGKILL)
            worker.join(timeout=240)
            assert not worker.is_alive()
            after = set(client.run(os.getpid).values())
        assert "error" not in result, result.get("error")
        assert victim not in after
        truth_blocks = hmyframe.blocks(
            0, 1999, rpc=slow, cache=False, options=FetchOptions(blocks_per_request=100)
        )
        truth_tx = hmyframe.transactions(
            0, 1999, rpc=slow, cache=False, options=FetchOptions(blocks_per_request=100)
        )
    pd.testing.assert_frame_equal(hmyframe.read("blocks", tmp_path), truth_blocks)
    pd.testing.assert_frame_equal(hmyframe.read("transactions", tmp_path), truth_tx)
    assert result["summary"].datasets["blocks"].rows == 2000
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]  # the dead writer's files are gone


def test_a_memory_url_output_with_a_threaded_cluster(net: Devnet, tmp_path: Path) -> None:
    """``memory://`` is one store per process: the workers here are threads of this process."""
    url = "memory://hmyframe-dask-threads"
    options = FetchOptions(chunk_size=250)
    try:
        with local_cluster(processes=False) as made, distributed.Client(made) as client:
            summary = hmyframe.export(["blocks", "transactions"], 0, 999, shard="all", rpc=net, out=url,
                                      options=options, client=client)  # fmt: skip
        hmyframe.export(
            ["blocks", "transactions"], 0, 999, shard="all", rpc=net, out=tmp_path, options=options
        )
        for name in ("blocks", "transactions"):
            pd.testing.assert_frame_equal(hmyframe.read(name, url), hmyframe.read(name, tmp_path))
        assert summary.fetched_blocks == 2000
        assert [p.name for p in summary.datasets["blocks"].files] == [
            p.name for p in sorted(tmp_path.rglob("blocks__*.parquet"), key=lambda p: (p.parent.name, p.name))
        ]
    finally:
        fs = fsspec.filesystem("memory")
        if fs.exists(url):
            fs.rm(url, recursive=True)
