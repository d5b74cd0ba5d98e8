"""The smallest ``logs`` table the decoders read (the columns :func:`hmyframe.abi.decode_logs`
uses, in the logs dataset's types), built from plain rows: shared by the ABI tests."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

LOGS_SCHEMA = pa.schema(
    [
        ("block_number", pa.int64()),
        ("transaction_hash", pa.string()),
        ("log_index", pa.int64()),
        ("address", pa.string()),
        ("address_hex", pa.string()),
        *((f"topic{k}", pa.string()) for k in range(4)),
        ("topic_count", pa.int64()),
        ("data", pa.string()),
    ]
)


def logs_table(rows: list[dict[str, Any]]) -> pa.Table:
    """``rows`` (dicts of :data:`LOGS_SCHEMA`'s columns) as an Arrow logs table."""
    return pa.Table.from_pylist(rows, schema=LOGS_SCHEMA)
