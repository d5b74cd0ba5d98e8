"""The Arrow types every dataset shares: exact amounts and block times.

Both the column declarations (:mod:`._base`) and the column builders (:mod:`._convert`) use
them, so they live here, below both.
"""

from __future__ import annotations

import pyarrow as pa

__all__ = ["AMOUNT", "TIMESTAMP"]

#: Exact atto amounts, stakes, gas prices and rewards (38 digits: total supply is ~29).
AMOUNT = pa.decimal128(38, 0)
#: Block time; Parquet keeps milliseconds unchanged.
TIMESTAMP = pa.timestamp("ms", tz="UTC")
