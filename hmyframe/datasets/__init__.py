"""Typed datasets: raw node answers -> Arrow tables and pandas DataFrames, exact to the atto.

Each dataset is one module declaring its Arrow schema once (a one-line description per column
in the field metadata) and its conversion. :data:`DATASETS` lists them; :func:`get` looks one
up by name.

Sources (what the payloads of a dataset are; each payload is the raw JSON bytes of one JSON-RPC
``result`` member):

``blocks`` (``blocks``, ``transactions``, ``staking_transactions``, ``signers``)
    Block objects or arrays of them (``getBlockByNumber``/``ByHash``/``getBlocks``, any
    generation or format), loose transaction / staking-transaction objects, staking history
    pages, or ``getBlockSigners`` address lists. Decode a chunk once with
    :func:`decode_blocks`, then ``DATASETS[name].build(decoded, ctx)`` for each table.
``traces`` (``traces``)
    ``trace_block`` / ``trace_transaction`` results (arrays or ``null``). Build the context
    with :func:`traces_context` from the decoded blocks so Harmony hashes can be resolved.
``receipts`` (``receipts``)
    ``getBlockReceipts`` answers (arrays of receipts) or ``getTransactionReceipt`` answers (one
    receipt or ``null``), v1 or v2; decode with :func:`~hmyframe.datasets._receiptlogs.decode_receipts`.
``logs`` (``logs``, ``token_transfers``)
    ``hmy_getLogs`` answers (arrays of logs); decode once with
    :func:`~hmyframe.datasets._receiptlogs.decode_logs` and build both tables from it.
``validators`` (``validators``, ``voting_power``, ``delegations``, ``undelegations``)
    Validator-information pages (arrays, ``[]`` allowed, early-2020 wrapped elements, single
    objects). A validator repeated across pages is kept once (first occurrence).
``cx_receipts``, ``shards``, ``tx_counts``
    ``getPendingCXReceipts`` / ``getCXReceiptByHash``, ``getShardingStructure``, and
    ``getTransactionCount`` answers (with ``ctx.addresses_blocks``).

Exact amounts are ``decimal128(38, 0)``: integers below 10**38 (total supply is ~1.3e28 atto,
29 digits); a larger value raises :class:`~hmyframe.errors.ResponseShapeError` naming the
field. ``numeric.Dec`` stakes (effective / raw stake, EPoS winning stake) carry 18 fractional
digits of an atto and are rounded half-even to the whole atto. Ratios are ``float64`` with the
exact 18-decimal text kept beside commission rates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

# The registry imports pyarrow (schemas) and every dataset module: it is loaded on first use
# of one of the names below, so that `import hmyframe.datasets.sources` (what an export's main
# process needs to plan its requests) stays light.
if TYPE_CHECKING:
    from ._base import AMOUNT, SHARED, TIMESTAMP, ConvertContext, Dataset, describe, schema_fingerprint
    from ._decode import DecodedBlocks, DecodedTraces, decode_blocks, decode_json, decode_traces
    from ._registry import DATASETS, get, register, to_pandas, traces_context, unregister
    from ._validators import DecodedValidators, decode_validators

__all__ = [
    "AMOUNT",
    "DATASETS",
    "SHARED",
    "TIMESTAMP",
    "ConvertContext",
    "Dataset",
    "DecodedBlocks",
    "DecodedTraces",
    "DecodedValidators",
    "decode_blocks",
    "decode_json",
    "decode_traces",
    "decode_validators",
    "describe",
    "get",
    "register",
    "schema_fingerprint",
    "to_pandas",
    "traces_context",
    "unregister",
]


def __getattr__(name: str) -> Any:
    """The registry's names, imported on first use (see the comment above)."""
    if name in __all__:
        from . import _registry

        value = getattr(_registry, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hmyframe.datasets' has no attribute {name!r}")
