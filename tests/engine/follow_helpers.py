"""Helpers of the follow tests: a devnet miner that records when each block appeared, and a
watcher that records when each block first appeared on disk (and what readers saw meanwhile)."""

from __future__ import annotations

import re
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

import pyarrow.dataset as pads
import pyarrow.parquet as pq

import hmyframe
from hmyframe.devnet import Devnet

_RANGE = re.compile(r"^(?P<name>[a-z_]+)__(?P<start>\d{10})_(?P<end>\d{10})\.parquet$")
_TAIL = re.compile(r"^(?P<name>[a-z_]+)__(?P<start>\d{10})_tail\.parquet$")


def range_files(folder: Path, *, tails: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` of the range files in one shard folder (hidden temporary files excluded);
    a tail's end is the one its footer records (a tail renamed meanwhile: listed again)."""
    while True:
        out = []
        try:
            for path in sorted(folder.glob("*.parquet")) if folder.is_dir() else []:
                m = _RANGE.match(path.name)
                if m is not None:
                    out.append((int(m["start"]), int(m["end"])))
                elif tails and (t := _TAIL.match(path.name)) is not None:
                    end = pq.read_metadata(path).metadata[b"hmyframe.end"]
                    out.append((int(t["start"]), int(end)))
        except FileNotFoundError:
            continue
        return sorted(out)


def tail_files(folder: Path) -> list[str]:
    """Names of the tails in one shard folder."""
    return sorted(p.name for p in folder.glob("*_tail.parquet")) if folder.is_dir() else []


def raw_blocks(folder: Path) -> list[int]:
    """``block_number`` of every row of the folder read as ``pyarrow.dataset`` reads it (what a
    reader that knows nothing of hmyframe sees); listed again if a file went away meanwhile."""
    for _ in range(20):
        if not folder.is_dir():
            return []
        try:
            found = pads.dataset(str(folder), format="parquet")
            if not found.files:
                return []
            table = found.to_table(columns=["block_number"])
        except FileNotFoundError:
            continue
        except OSError as exc:  # pyarrow reports a vanished file as an OSError naming it
            if "No such file" not in str(exc):
                raise
            continue
        return table["block_number"].to_pylist()
    raise AssertionError(f"{folder}: files kept vanishing under pyarrow.dataset")


def shard_folder(root: Path, dataset: str, shard: int) -> Path:
    """``root/<chain>/<dataset>/shard<S>`` (the one chain under ``root``)."""
    found = sorted(root.glob(f"*/{dataset}/shard{shard}"))
    return found[0] if found else root / "none" / dataset / f"shard{shard}"


class _Ticker:
    """Run ``tick()`` every ``every`` seconds in a thread while in its ``with`` block."""

    every: float = 0.5

    def tick(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.tick()

    def __enter__(self) -> Self:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()


class Miner(_Ticker):
    """Mine one block every ``every`` seconds; ``mined[n]`` is when block n appeared."""

    def __init__(self, net: Devnet, every: float = 0.5) -> None:
        self.net = net
        self.every = every
        self.mined: dict[int, float] = {}
        self.paused = threading.Event()

    def tick(self) -> None:
        if not self.paused.is_set():
            self.net.mine(1)
            self.mined[self.net.chain.head(0)] = time.time()


@dataclass
class Watcher(_Ticker):
    """Poll an output folder every ``every`` seconds while a follower writes into it.

    ``appeared[(shard, n)]``: when block n of shard first showed in a file name of ``dataset``;
    ``reads``: per read through :func:`hmyframe.read`, each shard's block numbers (checked
    for duplicates and gaps by the test); ``raw``: the same through ``pyarrow.dataset`` (the
    folder read by a reader that knows nothing of hmyframe), every tick.
    """

    root: Path
    dataset: str
    shards: tuple[int, ...]
    every: float = 0.02
    read_every: int = 10
    raw_every: int = 3
    appeared: dict[tuple[int, int], float] = field(default_factory=dict)
    reads: list[dict[int, list[int]]] = field(default_factory=list)
    raw: list[dict[int, list[int]]] = field(default_factory=list)
    errors: list[BaseException] = field(default_factory=list)
    ticks: int = 0

    def tick(self) -> None:
        now = time.time()
        for shard in self.shards:
            for a, b in range_files(shard_folder(self.root, self.dataset, shard)):
                for n in range(a, b + 1):
                    self.appeared.setdefault((shard, n), now)
        self.ticks += 1
        try:
            if self.ticks % self.raw_every == 0:
                self.raw.append(
                    {s: sorted(raw_blocks(shard_folder(self.root, self.dataset, s))) for s in self.shards}
                )
        except Exception as exc:  # noqa: BLE001 - kept for the test to report
            self.errors.append(exc)
        if self.ticks % self.read_every or not self.appeared:
            return
        try:
            df = hmyframe.read(self.dataset, self.root, output="arrow")
        except Exception as exc:  # noqa: BLE001 - kept for the test to report
            self.errors.append(exc)
            return
        seen: dict[int, list[int]] = {}
        for s, n in zip(df["shard_id"].to_pylist(), df["block_number"].to_pylist(), strict=True):
            seen.setdefault(s, []).append(n)
        self.reads.append(seen)


def lags(miner: Miner, watcher: Watcher, shard: int, blocks: Iterator[int] | range) -> list[float]:
    """Seconds from each block's mining to its first appearance on disk."""
    return [watcher.appeared[(shard, n)] - miner.mined[n] for n in blocks]


def summary(values: list[float]) -> tuple[float, float]:
    """(median, max)."""
    return statistics.median(values), max(values)
