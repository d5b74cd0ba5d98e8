"""hmyframe against its peers, side by side, on the same devnet slice.

Installs the peers from PyPI, each into its own virtual environment under ``build/peers/``
(never into hmyframe's): ``pyhmy``, ``ethereum-etl`` (with ``parsimonious==0.9.0`` and
``regex``, without which it does not import on Python 3.11) and ``cryo`` (whose wheel has no
``cryo`` command; its Python ``cryo.freeze`` is used). Then, for every setting of latency x node
rate limit x per-block server cost x devnet activity profile (``--activity``: ``quiet``, mostly
0-3 transactions a block; ``devnet``, the default, about 13; ``busy``, 100+), it serves one
shard with ``hmyframe devnet`` in its own process and runs each contender, each in its own
process, on the same slice of blocks with transactions, the contenders alternating from run to
run:

* ``hmyframe``: ``hmyframe export blocks,transactions`` (8 requests in flight, 100 blocks per
  ``hmyv2_getBlocks``), writing Parquet;
* ``wire@8``, ``wire@32``: the wire limit, a bare aiohttp client making the same requests with 8
  or 32 in flight and only reading the bytes;
* ``pyhmy ranges``: ``pyhmy.blockchain.get_blocks`` over ranges of 100 blocks (its best);
* ``pyhmy loop``: ``get_block_by_number`` block after block, on a shorter slice (see
  ``--loop-seconds``), compared per block;
* ``ethereum-etl``: ``export_blocks_and_transactions`` (batches of 100 ``eth_getBlockByNumber``
  from 5 threads), writing CSV;
* ``cryo``: ``cryo.freeze(["blocks", "transactions"])`` (``eth_getBlockByNumber`` per block,
  receipts per transaction after ``eth_getBlockReceipts`` by number is refused), writing Parquet,
  on a shorter slice (see ``--cryo-seconds``), compared per block.

Reported per contender and setting, as medians of ``--runs`` runs: wall time (the whole process,
imports included), in-process time (the work, each contender's package imported before it starts),
blocks/s and rows/s (from the in-process time), peak RSS, and the ratio hmyframe blocks/s /
contender blocks/s (above 1: hmyframe is faster), from the in-process and from the wall times.
Also: a full validator snapshot (``hmyframe export validators`` vs pyhmy's paging; the node's
limiter on ``getAllValidatorInformation*`` off, then on as by default), traces for a
range (``hmyframe export traces`` vs bare ``trace_block`` calls), receipts + logs + token
transfers of a token-dense devnet (``--token-density``, ``--receipt-blocks``,
``--receipt-latencies``: ``hmyframe export receipts,logs,token_transfers`` vs ethereum-etl's
``export_receipts_and_logs`` + ``extract_token_transfers``, and ``hmyframe export logs`` vs
cryo's ``logs``; rows/s and the ratio per block), and conversion rows/s per dataset
(``bench/convert.py``). ``--sections`` runs a subset. Writes ``bench/RESULTS.md`` (machine,
versions, settings, tables) and a chart.

    python bench/compare.py                         # the full matrix (long: about an hour)
    python bench/compare.py --quick --peers existing --out /tmp/r.md   # tiny slice, one setting
    python bench/compare.py --latencies 0,100 --rate-limits off --block-costs 0 --runs 3
    python bench/compare.py --latencies 0,100 --rate-limits off --block-costs 0 --activity quiet,devnet,busy
    python bench/compare.py --quick --sections receipts --peers existing --out /tmp/r.md  # < 1 min
    python bench/compare.py --sections receipts --receipt-blocks 2000 --receipt-latencies 0,100
    python bench/compare.py --prepare-only --only-peers ethereum-etl   # the env tests/peers uses
"""

from __future__ import annotations

import argparse
import compileall
import itertools
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
from _devnet import devnet_process

import hmyframe
from hmyframe.devnet.node import VALIDATOR_RATE_LIMIT

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RUNNER = BENCH / "_contenders.py"

#: peer -> (pip requirements installed in order, the distribution whose version is reported, module)
PEERS: dict[str, tuple[list[list[str]], str, str]] = {
    "pyhmy": ([["pyhmy"]], "pyhmy", "pyhmy"),
    "ethereum-etl": (
        [["ethereum-etl"], ["--no-deps", "parsimonious==0.9.0"], ["regex"]],
        "ethereum-etl",
        "ethereumetl.cli",
    ),
    "cryo": ([["cryo"]], "cryo", "cryo"),
}


# --------------------------------------------------------------------------------------------
# environments
# --------------------------------------------------------------------------------------------


@dataclass
class Env:
    """A Python that can run some contenders."""

    python: str
    version: str


def _peer_python(peers_dir: Path, peer: str) -> Path:
    return peers_dir / peer / "bin" / "python"


def _works(python: Path, module: str) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, timeout=120)
    return probe.returncode == 0


def _version(python: Path, dist: str) -> str:
    out = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({dist!r}))"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return out.stdout.strip() or "?"


