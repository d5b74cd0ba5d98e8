"""Resume by piece: a chunk that fails (or whose process is killed) mid-way keeps the pieces that
arrived (hmyframe.engine._keep, hidden piece files of hmyframe.cache._pieces); a rerun asks the
node only for the blocks they do not hold, and writes the same files as a clean fetch.

A proxy in front of the devnet records every ``getBlocks`` range asked, and fails one on demand.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hostile import Proxy

import hmyframe
from hmyframe import FetchOptions
from hmyframe.devnet import Devnet
from hmyframe.engine._session import chain_id_from_hash
from hmyframe.errors import HmyframeError
from hmyframe.rpc import RetryPolicy

SIBLINGS = ("blocks", "transactions", "staking_transactions")


def _calls(body: Any) -> list[Any]:
    return body if isinstance(body, list) else [body]


def _asked(proxy: Proxy) -> list[tuple[int, int]]:
    """The block ranges of every getBlocks the proxy forwarded or answered, in order."""
    return [
        (call["params"][0], call["params"][1])
        for body in proxy.requests
        for call in _calls(body)
        if call["method"] == "hmyv2_getBlocks"
    ]


def _blocks(ranges: list[tuple[int, int]]) -> list[int]:
    return sorted(n for a, b in ranges for n in range(a, b + 1))


def _pieces(out: Path, chain: str, name: str) -> list[tuple[int, int]]:
    folder = out / chain / name / "shard0"
    spans = []
    for path in folder.glob(".*.piece") if folder.is_dir() else []:
        first, last = path.name.split("__")[1].removesuffix(".piece").split("_")
        spans.append((int(first), int(last)))
    return sorted(spans)


def _kept(out: Path, chain: str) -> set[int]:
    """The blocks kept in pieces of every sibling dataset."""
    held = [set(_blocks(_pieces(out, chain, name))) for name in SIBLINGS]
    return held[0] & held[1] & held[2]


def _body(path: Path) -> bytes:
    """A Parquet file's pages (all but its footer, which records when and from where)."""
    data = path.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little")
    return data[: len(data) - 8 - footer]


def _same_as_a_clean_export(out: Path, clean: Path) -> None:
    files = sorted(p.relative_to(out) for p in out.rglob("*.parquet"))
    assert files == sorted(p.relative_to(clean) for p in clean.rglob("*.parquet"))
    for rel in files:
        assert _body(out / rel) == _body(clean / rel), rel  # the same pages, byte for byte
    for name in SIBLINGS:
        pd.testing.assert_frame_equal(hmyframe.read(name, out), hmyframe.read(name, clean), check_exact=True)
    assert not [p for p in out.rglob("*") if p.name.endswith(".piece")]  # taken in, removed


class _FailingPiece:
    """A proxy in front of ``url`` answering the ``getBlocks`` starting at ``start`` with a 503
    (after the chunk's other pieces have arrived) while :attr:`failing` is set."""

    def __init__(self, url: str, start: int) -> None:
        self.start = start
        self.failing = True
        self.proxy = Proxy(url, self._rewrite, split_batches=True)

    async def _rewrite(self, body: Any) -> tuple[int, bytes] | None:
        call = _calls(body)[0]
        if self.failing and call["method"] == "hmyv2_getBlocks" and call["params"][0] == self.start:
            await asyncio.sleep(0.5)  # (the chunk's other pieces arrive meanwhile)
            return 503, b"the node behind the proxy is gone"
        return None


#: 200-block chunks asked 20 blocks a request, a failing request tried twice without waiting.
PIECES = FetchOptions(
    chunk_size=200, blocks_per_request=20, retry=RetryPolicy(attempts=2, backoff_base=0, jitter=False)
)


async def test_a_chunk_failing_mid_way_keeps_what_arrived_and_a_rerun_asks_only_the_rest(
    make_devnet: Any, tmp_path: Path
) -> None:
    net = make_devnet(shards=1, blocks=300, seed=31, validator_rate_limit=False)
    failing = _FailingPiece(net.url, 100)
    proxy, options = failing.proxy, PIECES
    try:
        out = tmp_path / "out"
        with pytest.raises(HmyframeError, match="503"):
            await hmyframe.aio.export(list(SIBLINGS[:2]), 0, 199, rpc=proxy.url, out=out, options=options)
        chain = chain_id_from_hash(net.chain.genesis_hash(0))
        assert list(out.rglob("*.parquet")) == []  # no reader sees any of the chunk
        kept = _pieces(out, chain, "blocks")
        assert kept == [(a, a + 19) for a in range(0, 200, 20) if a != 100]
        assert all(_pieces(out, chain, name) == kept for name in SIBLINGS)

        failing.failing = False
        proxy.requests.clear()
        await hmyframe.aio.export(list(SIBLINGS[:2]), 0, 199, rpc=proxy.url, out=out, options=options)
        assert _asked(proxy) == [(100, 119)]  # the piece that had not arrived, and nothing else
        clean = tmp_path / "clean"
        await hmyframe.aio.export(list(SIBLINGS[:2]), 0, 199, rpc=net, out=clean, options=options)
        _same_as_a_clean_export(out, clean)
    finally:
        proxy.close()


