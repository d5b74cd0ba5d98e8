"""The ``hmyframe`` command line end to end against the devnet: in-process (``main([...])``) and as
the installed console script in a subprocess.

Every command that writes uses ``tmp_path`` (``--out``/``--dir`` and ``HMYFRAME_CACHE``), never
the repository's ``data/``.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import run

from hmyframe.cli import main
from hmyframe.devnet import Chain, Devnet
from hmyframe.devnet.model import flatten_trace
from hmyframe.engine._session import chain_id_from_hash

SCRIPT = Path(sys.executable).with_name("hmyframe")


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def chain_id(net: Devnet) -> str:
    return chain_id_from_hash(net.chain.genesis_hash(0))


# --------------------------------------------------------------------------- export


def test_export_parquet_in_process(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["export", "blocks,transactions,traces", "--start", "20", "--end", "139", "--shard", "1"]
    argv += ["--rpc", devnet.urls[1], "--trace-rpc", devnet.trace_urls[1], "--out", str(out)]
    argv += ["--chunk-size", "50", "--api", "1", "--strategy", "batch"]
    code, stdout, stderr = run(argv, capsys)
    assert code == 0, stderr
    assert stderr == ""  # no progress bar: stderr is not a terminal
    txs = list(devnet_truth.iter_transactions(1, 20, 139))
    n_traces = sum(len(flatten_trace(t.trace)) for t in txs if t.trace)
    lines = stdout.splitlines()
    assert lines[0].startswith(f"chain {chain_id(devnet)}: blocks 20..139 of shard 1; fetched 120 blocks")
    assert any(line.split()[:2] == ["transactions", f"{len(txs):,}"] for line in lines)
    assert any(line.split()[:2] == ["traces", f"{n_traces:,}"] for line in lines)
    folder = out / chain_id(devnet)
    assert sorted(p.name for p in (folder / "blocks" / "shard1").iterdir()) == [
        "blocks__0000000020_0000000049.parquet",
        "blocks__0000000050_0000000099.parquet",
        "blocks__0000000100_0000000139.parquet",
    ]
    tx = pd.read_parquet(folder / "transactions" / "shard1")
    assert sorted(tx["transaction_hash"]) == sorted(t.hash for t in txs)
    assert sum(tx["value"].tolist(), Decimal(0)) == sum(t.value for t in txs)
    assert len(pd.read_parquet(folder / "traces" / "shard1")) == n_traces

    # again: everything from the files
    devnet.stats.reset()
    code, stdout, _ = run(argv, capsys)
    assert code == 0
    assert "blocks 20..139 of shard 1; every block from the cache" in stdout
    assert devnet.stats.http_requests == 0


def test_export_csv_values_are_exact_digits(
    devnet: Devnet,
    devnet_truth: Chain,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    private_cache: Path,
) -> None:
    out = tmp_path / "csv"
    argv = ["export", "transactions,delegations", "--start", "0", "--end", "59", "--block", "120"]
    argv += ["--rpc", devnet.url, "--out", str(out), "--format", "csv", "--chunk-size", "30"]
    code, _, stderr = run(argv, capsys)
    assert code == 0, stderr
    folder = out / chain_id(devnet)
    files = sorted((folder / "transactions" / "shard0").glob("*.csv"))
    assert [f.name for f in files] == [
        "transactions__0000000000_0000000029.csv",
        "transactions__0000000030_0000000059.csv",
    ]
    rows = [r for f in files for r in read_csv(f)]
    truth = list(devnet_truth.iter_transactions(0, 0, 59))
    assert [r["transaction_hash"] for r in rows] == [t.hash for t in truth]
    assert [r["value"] for r in rows] == [str(t.value) for t in truth]  # digits, no exponent, no ".0"
    assert [r["gas_price"] for r in rows] == [str(t.gas_price) for t in truth]
    assert rows[0]["timestamp"].startswith("2026-01-01")
    (snapshot,) = (folder / "delegations" / "shard0").glob("*.csv")
    delegations = read_csv(snapshot)
    truth_dels = [d for v in devnet_truth.validators(120) for d in v.delegations]
    assert sorted(int(r["amount"]) for r in delegations) == sorted(d.amount for d in truth_dels)
    # the Parquet files went to the cache root ($HMYFRAME_CACHE here), not to data/
    assert (private_cache / chain_id(devnet) / "transactions" / "shard0").is_dir()
    assert not Path("data", chain_id(devnet)).exists()


# --------------------------------------------------------------------------- head, shards, schema


def test_head_and_shards(devnet: Devnet, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run(["head", "--rpc", devnet.url], capsys)
    assert code == 0
    assert stdout.splitlines() == ["shard 0: 399", "shard 1: 399"]
    code, stdout, _ = run(["head", "--shard", "1", "--rpc", devnet.url], capsys)
    assert (code, stdout) == (0, "shard 1: 399\n")
    code, stdout, _ = run(["shards", "--rpc", devnet.urls[1]], capsys)
    assert code == 0
    lines = stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"shard 0: {devnet.urls[0]}")
    assert lines[1].startswith(f"shard 1: {devnet.urls[1]}")
    assert lines[1].endswith("(answering node)")
    assert "answering" not in lines[0]


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = run(["schema"], capsys)
    assert code == 0
    listed = [line.split()[0] for line in stdout.splitlines()[1:]]
    assert "transactions" in listed
    assert "traces" in listed
    code, stdout, _ = run(["schema", "transactions", "--format", "json"], capsys)
    assert code == 0
    text = json.dumps(json.loads(stdout))
    assert '"value"' in text
    assert "decimal128(38, 0)" in text


# --------------------------------------------------------------------------- cache ls / clear


def test_cache_ls_and_clear(devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "c"
    code, stdout, _ = run(["cache", "ls", "--dir", str(root)], capsys)
    assert (code, stdout) == (0, f"{root}: empty\n")
    argv = ["export", "blocks,transactions,validators", "--start", "0", "--end", "99", "--block", "300"]
    assert run([*argv, "--rpc", devnet.url, "--out", str(root), "--chunk-size", "50"], capsys)[0] == 0
    code, stdout, _ = run(["cache", "ls", "--dir", str(root)], capsys)
    assert code == 0
    table = {line.split()[1]: line.split() for line in stdout.splitlines()[1:]}
    cid = chain_id(devnet)
    assert table["blocks"][:5] == [cid, "blocks", "0", "2", "100"]
    assert table["transactions"][:4] == [cid, "transactions", "0", "2"]
    assert "snapshots at 300" in stdout
    assert table["validators"][4] == str(len(devnet.chain.validators(300)))
    # a corrupt file is flagged
    victim = root / cid / "blocks" / "shard0" / "blocks__0000000050_0000000099.parquet"
    victim.write_bytes(b"nope")
    code, stdout, _ = run(["cache", "ls", "--dir", str(root), "--dataset", "blocks"], capsys)
    assert "1 stale/corrupt" in stdout
    assert len(stdout.splitlines()) == 2
    code, stdout, _ = run(["cache", "clear", "--dir", str(root), "--dataset", "blocks"], capsys)
    assert (code, stdout) == (0, f"removed 2 files from {root}\n")
    assert not (root / cid / "blocks").exists()
    assert (root / cid / "transactions").exists()
    code, stdout, _ = run(["cache", "clear", "--dir", str(root)], capsys)
    assert code == 0
    assert stdout.startswith("removed ")
    assert run(["cache", "ls", "--dir", str(root)], capsys)[1] == f"{root}: empty\n"


# --------------------------------------------------------------------------- demo


def test_demo_exports_and_summarises(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    code, stdout, stderr = run(["demo", "--out", str(out), "--blocks", "300", "--slice", "100"], capsys)
    assert code == 0, stderr
    truth = Chain(seed=0, blocks=300)
    cid = chain_id_from_hash(truth.genesis_hash(0))
    txs = list(truth.iter_transactions(0, 200, 299))
    total = sum(t.value for t in txs)
    assert "exporting blocks 200..299 of shard 0" in stdout
    assert f"{len(txs):,} transactions moved" in stdout
    assert f"(exact: {total} atto)" in stdout
    assert f"{len(truth.validators(299))} validators" in stdout
    for name in ("blocks", "transactions", "staking_transactions", "traces"):
        assert sorted(p.name for p in (out / cid / name / "shard0").glob("*.parquet")) == [
            f"{name}__0000000200_0000000249.parquet",
            f"{name}__0000000250_0000000299.parquet",
        ]
    assert (out / cid / "validators" / "shard0" / "validators__at_0000000299.parquet").is_file()
    # the staking and throughput reports, written and their paths printed
    for name in ("staking", "throughput"):
        path = (out / "reports" / f"{name}.html").resolve()
        assert f"{name}:".ljust(12) + f"{path}\n" in stdout
        assert "no network is needed to view or print it" in path.read_text()
    assert "Changes since block 0 (epoch 0)" in (out / "reports" / "staking.html").read_text()
    throughput = (out / "reports" / "throughput.html").read_text()
    assert "shard 1: blocks 200–299" in throughput
    # the demo devnet has token activity: the Fees and Tokens sections have figures
    assert re.search(r'Fees paid</div><div class="value">[0-9.,]+ <span class="unit">ONE', throughput)
    assert re.search(r'Token transfers</div><div class="value">[1-9][0-9,]*<', throughput)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "nosuch", "--start", "0"], "unknown dataset 'nosuch'"),
        (["export", "blocks", "--start", "10", "--end", "5"], "end block 5 is before start block 10"),
        (["export", "blocks", "--start", "ten"], "start 'ten' is not understood"),
        (["export", "blocks", "--start=-50:", "--end", "9"], "start '-50:' is already a whole range"),
        (
            ["export", "blocks", "--start", "2100-01-01"],
            "shard 0 has no block at or after 2100-01-01 00:00:00",
        ),
        (
            ["export", "blocks", "--start", "0", "--end", "999"],
            "end block 999 is beyond the last fetchable block 399",
        ),
        (["export", "signers", "--start", "0", "--end", "399"], "signers need block N+1"),
        (["export", "blocks"], "needs a start block"),
        (["export", "tx_counts", "--start", "0"], "cannot be exported"),
        (["export", "blocks", "--start", "0", "--end", "9", "--shard", "7"], "shard 7"),
        (
            ["export", "blocks", "--start", "0", "--end", "9", "--chunk-size", "0"],
            "chunk_size must be a positive integer",
        ),
        (["schema", "nosuch"], "unknown dataset 'nosuch'"),
    ],
)
def test_bad_input_gives_one_line_error_and_exit_1(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    if argv[0] == "export":
        argv = [*argv, "--rpc", devnet.url, "--out", str(tmp_path / "out")]
    code, stdout, stderr = run(argv, capsys)
    assert code == 1
    assert stdout == ""
    assert stderr.count("\n") == 1
    assert stderr.startswith(f"hmyframe {argv[0]}: error: ")
    assert message in stderr
    assert list((tmp_path / "out").rglob("*.parquet")) == []  # nothing written


@pytest.mark.parametrize("url", ["ftp://example.com", "not a url", "api.s0.t.hmny.io"])
def test_bad_url_is_a_clear_error(url: str, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for argv in (
        ["head", "--rpc", url],
        ["export", "blocks", "--start", "0", "--end", "9", "--rpc", url, "--out", str(tmp_path)],
    ):
        code, stdout, stderr = run(argv, capsys)
        assert code == 1
        assert stdout == ""
        assert stderr.count("\n") == 1
        assert "rpc must be an http(s) URL" in stderr
        assert repr(url) in stderr


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["export", "blocks", "--start", "0", "--shard", "one"])
    assert exc.value.code == 2
    assert "expected a shard id, ids like 0,1, or 'all'; got 'one'" in capsys.readouterr().err
    assert run([], capsys)[0] == 2  # no command: help, exit 2


# --------------------------------------------------------------------------- the console script


def test_console_script_exports_and_stays_quiet_when_piped(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [
            str(SCRIPT),
            "export",
            "transactions",
            "--start",
            "0",
            "--end",
            "99",
            "--rpc",
            devnet.url,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the progress bar is off when stderr is piped
    truth = list(devnet_truth.iter_transactions(0, 0, 99))
    assert f"{len(truth):,} rows" in done.stdout
    df = pd.read_parquet(out / chain_id(devnet) / "transactions" / "shard0")
    assert sorted(df["transaction_hash"]) == sorted(t.hash for t in truth)

    failed = subprocess.run(
        [
            str(SCRIPT),
            "export",
            "blocks",
            "--start",
            "5",
            "--end",
            "1",
            "--rpc",
            devnet.url,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr == "hmyframe export: error: end block 1 is before start block 5\n"


def test_rpc_defaults_to_hmyframe_rpc(
    devnet: Devnet, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HMYFRAME_RPC", devnet.urls[1])
    code, stdout, _ = run(["head"], capsys)
    assert (code, stdout) == (0, "shard 0: 399\nshard 1: 399\n")
    code, stdout, _ = run(["shards"], capsys)
    assert stdout.splitlines()[1].endswith("(answering node)")
    code, stdout, _ = run(["export", "blocks", "--start", "0", "--end", "9", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert len(pd.read_parquet(tmp_path / chain_id(devnet) / "blocks" / "shard0")) == 10


def test_console_script_shows_a_progress_bar_on_a_terminal(devnet: Devnet, tmp_path: Path) -> None:
    # the counterpart of the quiet-when-piped test: with stderr on a terminal the bar is drawn
    import fcntl
    import os
    import pty
    import select
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    argv = [str(SCRIPT), "export", "blocks", "--start", "0", "--end", "99", "--rpc", devnet.url]
    argv += ["--out", str(tmp_path), "--chunk-size", "20"]
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave) as proc:
        os.close(slave)
        seen = b""
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                try:
                    data = os.read(master, 4096)
                except OSError:  # the terminal closed with the process
                    break
                if not data:
                    break
                seen += data
            elif proc.poll() is not None:
                break
    os.close(master)
    assert proc.returncode == 0
    text = seen.decode(errors="replace")
    assert "export shard 0" in text
    assert "blocks/s" in text


def test_export_traces_of_another_shard_with_per_shard_trace_urls(
    devnet: Devnet, devnet_truth: Chain, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--rpc names shard 0's node; --trace-rpc gives each shard's trace URL as SHARD=URL pairs."""
    pairs = ",".join(f"{s}={url}" for s, url in enumerate(devnet.trace_urls))
    argv = ["export", "traces", "--start", "30", "--end", "59", "--shard", "1", "--rpc", devnet.urls[0]]
    argv += ["--trace-rpc", pairs, "--out", str(tmp_path / "out")]
    code, stdout, stderr = run(argv, capsys)
    assert code == 0, stderr
    n_traces = sum(len(flatten_trace(t.trace)) for t in devnet_truth.iter_transactions(1, 30, 59) if t.trace)
    assert any(line.split()[:2] == ["traces", f"{n_traces:,}"] for line in stdout.splitlines())
    # a single URL serves only the --rpc node's shard: asking shard 1's traces then fails clearly
    argv[argv.index("--trace-rpc") + 1] = devnet.trace_urls[0]
    argv[argv.index("--out") + 1] = str(tmp_path / "elsewhere")
    code, _, stderr = run(argv, capsys)
    assert code == 1
    assert "no trace endpoint for shard 1" in stderr
    assert "Traceback" not in stderr
