"""Start-up cost: ``import hmyframe`` and the start of ``hmyframe export``, against ``python -c pass``.

Each contender is a fresh interpreter (``python -c CODE``), timed from spawn to exit; the
contenders run in alternation, ``--repeat`` rounds, and the table shows the median wall time,
the ratio to the baseline interpreter (``python -c pass``) of the same run, and the import
cost (median minus the baseline's median). For reference, the modules an export never needs
(pandas, matplotlib) and the ones it does (aiohttp, pyarrow) are timed the same way.

Usage::

    python bench/startup.py [--repeat 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CONTENDERS: dict[str, str] = {
    "python -c pass (baseline)": "pass",
    "import hmyframe": "import hmyframe",
    "start of hmyframe export": (
        "from hmyframe.cli import build_parser\n"
        "build_parser('export').parse_args(['export', 'blocks', '--start', '0', '--end', '9'])\n"
        "import hmyframe.export"
    ),
    "import hmyframe; hmyframe.transactions": "import hmyframe; hmyframe.transactions",
    "import aiohttp (reference)": "import aiohttp",
    "import pyarrow (reference)": "import pyarrow",
    "import pandas (reference)": "import pandas",
    "import matplotlib.pyplot (reference)": "import matplotlib.pyplot",
}


def wall(code: str) -> float:
    """Seconds from spawning ``python -c code`` to its exit."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="alternating rounds (median reported)")
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in CONTENDERS}
    for code in CONTENDERS.values():  # warm the file cache once
        wall(code)
    for _ in range(args.repeat):
        for name, code in CONTENDERS.items():
            times[name].append(wall(code))
    base = statistics.median(times["python -c pass (baseline)"])
    print(f"python {sys.version.split()[0]}, {args.repeat} alternating rounds, medians")
    print(f"{'contender':42s} {'wall ms':>9s} {'x baseline':>10s} {'imports ms':>10s}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:42s} {median * 1e3:9.1f} {median / base:10.2f} {(median - base) * 1e3:10.1f}")


if __name__ == "__main__":
    main()
