"""The command line where it meets the file system: unusable output folders, a full disk, CSV
exports over earlier ones, and ``cache ls|clear`` with arguments that name nothing.

Every failure must be one line on stderr (``hmyframe <command>: error: ...``, exit 1), leave no
temporary file, and never touch a file the user owns.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run

from hmyframe.devnet import Chain, Devnet
from hmyframe.engine._session import chain_id_from_hash


def one_line_error(err: str, command: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"hmyframe {command}: error: "), err
    return lines[0]


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder no file can be created in (as root, permissions do not stop writes: use /sys)."""
    if os.geteuid() == 0:
        if not Path("/sys/kernel").is_dir():
            pytest.skip("running as root without /sys: no folder here is unwritable")
        return Path("/sys/kernel")
    folder = tmp_path / "read-only"
    folder.mkdir()
    folder.chmod(0o555)
    return folder


def chain_id(net: Devnet) -> str:
    return chain_id_from_hash(net.chain.genesis_hash(0))


EXPORT = ["export", "blocks,transactions", "--start", "0", "--end", "149", "--no-progress"]


# --------------------------------------------------------------------------- 7. output paths


def test_out_naming_a_file_is_one_line_before_anything_is_fetched(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder")
    devnet.stats.reset()
    code, _, err = run([*EXPORT, "--rpc", devnet.url, "--out", str(target)], capsys)
    assert code == 1
    assert f"cache folder {target} is a file, not a folder" in one_line_error(err, "export")
    assert devnet.stats.http_requests == 0
    assert target.read_text() == "not a folder"


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_an_unwritable_out_folder_is_one_line(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    folder = unwritable_folder(tmp_path)
    for out in (folder, folder / "deeper" / "still"):
        code, _, err = run([*EXPORT, "--rpc", devnet.url, "--out", str(out), "--format", fmt], capsys)
        assert code == 1
        what = "cache folder" if fmt == "parquet" else "output folder"
        assert f"{what} {out} is not usable: [Errno" in one_line_error(err, "export")


def test_an_unusable_hmyframe_cache_is_one_line(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HMYFRAME_CACHE", "/dev/null/cache")
    code, _, err = run(
        [*EXPORT, "--rpc", devnet.url, "--format", "csv", "--out", str(tmp_path / "csv")], capsys
    )
    assert code == 1
    assert "cache folder /dev/null/cache is not usable: [Errno 20] Not a directory" in one_line_error(
        err, "export"
    )


_LIMITED = """
import resource, signal, sys
from hmyframe.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
raise SystemExit(main(sys.argv[2:]))
"""


def test_a_csv_export_that_fills_the_disk_is_one_line_and_leaves_no_temporary_file(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    assert run([*EXPORT, "--rpc", devnet.url, "--out", str(cache), "--chunk-size", "50"], capsys)[0] == 0
    out = tmp_path / "csv"
    argv = [*EXPORT, "--rpc", devnet.url, "--format", "csv", "--out", str(out), "--chunk-size", "50"]
    child = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(64 * 1024), *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HMYFRAME_CACHE": str(cache)},
    )
    assert child.returncode == 1, child.stderr
    line = one_line_error(child.stderr, "export")
    assert "cannot write CSV file" in line
    assert "File too large" in line
    assert [p for p in out.rglob("*") if p.is_file() and p.name.startswith(".")] == []
    assert [p for p in cache.rglob("*") if p.is_file() and p.name.startswith(".")] == []


def _csv_rows(folder: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for path in sorted(folder.glob("*.csv")):
        with path.open(newline="") as fh:
            rows.extend(csv.DictReader(fh))
    return rows


def test_an_earlier_csv_export_with_other_chunk_boundaries_leaves_no_duplicate_row(
    devnet: Devnet,
    devnet_truth: Chain,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "csv"
    first = [*EXPORT, "--rpc", devnet.url, "--format", "csv", "--out", str(out), "--chunk-size", "50"]
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "cache-a"))
    assert run(first, capsys)[0] == 0
    # later, another cache and other boundaries, over part of the range
    monkeypatch.setenv("HMYFRAME_CACHE", str(tmp_path / "cache-b"))
    second = ["export", "blocks,transactions", "--start", "20", "--end", "129", "--no-progress"]
    second += ["--rpc", devnet.url, "--format", "csv", "--out", str(out), "--chunk-size", "70"]
    assert run(second, capsys)[0] == 0
    blocks_dir = out / chain_id(devnet) / "blocks" / "shard0"
    assert sorted(p.name for p in blocks_dir.glob("*.csv")) == [
        "blocks__0000000000_0000000019.csv",
        "blocks__0000000020_0000000069.csv",
        "blocks__0000000070_0000000129.csv",
        "blocks__0000000130_0000000149.csv",
    ]
    numbers = [int(r["block_number"]) for r in _csv_rows(blocks_dir)]
    assert sorted(numbers) == list(range(150))
    tx = _csv_rows(out / chain_id(devnet) / "transactions" / "shard0")
    truth = list(devnet_truth.iter_transactions(0, 0, 149))
    assert sorted(r["transaction_hash"] for r in tx) == sorted(t.hash for t in truth)
    assert sum(int(r["value"]) for r in tx) == sum(t.value for t in truth)  # exact digits survive the cut
    assert [p for p in out.rglob(".*") if p.is_file()] == []


# --------------------------------------------------------------------------- 5, 11. cache ls / clear


def test_cache_commands_refuse_what_names_nothing_and_clear_spares_the_users_files(
    devnet: Devnet, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "cache"
    assert run([*EXPORT, "--rpc", devnet.url, "--out", str(root), "--chunk-size", "50"], capsys)[0] == 0
    notes = [root / "mine" / ".notes.tmp", root / ".draft.tmp", root / chain_id(devnet) / "blocks" / "README"]
    for path in notes:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("mine")
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for action in ("ls", "clear"):
        code, _, err = run(["cache", action, "--dir", str(a_file)], capsys)
        assert code == 1
        assert f"cache root {a_file} is a file, not a folder" in one_line_error(err, "cache")
        code, _, err = run(["cache", action, "--dir", str(root), "--dataset", "nonexistent"], capsys)
        assert code == 1
        assert "unknown dataset 'nonexistent' (--dataset); datasets: blocks," in one_line_error(err, "cache")
        code, _, err = run(["cache", action, "--dir", str(root), "--chain", "not-a-chain"], capsys)
        assert code == 1
        assert "is not 16 lower-case hex digits" in one_line_error(err, "cache")
        code, _, err = run(["cache", action, "--dir", str(root), "--chain", "0" * 16], capsys)
        assert code == 1
        assert f"no chain {'0' * 16} in {root} (--chain); chains there: {chain_id(devnet)}" in one_line_error(
            err, "cache"
        )
    assert all(p.read_text() == "mine" for p in notes)
    code, out, _ = run(["cache", "clear", "--dir", str(root)], capsys)
    assert (code, out) == (0, f"removed 9 files from {root}\n")  # 3 chunks of the 3 block tables
    assert all(p.read_text() == "mine" for p in notes)
    assert list(root.rglob("*.parquet")) == []
