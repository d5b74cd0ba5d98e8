"""The ``hmyframe devnet`` command: prints its URLs, serves, stops cleanly on SIGINT/SIGTERM."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from hmyframe.cli import main
from hmyframe.devnet._gen_accounts import COLLECT_REWARDS_TOPIC


def _post(url: str, method: str, params: list[object]) -> tuple[int, dict[str, object]]:
    data = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def _start(*args: str) -> tuple[subprocess.Popen[str], list[tuple[str, str]]]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from hmyframe.cli import main; sys.exit(main())",
            "devnet",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    header = proc.stdout.readline()
    assert header.startswith("hmyframe devnet: seed 9"), header
    urls = []
    for _ in range(2):
        line = proc.stdout.readline()
        match = re.fullmatch(r"shard (\d): (http://\S+)  trace: (http://\S+)\n", line)
        assert match is not None, line
        urls.append((match.group(2), match.group(3)))
    return proc, urls


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_cli_serves_until_signal(sig: signal.Signals) -> None:
    proc, urls = _start(
        "--blocks", "30", "--seed", "9", "--validators", "20", "--faults", "status=503,times=1"
    )
    try:
        assert _post(urls[0][0], "hmyv2_blockNumber", [])[0] == 503  # the injected fault
        status, answer = _post(urls[0][0], "hmyv2_blockNumber", [])
        assert status == 200
        assert answer["result"] == 29
        assert _post(urls[1][1], "trace_block", ["0x1"])[1]["result"] is not None
    finally:
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0
    assert "hmyframe devnet: stopped" in err


def test_cli_rejects_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devnet", "--shards", "0"]) == 1
    assert "shards=0" in capsys.readouterr().err
    assert main(["devnet", "--faults", "boom"]) == 1
    assert "'boom'" in capsys.readouterr().err


def test_cli_token_density() -> None:
    """``--token-density 0`` serves the chain without token activity; the default has some."""
    for density, expect_logs in (("0", False), ("4", True)):
        proc, urls = _start("--blocks", "40", "--seed", "9", "--validators", "20", "--token-density", density)
        try:
            status, answer = _post(urls[0][0], "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": "latest"}])
            assert status == 200
            # a CollectRewards' payout log is a staking receipt's, not token activity
            token_logs = [log for log in answer["result"] if log["topics"][:1] != [COLLECT_REWARDS_TOPIC]]
            assert bool(token_logs) is expect_logs
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=20)
        assert proc.returncode == 0


def test_cli_rejects_bad_token_density(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devnet", "--token-density", "-2"]) == 1
    assert "token_density=-2.0" in capsys.readouterr().err
