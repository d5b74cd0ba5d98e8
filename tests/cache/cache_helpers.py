"""A small stand-in dataset for the cache tests: block numbers and exact values."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

CHAIN = "0123456789abcdef"


@dataclass(frozen=True)
class FakeDataset:
    name: str
    schema: pa.Schema
    fingerprint: str


SCHEMA = pa.schema([pa.field("block_number", pa.int64()), pa.field("value", pa.decimal128(38, 0))])
DS = FakeDataset("transactions", SCHEMA, "fp-1")


def rows(start: int, end: int, per_block: int = 2) -> pa.Table:
    """``per_block`` rows for each block of ``start..end``, values above 10**25."""
    numbers = [b for b in range(start, end + 1) for _ in range(per_block)]
    return pa.table(
        {
            "block_number": pa.array(numbers, pa.int64()),
            "value": pa.array([10**25 + n for n in numbers], pa.decimal128(38, 0)),
        },
        schema=SCHEMA,
    )
