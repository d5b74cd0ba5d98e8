"""``traces``: one row per Parity-style execution trace (call, create, suicide)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import constant
from ._convert import (
    Where,
    address_arrays,
    amount_array,
    hash_array,
    hex_data_array,
    int_array,
    one_float_array,
    parse_ints,
    string_array,
)
from ._decode import DecodedTraces, Trace, TraceAction, TraceResult, decode_traces, require

NAME = "traces"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("shard_id"),
        column(
            "transaction_hash",
            pa.string(),
            "0x Harmony hash of the traced transaction, resolved through the context; null if it cannot be resolved.",
        ),
        column(
            "reported_transaction_hash",
            pa.string(),
            "transactionHash as the node sent it (trace_block: the Ethereum-form hash); null for the zero hash.",
        ),
        column("transaction_position", pa.int64(), "Position of the transaction in its block."),
        column(
            "trace_index",
            pa.int64(),
            "Order of the trace within its transaction (depth-first, as the node lists them).",
        ),
        column(
            "trace_address",
            pa.string(),
            "Path of the call in the call tree, e.g. '0,2,1'; '' for the top-level call.",
        ),
        column(
            "trace_depth", pa.int64(), "Number of elements of the trace address (0 for the top-level call)."
        ),
        column("subtraces", pa.int64(), "Number of direct child calls."),
        column("type", pa.string(), "call, create or suicide."),
        column(
            "call_type",
            pa.string(),
            "call, callcode, delegatecall or staticcall; null for create and suicide.",
        ),
        shared("from_address"),
        shared("from_address_hex"),
        column(
            "to_address",
            pa.string(),
            "Callee (call), created contract (create) or refund address (suicide), one1.",
        ),
        column("to_address_hex", pa.string(), "to_address, lower-case 0x hex."),
        column(
            "value",
            AMOUNT,
            "Value moved in atto, exact; null where the node omits it (staticcall, delegatecall).",
        ),
        one_column("value", "Value in ONE as float64 (convenience)."),
        column("gas", pa.int64(), "Gas given to the call."),
        column("gas_used", pa.int64(), "Gas used; null when the call failed or has no result."),
        column("input", pa.string(), "Call data (call) or init code (create), 0x hex."),
        column(
            "output", pa.string(), "Return data (call) or deployed code (create), 0x hex; null on failure."
        ),
        column(
            "error", pa.string(), "Error text when the call failed (the node reports 'Reverted'); else null."
        ),
        column("revert", pa.string(), "Revert data, 0x hex, when the call failed; else null."),
    ]
)

_NO_RESULT = TraceResult()
_KINDS = {"call", "create", "suicide"}


def _lower(mapping: Mapping[Any, str], keys: bool) -> dict[Any, str]:
    """``mapping`` with lower-case hashes (checked in bulk; most contexts already are)."""
    try:
        lower = "".join(mapping.values()).encode("ascii").islower()  # bytes: an ASCII-only test, fast
        lower = lower and (not keys or "".join(mapping).encode("ascii").islower())
    except (UnicodeEncodeError, TypeError):
        lower = False
    if lower:
        return dict(mapping)
    return {(k.lower() if keys else k): v.lower() for k, v in mapping.items()}


def _hash_resolver(ctx: ConvertContext) -> tuple[dict[str, str], set[str]]:
    by_eth = _lower(ctx.tx_hashes or {}, keys=True)
    known = set(by_eth.values()) | set(_lower(ctx.tx_positions or {}, keys=False).values())
    return by_eth, known


def _resolve(
    reported: list[str | None], numbers: list[int], positions: list[int], ctx: ConvertContext
) -> list[str | None]:
    """Harmony hash of each row's transaction (see :func:`build`)."""
    if ctx.requested_tx_hash:
        return [ctx.requested_tx_hash.lower()] * len(reported)
    by_eth, known = _hash_resolver(ctx)
    resolved: list[str | None] = list(map(by_eth.get, reported))  # type: ignore[arg-type]
    if None in resolved:  # the rest, row by row: by position, then a known Harmony hash
        by_pos = _lower(ctx.tx_positions or {}, keys=False)
        for i, hit in enumerate(resolved):
            if hit is None:
                raw = reported[i]
                key = (numbers[i], positions[i])
                if key in by_pos:
                    resolved[i] = by_pos[key]
                elif raw is not None and raw in known:
                    resolved[i] = raw
    return resolved


def _trace_index(payload_index: list[int], numbers: list[int], positions: list[int]) -> list[int]:
    """Order of each trace within its transaction (payload, block, position), in listing order.

    The node lists a transaction's traces together and transactions in order, so the index is
    the position in a run of equal keys; that is checked (the run keys strictly increase), and
    anything else is counted key by key."""
    n = len(numbers)
    try:
        keys = np.array([payload_index, numbers, positions], dtype=np.int64)
    except OverflowError:
        keys = None
    if keys is not None and n > 1:
        diff = keys[:, 1:] - keys[:, :-1]
        changed = (diff != 0).any(axis=0)
        first = np.argmax(diff != 0, axis=0)  # the first key that differs (when one does)
        increasing = diff[first, np.arange(n - 1)] > 0
        if (increasing | ~changed).all():
            starts = np.flatnonzero(np.concatenate(([True], changed)))
            lengths = np.diff(np.append(starts, n))
            index: list[int] = (np.arange(n) - np.repeat(starts, lengths)).tolist()
            return index
    ordinal: dict[tuple[int, int, int], int] = {}
    out: list[int] = []
    for key in zip(payload_index, numbers, positions, strict=True):
        out.append(ordinal.get(key, 0))
        ordinal[key] = out[-1] + 1
    return out


