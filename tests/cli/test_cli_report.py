"""``hmyframe report staking|throughput|validator`` end to end against a devnet, in process."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import run

from hmyframe.cli import main
from hmyframe.devnet import Chain, Devnet


@pytest.fixture(scope="module")
def net() -> Iterator[Devnet]:
    with Devnet(blocks=600, seed=3, validator_rate_limit=False) as devnet:
        yield devnet


def test_report_staking(net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r" / "staking.html"
    code, stdout, stderr = run(
        ["report", "staking", "--rpc", net.url, "--compare", "399", "--history", "1", "--out", str(out)],
        capsys,
    )
    assert code == 0, stderr
    assert stdout == f"wrote the staking report to {out.resolve()}\n"
    text = out.read_text()
    assert "Validator snapshot at block 599 (epoch 2)" in text
    assert "Changes since block 399 (epoch 1)" in text
    assert "History over 1 epochs" in text


def test_report_throughput(net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "throughput.html"
    code, stdout, stderr = run(
        [
            "report",
            "throughput",
            "--rpc",
            net.url,
            "--start",
            "500",
            "--end",
            "599",
            "--shard",
            "1",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, stderr
    assert stdout.startswith("wrote the throughput report to ")
    truth = Chain(blocks=600, seed=3)
    count = sum(len(truth.block(1, n).transactions) for n in range(500, 600))
    text = out.read_text()
    assert re.search(rf'Transactions</div><div class="value">{count:,}<', text)
    assert "shard 1: blocks 500–599" in text
    assert "shard 0" not in text.split("<h2>")[0]


def test_report_throughput_values_dex_swaps_through_the_wone_given(
    net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wone = Chain(blocks=600, seed=3).dex(1).wone
    argv = ["report", "throughput", "--rpc", net.url, "--start", "300", "--end", "599", "--shard", "1"]
    volumes = []
    for extra in ([], ["--wone", wone]):
        out = tmp_path / f"t{len(extra)}.html"
        code, _, stderr = run([*argv, *extra, "--out", str(out)], capsys)
        assert code == 0, stderr
        found = re.search(r'DEX volume</div><div class="value">([^<]*)<', out.read_text())
        assert found is not None
        volumes.append(found.group(1))
    assert volumes[0] == "–"  # mainnet's WONE is not on the devnet: no value in ONE
    assert re.fullmatch(r"[\d,.]+ ", volumes[1]), volumes[1]  # "12,345 " then the unit's span


def test_report_validator(net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    address = Chain(blocks=600, seed=3).validators(599)[0].address
    out = tmp_path / "v.html"
    code, _, stderr = run(
        ["report", "validator", address, "--rpc", net.url, "--epochs", "3", "--out", str(out)], capsys
    )
    assert code == 0, stderr
    text = out.read_text()
    assert address in text
    assert "Summary at epoch 2 (block 599)" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report", "staking", "--out", "x.csv"], "out must name an .html file, got 'x.csv'"),
        (
            ["report", "staking", "--history", "0", "--out", "x.html"],
            "history must be a number of epochs >= 1",
        ),
        (["report", "validator", "0x12", "--out", "v.html"], "0x address has exactly 40 hex digits"),
        (["report", "throughput", "--start", "yesterday", "--end", "9", "--out", "t.html"], "yesterday"),
    ],
)
def test_report_errors_are_one_line(
    net: Devnet, argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, stdout, stderr = run([*argv, "--rpc", net.url], capsys)
    assert code == 1
    assert stdout == ""
    assert stderr.startswith("hmyframe report: error: ")
    assert message in stderr
    assert stderr.count("\n") == 1


def test_report_needs_a_kind_and_an_out(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["report"])
    assert info.value.code == 2
    with pytest.raises(SystemExit):
        main(["report", "staking"])
    assert "--out" in capsys.readouterr().err


def test_report_throughput_over_a_time_range(
    net: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "t.html"
    argv = [
        "report",
        "throughput",
        "--rpc",
        net.url,
        "--start",
        "2026-01-01T00:10",
        "--end",
        "2026-01-01T00:12",
    ]
    code, _, stderr = run([*argv, "--out", str(out)], capsys)
    assert code == 0, stderr
    truth = Chain(blocks=600, seed=3)
    t0 = int(pd.Timestamp("2026-01-01T00:10", tz="UTC").timestamp())
    t1 = int(pd.Timestamp("2026-01-01T00:12", tz="UTC").timestamp())
    for shard in (0, 1):
        inside = [n for n in range(600) if t0 <= truth.block(shard, n).timestamp <= t1]
        assert f"shard {shard}: blocks {inside[0]:,}–{inside[-1]:,}" in out.read_text()
