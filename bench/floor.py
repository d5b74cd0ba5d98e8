"""The floor: the least work that writes the same Parquet files as hmyframe (blocks + transactions).

For each devnet activity profile (``--activity``, default all three: ``quiet``, ``devnet``,
``busy``) a one-shard devnet runs in a child process (``bench/_devnet.py``) and the
``hmyv2_getBlocks`` answers hmyframe's export asks for (100 blocks each, full transactions) are
fetched once. The same answer bytes are then turned into the ``blocks`` and ``transactions``
files of each chunk by two contenders, taking turns (which goes first alternates every repeat):

* ``floor``: msgspec decode into typed structs, one Arrow array per column (the distinct
  addresses converted once, vectorised, and taken per row), the dataset's declared schema, one ``pq.write_table`` per file (zstd,
  as hmyframe writes). No checks, no sorting, no integrity record;
* ``hmyframe``: what the export does with the answers after they arrive: each piece through
  the ``blocks`` source's transform (``convert_piece``: decode, every check, exact amounts; a
  chunk's small answers, up to ``SMALL_PIECE`` bytes, together: ``convert_pieces``), the
  chunk put together, checked and written to a cache folder (``finish_chunk``: the integrity
  record and the check pass included).

Before timing, the files of both are compared (pages, Arrow schema and row-group layout: the
digest of ``tests/golden``; the footers' key-value metadata differs by design) and the script
fails if they differ. Prints, per profile, the median cost per block of each (CPU time of
this process: the machine is shared) and the ratio hmyframe / floor (issue 17's goal:
within 1.5x); and, as ``export``, hmyframe also making the ``staking_transactions`` sibling
from the same answers, as an export of blocks + transactions does (``BLOCKS.builds_for``).

    python bench/floor.py [--blocks 1000] [--activity quiet,devnet,busy] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from _devnet import one_shard_devnet

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "golden"))
from _golden import digest  # the golden test's digest: what "the same file" means

from hmyframe.addresses import normalize_many
from hmyframe.cache import Cache
from hmyframe.datasets import DATASETS
from hmyframe.datasets.sources import BLOCKS, Answers, Call
from hmyframe.engine._workers import (
    SMALL_PIECE,
    ChunkJob,
    PieceJob,
    convert_piece,
    convert_pieces,
    finish_chunk,
)
from hmyframe.rpc.client import Client

ACTIVITIES = ("quiet", "devnet", "busy")
NAMES = ("blocks", "transactions")
PER_REQUEST = 100  # blocks per getBlocks call, as the export asks
ARGS = {"fullTx": True, "inclTx": True, "inclStaking": True, "withSigners": False}
ATTO = 10**18
TS = pa.timestamp("ms", tz="UTC")
CHAIN = "00000000f100f100"


# --------------------------------------------------------------------------- the floor


class FTx(msgspec.Struct, gc=False):
    blockHash: str
    blockNumber: int
    from_: str = msgspec.field(name="from")
    timestamp: int = 0
    gas: int = 0
    gasPrice: int = 0
    hash: str = ""
    ethHash: str = ""
    input: str = ""
    nonce: int = 0
    to: str | None = None
    transactionIndex: int = 0
    value: int = 0
    shardID: int = 0
    toShardID: int = 0


class FBlock(msgspec.Struct, gc=False):
    number: int
    hash: str
    parentHash: str
    timestamp: int
    epoch: int
    viewID: int
    miner: str
    size: int
    gasLimit: int
    gasUsed: int
    stateRoot: str
    transactionsRoot: str
    receiptsRoot: str
    logsBloom: str
    extraData: str
    vrf: str
    transactions: list[FTx] = []
    stakingTransactions: list[msgspec.Raw] = []


_DECODE = msgspec.json.Decoder(list[FBlock])
_ZERO_HASH = "0x" + "0" * 64


def floor_tables(payloads: Sequence[bytes], shard: int) -> dict[str, pa.Table]:
    """The ``blocks`` and ``transactions`` tables of ``payloads`` (getBlocks answers), no checks."""
    pieces = [_DECODE.decode(p) for p in payloads]
    blocks = [b for piece in pieces for b in piece]
    txs = [t for b in blocks for t in b.transactions]
    # every distinct address converted once (vectorised), each column a take() of the distinct ones
    index: dict[str, int] = {"": 0}
    miners = [index.setdefault(b.miner, len(index)) for b in blocks]
    senders = [index.setdefault(t.from_, len(index)) for t in txs]
    receivers = [index.setdefault(t.to or "", len(index)) for t in txs]
    ones, hexes = (pa.array(forms, pa.string()) for forms in normalize_many(list(index)))

    def pairs(indices: list[int]) -> tuple[pa.Array, pa.Array]:
        at = pa.array(indices, pa.int32())
        return ones.take(at), hexes.take(at)

    n = len(blocks)
    miner, miner_hex = pairs(miners)
    block_cols = [
        pa.array([b.number for b in blocks], pa.int64()),
        pa.array([b.hash for b in blocks], pa.string()),
        pa.array([b.parentHash for b in blocks], pa.string()),
        pa.array([b.timestamp * 1000 for b in blocks], TS),
        pa.array([b.epoch for b in blocks], pa.int64()),
        pa.array([b.viewID for b in blocks], pa.int64()),
        pa.array([shard] * n, pa.int32()),
        miner,
        miner_hex,
        pa.array([b.size for b in blocks], pa.int64()),
        pa.array([b.gasLimit for b in blocks], pa.int64()),
        pa.array([b.gasUsed for b in blocks], pa.int64()),
        pa.array([len(b.transactions) for b in blocks], pa.int64()),
        pa.array([len(b.stakingTransactions) for b in blocks], pa.int64()),
        pa.nulls(n, pa.int64()),  # signer_count: not fetched
        pa.array([b.stateRoot for b in blocks], pa.string()),
        pa.array([b.transactionsRoot for b in blocks], pa.string()),
        pa.array([b.receiptsRoot for b in blocks], pa.string()),
        pa.array([b.logsBloom for b in blocks], pa.string()),
        pa.array([b.extraData for b in blocks], pa.string()),
        pa.array([None if b.vrf == _ZERO_HASH else b.vrf for b in blocks], pa.string()),
    ]
    sender, sender_hex = pairs(senders)
    receiver, receiver_hex = pairs(receivers)
    values = [t.value for t in txs]
    prices = [t.gasPrice for t in txs]
    shards = pa.array([t.shardID for t in txs], pa.int32())
    to_shards = pa.array([t.toShardID for t in txs], pa.int32())
    tx_cols = [
        pa.array([t.blockNumber for t in txs], pa.int64()),
        pa.array([t.blockHash for t in txs], pa.string()),
        pa.array([t.transactionIndex for t in txs], pa.int64()),
        pa.array([t.hash for t in txs], pa.string()),
        pa.array([t.ethHash for t in txs], pa.string()),
        pa.array([t.timestamp * 1000 for t in txs], TS),
        sender,
        sender_hex,
        receiver,
        receiver_hex,
        pa.array(values, pa.decimal128(38, 0)),
        pa.array([v / ATTO for v in values], pa.float64()),
        pa.array([t.gas for t in txs], pa.int64()),
        pa.array(prices, pa.decimal128(38, 0)),
        pa.array([p / ATTO for p in prices], pa.float64()),
        pa.array([t.nonce for t in txs], pa.int64()),
        pa.array([t.input for t in txs], pa.string()),
        shards,
        to_shards,
        pc.not_equal(shards, to_shards),
        receiver.is_null(),
    ]
    # one Arrow chunk per answer, as hmyframe's tables have (one per piece): the Parquet writer
    # cuts pages where chunks end, so the chunking is part of "the same file"
    block_rows = [len(piece) for piece in pieces]
    tx_rows = [sum(len(b.transactions) for b in piece) for piece in pieces]
    return {
        "blocks": _chunked(pa.Table.from_arrays(block_cols, schema=DATASETS["blocks"].schema), block_rows),
        "transactions": _chunked(
            pa.Table.from_arrays(tx_cols, schema=DATASETS["transactions"].schema), tx_rows
        ),
    }


def _chunked(table: pa.Table, rows: list[int]) -> pa.Table:
    """``table`` as zero-copy slices of ``rows`` rows each (one chunk per slice)."""
    if len(rows) == 1:
        return table
    offsets = [0]
    for n in rows:
        offsets.append(offsets[-1] + n)
    return pa.concat_tables([table.slice(a, b - a) for a, b in itertools.pairwise(offsets)])


def floor_chunk(payloads: Sequence[bytes], first: int, last: int, out: Path) -> None:
    """One chunk by the floor: decode, build (the cyclic collector paused, as hmyframe does), one
    write per file."""
    gc.disable()
    try:
        tables = floor_tables(payloads, 0)
    finally:
        gc.enable()
    for name, table in tables.items():
        pq.write_table(table, out / f"{name}__{first:010d}_{last:010d}.parquet", compression="zstd")


# --------------------------------------------------------------------------- hmyframe


def hmyframe_chunk(
    calls: Sequence[Call],
    payloads: Sequence[bytes],
    first: int,
    last: int,
    out: Path,
    builds: tuple[str, ...] = NAMES,
) -> None:
    """One chunk as the export converts and writes it (every check, the integrity record).

    ``builds``: the datasets made (the export of blocks + transactions also makes their sibling
    ``staking_transactions`` from the same answers: ``BLOCKS.builds_for``)."""
    jobs = []
    for i, (call, payload) in enumerate(zip(calls, payloads, strict=True)):
        a = first + i * PER_REQUEST
        answers = Answers(
            shard=0,
            first=a,
            last=min(last, a + PER_REQUEST - 1),
            detail=frozenset({"full_tx"}),
            state={},
            builds=builds,
            calls=(call,),
            payloads=(payload,),
            needed={},
            endpoint="http://127.0.0.1/",
        )
        jobs.append(PieceJob(BLOCKS.transform, answers))
    # as the export: a large answer converted alone as it arrives, the chunk's small ones together
    small = [i for i, p in enumerate(payloads) if len(p) <= SMALL_PIECE]
    parts = {i: convert_piece(job) for i, job in enumerate(jobs) if i not in small}
    parts.update(zip(small, convert_pieces([jobs[i] for i in small]), strict=True))
    job = ChunkJob(
        shard=0,
        first=first,
        last=last,
        parts=[parts[i] for i in range(len(jobs))],
        per_block=frozenset({"blocks"}),
        cache=Cache(out),
        chain_id=CHAIN,
    )
    finish_chunk(job)


# --------------------------------------------------------------------------- the runs


def files_by_name(root: Path) -> dict[str, str]:
    """``{dataset__first_last: digest}`` of the Parquet files under ``root``."""
    return {p.name.removesuffix(".parquet"): digest(p) for p in root.rglob("*.parquet")}


async def fetch(url: str, ranges: Sequence[tuple[int, int]]) -> list[tuple[list[Call], list[bytes]]]:
    """Per chunk ``first..last`` of ``ranges``: the export's getBlocks calls (at most
    PER_REQUEST blocks each, within the chunk) and the raw ``result`` of each."""
    out = []
    async with Client(url) as client:
        for first, last in ranges:
            calls = [
                Call("hmyv2_getBlocks", (a, min(last, a + PER_REQUEST - 1), ARGS))
                for a in range(first, last + 1, PER_REQUEST)
            ]
            out.append((calls, [await client.request_raw(c.method, list(c.params)) for c in calls]))
    return out


def cpu_seconds(fn: Callable[[], object]) -> float:
    """CPU seconds of ``fn()``, started with no garbage left by the contender before it (the
    collector is paused while converting, so what one leaves would be collected in the next)."""
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(activity: str, blocks: int, chunk: int, repeat: int) -> tuple[dict[str, float], int]:
    """Median CPU seconds per block of each contender, and the transactions of the slice."""
    first = chunk  # past the genesis chunk, aligned like the export's chunks
    last = first + blocks - 1
    ranges = [(a, min(last, a + chunk - 1)) for a in range(first, last + 1, chunk)]
    with one_shard_devnet(last + 2, activity=activity) as url:
        fetched = asyncio.run(fetch(url, ranges))
    chunks = [(a, b, calls, pays) for (a, b), (calls, pays) in zip(ranges, fetched, strict=True)]
    txs = sum(len(b.transactions) for _, pays in fetched for p in pays for b in _DECODE.decode(p))
    siblings = BLOCKS.builds_for(frozenset({"full_tx"}))

    def run_floor(out: Path) -> None:
        for a, b, _, pays in chunks:
            floor_chunk(pays, a, b, out)

    def run_hmyframe(out: Path, builds: tuple[str, ...] = NAMES) -> None:
        for a, b, cs, pays in chunks:
            hmyframe_chunk(cs, pays, a, b, out, builds)

    contenders: dict[str, Callable[[Path], None]] = {
        "floor": run_floor,
        "hmyframe": run_hmyframe,
        "export": lambda out: run_hmyframe(out, siblings),
    }
    with tempfile.TemporaryDirectory() as tmp:
        floor_out, hmy_out = Path(tmp, "floor"), Path(tmp, "hmyframe")
        floor_out.mkdir()
        run_floor(floor_out)
        run_hmyframe(hmy_out)
        floor_files, hmy_files = files_by_name(floor_out), files_by_name(hmy_out)
        if floor_files != hmy_files:
            differ = sorted(
                k for k in floor_files.keys() | hmy_files.keys() if floor_files.get(k) != hmy_files.get(k)
            )
            raise SystemExit(f"{activity}: the floor's files differ from hmyframe's: {differ}")
        times: dict[str, list[float]] = {label: [] for label in contenders}
        order = list(contenders.items())
        for r in range(repeat):
            for label, fn in order[r % len(order) :] + order[: r % len(order)]:  # who goes first rotates
                out = Path(tmp, f"{label}{r}")
                out.mkdir()
                times[label].append(cpu_seconds(lambda fn=fn, out=out: fn(out)))  # type: ignore[misc]
    return {label: statistics.median(t) / blocks for label, t in times.items()}, txs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=1000, help="blocks per profile (default 1000)")
    parser.add_argument(
        "--chunk", type=int, default=1000, help="blocks per chunk, as the export's (default 1000)"
    )
    parser.add_argument(
        "--activity", default=",".join(ACTIVITIES), help="profiles, comma-separated (default all)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="alternating repeats (median)")
    args = parser.parse_args(argv)
    profiles = [a for a in args.activity.split(",") if a]
    unknown = [a for a in profiles if a not in ACTIVITIES]
    if unknown:
        parser.error(f"--activity takes {', '.join(ACTIVITIES)}, got {', '.join(unknown)}")
    print(
        f"{args.blocks} blocks per profile, chunks of {args.chunk}, median of {args.repeat} alternating repeats"
    )
    print("same files written by both (pages, schema, row groups); CPU time of this process")
    print(
        "export: hmyframe also making the staking_transactions sibling, as an export of blocks,transactions does"
    )
    print(
        f"{'activity':9s} {'tx/block':>8s} {'floor ms/block':>15s} {'hmyframe ms/block':>18s} "
        f"{'hmyframe/floor':>15s} {'export ms/block':>16s} {'export/floor':>13s}"
    )
    for activity in profiles:
        cost, txs = measure(activity, args.blocks, args.chunk, args.repeat)
        floor, hmy, export = cost["floor"], cost["hmyframe"], cost["export"]
        print(
            f"{activity:9s} {txs / args.blocks:8.1f} {floor * 1000:15.4f} {hmy * 1000:18.4f} "
            f"{hmy / floor:14.2f}x {export * 1000:16.4f} {export / floor:12.2f}x",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
