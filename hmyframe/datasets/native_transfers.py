"""``native_transfers``: every movement of ONE on a shard, top-level and internal.

What explorers call internal transactions: each frame of a transaction's call tree that moved
value and took effect (neither it nor any frame above it failed: a reverted frame undoes its
children), calls, creations (value sent to the new contract) and self-destructs (the balance
sent to the refund address), with the transaction's Harmony hash. A plain transfer is its own
root frame. A cross-shard send leaves the shard at the send (``kind`` ``"cross_shard"``, the
receiver on ``to_shard_id``); its credit on the destination shard is not a row of this shard's
data. Fees are not transfers (see ``receipts``: ``gas_used x gas_price``).

Built from the ``transactions`` and ``traces`` tables of a block range (both cached):
``build((transactions, traces), ctx)``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from hmyframe.errors import ResponseShapeError

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._convert import one_float_array
from ._decode import decode_json

NAME = "native_transfers"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("shard_id"),
        column("transaction_hash", pa.string(), "Harmony hash of the transaction that moved the value."),
        column(
            "trace_address",
            pa.string(),
            "Path of the frame in the call tree ('' for the root); null for a cross-shard send.",
        ),
        column("kind", pa.string(), '"call", "create", "suicide" or "cross_shard".'),
        column("from_address", pa.string(), "Payer, one1 bech32."),
        column("from_address_hex", pa.string(), "Payer, lower-case 0x hex."),
        column("to_address", pa.string(), "Receiver, one1 bech32."),
        column("to_address_hex", pa.string(), "Receiver, lower-case 0x hex."),
        column(
            "to_shard_id", pa.int32(), "Shard of the receiver (differs from shard_id for a cross-shard send)."
        ),
        column("value", AMOUNT, "Value moved in atto, exact."),
        one_column("value", "Value moved in ONE as float64 (convenience)."),
    ]
)


def _effective(paths: list[str], errors: list[Any]) -> list[bool]:
    """Per frame of one transaction: no error on it or on a frame above it."""
    failed = [p for p, e in zip(paths, errors, strict=True) if e is not None]
    out = []
    for p, e in zip(paths, errors, strict=True):
        if e is not None:
            out.append(False)
            continue
        out.append(not any(f == "" or p.startswith(f + ",") for f in failed))
    return out


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from ``(transactions, traces)`` tables of one shard and range."""
    if not (isinstance(decoded, tuple) and len(decoded) == 2):
        raise ResponseShapeError(NAME, "input", decoded, "(transactions table, traces table)")
    txs, traces = decoded
    cross = {
        h: row
        for h, *row in zip(
            *(txs[c].to_pylist() for c in ("transaction_hash", "block_number", "from_address", "from_address_hex",
                                            "to_address", "to_address_hex", "to_shard_id", "value", "is_cross_shard")),
            strict=True,
        )
        if row[-1]
    }  # fmt: skip
    cols = [
        "block_number", "transaction_hash", "trace_address", "type", "from_address", "from_address_hex",
        "to_address", "to_address_hex", "value", "error",
    ]  # fmt: skip
    t = {c: traces[c].to_pylist() for c in cols}
    by_tx: dict[str, list[int]] = {}
    for i, h in enumerate(t["transaction_hash"]):
        by_tx.setdefault(h, []).append(i)
    out: dict[str, list[Any]] = {name: [] for name in SCHEMA.names if name != "value_one"}
    for h, rows in by_tx.items():
        if h in cross:
            continue
        ok = _effective([t["trace_address"][i] or "" for i in rows], [t["error"][i] for i in rows])
        for i, good in zip(rows, ok, strict=True):
            value = t["value"][i]
            if not good or not value or t["from_address_hex"][i] == t["to_address_hex"][i]:
                continue
            out["block_number"].append(t["block_number"][i])
            out["shard_id"].append(ctx.shard_id)
            out["transaction_hash"].append(h)
            out["trace_address"].append(t["trace_address"][i] or "")
            out["kind"].append(t["type"][i])
            for c in ("from_address", "from_address_hex", "to_address", "to_address_hex"):
                out[c].append(t[c][i])
            out["to_shard_id"].append(ctx.shard_id)
            out["value"].append(int(value))
    for h, (n, fa, fh, ta, th, to_shard, value, _) in cross.items():
        if not value:
            continue
        for c, v in zip(
            SCHEMA.names,
            (n, ctx.shard_id, h, None, "cross_shard", fa, fh, ta, th, to_shard, int(value)),
            strict=False,
        ):
            out[c].append(v)
    order = sorted(
        range(len(out["block_number"])),
        key=lambda k: (out["block_number"][k], out["transaction_hash"][k], out["trace_address"][k] or ""),
    )
    sorted_out = {c: [v[k] for k in order] for c, v in out.items()}
    return {
        "block_number": pa.array(sorted_out["block_number"], type=pa.int64()),
        "shard_id": pa.array(sorted_out["shard_id"], type=pa.int32()),
        "transaction_hash": pa.array(sorted_out["transaction_hash"], type=pa.string()),
        "trace_address": pa.array(sorted_out["trace_address"], type=pa.string()),
        "kind": pa.array(sorted_out["kind"], type=pa.string()),
        "from_address": pa.array(sorted_out["from_address"], type=pa.string()),
        "from_address_hex": pa.array(sorted_out["from_address_hex"], type=pa.string()),
        "to_address": pa.array(sorted_out["to_address"], type=pa.string()),
        "to_address_hex": pa.array(sorted_out["to_address_hex"], type=pa.string()),
        "to_shard_id": pa.array(sorted_out["to_shard_id"], type=pa.int32()),
        "value": pa.array(sorted_out["value"], type=AMOUNT),
        "value_one": one_float_array(sorted_out["value"]),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per movement of ONE: top-level, internal (calls, creations, self-destructs) and cross-shard sends.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_hash", "trace_address"),
    source="native_transfers",
    methods=("trace_block", "hmy(v2)_getBlocks"),
    builder=build,
    decoder=decode_json,
    summary="Every movement of ONE in a block range, top-level and internal, with the transaction's Harmony hash.",
    notes=(
        "Derived from the cached ``transactions`` and ``traces`` of the range (a trace endpoint "
        "is needed). A frame counts when it and every frame above it succeeded."
    ),
)