# long: one pass over the traces, then the table of the dataset's columns (a benchmarked hot path)
def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``trace_block`` / ``trace_transaction`` results.

    The Harmony transaction hash is resolved, in order, from ``ctx.requested_tx_hash``
    (``trace_transaction``), ``ctx.tx_hashes`` (Ethereum hash -> Harmony hash, since
    ``trace_block`` reports Ethereum-form hashes), ``ctx.tx_positions`` (block number and
    position), or the reported hash itself when it is a known Harmony hash; else null.
    """
    data = require(decoded, DecodedTraces, NAME, "traces")
    traces: list[Trace] = data.traces
    where = Where.of(NAME, data.paths)
    n = len(traces)
    numbers = parse_ints([t.blockNumber for t in traces], where, "blockNumber", required=True)
    positions = parse_ints(
        [t.transactionPosition for t in traces], where, "transactionPosition", required=True
    )
    reported = hash_array(
        [t.transactionHash for t in traces], where, "transactionHash", zero_is_null=True, checked=True
    )
    resolved = _resolve(reported.to_pylist(), numbers, positions, ctx)  # type: ignore[arg-type]
    trace_index = _trace_index(data.payload_index, numbers, positions)  # type: ignore[arg-type]

    paths = [t.traceAddress for t in traces]
    flat = [x for path in paths if path for x in path]
    if None in paths or not set(map(type, flat)) <= {int} or (flat and min(flat) < 0):
        for i, path in enumerate(paths):
            if path is None or any(type(x) is not int or x < 0 for x in path):
                where.fail(i, "traceAddress", path, "an array of non-negative integers")
    join = ",".join
    addresses = [join(map(str, path)) if path else "" for path in paths]
    depths = list(map(len, paths))  # type: ignore[arg-type]

    raw_actions = [t.action for t in traces]
    if None in raw_actions:
        where.fail(raw_actions.index(None), "action", None, "a trace action object")
    actions: list[TraceAction] = raw_actions  # type: ignore[assignment]
    results = [_NO_RESULT if t.result is None else t.result for t in traces]
    kinds = [t.type for t in traces]
    kind_set = set(kinds)
    if not kind_set <= _KINDS:
        bad = next(i for i, k in enumerate(kinds) if k not in _KINDS)
        where.fail(bad, "type", kinds[bad], "'call', 'create' or 'suicide'")
    # the fields of a call; create and suicide rows (rare) take theirs from other keys
    senders = [a.from_ for a in actions]
    receivers = [a.to for a in actions]
    values = [a.value for a in actions]
    inputs = [a.input for a in actions]
    outputs = [r.output for r in results]
    if kind_set != {"call"}:
        for i, k in enumerate(kinds):
            if k == "suicide":
                a = actions[i]
                senders[i], receivers[i], values[i] = a.address, a.refundAddress, a.balance
            elif k == "create":
                receivers[i], inputs[i], outputs[i] = results[i].address, actions[i].init, results[i].code
    value = amount_array(values, where, "action.value")
    from_one, from_hex = address_arrays(senders, where, "action.from", required=True)
    to_one, to_hex = address_arrays(receivers, where, "action.to")
    return {
        "block_number": int_array(numbers, where, "blockNumber", parsed=True),
        "block_hash": hash_array(
            [t.blockHash for t in traces], where, "blockHash", required=True, checked=True
        ),
        "shard_id": constant(ctx.shard_id, n, pa.int32()),
        "transaction_hash": pa.array(resolved, type=pa.string()),
        "reported_transaction_hash": reported,
        "transaction_position": int_array(positions, where, "transactionPosition", parsed=True),
        "trace_index": pa.array(trace_index, type=pa.int64()),
        "trace_address": pa.array(addresses, type=pa.string()),
        "trace_depth": pa.array(depths, type=pa.int64()),
        "subtraces": int_array([t.subtraces for t in traces], where, "subtraces", required=True),
        "type": pa.array(kinds, type=pa.string()),
        "call_type": string_array([a.callType for a in actions], where, "action.callType", checked=True),
        "from_address": from_one,
        "from_address_hex": from_hex,
        "to_address": to_one,
        "to_address_hex": to_hex,
        "value": value,
        "value_one": one_float_array(values, exact=value),
        "gas": int_array([a.gas for a in actions], where, "action.gas"),
        "gas_used": int_array([r.gasUsed for r in results], where, "result.gasUsed"),
        "input": hex_data_array(inputs, where, "action.input", checked=True),
        "output": hex_data_array(outputs, where, "result.output", checked=True),
        "error": string_array([t.error for t in traces], where, "error", checked=True),
        "revert": hex_data_array([t.revert for t in traces], where, "revert", checked=True),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per execution trace (Parity style), keyed to the Harmony transaction hash.",
    schema=SCHEMA,
    sort_by=("block_number", "transaction_position", "trace_index"),
    source="traces",
    methods=("trace_block", "trace_transaction"),
    builder=build,
    decoder=decode_traces,
    summary="Execution traces (Parity style) of every transaction of blocks ``start..end``.",
    notes="Traces come from ``trace_block`` on the trace endpoint; each row carries the transaction's Harmony hash, resolved from the block's transactions whatever hash the node reports.",
)
