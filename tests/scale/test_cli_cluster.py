"""``hmyframe export --scheduler`` as a user runs it: a ``dask scheduler`` and ``dask worker``
started as separate processes from the command line (the ``dask`` command the ``dask`` extra
installs), ``--scheduler local``, and hmyframe without Dask at all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

import hmyframe
from hmyframe.cli import main
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions

BIN = Path(sys.executable).parent
DASK = BIN / "dask"
HMYFRAME = BIN / "hmyframe"


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(blocks=1100, seed=21, validator_rate_limit=False) as served:
        yield served


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End a process this test started (SIGTERM, then SIGKILL)."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[str]:
    """``dask scheduler`` and ``dask worker`` (2 processes of 1 thread) started from the command
    line; yields the scheduler's address."""
    info = tmp_path / "scheduler.json"
    logs = (tmp_path / "scheduler.log").open("wb"), (tmp_path / "worker.log").open("wb")
    started: list[subprocess.Popen[bytes]] = []
    try:
        scheduler_cmd = [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0",
                         "--dashboard-address", ":0", "--scheduler-file", str(info)]  # fmt: skip
        started.append(subprocess.Popen(scheduler_cmd, stdout=logs[0], stderr=subprocess.STDOUT))
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert info.exists(), (tmp_path / "scheduler.log").read_text()
        worker_cmd = [str(DASK), "worker", "--scheduler-file", str(info), "--nworkers", "2", "--nthreads", "1",
                      "--dashboard-address", ":0", "--local-directory", str(tmp_path / "worker-space")]  # fmt: skip
        started.append(subprocess.Popen(worker_cmd, stdout=logs[1], stderr=subprocess.STDOUT))
        yield str(json.loads(info.read_text())["address"])
    finally:
        for process in reversed(started):
            _stop(process)
        for log in logs:
            log.close()


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HMYFRAME_")}
    env["HMYFRAME_CACHE"] = str(tmp_path / "default-cache")
    return env


def test_export_on_a_scheduler_and_workers_started_from_the_command_line(
    net: Devnet, scheduler: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [str(HMYFRAME), "export", "blocks,transactions", "--rpc", net.url, "--start", "0", "--end", "999",
         "--chunk-size", "250", "--out", str(out), "--scheduler", scheduler, "--no-progress"],
        capture_output=True, text=True, timeout=300, env=_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "fetched 1,000 blocks" in done.stdout
    expected = tmp_path / "expected"
    hmyframe.export(
        ["blocks", "transactions"], 0, 999, rpc=net, out=expected, options=FetchOptions(chunk_size=250)
    )
    for name in ("blocks", "transactions"):
        pd.testing.assert_frame_equal(hmyframe.read(name, out), hmyframe.read(name, expected))
    # blocks and transactions, and staking_transactions (the same blocks make all three): 4 chunks each
    assert len(list(out.rglob("*.parquet"))) == 3 * 4


def test_export_on_a_local_cluster_from_the_command_line(net: Devnet, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [str(HMYFRAME), "export", "blocks", "--rpc", net.url, "--start", "0", "--end", "499", "--shard", "all",
         "--chunk-size", "250", "--out", str(out), "--scheduler", "local", "--workers", "2", "--no-progress"],
        capture_output=True, text=True, timeout=300, env=_env(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    frame = hmyframe.read("blocks", out)
    assert frame.groupby("shard_id")["block_number"].apply(list).to_dict() == {
        0: list(range(500)),
        1: list(range(500)),
    }


def test_scheduler_options_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "export",
                "blocks",
                "--rpc",
                "http://127.0.0.1:1",
                "--start",
                "0",
                "--end",
                "9",
                "--workers",
                "2",
            ]
        )
        != 0
    )
    assert "--workers sizes the local Dask cluster" in capsys.readouterr().err
    assert main(["export", "blocks", "--rpc", "http://127.0.0.1:1", "--start", "0", "--end", "9",
                 "--scheduler", "nowhere"]) != 0  # fmt: skip
    assert "--scheduler must be 'local' or a scheduler address" in capsys.readouterr().err


def test_the_core_runs_without_dask(net: Devnet, tmp_path: Path) -> None:
    """``import hmyframe`` and a plain export import neither Dask nor fsspec (the ``dask`` extra)."""
    script = f"""
import sys
import hmyframe
hmyframe.export(["blocks", "transactions"], 0, 99, rpc={net.url!r}, out={str(tmp_path / "plain")!r})
print(len(hmyframe.read("blocks", {str(tmp_path / "plain")!r})))
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("dask", "distributed", "fsspec"))
print(loaded)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=_env(tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["100", "[]"]
