"""``block_slice``: a chunk's rows of some blocks as a zero-copy slice, the same rows as ``rows_between``."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hmyframe._spans import block_slice, rows_between

NUMBERS = [3, 3, 4, 6, 6, 6, 9]


def _table(numbers: list[int | None]) -> pa.Table:
    return pa.table(
        {"block_number": pa.array(numbers, pa.int64()), "x": [str(i) for i in range(len(numbers))]}
    )


@pytest.mark.parametrize(("lo", "hi"), [(3, 9), (4, 6), (5, 5), (6, 6), (0, 2), (10, 12), (0, 100), (7, 9)])
def test_the_rows_of_a_table_in_block_order_are_a_slice_of_it(lo: int, hi: int) -> None:
    table = _table(NUMBERS)  # type: ignore[arg-type]
    got = block_slice(table, lo, hi)
    assert got.equals(rows_between(table, lo, hi))
    if got.num_rows:  # the same bytes: no copy
        data = table["x"].chunks[0].buffers()[2]
        assert got["x"].chunks[0].buffers()[2].address == data.address


@pytest.mark.parametrize("numbers", [[3, 6, 4, 9], [3, None, 4, 9]])
def test_a_table_out_of_block_order_or_with_a_null_block_is_filtered(numbers: list[int | None]) -> None:
    table = _table(numbers)
    assert block_slice(table, 4, 6).equals(rows_between(table, 4, 6))
    assert block_slice(table, 4, 6)["block_number"].to_pylist() == [n for n in numbers if n in (4, 5, 6)]
