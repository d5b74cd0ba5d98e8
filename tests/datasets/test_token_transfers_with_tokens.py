"""token_transfers joined with token metadata: names, symbols, decimals and the scaled amount."""

from __future__ import annotations

from fractions import Fraction

import pyarrow as pa

from hmyframe import datasets as ds
from hmyframe.amounts import UINT256_MAX, to_units
from hmyframe.datasets import token_transfers as tt

SIX = "0x" + "6" * 40
EIGHTEEN = "0x" + "1" * 40
UNKNOWN = "0x" + "9" * 40


def _transfers(rows: list[tuple[int, str, int]]) -> pa.Table:
    return pa.Table.from_pylist(
        [{"shard_id": s, "token_address_hex": a, "amount": str(n), "standard": "hrc20"} for s, a, n in rows],
        schema=ds.get("token_transfers").schema,
    )


def _tokens(rows: list[tuple[int, str, int, str | None, str | None, int | None]]) -> pa.Table:
    names = ("shard_id", "address_hex", "block_number", "name", "symbol", "decimals")
    types = (pa.int32(), pa.string(), pa.int64(), pa.string(), pa.string(), pa.int32())
    return pa.table(
        {n: pa.array([r[i] for r in rows], type=t) for i, (n, t) in enumerate(zip(names, types, strict=True))}
    )


def test_scaled_amounts_are_correctly_rounded_at_any_size() -> None:
    amounts = [0, 1, 1_500_000, 10**38 + 1, UINT256_MAX]
    transfers = _transfers(
        [(0, SIX, n) for n in amounts] + [(0, EIGHTEEN, n) for n in amounts] + [(0, UNKNOWN, 5), (1, SIX, 7)]
    )
    tokens = _tokens(
        [
            (0, SIX, 10, "Old", "OLD", 9),
            (0, SIX.upper().replace("0X", "0x"), 99, "Six", "SIX", 6),  # the later read wins
            (0, EIGHTEEN, 99, None, "EIGHT", 18),
        ]
    )
    out = tt.with_tokens(transfers, tokens)
    assert out.schema.names == [*transfers.schema.names, *tt.TOKEN_COLUMNS.names]
    assert out.schema.field("amount_scaled").type == pa.float64()
    scaled = out["amount_scaled"].to_pylist()
    for i, n in enumerate(amounts):
        assert scaled[i] == float(Fraction(n, 10**6))
        assert scaled[len(amounts) + i] == float(Fraction(n, 10**18))
    assert scaled[2] == 1.5
    assert out["token_symbol"].to_pylist()[: 2 * len(amounts)] == ["SIX"] * 5 + ["EIGHT"] * 5
    assert out["token_name"].to_pylist()[len(amounts)] is None  # a token whose name() gave nothing
    # a token not read, and the same address on another shard (another contract): nulls
    for column in tt.TOKEN_COLUMNS.names:
        assert out[column].to_pylist()[-2:] == [None, None]
    # the same as hmyframe.to_units(..., exact=False), and exact through to_units
    frame = ds.to_pandas(out)
    assert (
        frame["amount_scaled"].iloc[:10].tolist()
        == to_units(
            frame["amount"].iloc[:10], frame["token_decimals"].iloc[:10].tolist(), exact=False
        ).tolist()
    )
    exact = to_units(frame["amount"].iloc[:10], frame["token_decimals"].iloc[:10].tolist())
    assert Fraction(exact.iloc[4]) * 10**6 == UINT256_MAX  # every digit kept
    assert str(exact.iloc[3]) == "100000000000000000000000000000000.000001"


def test_no_tokens_gives_null_columns() -> None:
    out = tt.with_tokens(_transfers([(0, SIX, 3)]), _tokens([]))
    assert [out[c].null_count for c in tt.TOKEN_COLUMNS.names] == [1, 1, 1, 1]
