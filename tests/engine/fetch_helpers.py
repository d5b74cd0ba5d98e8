"""Ground truth from a devnet :class:`~hmyframe.devnet.Chain`, in the shape the fetched tables take.

Everything exact stays exact here: sums are ``int`` (or ``Decimal`` for the fetched side, compared
as ``int``), never floats.
"""

from __future__ import annotations

from collections import Counter
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any

import pandas as pd

from hmyframe.devnet import Chain
from hmyframe.devnet.model import Block, Transaction, flatten_trace
from hmyframe.rpc import RetryPolicy

#: A retry policy that never sleeps (fault-injection tests).
NO_WAIT = RetryPolicy(attempts=12, backoff_base=0, jitter=False, honour_retry_after=False)


def exact_sum(series: pd.Series) -> int:
    """Sum of a decimal/int column as an exact ``int`` (nulls skipped); refuses floats."""
    total = Decimal(0)
    for value in series.dropna().tolist():
        assert not isinstance(value, float), f"float in an exact column: {value!r}"
        total += Decimal(value)
    assert total == total.to_integral_value(), total
    return int(total)


def atto(value: Decimal) -> int:
    """A node ``numeric.Dec`` rounded to the atto as the datasets do (half to even)."""
    return int(value.to_integral_value(rounding=ROUND_HALF_EVEN))


def blocks(chain: Chain, shard: int, start: int, end: int) -> list[Block]:
    return list(chain.iter_blocks(shard, start, end))


def transactions(chain: Chain, shard: int, start: int, end: int) -> list[Transaction]:
    return list(chain.iter_transactions(shard, start, end))


def trace_rows(chain: Chain, shard: int, start: int, end: int) -> list[dict[str, Any]]:
    """One dict per trace row the node lists for blocks ``start..end`` (depth-first per tx)."""
    rows: list[dict[str, Any]] = []
    for tx in transactions(chain, shard, start, end):
        if tx.trace is None:
            continue
        for i, (address, frame) in enumerate(flatten_trace(tx.trace)):
            rows.append(
                {
                    "block_number": tx.block_number,
                    "transaction_hash": tx.hash,
                    "transaction_position": tx.index,
                    "trace_index": i,
                    "trace_address": ",".join(str(a) for a in address),
                    "type": frame.type,
                    "value": frame.value,
                    "gas_used": frame.gas_used,
                    "error": frame.error,
                }
            )
    return rows


def signer_pairs(chain: Chain, shard: int, start: int, end: int) -> set[tuple[int, str]]:
    out: set[tuple[int, str]] = set()
    for number in range(start, end + 1):
        signers = chain.signers(shard, number)
        assert signers is not None
        out |= {(number, a.lower()) for a in signers}
    return out


def counter(values: Any) -> Counter[Any]:
    return Counter(values)


def parquet_files(root: Path) -> list[Path]:
    """Every visible Parquet file under ``root``, sorted."""
    return sorted(p for p in root.rglob("*.parquet") if not p.name.startswith("."))


def hidden_files(root: Path) -> list[Path]:
    """Leftover temporary files (``.name.pid.tmp``) under ``root``."""
    return sorted(p for p in root.rglob(".*") if p.is_file())


def values(series: pd.Series) -> list[Any]:
    """The column as a list with ``None`` for nulls (``pd.NA`` does not compare equal to None)."""
    return [None if v is pd.NA or v is None else v for v in series.tolist()]


def die_in_worker(answers: Any) -> Any:
    """A range-source transform that kills the conversion worker process running it."""
    import os

    os._exit(3)
