"""Shared by ``record.py`` and ``test_golden.py``: the recorded answers, the replay server, the
export that writes the golden files and the digest of a Parquet file.

Answers are keyed by the call, not by the request body: ``(method, params)`` re-encoded with
msgspec. Request ids and the way calls are grouped into batches depend on the client's
concurrency (which chunk asks first), so whole request bodies do not repeat from one run to the
next; each call's answer does. The replay server answers a batch with the recorded answer of
each of its calls, in order, under the ids the request carried. An answer is stored as the exact
JSON text the node sent for ``result`` (or ``error``), so the bytes hmyframe decodes are the
node's bytes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import pyarrow.parquet as pq
from aiohttp import web

from hmyframe.datasets import sources

HERE = Path(__file__).resolve().parent
ANSWERS = HERE / "answers.json.gz"
DIGESTS = HERE / "digests.json"

#: The recorded devnet: 2 shards (so transactions include cross-shard ones), a small validator
#: set (one small snapshot page), the validator limiter off.
DEVNET = {"shards": 2, "blocks": 200, "seed": 17, "validators": 24, "validator_rate_limit": False}
#: What is exported (shard 0): every range dataset in three chunks, and a validator snapshot.
#: Taken from the registry, so a new range dataset fails the test until its answers are
#: recorded (``record.py --keep``).
RANGE_DATASETS = tuple(sources.RANGE_DATASETS)
SNAPSHOT_DATASETS = tuple(sources.SNAPSHOT_DATASETS)
START, END, CHUNK, SNAPSHOT_BLOCK = 40, 99, 20, 120


class _Call(msgspec.Struct):
    id: msgspec.Raw = msgspec.Raw(b"null")
    method: Any = None
    params: Any = None


class _Answer(msgspec.Struct):
    id: msgspec.Raw = msgspec.Raw(b"null")
    result: msgspec.Raw = msgspec.Raw(b"")
    error: msgspec.Raw = msgspec.Raw(b"")


_CALLS = msgspec.json.Decoder(list[_Call] | _Call)
_ANSWERS = msgspec.json.Decoder(list[_Answer] | _Answer)
_KEY = msgspec.json.Encoder()


def call_key(method: Any, params: Any) -> str:
    """The key of one call: ``[method, params]`` as compact JSON."""
    return _KEY.encode([method, params]).decode()


def load_answers(path: Path = ANSWERS) -> dict[str, list[str]]:
    """Recorded answers: call key -> ``["result" | "error", raw JSON text]``."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        answers: dict[str, list[str]] = json.load(fh)
    return answers


def save_answers(answers: dict[str, list[str]], path: Path = ANSWERS) -> None:
    """Write the answers sorted by key (a re-recording of the same chain gives the same file)."""
    text = json.dumps(dict(sorted(answers.items())), separators=(",", ":"))
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as fh:
        fh.write(text.encode())


@dataclass
class Replay:
    """Answers recorded calls; notes the calls it had no answer for and the batches it served."""

    answers: dict[str, list[str]]
    misses: list[str] = field(default_factory=list)
    batches: int = 0

    def answer(self, body: bytes) -> bytes:
        calls = _CALLS.decode(body)
        many = isinstance(calls, list)
        self.batches += many
        out = [self._one(c) for c in (calls if isinstance(calls, list) else [calls])]
        return b"[" + b",".join(out) + b"]" if many else out[0]

    def _one(self, call: _Call) -> bytes:
        key = call_key(call.method, call.params)
        found = self.answers.get(key)
        if found is None:
            self.misses.append(key)
            kind, raw = "error", '{"code":-32000,"message":"not recorded"}'
        else:
            kind, raw = found
        return (
            b'{"jsonrpc":"2.0","id":' + bytes(call.id) + b',"' + kind.encode() + b'":' + raw.encode() + b"}"
        )


