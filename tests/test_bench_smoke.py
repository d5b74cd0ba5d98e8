"""Every benchmark script runs to the end on a tiny slice, so none of them can rot.

Nothing here is timed: the scripts print their figures and these tests only check that they
finished and that what they report is self-consistent (the same rows seen by every client).
``compare.py`` uses the peers' environments only if they are already installed
(``--peers existing``), so the suite never needs the network.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

#: script -> (arguments for a tiny slice, text its output must contain)
TINY: dict[str, tuple[list[str], str]] = {
    "convert.py": (
        ["--blocks", "2", "--txs", "5", "--validators", "20", "--repeat", "1"],
        "transactions.convert",
    ),
    "devnet_generate.py": (["--blocks", "50", "--repeat", "1"], "mean transactions per block"),
    "devnet_throughput.py": (
        ["--blocks", "40", "--range", "10", "--batch", "10", "--concurrency", "2", "--repeat", "1"],
        "getBlocks x10",
    ),
    "events.py": (["--logs", "3000", "--sample", "300", "--repeat", "1"], "eth-abi/hmyframe"),
    "export_memory.py": (["--blocks", "60"], "peak RSS of the exporting process"),
    "floor.py": (["--blocks", "20", "--chunk", "10", "--repeat", "1"], "hmyframe/floor"),
    "fetch_strategy.py": (["--blocks", "60", "--repeat", "1"], "range"),
    "follow_lag.py": (["--seconds", "2", "--polls", "0.5"], "polling every 0.5 s"),
    "startup.py": (["--repeat", "1"], "start of hmyframe export"),
    "pipeline.py": (["--blocks", "60", "--latencies", "0", "--runs", "1", "--processes", "1"], "x wire"),
    "rate_limits.py": (
        ["--limits", "50", "--datasets", "blocks,transactions", "--seconds", "1", "--min-blocks", "60"],
        "lowest ratio to the limit",
    ),
    "headers_only.py": (["--blocks", "60", "--repeat", "1"], "bytes per block"),
    "rpc_client.py": (
        ["--blocks", "40", "--calls", "40", "--range", "10", "--seconds-limit", "20"],
        "calls/s",
    ),
    "scale_out.py": (
        ["--blocks", "200", "--repeats", "1", "--chunk-size", "100"],
        "dask (2 workers), 2 endpoints",
    ),
    "time_search.py": (["--blocks", "1000", "--times", "5"], "binary search"),
}


@pytest.fixture(scope="module")
def report_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("compare") / "RESULTS.md"


@pytest.fixture(scope="module")
def launched(report_path: Path) -> Iterator[dict[str, subprocess.Popen[str]]]:
    """Every script started at once (they mostly wait on their devnet), each waited for by its test."""
    out = report_path
    commands = {script: args for script, (args, _) in TINY.items()}
    commands["compare.py"] = ["--quick", "--peers", "existing", "--out", str(out)]
    procs = {
        script: subprocess.Popen(
            [sys.executable, str(BENCH / script), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=BENCH,
        )
        for script, args in commands.items()
    }
    yield procs
    for proc in procs.values():  # scripts no test waited for (a -k selection) are stopped and reaped
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def finish(proc: subprocess.Popen[str], script: str) -> str:
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, f"{script} failed:\n{stdout[-2000:]}\n{stderr[-3000:]}"
    return stdout


@pytest.mark.parametrize("script", sorted(TINY))
def test_bench_script_runs_on_a_tiny_slice(launched, script):
    assert TINY[script][1] in finish(launched[script], script)


def test_compare_quick_run_writes_a_consistent_report(launched, report_path):
    finish(launched["compare.py"], "compare.py")
    report = report_path.read_text()
    assert (report_path.parent / "compare.png").stat().st_size > 1000
    assert "## Machine and versions" in report
    rows: dict[str, list[int]] = {}
    for line in report.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 10 and re.fullmatch(r"[\d,]+", cells[5]):
            rows.setdefault(cells[0], []).append(int(cells[5].replace(",", "")))
    # hmyframe and the bare client counted the same transactions, validators and traces
    assert {"hmyframe", "wire@8", "wire@32"} <= set(rows)
    assert rows["wire@8"][0] == rows["wire@32"][0] == rows["hmyframe"][0] > 0
    # export, validator snapshot with the node's limiter off, then on, traces
    assert len(rows["hmyframe"]) == 4
    assert rows["hmyframe"][1] == rows["hmyframe"][2] > 0  # the same snapshot, limiter or not
    assert rows["wire@8"][1] == rows["hmyframe"][3] > 0  # traces
    # whichever peers are installed (the quick slice is short enough for cryo's and the loop's budget)
    for peer in ("pyhmy ranges", "pyhmy loop", "ethereum-etl", "cryo"):
        if peer in rows:
            assert rows[peer][0] == rows["hmyframe"][0], peer
    if "pyhmy paging" in rows:
        assert rows["pyhmy paging"] == rows["hmyframe"][1:3]
    assert "limiter off" in report
    assert "limiter on (the node's default" in report
    assert "failed:" not in report


def _table_rows(text: str) -> dict[str, int]:
    """Rows per contender of the report tables in ``text`` (the 6th cell of a 10-cell line)."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 10 and re.fullmatch(r"[\d,]+", cells[5]):
            rows[cells[0]] = int(cells[5].replace(",", ""))
    return rows


