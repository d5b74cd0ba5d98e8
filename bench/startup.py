"""Start-up cost: ``import hmyframe`` and the start of ``hmyframe export``, against ``python -c pass``.

Each contender is a fresh interpreter (``python -c CODE``), timed from spawn to exit; the
contenders run in alternation, ``--repeat`` rounds, and the table shows the median wall time,
the median CPU time (user + system, from the kernel: steadier than wall time on a loaded
machine), the ratio to the baseline interpreter (``python -c pass``) of the same run, and the
import cost (median minus the baseline's median). For reference, the modules an export never
needs (pandas, matplotlib) and the floor of those it does (aiohttp, pyarrow with its compute
functions and Parquet, msgspec) are timed the same way.

``whole hmyframe export, 1 block`` is the command itself (``python -m hmyframe``, which runs what
the ``hmyframe`` script runs), imports and first contact: a devnet serves one shard in its own
process and ``hmyframe export blocks --start 0 --end 0`` runs against it into a folder that
already holds block 0 (identification, the head, planning: no block fetched, nothing written).

Modules are run from their bytecode, as an installed package is (``pip`` compiles it at
install): the children get ``PYTHONDONTWRITEBYTECODE`` unset and a private
``PYTHONPYCACHEPREFIX``, filled by the warm-up round; otherwise, where the variable is set,
every run would compile hmyframe's ~70 modules from source (about 0.14 s of CPU).

Usage::

    python bench/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping

from _devnet import devnet_process

CONTENDERS: dict[str, str] = {
    "python -c pass (baseline)": "pass",
    "import hmyframe": "import hmyframe",
    "start of hmyframe export": (
        "from hmyframe.cli import build_parser\n"
        "build_parser('export').parse_args(['export', 'blocks', '--start', '0', '--end', '9'])\n"
        "import hmyframe.exporting"
    ),
    "import hmyframe; hmyframe.transactions": "import hmyframe; hmyframe.transactions",
    "import aiohttp (reference)": "import aiohttp",
    "import pyarrow (reference)": "import pyarrow",
    "import aiohttp, pyarrow.parquet, pyarrow.compute, msgspec (floor)": (
        "import aiohttp, pyarrow.parquet, pyarrow.compute, msgspec"
    ),
    "import pandas (reference)": "import pandas",
    "import matplotlib.pyplot (reference)": "import matplotlib.pyplot",
}


def timed(argv: list[str], env: Mapping[str, str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one child process, from spawning it to reaping it."""
    start = time.perf_counter()
    pid = os.posix_spawn(
        argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
    )
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="alternating rounds (median reported)")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="hmyframe-startup-") as tmp,
        devnet_process("--shards", "1", "--blocks", "10") as (urls, _),
    ):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        out = os.path.join(tmp, "out")
        argvs = {name: [sys.executable, "-c", code] for name, code in CONTENDERS.items()}
        export = ["export", "blocks", "--rpc", urls[0], "--out", out, "--start", "0", "--end", "0"]
        argvs["whole hmyframe export, 1 block"] = [sys.executable, "-m", "hmyframe", *export, "--no-progress"]
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in argvs}
        for argv in argvs.values():  # warm the file cache, write the bytecode, fetch block 0
            timed(argv, env)
        for _ in range(args.repeat):
            for name, argv in argvs.items():
                times[name].append(timed(argv, env))
    base = statistics.median(w for w, _ in times["python -c pass (baseline)"])
    load = os.getloadavg()[0]
    print(f"python {sys.version.split()[0]}, {args.repeat} alternating rounds, medians; load {load:.2f}")
    print(f"{'contender':66s} {'wall ms':>8s} {'cpu ms':>7s} {'x baseline':>10s} {'imports ms':>10s}")
    for name, values in times.items():
        median = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(
            f"{name:66s} {median * 1e3:8.1f} {cpu * 1e3:7.1f} {median / base:10.2f} {(median - base) * 1e3:10.1f}"
        )


if __name__ == "__main__":
    main()
