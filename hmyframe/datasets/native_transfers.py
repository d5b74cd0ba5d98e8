"""``native_transfers``: every movement of ONE on a shard, top-level, internal and cross-shard.

What explorers call internal transactions: each frame of a transaction's call tree that moved
value and took effect (neither it nor any frame above it failed: a reverted frame undoes its
children), calls, creations (value sent to the new contract) and self-destructs (the balance
sent to the refund address), with the transaction's Harmony hash. A plain transfer is its own
root frame. Cross-shard transfers are two rows, one on each shard's data: the send leaves the
source shard in the sending block (``kind`` ``"cross_shard_out"``, the receiver's shard in
``to_shard_id``), and the receipt credits the receiver on the destination shard in the block
that processed it (``"cross_shard_in"``, the sender's shard in ``from_shard_id``; the source
transaction's hash). So a shard's rows explain every ONE that entered or left an address there
but fees (``receipts``: ``gas_used x gas_price``) and staking (``staking_transactions``,
``rewards_collected``, undelegations paid at an epoch's end).

Built from the ``transactions`` and ``traces`` tables of a block range of one shard (both
cached) and the ``cx_receipts`` that shard's blocks of the range credited (``getCXReceiptByHash``
answers, asked of the destination shard, give the crediting block):
``build((transactions, traces[, cx_receipts]), ctx)``.
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
            "Path of the frame in the call tree ('' for the root); null for a cross-shard row.",
        ),
        column(
            "kind",
            pa.string(),
            '"call", "create", "suicide", "cross_shard_out" (a send to another shard) or '
            '"cross_shard_in" (a receipt from another shard credited here).',
        ),
        column("from_address", pa.string(), "Payer, one1 bech32."),
        column("from_address_hex", pa.string(), "Payer, lower-case 0x hex."),
        column("to_address", pa.string(), "Receiver, one1 bech32."),
        column("to_address_hex", pa.string(), "Receiver, lower-case 0x hex."),
        column(
            "from_shard_id", pa.int32(), "Shard of the payer (differs from shard_id for a cross_shard_in)."
        ),
        column(
            "to_shard_id", pa.int32(), "Shard of the receiver (differs from shard_id for a cross_shard_out)."
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
    """Columns of :data:`SCHEMA` from ``(transactions, traces[, cx_receipts])`` of one shard and range."""
    if not (isinstance(decoded, tuple) and len(decoded) in (2, 3)):
        raise ResponseShapeError(NAME, "input", decoded, "(transactions, traces[, cx_receipts]) tables")
    txs, traces = decoded[0], decoded[1]
    incoming = decoded[2] if len(decoded) == 3 else None
    here = ctx.shard_id
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

    def row(*values: Any) -> None:
        for c, v in zip(out, values, strict=True):
            out[c].append(v)

    for h, rows in by_tx.items():
        if h in cross:
            continue
        ok = _effective([t["trace_address"][i] or "" for i in rows], [t["error"][i] for i in rows])
        for i, good in zip(rows, ok, strict=True):
            value = t["value"][i]
            if not good or not value or t["from_address_hex"][i] == t["to_address_hex"][i]:
                continue
            row(
                t["block_number"][i], here, h, t["trace_address"][i] or "", t["type"][i],
                t["from_address"][i], t["from_address_hex"][i], t["to_address"][i], t["to_address_hex"][i],
                here, here, int(value),
            )  # fmt: skip
    for h, (n, fa, fh, ta, th, to_shard, value, _) in cross.items():
        if value:
            row(n, here, h, None, "cross_shard_out", fa, fh, ta, th, here, to_shard, int(value))
    if incoming is not None:
        for n, h, src, fa, fh, ta, th, value in zip(
            *(incoming[c].to_pylist() for c in ("block_number", "transaction_hash", "shard_id", "from_address",
                                                 "from_address_hex", "to_address", "to_address_hex", "amount")),
            strict=True,
        ):  # fmt: skip
            if value:
                row(n, here, h, None, "cross_shard_in", fa, fh, ta, th, src, here, int(value))
    order = sorted(
        range(len(out["block_number"])),
        key=lambda k: (out["block_number"][k], out["transaction_hash"][k], out["trace_address"][k] or ""),
    )
    s = {c: [v[k] for k in order] for c, v in out.items()}
    strings = ("transaction_hash", "trace_address", "kind", "from_address", "from_address_hex", "to_address",
               "to_address_hex")  # fmt: skip
    columns: dict[str, pa.Array] = {"block_number": pa.array(s["block_number"], type=pa.int64())}
    for c in ("shard_id", "from_shard_id", "to_shard_id"):
        columns[c] = pa.array(s[c], type=pa.int32())
    for c in strings:
        columns[c] = pa.array(s[c], type=pa.string())
    columns["value"] = pa.array(s["value"], type=AMOUNT)
    columns["value_one"] = one_float_array(s["value"])
    return {name: columns[name] for name in SCHEMA.names}


DATASET = Dataset(
    name=NAME,
    description="One row per movement of ONE: top-level, internal (calls, creations, self-destructs), cross-shard sends and receipts.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_hash", "trace_address"),
    source="native_transfers",
    methods=("trace_block", "hmy(v2)_getBlocks", "hmy(v2)_getCXReceiptByHash"),
    builder=build,
    decoder=decode_json,
    summary="Every movement of ONE in a block range, top-level and internal, with the transaction's Harmony hash.",
    notes=(
        "Derived from the cached ``transactions`` and ``traces`` of the range (a trace endpoint "
        "is needed). A frame counts when it and every frame above it succeeded. Receipts credited "
        "here (``cross_shard_in``) are found from the other shards' cross-shard sends of the same "
        "time window (back ``cx_window`` seconds), each asked of this shard with "
        "``getCXReceiptByHash`` (which names the block that credited it). Not cached itself: it "
        "is re-derived from cached data, so a second read sends only the receipt lookups."
    ),
)