@asynccontextmanager
async def serve(handle: Callable[[bytes], Any]) -> AsyncIterator[str]:
    """An aiohttp server on 127.0.0.1 (ephemeral port) answering each POST body with
    ``await handle(body)``; yields its URL."""

    async def post(request: web.Request) -> web.Response:
        answer = await handle(await request.read())
        return web.Response(body=answer, content_type="application/json")

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/", post)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        await runner.cleanup()


def record_answers(body: bytes, answer: bytes, into: dict[str, list[str]]) -> None:
    """File the answers to one request body (single call or batch) under their calls' keys."""
    calls = _CALLS.decode(body)
    answers = _ANSWERS.decode(answer)
    calls_l = calls if isinstance(calls, list) else [calls]
    answers_l = answers if isinstance(answers, list) else [answers]
    by_id = {bytes(a.id): a for a in answers_l}
    for call in calls_l:
        got = by_id[bytes(call.id)]
        if len(got.result):
            into[call_key(call.method, call.params)] = ["result", bytes(got.result).decode()]
        elif len(got.error):
            into[call_key(call.method, call.params)] = ["error", bytes(got.error).decode()]


async def export_golden(rpc: str, trace_rpc: str, out: Path) -> None:
    """The export the fixtures pin: every range dataset of shard 0, blocks START..END in chunks
    of CHUNK, and a validator snapshot at SNAPSHOT_BLOCK, written to ``out`` (the cache layout)."""
    from hmyframe.aio import export
    from hmyframe.engine import FetchOptions

    await export(
        [*RANGE_DATASETS, *SNAPSHOT_DATASETS],
        START,
        END,
        shard=0,
        block=SNAPSHOT_BLOCK,
        rpc=rpc,
        trace_rpc=trace_rpc,
        out=out,
        options=FetchOptions(chunk_size=CHUNK),
    )


def parquet_files(root: Path) -> Iterator[Path]:
    """Every Parquet file under ``root``, in path order."""
    yield from sorted(p for p in root.rglob("*.parquet") if p.is_file())


def digest(path: Path) -> str:
    """SHA-256 of what a Parquet file holds, without its footer's key-value metadata.

    Covered: every byte before the footer (each column chunk's pages: page headers with their
    encodings and statistics, the compressed values in row order), the Arrow schema with each
    field's metadata (types, nullability, ``hmyframe.dtype``) and the row-group layout from the
    footer (rows per group; per column chunk its path, physical and logical type, encodings,
    codec, value count, sizes, offsets and statistics). Left out: the footer's key-value
    metadata (the ``pandas`` and ``hmyframe:*`` records, provenance) and ``created_by``.
    """
    data = path.read_bytes()
    footer_len = int.from_bytes(data[-8:-4], "little")
    pages_end = len(data) - 8 - footer_len
    meta = pq.ParquetFile(path).metadata
    schema = pq.read_schema(path).with_metadata({})
    h = hashlib.sha256()
    h.update(data[:pages_end])
    h.update(schema.to_string(show_field_metadata=True, show_schema_metadata=False).encode())
    h.update(str(meta.schema).split("\n", 1)[1].encode())  # the Parquet schema (first line: object id)
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        h.update(f"group {g}: {group.num_rows} rows, {group.total_byte_size} bytes\n".encode())
        for c in range(group.num_columns):
            col = group.column(c)
            stats = col.statistics.to_dict() if col.is_stats_set and col.statistics is not None else None
            h.update(
                repr(
                    (
                        col.path_in_schema,
                        col.physical_type,
                        col.encodings,
                        col.compression,
                        col.num_values,
                        col.total_compressed_size,
                        col.total_uncompressed_size,
                        col.data_page_offset,
                        col.dictionary_page_offset,
                        stats,
                    )
                ).encode()
            )
    return h.hexdigest()


def digests(root: Path) -> dict[str, str]:
    """Digest of every Parquet file under ``root``, by its POSIX path relative to ``root``."""
    return {p.relative_to(root).as_posix(): digest(p) for p in parquet_files(root)}