async def test_logs_alone_keep_their_side_table_in_pieces_and_resume(
    make_devnet: Any, tmp_path: Path
) -> None:
    """Logs alone are resolved through the headers' hash lists (a side table, never a dataset):
    a failing piece keeps the others' blocks and hash lists as pieces, the rerun asks only the
    missing blocks, and the files equal a clean export's with no piece or side folder left."""
    net = make_devnet(shards=1, blocks=300, seed=33, validator_rate_limit=False)
    failing = _FailingPiece(net.url, 40)
    proxy, options = failing.proxy, PIECES
    try:
        out = tmp_path / "out"
        with pytest.raises(HmyframeError, match="503"):
            await hmyframe.aio.export(["logs"], 0, 199, rpc=proxy.url, out=out, options=options)
        chain = chain_id_from_hash(net.chain.genesis_hash(0))
        assert list(out.rglob("*.parquet")) == []
        kept = _pieces(out, chain, "blocks")
        assert kept == [(a, a + 19) for a in range(0, 200, 20) if a != 40]
        assert _pieces(out, chain, "_transaction_positions") == kept

        failing.failing = False
        proxy.requests.clear()
        await hmyframe.aio.export(["logs"], 0, 199, rpc=proxy.url, out=out, options=options)
        assert _asked(proxy) == [(40, 59)]
        assert not (out / chain / "_transaction_positions").exists()
        assert not [p for p in out.rglob("*") if p.name.endswith(".piece")]
        clean = tmp_path / "clean"
        await hmyframe.aio.export(["logs"], 0, 199, rpc=net, out=clean, options=options)
        files = sorted(p.relative_to(out) for p in out.rglob("*.parquet"))
        assert files == sorted(p.relative_to(clean) for p in clean.rglob("*.parquet"))
        for rel in files:
            assert _body(out / rel) == _body(clean / rel), rel
        logs = hmyframe.read("logs", out)
        assert len(logs) > 0
        pd.testing.assert_frame_equal(logs, hmyframe.read("logs", clean), check_exact=True)
    finally:
        proxy.close()


def test_a_killed_export_under_a_rate_limit_resumes_with_only_the_missing_blocks(tmp_path: Path) -> None:
    """A 300-block chunk at 40 calls/s takes ~7 s; the export is killed once some of its pieces
    were kept (here from the chunk's first second on), then run again: it asks only the blocks
    no kept piece holds, whatever sizes its requests then take."""
    with Devnet(shards=1, blocks=400, seed=32, validator_rate_limit=False, rpc_rate_limit=40.0) as net:
        out = tmp_path / "out"
        chain = chain_id_from_hash(net.chain.genesis_hash(0))
        args = [
            "export",
            "blocks,transactions",
            "--start",
            "0",
            "--end",
            "299",
            "--rpc",
            net.url,
            "--out",
            str(out),
        ]
        args += ["--chunk-size", "300", "--blocks-per-request", "10"]
        script = f"import sys, hmyframe.engine._keep as keep; keep.KEEP_AFTER = 1.0; from hmyframe.cli import main; sys.exit(main({args!r}))"
        log = tmp_path / "killed.log"
        with log.open("wb") as sink:
            proc = subprocess.Popen([sys.executable, "-c", script], stdout=sink, stderr=subprocess.STDOUT)
            try:
                deadline = time.monotonic() + 60
                while len(_kept(out, chain)) < 40:
                    assert proc.poll() is None, log.read_text()
                    assert time.monotonic() < deadline, "no piece was kept"
                    time.sleep(0.02)
                os.kill(proc.pid, signal.SIGKILL)
            finally:
                proc.wait(timeout=30)
        assert list(out.rglob("*.parquet")) == []  # killed mid-chunk: nothing visible
        kept = _kept(out, chain)
        assert 40 <= len(kept) < 300

        proxy = Proxy(net.url, lambda body: None, split_batches=True)
        try:
            hmyframe.export(["blocks", "transactions"], 0, 299, rpc=proxy.url, out=out,
                            options=FetchOptions(chunk_size=300, blocks_per_request=10))  # fmt: skip
            asked = _blocks(_asked(proxy))
        finally:
            proxy.close()
        assert asked == sorted(set(range(300)) - kept)  # each missing block once, no kept one
        clean = tmp_path / "clean"
        hmyframe.export(["blocks", "transactions"], 0, 299, rpc=net, out=clean,
                        options=FetchOptions(chunk_size=300, blocks_per_request=10))  # fmt: skip
    _same_as_a_clean_export(out, clean)