def prepare_peers(mode: str, peers_dir: Path, wanted: Sequence[str]) -> tuple[dict[str, Env], dict[str, str]]:
    """The peers' environments (installing missing ones if ``mode == "install"``) and why others are absent."""
    envs: dict[str, Env] = {}
    missing: dict[str, str] = {}
    if mode == "none":
        return envs, {peer: "skipped (--peers none)" for peer in wanted}
    for peer in wanted:
        steps, dist, module = PEERS[peer]
        python = _peer_python(peers_dir, peer)
        if not _works(python, module) and mode == "install":
            print(f"installing {peer} into {peers_dir / peer} ...", flush=True)
            shutil.rmtree(peers_dir / peer, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "venv", str(peers_dir / peer)], check=True)
            for step in steps:
                done = subprocess.run(
                    [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *step],
                    capture_output=True,
                    text=True,
                    timeout=900,
                )
                if done.returncode:
                    tail = done.stderr.strip().splitlines()[-1:] or ["?"]
                    print(f"  pip install {' '.join(step)}: {tail[0]}", flush=True)
        if _works(python, module):
            envs[peer] = Env(str(python), _version(python, dist))
        else:
            missing[peer] = "not installed" if mode == "existing" else "could not be installed or imported"
    return envs, missing


# --------------------------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------------------------


@dataclass
class Run:
    wall: float
    seconds: float
    blocks: int
    rows: int
    rss_mb: float
    parts: dict[str, int] = field(default_factory=dict)  # rows per dataset, where files were counted


@dataclass
class Contender:
    """One column of the comparison: which runner, in which environment, with which parameters."""

    label: str
    runner: str
    env: Env
    params: dict[str, Any] = field(default_factory=dict)
    #: (format, datasets, comma-separated): rows are counted from the files written
    writes: tuple[str, str] | None = None
    url: str | None = None  # where it connects, when not the setting's shard URL
    runs: list[Run] = field(default_factory=list)
    failure: str | None = None


def rows_by_dataset(folder: Path, writes: tuple[str, str]) -> dict[str, int]:
    """Rows of each of ``writes``' datasets in the files a contender wrote (hmyframe:
    ``<dataset>__*.parquet``; cryo: ``*__<dataset>__*.parquet``; ethereum-etl: ``<dataset>.csv``)."""
    fmt, datasets = writes
    out = {}
    for dataset in datasets.split(","):
        if fmt == "csv":
            out[dataset] = sum(pa_csv.read_csv(path).num_rows for path in folder.rglob(f"{dataset}.csv"))
        else:
            paths = {*folder.rglob(f"{dataset}__*.parquet"), *folder.rglob(f"*__{dataset}__*.parquet")}
            out[dataset] = sum(pq.read_metadata(path).num_rows for path in paths)
    return out


def count_rows(folder: Path, writes: tuple[str, str]) -> int:
    """Rows of all of ``writes``' datasets in the files a contender wrote (see :func:`rows_by_dataset`)."""
    return sum(rows_by_dataset(folder, writes).values())


def run_once(contender: Contender, url: str, timeout: float) -> None:
    """Run ``contender`` once in its own process and record the run (or the failure)."""
    if contender.failure:
        return
    with tempfile.TemporaryDirectory(prefix="hmyframe-compare-") as out:
        params = {"url": contender.url or url, "out": out, **contender.params}
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [contender.env.python, str(RUNNER), contender.runner, json.dumps(params)],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=out,
            )
        except subprocess.TimeoutExpired:
            contender.failure = f"timed out after {timeout:.0f} s"
            return
        wall = time.perf_counter() - started
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1].strip()
            contender.failure = f"exit {done.returncode}: {last[:300]}"  # the exception's line
            return
        parts: dict[str, int] = {}
        try:
            report = json.loads(done.stdout.strip().splitlines()[-1])
            if report["rows"] is not None:
                rows = report["rows"]
            else:
                assert contender.writes is not None, contender.label
                parts = rows_by_dataset(Path(out), contender.writes)
                rows = sum(parts.values())
        except (ValueError, IndexError, KeyError, OSError) as exc:  # no report, or unreadable files
            contender.failure = f"no usable report: {type(exc).__name__}: {str(exc)[:200]}"
            return
        run = Run(wall, report["seconds"], report["blocks"], rows, report["rss_mb"], parts)
        contender.runs.append(run)


def compile_package() -> None:
    """Byte-compile hmyframe's modules, as an installed wheel has them (pip compiles the peers').

    With ``PYTHONDONTWRITEBYTECODE`` set (as on this shared machine) an editable checkout never
    gets ``.pyc`` files, and every measured process would compile the modules it imports during
    its work (about 0.1 s of a validator snapshot's in-process time)."""
    compileall.compile_dir(Path(hmyframe.__file__).parent, quiet=1)


