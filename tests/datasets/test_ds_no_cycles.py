"""Conversion leaves no reference cycle behind: what it decoded is freed as soon as it returns.

Conversion pauses the cyclic garbage collector (``hmyframe.datasets.gc_paused``), and the decoded
structs are not tracked by it, so a cycle reaching them (a row collection whose error namer
refers back to it, say) kept every decoded transaction of every piece alive until a collection
happened to run: a busy export's peak grew by ~13 MB a piece (``bench/export_memory.py``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from ds_helpers import as_bytes, consumed, token_logs

from hmyframe.datasets import DATASETS, ConvertContext

CTX = ConvertContext(shard_id=0, block_numbers=[2])


@pytest.fixture
def saved_garbage() -> Iterator[list[object]]:
    """Unreachable objects of what runs from here are kept in the list, not freed."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


@pytest.mark.parametrize(
    "name", ["blocks", "transactions", "staking_transactions", "traces", "receipts", "logs"]
)
def test_converting_the_samples_leaves_no_cycle(name: str, saved_garbage: list[object]) -> None:
    payloads = [s.payload for s, names in consumed() if name in names]
    if name == "logs":  # (the one recorded getLogs sample is not JSON)
        payloads.append(as_bytes(token_logs()))
    assert payloads
    DATASETS[name].convert(payloads, CTX)  # (its modules imported: classes are cycles)
    gc.collect()
    saved_garbage.clear()
    table = DATASETS[name].convert(payloads, CTX)
    assert table.num_rows > 0
    gc.collect()
    ours = [o for o in saved_garbage if type(o).__module__.startswith(("hmyframe", "msgspec"))]
    assert not ours, sorted({type(o).__name__ for o in ours})
