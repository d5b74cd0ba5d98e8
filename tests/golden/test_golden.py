"""Golden files: today's exported Parquet files, pinned so speed work can prove it changed nothing.

The node's answers for one export (every range dataset of shard 0 in three chunks, and a
validator snapshot; see ``_golden.py``) were recorded once from the devnet by ``record.py`` into
``answers.json.gz``. The test replays them over real HTTP on 127.0.0.1 (an aiohttp server
answering each call, batches included, with its recorded answer), runs the normal export and
compares every written file with ``digests.json``.

What a digest covers (``_golden.digest``): every byte of the file before its footer (the data
pages: page headers with encodings and statistics, compressed values in row order), the Arrow
schema with field metadata, and the footer's row-group layout (rows per group; per column chunk
its physical and logical type, encodings, codec, value count, sizes, offsets and statistics).
What it leaves out, deterministically: the footer's key-value metadata as a whole (the
``pandas`` record, which changes with its builder; the ``hmyframe:*`` integrity record and
provenance such as fetch time and endpoint, which vary by run) and ``created_by``. So a changed
value, type, encoding, compression, row-group split or row order fails the test (the perturbation
tests below prove each), and new metadata does not.

The files are those of the pyarrow this environment pins; a pyarrow upgrade that writes pages
differently is a legitimate re-recording (run ``record.py`` and say why in the commit).
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from _golden import (
    ANSWERS,
    DIGESTS,
    RANGE_DATASETS,
    SNAPSHOT_DATASETS,
    Replay,
    digest,
    digests,
    export_golden,
    load_answers,
    serve,
)


async def _export(out: Path) -> Replay:
    replay = Replay(load_answers())

    async def handle(body: bytes) -> bytes:
        return replay.answer(body)

    async with serve(handle) as url:
        await export_golden(url, url, out)
    return replay


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import asyncio

    out = tmp_path_factory.mktemp("golden")
    replay = asyncio.run(_export(out))
    assert replay.misses == [], f"calls without a recorded answer: {replay.misses[:3]}"
    assert replay.batches > 0  # the export's batches (trace_block) were answered call by call
    return out


def test_fixtures_are_small() -> None:
    assert ANSWERS.stat().st_size + DIGESTS.stat().st_size < 1_000_000


def test_every_dataset_is_pinned() -> None:
    expected = json.loads(DIGESTS.read_text())
    seen = {path.split("/")[-3] for path in expected}
    assert seen >= {*RANGE_DATASETS, *SNAPSHOT_DATASETS}
    # a few chunks of each range dataset
    for name in RANGE_DATASETS:
        assert sum(1 for p in expected if p.split("/")[-3] == name) >= 3, name


def test_export_writes_the_golden_files(exported: Path) -> None:
    expected = json.loads(DIGESTS.read_text())
    actual = digests(exported)
    assert sorted(actual) == sorted(expected), "a different set of files was written"
    changed = [path for path in expected if actual[path] != expected[path]]
    assert changed == [], f"files whose content changed: {changed}"


# --------------------------------------------------------------------------- the digest itself


def _largest(exported: Path, dataset: str) -> Path:
    files = [p for p in exported.rglob("*.parquet") if p.parent.parent.name == dataset]
    return max(files, key=lambda p: pq.ParquetFile(p).metadata.num_rows)


def _rewrite(source: Path, target: Path, table: pa.Table | None = None, **options: object) -> Path:
    """Write ``table`` (default: the file's own) as hmyframe writes a file (zstd), or with ``options``."""
    original = pq.read_table(source)
    kwargs = {"compression": "zstd", **options}
    pq.write_table(original if table is None else table, target, **kwargs)  # type: ignore[arg-type]
    return target


@pytest.fixture(scope="module")
def sample(exported: Path) -> Path:
    return _largest(exported, "transactions")


def test_digest_ignores_key_value_metadata(sample: Path, tmp_path: Path) -> None:
    table = pq.read_table(sample)
    same = _rewrite(sample, tmp_path / "same.parquet")
    assert digest(same) == digest(sample)  # a plain rewrite reproduces the file's pages
    meta = {**(table.schema.metadata or {}), b"hmyframe:fetched": b"2026-11-26T08:00:00Z", b"pandas": b"{}"}
    other = _rewrite(sample, tmp_path / "meta.parquet", table.replace_schema_metadata(meta))
    assert digest(other) == digest(sample)


def _one_value_changed(table: pa.Table) -> pa.Table:
    i = table.schema.get_field_index("nonce")
    column = table.column(i).to_pylist()
    column[0] = column[0] + 1
    return table.set_column(i, table.field(i), pa.array(column, table.field(i).type))


def _type_changed(table: pa.Table) -> pa.Table:
    i = table.schema.get_field_index("nonce")
    field = table.field(i)
    # int64 -> uint64: the same values in the same 8-byte physical type, only the logical type differs
    return table.set_column(i, field.with_type(pa.uint64()), pc.cast(table.column(i), pa.uint64()))


def _rows_reversed(table: pa.Table) -> pa.Table:
    return table.take(pa.array(range(table.num_rows - 1, -1, -1)))


@pytest.mark.parametrize(
    ("change", "options"),
    [
        (_one_value_changed, {}),
        (_type_changed, {}),
        (_rows_reversed, {}),
        (None, {"compression": "snappy"}),
        (None, {"use_dictionary": False}),
        (None, {"column_encoding": {"transaction_hash": "DELTA_BYTE_ARRAY"}, "use_dictionary": False}),
        (None, {"row_group_size": 7}),
        (None, {"write_statistics": False}),
    ],
    ids=["value", "type", "row-order", "compression", "dictionary", "encoding", "row-groups", "statistics"],
)
def test_digest_sees_every_change(
    sample: Path, tmp_path: Path, change: object, options: dict[str, object]
) -> None:
    table = pq.read_table(sample)
    assert table.num_rows > 7
    assert table.column("nonce").type == pa.int64()
    changed = table if change is None else change(table)  # type: ignore[operator]
    perturbed = _rewrite(sample, tmp_path / "perturbed.parquet", changed, **options)
    assert digest(perturbed) != digest(sample)


def test_a_changed_answer_changes_only_its_files(tmp_path: Path) -> None:
    """End to end: one transaction's value one atto higher in the node's answer changes the
    transactions file of its chunk and no file of another chunk."""
    import asyncio

    answers = load_answers()
    key = next(k for k in sorted(answers) if k.startswith('["hmyv2_getBlocks",[40,'))
    kind, raw = answers[key]
    blocks = json.loads(raw)
    tx = next(t for b in blocks for t in b["transactions"] if t["value"] > 0)
    tx["value"] += 1
    answers[key] = [kind, json.dumps(blocks, separators=(",", ":"))]
    replay = Replay(answers)

    async def run() -> None:
        async def handle(body: bytes) -> bytes:
            return replay.answer(body)

        async with serve(handle) as url:
            await export_golden(url, url, tmp_path)

    asyncio.run(run())
    expected = json.loads(DIGESTS.read_text())
    changed = sorted(p for p, d in digests(tmp_path).items() if expected[p] != d)
    assert any(p.endswith("transactions__0000000040_0000000059.parquet") for p in changed), changed
    assert all("0000000040_0000000059" in p for p in changed), changed