def run_alternating(
    contenders: Sequence[Contender], url: str, runs: int, timeout: float, pause: float = 0.0
) -> None:
    """``runs`` rounds; each round runs every contender once, the order rotating from round to round
    (after ``pause`` seconds before each run, e.g. for a node's limiter to refill); hmyframe's
    modules byte-compiled first (:func:`compile_package`)."""
    compile_package()
    for r in range(runs):
        k = r % len(contenders)
        for contender in [*contenders[k:], *contenders[:k]]:
            if pause and not contender.failure:
                time.sleep(pause)
            run_once(contender, url, timeout)
            if contender.runs and not contender.failure:
                last = contender.runs[-1]
                print(
                    f"    run {r + 1}: {contender.label:14s} {last.seconds:8.2f} s in-process "
                    f"{last.wall:8.2f} s wall {last.rows:>9,} rows",
                    flush=True,
                )
            elif contender.failure:
                print(f"    run {r + 1}: {contender.label:14s} FAILED {contender.failure}", flush=True)


@dataclass
class Summary:
    label: str
    wall: float
    seconds: float
    blocks: int
    rows: int
    blocks_per_s: float
    rows_per_s: float
    rss_mb: float
    runs: int
    parts: dict[str, int] = field(default_factory=dict)


def summarize(contender: Contender) -> Summary | None:
    if not contender.runs:
        return None
    med = statistics.median
    runs = contender.runs
    seconds = med(r.seconds for r in runs)
    blocks = runs[0].blocks
    rows = int(med(r.rows for r in runs))
    return Summary(
        contender.label,
        med(r.wall for r in runs),
        seconds,
        blocks,
        rows,
        blocks / seconds if blocks else 0.0,
        rows / seconds,
        med(r.rss_mb for r in runs),
        len(runs),
        runs[0].parts,
    )


# --------------------------------------------------------------------------------------------
# the matrix
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    latency_ms: float
    rate_limit: int | None
    block_cost_ms: float
    activity: str = "devnet"

    @property
    def label(self) -> str:
        limit = f"{self.rate_limit}/s" if self.rate_limit else "off"
        return (
            f"latency {self.latency_ms:g} ms, rate limit {limit}, block cost {self.block_cost_ms:g} ms, "
            f"activity {self.activity}"
        )

    def devnet_args(self, blocks: int, seed: int) -> list[str]:
        args = ["--shards", "1", "--blocks", str(blocks), "--seed", str(seed), "--no-validator-rate-limit"]
        args += ["--latency-ms", str(self.latency_ms), "--block-cost-ms", str(self.block_cost_ms)]
        args += ["--activity", self.activity]
        if self.rate_limit:
            args += ["--rpc-rate-limit", str(self.rate_limit)]
        return args


def slice_blocks(args: argparse.Namespace, setting: Setting) -> int:
    """The slice length under ``setting``: ``--blocks``, or ``--busy-blocks`` on the busy profile
    (about ten times the transactions a block: the same order of rows in a comparable time)."""
    return args.busy_blocks if setting.activity == "busy" else args.blocks


def loop_blocks(args: argparse.Namespace, setting: Setting) -> int:
    """How many blocks pyhmy's per-block loop gets: about ``--loop-seconds`` of requests."""
    per_block = max(setting.latency_ms, 1.0) + setting.block_cost_ms + 2.0  # ms, rough
    return max(10, min(slice_blocks(args, setting), int(args.loop_seconds * 1000 / per_block)))


#: cryo's requests per devnet block: ``eth_getBlockByNumber`` and a receipt per transaction
#: (about 13 a block at seed 0)
CRYO_REQUESTS_PER_BLOCK = 14


def cryo_ms_per_block(setting: Setting) -> float:
    """A rough estimate of cryo's in-process milliseconds per block under ``setting``.

    Fitted to cryo's 2,000-block runs on this devnet (about 3 ms a block at 0 ms latency, 17 at
    100 ms, 47 at 300 ms: 3 + 0.147 x latency), never below what the node's rate limit allows
    for its ``CRYO_REQUESTS_PER_BLOCK`` requests (15 ms a block at 1,000 req/s), plus the
    per-block server cost (counted in full, as if cryo did not overlap it).
    """
    per_block = 3.0 + 0.147 * setting.latency_ms
    if setting.rate_limit:
        per_block = max(per_block, CRYO_REQUESTS_PER_BLOCK * 1000.0 / setting.rate_limit)
    return per_block + setting.block_cost_ms


def cryo_blocks(args: argparse.Namespace, setting: Setting) -> int:
    """How many blocks cryo gets: about ``--cryo-seconds`` of its work, at least 50, at most ``--blocks``."""
    return min(
        slice_blocks(args, setting), max(50, int(args.cryo_seconds * 1000 / cryo_ms_per_block(setting)))
    )


TXS_PARQUET = ("parquet", "transactions")
#: The parts of a run (``--sections``): the export matrix, validators and traces, the receipts
#: setting, conversion rates.
SECTIONS = ("export", "extras", "receipts", "conversion")


