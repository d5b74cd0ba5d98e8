"""``traces``: one row per Parity-style execution trace (call, create, suicide)."""

from __future__ import annotations

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


def _hash_resolver(ctx: ConvertContext) -> tuple[dict[str, str], set[str]]:
    by_eth = {k.lower(): v.lower() for k, v in (ctx.tx_hashes or {}).items()}
    known = set(by_eth.values()) | {v.lower() for v in (ctx.tx_positions or {}).values()}
    return by_eth, known


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

    by_eth, known = _hash_resolver(ctx)
    requested = ctx.requested_tx_hash.lower() if ctx.requested_tx_hash else None
    by_pos = {(b, p): h.lower() for (b, p), h in (ctx.tx_positions or {}).items()}
    resolved: list[str | None] = []
    for raw, number, pos in zip(reported.to_pylist(), numbers, positions, strict=True):
        if requested is not None:
            resolved.append(requested)
        elif raw is not None and raw in by_eth:
            resolved.append(by_eth[raw])
        elif number is not None and pos is not None and (number, pos) in by_pos:
            resolved.append(by_pos[(number, pos)])
        elif raw is not None and raw in known:
            resolved.append(raw)
        else:
            resolved.append(None)

    ordinal: dict[tuple[int, object, object], int] = {}
    trace_index: list[int] = []
    for i in range(n):
        key = (data.payload_index[i], numbers[i], positions[i])
        trace_index.append(ordinal.get(key, 0))
        ordinal[key] = trace_index[-1] + 1
    paths = [t.traceAddress for t in traces]
    flat = [x for path in paths if path for x in path]
    if None in paths or not set(map(type, flat)) <= {int} or (flat and min(flat) < 0):
        for i, path in enumerate(paths):
            if path is None or any(type(x) is not int or x < 0 for x in path):
                where.fail(i, "traceAddress", path, "an array of non-negative integers")
    addresses = [",".join(map(str, path)) if path else "" for path in paths]
    depths = [len(path) for path in paths]  # type: ignore[arg-type]

    raw_actions = [t.action for t in traces]
    if None in raw_actions:
        where.fail(raw_actions.index(None), "action", None, "a trace action object")
    actions: list[TraceAction] = raw_actions  # type: ignore[assignment]
    results = [_NO_RESULT if t.result is None else t.result for t in traces]
    kinds = [t.type for t in traces]
    if not set(kinds) <= _KINDS:
        bad = next(i for i, k in enumerate(kinds) if k not in _KINDS)
        where.fail(bad, "type", kinds[bad], "'call', 'create' or 'suicide'")
    senders = [a.address if k == "suicide" else a.from_ for a, k in zip(actions, kinds, strict=True)]
    receivers = [
        a.refundAddress if k == "suicide" else (r.address if k == "create" else a.to)
        for a, r, k in zip(actions, results, kinds, strict=True)
    ]
    values = parse_ints(
        [a.balance if k == "suicide" else a.value for a, k in zip(actions, kinds, strict=True)],
        where,
        "action.value",
    )
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
        "value": amount_array(values, where, "action.value", parsed=True),
        "value_one": one_float_array(values),
        "gas": int_array([a.gas for a in actions], where, "action.gas"),
        "gas_used": int_array([r.gasUsed for r in results], where, "result.gasUsed"),
        "input": hex_data_array(
            [a.init if k == "create" else a.input for a, k in zip(actions, kinds, strict=True)],
            where,
            "action.input",
            checked=True,
        ),
        "output": hex_data_array(
            [r.code if k == "create" else r.output for r, k in zip(results, kinds, strict=True)],
            where,
            "result.output",
            checked=True,
        ),
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
    fetched_by="range",
    block_detail=frozenset({"full_tx"}),
)