def _rows_by_dataset(text: str) -> dict[str, dict[str, int]]:
    """The ``Rows by dataset:`` line under a table: contender -> dataset -> rows."""
    line = next(x for x in text.splitlines() if x.startswith("Rows by dataset: "))
    out = {}
    for part in line.removeprefix("Rows by dataset: ").rstrip(".").split("; "):
        label, counts = part.split(": ")
        out[label] = {n: int(r.replace(",", "")) for n, r in (c.split(" ") for c in counts.split(", "))}
    return out


def test_compare_quick_run_reports_receipts_and_logs(launched, report_path):
    """The receipts setting: hmyframe's receipts, logs and token transfers counted per dataset,
    its logs alone equal to the logs it exported with the receipts; and whichever peers are
    installed saw the same logs (ethereum-etl but those of staking receipts), ethereum-etl fewer
    receipts (no staking receipts on ``eth_``)
    and no more token transfers (no HRC-1155), the same from the block range as from the hashes."""
    finish(launched["compare.py"], "compare.py")
    report = report_path.read_text()
    receipts = report.split("## Receipts, logs and token transfers", 1)[1].split("\n## ", 1)[0]
    full, logs_only = receipts.split("**logs, ", 1)
    rows, parts = _table_rows(full), _rows_by_dataset(full)
    ours = parts["hmyframe receipts+logs"]
    assert set(ours) == {"receipts", "logs", "token_transfers"}
    assert min(ours.values()) > 0
    assert rows["hmyframe receipts+logs"] == sum(ours.values())
    logs = _table_rows(logs_only)
    assert logs["hmyframe logs"] == ours["logs"]
    for etl in ("ethereum-etl receipts+logs", "ethereum-etl, hashes given"):
        if etl in parts:
            # ethereum-etl reads logs from eth_getTransactionReceipt, which has no staking
            # receipts: it misses the one log of each CollectRewards receipt (in hmy_getLogs and
            # eth_getLogs: cryo sees them), so at most one log per staking receipt it misses
            missed_logs = ours["logs"] - parts[etl]["logs"]
            assert 0 <= missed_logs <= ours["receipts"] - parts[etl]["receipts"], etl
            assert 0 < parts[etl]["receipts"] < ours["receipts"], etl
            assert 0 < parts[etl]["token_transfers"] <= ours["token_transfers"], etl
            assert parts[etl] == parts["ethereum-etl receipts+logs"]
    if "cryo logs" in logs:
        assert logs["cryo logs"] == ours["logs"]
    assert "failed:" not in receipts


def test_convert_against_another_checkout_prints_ratios():
    """``--against`` run with this checkout as its own baseline: both workers import their
    side, and every requested dataset gets a row with equal row counts and a ratio."""
    root = BENCH.parent
    args = ["--blocks", "2", "--txs", "5", "--validators", "20", "--repeat", "1"]
    proc = subprocess.run(
        [
            sys.executable,
            str(BENCH / "convert.py"),
            *args,
            "--against",
            str(root),
            "--only",
            "transactions,traces",
        ],
        capture_output=True,
        text=True,
        cwd=BENCH,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines() if line.strip().endswith("x")}
    assert set(rows) == {"transactions", "traces"}
    assert rows["transactions"][1] == "10"  # 2 blocks x 5 transactions
    assert all(r[-2].endswith("x") and r[-1].endswith("x") for r in rows.values())


def test_compare_records_a_failing_contender_and_goes_on(monkeypatch):
    """A contender whose process fails (here: the bare client against a closed port) is marked
    failed with its error's last line, is not run again, and the table shows it as a failed row
    instead of the comparison stopping."""
    monkeypatch.syspath_prepend(str(BENCH))
    import compare

    own = compare.Env(sys.executable, "")
    refused = compare.Contender("wire@8", "wire", own, {"start": 1, "end": 10, "in_flight": 2})
    compare.run_alternating([refused], "http://127.0.0.1:9/", runs=2, timeout=120)
    assert refused.runs == []
    assert refused.failure is not None
    assert refused.failure.startswith("exit 1: aiohttp.client_exceptions.ClientConnectorError")
    section = compare._section("a setting", [refused])
    assert section.summaries == []
    rows = [line for line in compare.table(section) if line.startswith("| wire@8 |")]
    assert len(rows) == 1
    assert rows[0].startswith("| wire@8 | failed: exit 1:")
    assert rows[0].count("|") == 11  # as many cells as the header's 10


def test_floor_reports_every_profile_with_equal_files(launched):
    """``floor.py`` checked that the floor wrote hmyframe's files (it exits non-zero otherwise)
    and printed a row per activity profile, the profiles ordered by transactions per block."""
    stdout = finish(launched["floor.py"], "floor.py")
    rows = {line.split()[0]: line.split() for line in stdout.splitlines() if line.strip().endswith("x")}
    assert set(rows) == {"quiet", "devnet", "busy"}
    per_block = [float(rows[a][1]) for a in ("quiet", "devnet", "busy")]
    assert per_block == sorted(per_block)
    assert per_block[2] >= 100
    for cells in rows.values():
        floor_ms, hmy_ms, ratio = float(cells[2]), float(cells[3]), float(cells[4].rstrip("x"))
        assert floor_ms > 0
        assert hmy_ms > 0
        assert abs(ratio - hmy_ms / floor_ms) < 0.02 * ratio + 0.01