def matrix_contenders(
    args: argparse.Namespace, setting: Setting, start: int, own: Env, peers: dict[str, Env]
) -> list[Contender]:
    end = start + slice_blocks(args, setting) - 1
    span = {"start": start, "end": end}
    out = [
        Contender("hmyframe", "hmyframe", own, {**span, "datasets": "blocks,transactions"}, TXS_PARQUET),
        Contender("wire@8", "wire", own, {**span, "in_flight": 8}),
        Contender("wire@32", "wire", own, {**span, "in_flight": 32}),
    ]
    if "pyhmy" in peers:
        n = loop_blocks(args, setting)
        out.append(Contender("pyhmy ranges", "pyhmy_ranges", peers["pyhmy"], dict(span)))
        out.append(
            Contender("pyhmy loop", "pyhmy_loop", peers["pyhmy"], {"start": start, "end": start + n - 1})
        )
    if "ethereum-etl" in peers:
        out.append(
            Contender(
                "ethereum-etl", "ethereum_etl", peers["ethereum-etl"], dict(span), ("csv", "transactions")
            )
        )
    if "cryo" in peers:
        n = cryo_blocks(args, setting)
        cryo_span = {"start": start, "end": start + n - 1}
        out.append(Contender("cryo", "cryo", peers["cryo"], cryo_span, TXS_PARQUET))
    return out


@dataclass
class Section:
    title: str
    summaries: list[Summary]
    failures: dict[str, str]
    baseline: str = "hmyframe"
    notes: list[str] = field(default_factory=list)  # lines printed under the table


def run_setting(
    args: argparse.Namespace, setting: Setting, start: int, own: Env, peers: dict[str, Env]
) -> Section:
    contenders = matrix_contenders(args, setting, start, own, peers)
    print(f"\n{setting.label}", flush=True)
    with devnet_process(*setting.devnet_args(start + slice_blocks(args, setting), args.seed)) as (urls, _):
        # the devnet makes its blocks on first request: one untimed pass over the slice, so that
        # the first contender of round 1 does not pay for the chain's generation
        wire = next(c for c in contenders if c.runner == "wire")
        run_once(replace(wire, runs=[]), urls[0], args.timeout)
        run_alternating(contenders, urls[0], args.runs, args.timeout)
    return _section(setting.label, contenders)


def _section(title: str, contenders: Sequence[Contender], baseline: str = "hmyframe") -> Section:
    summaries = [s for s in (summarize(c) for c in contenders) if s is not None]
    failures = {c.label: c.failure for c in contenders if c.failure}
    return Section(title, summaries, failures, baseline)


def validator_contenders(own: Env, peers: dict[str, Env]) -> list[Contender]:
    """A full validator snapshot: ``hmyframe export validators`` and pyhmy's paging."""
    out = [Contender("hmyframe", "hmyframe", own, {"datasets": "validators"}, ("parquet", "validators"))]
    if "pyhmy" in peers:
        out.append(Contender("pyhmy paging", "pyhmy_validators", peers["pyhmy"]))
    return out


def run_extras(args: argparse.Namespace, start: int, own: Env, peers: dict[str, Env]) -> list[Section]:
    """Validator snapshot vs pyhmy's paging, with the node's limiter off and on; traces for a
    range vs bare trace_block calls."""
    sections = []
    devnet = ["--shards", "1", "--blocks", str(start + args.trace_blocks), "--seed", str(args.seed)]
    devnet += ["--validators", str(args.validators)]
    print(f"\nvalidator snapshot ({args.validators} validators) and traces ({args.trace_blocks} blocks)")
    with devnet_process(*devnet, "--no-validator-rate-limit") as (urls, trace_urls):
        validators = validator_contenders(own, peers)
        run_alternating(validators, urls[0], args.runs, args.timeout)
        span = {"start": start, "end": start + args.trace_blocks - 1}
        traces = [
            Contender(
                "hmyframe",
                "hmyframe",
                own,
                {**span, "datasets": "traces", "trace_url": trace_urls[0]},
                ("parquet", "traces"),
            ),
            Contender("wire@8", "wire", own, {**span, "trace": True, "in_flight": 8}, url=trace_urls[0]),
        ]
        run_alternating(traces, urls[0], args.runs, args.timeout)
    snapshot = f"full validator snapshot, {args.validators} validators"
    sections.append(_section(f"{snapshot}, limiter off", validators))
    # the devnet's default: getAllValidatorInformation* limited to 1 req/s, burst 3 (a request
    # that would wait over 5 s is refused); a fresh node, and a pause before each run for its
    # bucket to refill, so that no run pays for the one before it
    limit = VALIDATOR_RATE_LIMIT
    print(f"\nvalidator snapshot, limiter on ({limit.rate:g} req/s, burst {limit.burst})", flush=True)
    with devnet_process(*devnet) as (urls, _):
        limited = validator_contenders(own, peers)
        run_alternating(limited, urls[0], args.runs, args.timeout, pause=limit.burst / limit.rate)
    title = (
        f"{snapshot}, limiter on (the node's default: {limit.rate:g} req/s, burst {limit.burst}, "
        f"refused beyond a {limit.deadline:g} s wait)"
    )
    sections.append(_section(title, limited))
    sections.append(_section(f"traces for {args.trace_blocks} blocks (trace_block, 8 in flight)", traces))
    return sections


#: What the receipts setting's full contenders write: every receipt, log and token transfer.
RECEIPT_DATASETS = "receipts,logs,token_transfers"
#: The receipts setting's baselines: hmyframe writing receipts, logs and token transfers; and logs alone.
HMY_RECEIPTS, HMY_LOGS = "hmyframe receipts+logs", "hmyframe logs"


