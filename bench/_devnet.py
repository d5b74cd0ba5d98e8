"""Start ``hmyframe devnet`` in a child process for benchmarks (so the server has its own core)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["devnet_process", "one_shard_devnet"]


@contextmanager
def devnet_process(*args: str) -> Iterator[tuple[list[str], list[str]]]:
    """Run ``hmyframe devnet ARGS`` in a child process; yield (shard URLs, trace URLs); stop it after.

    The devnet serves identity-encoded answers to every client (``--no-gzip``): aiohttp and
    requests ask for gzip by default, hmyframe does not on a loopback URL, and a comparison
    must give every client the same bytes.
    """
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from hmyframe.cli import main; sys.exit(main())",
            "devnet",
            "--no-gzip",
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    urls: list[str] = []
    traces: list[str] = []
    expected: int | None = None
    try:
        for line in proc.stdout:
            header = re.search(r"(\d+) shard\(s\)", line)
            if header:
                expected = int(header.group(1))
            match = re.match(r"shard (\d+): (http://\S+)\s+trace: (http://\S+)", line)
            if match:
                urls.append(match.group(2))
                traces.append(match.group(3))
            if expected is not None and len(urls) == expected:
                break
        if not urls:
            raise SystemExit("the devnet did not print its URLs")
        yield urls, traces
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def one_shard_devnet(blocks: int, seed: int = 0, activity: str = "devnet") -> Iterator[str]:
    """The devnet every benchmark uses: one shard of ``blocks`` blocks, validator limiter off,
    blocks as busy as ``activity`` (``quiet``, ``devnet`` or ``busy``); yields its URL."""
    args = ("--shards", "1", "--blocks", str(blocks), "--seed", str(seed), "--no-validator-rate-limit")
    args += ("--activity", activity)
    with devnet_process(*args) as (urls, _):
        yield urls[0]
