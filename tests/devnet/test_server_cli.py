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
from hmyframe.devnet import Chain


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
        # the chain the command serves (its logs: the token activity's and the exchange's)
        local = Chain(seed=9, blocks=40, validators=20, token_density=float(density))
        holders = {local.token_holder(i) for i in range(400)}
        blocks = [local.block(0, n) for n in range(40)]
        # CollectRewards staking receipts carry a log whatever the token density
        logs = sum(len(tx.logs) for b in blocks for tx in (*b.transactions, *b.staking_transactions))
        by_holders = sum(len(tx.logs) for b in blocks for tx in b.transactions if tx.sender in holders)
        assert bool(by_holders) is expect_logs
        proc, urls = _start("--blocks", "40", "--seed", "9", "--validators", "20", "--token-density", density)
        try:
            status, answer = _post(urls[0][0], "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": "latest"}])
            assert status == 200
            assert len(answer["result"]) == logs
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=20)
        assert proc.returncode == 0


def test_cli_rejects_bad_token_density(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devnet", "--token-density", "-2"]) == 1
    assert "token_density=-2.0" in capsys.readouterr().err


SYNC_TOPIC = "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1"


def test_cli_dex_density_and_hostile_text() -> None:
    """``--dex-density`` sets how busy the exchange is (0: no pair, no Sync log; 3: the pairs'
    Sync logs the chain of that density has); ``--hostile-text`` serves the hostile token text."""
    for density, hostile in (("0", False), ("3", True)):
        local = Chain(seed=9, blocks=40, validators=20, dex_density=float(density), hostile_text=hostile)
        syncs = sum(
            1
            for n in range(40)
            for tx in local.block(0, n).transactions
            for log in tx.logs
            if log.topics[0] == SYNC_TOPIC
        )
        assert bool(syncs) is (density != "0")
        token = local.tokens(0)[0]
        args = ["--blocks", "40", "--seed", "9", "--validators", "20", "--dex-density", density]
        proc, urls = _start(*args, *(["--hostile-text"] if hostile else []))
        try:
            _, answer = _post(
                urls[0][0], "hmy_getLogs", [{"fromBlock": "0x0", "toBlock": "latest", "topics": [SYNC_TOPIC]}]
            )
            assert len(answer["result"]) == syncs
            _, symbol = _post(urls[0][0], "hmy_call", [{"to": token.address, "data": "0x95d89b41"}, "latest"])
            raw = bytes.fromhex(str(symbol["result"])[2:])
            text = raw[64 : 64 + int.from_bytes(raw[32:64], "big")].decode()
            assert text == ("\u202eevil" if hostile else token.symbol.decode())
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=20)
        assert proc.returncode == 0


def test_cli_rejects_bad_dex_density(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devnet", "--dex-density", "-1"]) == 1
    assert "dex_density=-1.0" in capsys.readouterr().err