def write_eth_hashes(url: str, start: int, end: int, path: Path) -> int:
    """Write the Ethereum hashes of the plain transactions of blocks ``start..end`` (those the
    node's ``eth_getTransactionReceipt`` answers), one a line, to ``path``; return how many."""
    table = hmyframe.transactions(start, end, rpc=url, cache=False, output="arrow")
    hashes = table.column("eth_hash").to_pylist()
    path.write_text("".join(f"{h}\n" for h in hashes))
    return len(hashes)


def receipt_contenders(
    span: dict[str, int], own: Env, peers: dict[str, Env], hashes: Path | None
) -> tuple[list[Contender], list[Contender]]:
    """The receipts setting's two comparisons: (receipts + logs + token transfers, logs alone)."""
    full = [
        Contender(
            HMY_RECEIPTS,
            "hmyframe",
            own,
            {**span, "datasets": RECEIPT_DATASETS},
            ("parquet", RECEIPT_DATASETS),
        )
    ]
    logs = [Contender(HMY_LOGS, "hmyframe", own, {**span, "datasets": "logs"}, ("parquet", "logs"))]
    if "ethereum-etl" in peers:
        etl, writes = peers["ethereum-etl"], ("csv", RECEIPT_DATASETS)
        full.append(Contender("ethereum-etl receipts+logs", "ethereum_etl_receipts", etl, dict(span), writes))
        if hashes is not None:
            given = {**span, "hashes": str(hashes)}
            full.append(Contender("ethereum-etl, hashes given", "ethereum_etl_receipts", etl, given, writes))
    if "cryo" in peers:
        logs.append(
            Contender("cryo logs", "cryo", peers["cryo"], {**span, "datasets": ["logs"]}, ("parquet", "logs"))
        )
    return full, logs


def run_receipts(args: argparse.Namespace, start: int, own: Env, peers: dict[str, Env]) -> list[Section]:
    """Receipts, logs and token transfers of ``--receipt-blocks`` blocks of a token-dense devnet
    (``--token-density``), per activity profile of ``--activity`` and latency of
    ``--receipt-latencies``: hmyframe against ethereum-etl's
    chain of commands (from the block range, and from a given list of transaction hashes); then
    ``logs`` alone against cryo's ``logs`` (``eth_getLogs``)."""
    sections = []
    end = start + args.receipt_blocks - 1
    span = {"start": start, "end": end}
    for activity, latency in itertools.product(_names(args.activity), _floats(args.receipt_latencies)):
        devnet = ["--shards", "1", "--blocks", str(end + 1), "--seed", str(args.seed)]
        devnet += ["--no-validator-rate-limit", "--activity", activity]
        devnet += ["--token-density", f"{args.token_density:g}", "--latency-ms", f"{latency:g}"]
        where = (
            f"{args.receipt_blocks} blocks (activity {activity}, token density {args.token_density:g} "
            f"token transactions a block), latency {latency:g} ms"
        )
        print(f"\nreceipts, logs and token transfers: {where}", flush=True)
        with (
            devnet_process(*devnet) as (urls, _),
            tempfile.TemporaryDirectory(prefix="hmyframe-hashes-") as tmp,
        ):
            hashes = None
            if "ethereum-etl" in peers:
                hashes = Path(tmp) / "transaction_hashes.txt"
                write_eth_hashes(urls[0], start, end, hashes)  # also makes the devnet generate the blocks
            full, logs = receipt_contenders(span, own, peers, hashes)
            # one untimed export first, so that no contender of round 1 pays for the devnet's
            # generation of the blocks and their token activity
            run_once(replace(full[0], runs=[]), urls[0], args.timeout)
            run_alternating(full, urls[0], args.runs, args.timeout)
            run_alternating(logs, urls[0], args.runs, args.timeout)
        sections.append(_section(f"receipts + logs + token transfers, {where}", full, HMY_RECEIPTS))
        sections.append(_section(f"logs, {where}", logs, HMY_LOGS))
    return sections


def conversion_rates(args: argparse.Namespace) -> list[tuple[str, int, float, float]]:
    """Rows/s per dataset from ``bench/convert.py`` (in this process, best of a few runs)."""
    sys.path.insert(0, str(BENCH))
    import convert  # the benchmark module next to this one

    return convert.measure(blocks=args.convert_blocks, repeat=args.convert_repeat)


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


