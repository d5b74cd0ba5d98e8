"""A chunk's small answers converted together (``convert_pieces``): the same files and tables as
converting each piece alone, and each piece's own error when the joined conversion fails."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from hmyframe.datasets.sources import BLOCKS, Answers, Call
from hmyframe.devnet import Devnet
from hmyframe.engine import FetchOptions, Session
from hmyframe.engine import _ranges as ranges
from hmyframe.engine._ranges import fetch_range
from hmyframe.engine._workers import ChunkJob, PieceJob, assemble_chunk, convert_piece, convert_pieces
from hmyframe.errors import ResponseShapeError
from hmyframe.rpc.client import Client

NAMES = ["blocks", "transactions", "staking_transactions"]
ARGS = {"fullTx": True, "inclTx": True, "inclStaking": True, "withSigners": False}


def _pages_and_layout(path: Path) -> tuple[bytes, list[tuple[int, list[tuple[Any, ...]]]]]:
    """Every byte before the footer (the data pages), and each row group's column-chunk layout."""
    raw = path.read_bytes()
    footer = int.from_bytes(raw[-8:-4], "little")
    meta = pq.read_metadata(path)
    layout = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        columns = [
            (c.path_in_schema, c.num_values, c.data_page_offset, c.total_compressed_size, c.encodings)
            for c in (group.column(i) for i in range(group.num_columns))
        ]
        layout.append((group.num_rows, columns))
    return raw[: len(raw) - 8 - footer], layout


async def test_small_pieces_converted_together_write_the_same_files(
    devnet: Devnet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    real = ranges.convert_pieces

    def spy(jobs: Sequence[PieceJob]) -> list[dict[str, Any]]:
        runs.append(len(jobs))
        return real(jobs)

    monkeypatch.setattr(ranges, "convert_pieces", spy)
    options = FetchOptions(chunk_size=50, blocks_per_request=10)  # five pieces a chunk
    async with Session(devnet.url, cache=tmp_path / "together", options=options) as s:
        together = await fetch_range(s, NAMES, 0, 149)
    assert runs
    assert max(runs) == 5  # each chunk's five answers in one conversion

    monkeypatch.setattr(ranges, "SMALL_PIECE", -1)  # no answer is small: each piece alone
    runs.clear()
    async with Session(devnet.url, cache=tmp_path / "alone", options=options) as s:
        alone = await fetch_range(s, NAMES, 0, 149)
    assert runs == []

    for name in NAMES:
        assert together[name].equals(alone[name]), name
    assert together["transactions"].num_rows > 0
    files = sorted(p.relative_to(tmp_path / "alone") for p in (tmp_path / "alone").rglob("*.parquet"))
    assert len(files) == 3 * len(NAMES)
    for rel in files:
        assert _pages_and_layout(tmp_path / "together" / rel) == _pages_and_layout(
            tmp_path / "alone" / rel
        ), rel


async def _jobs(url: str, first: int, pieces: int, size: int) -> list[PieceJob]:
    jobs = []
    async with Client(url) as client:
        for i in range(pieces):
            a, b = first + i * size, first + (i + 1) * size - 1
            call = Call("hmyv2_getBlocks", (a, b, ARGS))
            payload = await client.request_raw(call.method, list(call.params))
            answers = Answers(
                shard=0,
                first=a,
                last=b,
                detail=frozenset({"full_tx"}),
                state={},
                builds=("blocks", "transactions"),
                calls=(call,),
                payloads=(payload,),
                needed={},
                endpoint=url,
            )
            jobs.append(PieceJob(BLOCKS.transform, answers))
    return jobs


def _with_payload(job: PieceJob, payload: bytes) -> PieceJob:
    a = job.answers
    return PieceJob(
        job.transform,
        Answers(
            a.shard, a.first, a.last, a.detail, a.state, a.builds, a.calls, (payload,), a.needed, a.endpoint
        ),
    )


async def test_each_piece_keeps_its_tables_and_chunk(devnet: Devnet) -> None:
    jobs = await _jobs(devnet.url, 100, 4, 10)
    together = convert_pieces(jobs)
    for job, tables in zip(jobs, together, strict=True):
        alone = convert_piece(job)
        assert tables.keys() == alone.keys()
        for name, table in tables.items():
            assert table.equals(alone[name]), name
            assert table.column(0).num_chunks == 1


async def test_a_bad_piece_fails_with_its_own_error(devnet: Devnet) -> None:
    jobs = await _jobs(devnet.url, 100, 3, 10)
    jobs[1] = _with_payload(jobs[1], b'[{"number": "not a number", "hash": 7}]')
    with pytest.raises(ResponseShapeError) as alone:
        convert_piece(jobs[1])
    with pytest.raises(ResponseShapeError) as together:
        convert_pieces(jobs)
    assert str(together.value) == str(alone.value)
    assert "payload[0]" in str(together.value)  # the piece's own answer, not its place in the run


async def test_an_answer_of_another_pieces_blocks_fails_the_chunk_as_before(devnet: Devnet) -> None:
    # the second answer repeats the third's blocks: the chunk's check names the same missing and
    # duplicated blocks whether the pieces were converted together or alone
    jobs = await _jobs(devnet.url, 100, 3, 10)
    jobs[1] = _with_payload(jobs[1], jobs[2].answers.payloads[0])
    messages = []
    for parts in (convert_pieces(jobs), [convert_piece(job) for job in jobs]):
        chunk = ChunkJob(
            shard=0,
            first=100,
            last=129,
            parts=parts,
            per_block=frozenset({"blocks"}),
            cache=None,
            chain_id="",
        )
        with pytest.raises(ResponseShapeError) as failed:
            assemble_chunk(chunk)
        messages.append(str(failed.value))
    assert messages[0] == messages[1]
    assert "missing [110, 111" in messages[0]