def machine() -> list[str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kib / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return [
        f"- machine: {platform.machine()}, {os.cpu_count()} cores ({cpu}), {mem} RAM, {platform.platform()}",
        f"- Python {platform.python_version()}",
    ]


def versions(own: Env, peers: dict[str, Env], missing: dict[str, str]) -> list[str]:
    import aiohttp
    import msgspec
    import pyarrow

    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    lines = [
        f"- hmyframe {getattr(hmyframe, '__version__', '?')} "
        f"(commit {commit or '?'}), aiohttp {aiohttp.__version__}, msgspec {msgspec.__version__}, "
        f"pyarrow {pyarrow.__version__}"
    ]
    for peer, env in peers.items():
        lines.append(f"- {peer} {env.version} (own virtual environment)")
    for peer, why in missing.items():
        lines.append(f"- {peer}: {why}")
    return lines


def table(section: Section) -> list[str]:
    base = next((s for s in section.summaries if s.label == section.baseline), None)
    lines = [
        f"**{section.title}**",
        "",
        "| contender | wall s | in-process s | blocks | blocks/s | rows | rows/s | peak RSS MB "
        "| hmyframe ×faster | hmyframe ×faster (wall) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in section.summaries:
        blocks_per_s = f"{s.blocks_per_s:,.0f}" if s.blocks else "–"
        lines.append(
            f"| {s.label} | {s.wall:.2f} | {s.seconds:.2f} | {s.blocks or '–'} | {blocks_per_s} | "
            f"{s.rows:,} | {s.rows_per_s:,.0f} | {s.rss_mb:.0f} | {_ratio(base, s, wall=False)} | "
            f"{_ratio(base, s, wall=True)} |"
        )
    for label, why in section.failures.items():
        lines.append(f"| {label} | failed: {why.replace('|', '/')} | | | | | | | | |")
    lines.append("")
    split = [s for s in section.summaries if len(s.parts) > 1]
    if split:
        by = "; ".join(f"{s.label}: " + ", ".join(f"{n} {r:,}" for n, r in s.parts.items()) for s in split)
        lines += [f"Rows by dataset: {by}.", ""]
    for note in section.notes:
        lines += [note, ""]
    return lines


def _ratio(base: Summary | None, s: Summary, *, wall: bool) -> str:
    """hmyframe's rate over ``s``'s, per block (per row where there are no blocks), from the
    in-process or the wall seconds; each side with its own block (row) count."""
    if base is None:
        return "–"
    per_block = bool(s.blocks and base.blocks)
    mine = (base.blocks if per_block else base.rows) / (base.wall if wall else base.seconds)
    theirs = (s.blocks if per_block else s.rows) / (s.wall if wall else s.seconds)
    return f"{mine / theirs:.2f}" if theirs else "–"


def chart(sections: Sequence[tuple[Setting, Section]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = {"quiet": 0, "devnet": 1, "busy": 2}
    panels = sorted(
        {(s.rate_limit or 0, s.block_cost_ms, s.activity) for s, _ in sections},
        key=lambda p: (order.get(p[2], 3), p[0], p[1]),
    )
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.2), squeeze=False, sharey=True)
    for ax, (limit, cost, activity) in zip(axes[0], panels, strict=True):
        chosen = sorted(
            (
                (s, sec)
                for s, sec in sections
                if (s.rate_limit or 0) == limit and s.block_cost_ms == cost and s.activity == activity
            ),
            key=lambda item: item[0].latency_ms,
        )
        labels = sorted({x.label for _, sec in chosen for x in sec.summaries})
        for label in labels:
            points = [
                (s.latency_ms, x.blocks_per_s)
                for s, sec in chosen
                for x in sec.summaries
                if x.label == label and x.blocks_per_s
            ]
            if points:
                xs, ys = zip(*points, strict=True)
                style = "--o" if label.startswith("wire") else "-o"
                big = label == "hmyframe"
                ax.plot(xs, ys, style, label=label, linewidth=2.5 if big else 1.2, markersize=6 if big else 4)
        ax.set_xticks(sorted({s.latency_ms for s, _ in chosen}))
        ax.set_yscale("log")
        ax.set_xlabel("added latency per request (ms)")
        ax.set_title(
            f"rate limit {f'{limit}/s' if limit else 'off'}, block cost {cost:g} ms, {activity}", fontsize=10
        )
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("blocks/s (in-process, median)")
    axes[0][-1].legend(fontsize=8, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle("Exporting blocks + transactions from a devnet shard")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def receipts_preamble(args: argparse.Namespace) -> list[str]:
    """What the receipts setting's tables compare, and the row counts that differ by design."""
    return [
        f"Blocks {args.start}..{args.start + args.receipt_blocks - 1} of a devnet shard (per "
        f"activity profile of `--activity {args.activity}`) with "
        f"`--token-density {args.token_density:g}` (HRC-20/721/1155 mints, transfers, burns and "
        "failed transfers on top of the usual transactions), seed "
        f"{args.seed}. `{HMY_RECEIPTS}`: `hmyframe export {RECEIPT_DATASETS}` (getBlockReceipts "
        "per block with transactions, `hmy_getLogs` over the range; the blocks it checks them "
        "against are fetched and written too). `ethereum-etl receipts+logs`: "
        "`export_blocks_and_transactions` (for the hashes), `extract_csv_column`, "
        "`export_receipts_and_logs` (batches of 100 `eth_getTransactionReceipt`, 5 threads) and "
        "`extract_token_transfers`, in one process; `ethereum-etl, hashes given`: the last two "
        "only, from a list of the range's transaction hashes made before the run. "
        f"`{HMY_LOGS}`: `hmyframe export logs`; `cryo logs`: `cryo.freeze(['logs'])` "
        "(`eth_getLogs`). Ratios are per block (every contender has the same blocks); rows/s "
        "counts each contender's own rows, which differ by design: hmyframe has a receipt for "
        "every staking transaction too (the node's `eth_getTransactionReceipt` answers null for "
        "them) and HRC-1155 TransferSingle/TransferBatch rows among its token transfers "
        "(ethereum-etl reads ERC-20/721 `Transfer` only).",
    ]


class LoadSampler:
    """The machine's 1-minute load average, sampled every ``every`` seconds in a thread while
    the run lasts (recorded in the report: the machine is shared, and a figure means little
    without the load it was measured under)."""

    def __init__(self, every: float = 10.0) -> None:
        self.every = every
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.samples.append(os.getloadavg()[0])

    def stop(self) -> LoadSampler:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])
        return self


def load_line(samples: Sequence[float], every: float) -> str:
    """The report's line on the machine's load during the run (sampled every ``every`` s)."""
    return (
        f"- machine load during the run (1-minute load average, sampled every {every:g} s, {len(samples)} "
        f"samples): start {samples[0]:.2f}, median {statistics.median(samples):.2f}, max "
        f"{max(samples):.2f}, end {samples[-1]:.2f} (the run's own devnet and contender processes "
        f"count in it; {os.cpu_count()} cores)"
    )


def write_report(
    path: Path,
    chart_path: Path | None,
    args: argparse.Namespace,
    start: int,
    own: Env,
    peers: dict[str, Env],
    missing: dict[str, str],
    matrix: Sequence[tuple[Setting, Section]],
    extras: Sequence[Section],
    receipts: Sequence[Section],
    conversion: Sequence[tuple[str, int, float, float]],
    elapsed: float,
    load: LoadSampler | None = None,
) -> None:
    lines = [
        "# hmyframe against its peers",
        "",
        f"Written by `python bench/compare.py {' '.join(sys.argv[1:])}` in {elapsed / 60:.1f} min. "
        "Every contender ran in its own process against `hmyframe devnet` (one shard, in its own "
        f"process) on blocks {start}..{start + args.blocks - 1} ({args.blocks} blocks with "
        f"transactions, seed {args.seed}; {args.busy_blocks} blocks on the busy profile); medians of "
        f"{args.runs} alternating run(s). "
        "The devnet sends every client identity-encoded answers (`--no-gzip`: aiohttp and "
        "requests ask for gzip by default, hmyframe does not on a loopback URL), so all read "
        "the same bytes. "
        "Every contender's package imports (hmyframe's export modules and pyarrow, aiohttp, "
        "pyhmy, ethereumetl, cryo) happen before its timer starts: they are outside the "
        "in-process time and inside the wall time (the whole process); what a contender imports "
        'while working stays in both. Rates use the in-process time; "hmyframe ×faster" is '
        "hmyframe's blocks/s over the contender's (rows/s where there are no blocks), and "
        '"hmyframe ×faster (wall)" the same from the wall times, each side with its own block '
        "count (the wall time carries the process start-up, which weighs more on a shorter "
        "slice). `pyhmy loop` and `cryo`, which fetch block by block, got shorter slices sized "
        f"from a per-block estimate of their cost under each setting (about {args.loop_seconds:g} s "
        f"and {args.cryo_seconds:g} s of requests; cryo at least {min(50, args.blocks)} blocks; "
        f"neither more than "
        f"{args.blocks}) and are compared per block.",
        "",
        "## Machine and versions",
        "",
        *machine(),
        *([load_line(load.samples, load.every)] if load is not None else []),
        *versions(own, peers, missing),
        "",
    ]
    if matrix:
        lines += ["## Export of blocks + transactions", ""]
    if chart_path is not None:
        lines += [f"![blocks/s by contender and setting]({chart_path.name})", ""]
    for _, section in matrix:
        lines += table(section)
    if extras:
        lines += ["## Validators and traces", ""]
    for section in extras:
        lines += table(section)
    if receipts:
        lines += ["## Receipts, logs and token transfers", "", *receipts_preamble(args), ""]
    for section in receipts:
        lines += table(section)
    if conversion:
        lines += [
            "## Conversion (raw answer bytes -> Arrow table, one core)",
            "",
            "| dataset | rows | rows/s | ms |",
            "|---|---:|---:|---:|",
            *(f"| {name} | {rows:,} | {rate:,.0f} | {ms:.1f} |" for name, rows, rate, ms in conversion),
            "",
        ]
    path.write_text("\n".join(lines))


# --------------------------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    return [x for x in text.split(",") if x]


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def _limits(text: str) -> list[int | None]:
    return [None if x in ("off", "0", "none") else int(x) for x in text.split(",") if x]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--blocks", type=int, default=5000, help="slice length (default 5000)")
    parser.add_argument(
        "--busy-blocks",
        type=int,
        default=500,
        help="slice length on the busy activity profile (default 500: ~130 transactions a block)",
    )
    parser.add_argument(
        "--start",
        type=int,
        default=1,
        help="first block (default 1; the devnet has about 13 transactions a block)",
    )
    parser.add_argument("--runs", type=int, default=3, help="alternating runs per contender (median)")
    parser.add_argument("--latencies", default="0,20,100,300", help="ms, comma-separated")
    parser.add_argument("--rate-limits", default="off,1000", help="node rate limits (req/s or off)")
    parser.add_argument("--block-costs", default="0,2", help="per-block server cost, ms")
    parser.add_argument(
        "--activity",
        default="devnet",
        help="devnet activity profiles of the export and receipts settings, comma-separated among "
        "quiet,devnet,busy "
        "(default devnet; issue 17 reports all three)",
    )
    parser.add_argument("--peers", choices=("install", "existing", "none"), default="install")
    parser.add_argument("--peers-dir", type=Path, default=ROOT / "build" / "peers")
    parser.add_argument("--only-peers", default="pyhmy,ethereum-etl,cryo")
    parser.add_argument(
        "--loop-seconds", type=float, default=10.0, help="budget of pyhmy's per-block loop (default 10)"
    )
    parser.add_argument(
        "--cryo-seconds",
        type=float,
        default=15.0,
        help="budget of cryo, which fetches block by block (default 15; at least 50 blocks)",
    )
    parser.add_argument("--validators", type=int, default=800)
    parser.add_argument("--trace-blocks", type=int, default=500)
    parser.add_argument("--convert-blocks", type=int, default=200)
    parser.add_argument("--convert-repeat", type=int, default=5)
    parser.add_argument(
        "--receipt-blocks",
        type=int,
        default=2000,
        help="slice length of the receipts, logs and token transfers setting (default 2000)",
    )
    parser.add_argument(
        "--receipt-latencies", default="0,100", help="ms, comma-separated, of the receipts setting"
    )
    parser.add_argument(
        "--token-density",
        type=float,
        default=10.0,
        help="the receipts setting's devnet: token transactions a block (default 10; the devnet's own 0.5)",
    )
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help=f"what to run, comma-separated among {','.join(SECTIONS)} (default all)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run before giving up")
    parser.add_argument("--out", type=Path, default=BENCH / "RESULTS.md")
    parser.add_argument("--chart", type=Path, default=None, help="PNG path (default: next to --out)")
    parser.add_argument("--quick", action="store_true", help="tiny slice, one setting, one run (smoke test)")
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="install the peers' environments (--only-peers) and exit (tests/peers uses them)",
    )
    args = parser.parse_args()
    if args.prepare_only:
        peers, missing = prepare_peers(
            "install", args.peers_dir, [p for p in args.only_peers.split(",") if p]
        )
        for peer, env in peers.items():
            print(f"{peer} {env.version}: {env.python}")
        for peer, why in missing.items():
            print(f"{peer}: {why}")
        return 1 if missing else 0
    if args.quick:
        args.blocks, args.runs, args.loop_seconds, args.cryo_seconds = 40, 1, 1.0, 1.0
        args.busy_blocks = min(args.busy_blocks, 40)
        args.latencies, args.rate_limits, args.block_costs = "0", "off", "0"
        args.validators, args.trace_blocks, args.convert_blocks, args.convert_repeat = 120, 20, 10, 1
        args.receipt_blocks, args.receipt_latencies = 40, "0"
    sections = {x for x in args.sections.split(",") if x}
    if not sections or sections - set(SECTIONS):
        parser.error(f"--sections takes {', '.join(SECTIONS)} (comma-separated), got {args.sections!r}")
    chart_path = args.chart or args.out.with_name("compare.png")
    args.out.parent.mkdir(parents=True, exist_ok=True)

    began = time.perf_counter()
    sampler = LoadSampler()
    own = Env(sys.executable, "")
    peers, missing = prepare_peers(args.peers, args.peers_dir, [p for p in args.only_peers.split(",") if p])
    for peer, why in missing.items():
        print(f"{peer}: {why}; continuing without it", flush=True)
    start = args.start
    activities = _names(args.activity)
    unknown = sorted(set(activities) - {"quiet", "devnet", "busy"})
    if unknown or not activities:
        parser.error(f"--activity takes quiet, devnet, busy (comma-separated), got {args.activity!r}")
    settings = [
        Setting(latency, limit, cost, activity)
        for activity in activities
        for limit in _limits(args.rate_limits)
        for cost in _floats(args.block_costs)
        for latency in _floats(args.latencies)
    ]
    matrix = [(s, run_setting(args, s, start, own, peers)) for s in settings] if "export" in sections else []
    extras = run_extras(args, start, own, peers) if "extras" in sections else []
    receipts = run_receipts(args, start, own, peers) if "receipts" in sections else []
    conversion = conversion_rates(args) if "conversion" in sections else []
    if matrix:
        chart(matrix, chart_path)
    write_report(
        args.out,
        chart_path if matrix else None,
        args,
        start,
        own,
        peers,
        missing,
        matrix,
        extras,
        receipts,
        conversion,
        time.perf_counter() - began,
        sampler.stop(),
    )
    print(f"\nwrote {args.out}" + (f" and {chart_path}" if matrix else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
