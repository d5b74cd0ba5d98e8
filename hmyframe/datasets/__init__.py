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

import importlib
import sys
from typing import TYPE_CHECKING, Any

# The registry imports pyarrow (schemas) and every dataset module: it is loaded on first use
# of one of its names below, so that `import hmyframe.datasets.sources` (what an export's main
# process needs to plan its requests) stays light. The names of the modules under it (_base,
# _decode, _validators) and `get` of a built-in dataset do not load it: a validator snapshot
# imports its four datasets' modules, not the sixteen.
if TYPE_CHECKING:
    from ._base import (
        AMOUNT,
        SHARED,
        TIMESTAMP,
        ConvertContext,
        Dataset,
        describe,
        gc_paused,
        one_of,
        one_values,
        schema_fingerprint,
    )
    from ._decode import DecodedBlocks, DecodedTraces, decode_blocks, decode_json, decode_traces
    from ._parse import Bad, parse_int
    from ._registry import DATASETS, register, to_pandas, traces_context, unregister
    from ._validators import DecodedValidators, decode_validators

__all__ = [
    "AMOUNT",
    "DATASETS",
    "SHARED",
    "TIMESTAMP",
    "Bad",
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
    "gc_paused",
    "get",
    "one_of",
    "one_values",
    "parse_int",
    "register",
    "schema_fingerprint",
    "side_table",
    "to_pandas",
    "traces_context",
    "unregister",
]

#: The names defined below the registry, by module.
_HOMES = {
    **dict.fromkeys(
        (
            "AMOUNT",
            "SHARED",
            "TIMESTAMP",
            "ConvertContext",
            "Dataset",
            "describe",
            "gc_paused",
            "one_of",
            "one_values",
            "schema_fingerprint",
        ),
        "_base",
    ),
    **dict.fromkeys(("Bad", "parse_int"), "_parse"),
    **dict.fromkeys(
        ("DecodedBlocks", "DecodedTraces", "decode_blocks", "decode_json", "decode_traces"), "_decode"
    ),
    **dict.fromkeys(("DecodedValidators", "decode_validators"), "_validators"),
}


def get(name: str) -> Dataset:
    """Return the dataset called ``name``: :func:`hmyframe.datasets._registry.get`, but a
    built-in one is taken from its own module alone while the registry is not loaded.

    Raises
    ------
    ConfigError
        If there is no such dataset; the message lists the valid names.
    """
    from .sources import BUILT_IN_DATASETS

    if f"{__name__}._registry" not in sys.modules and type(name) is str and name in BUILT_IN_DATASETS:
        dataset: Dataset = importlib.import_module(f"{__name__}.{name}").DATASET
        return dataset
    from . import _registry

    return _registry.get(name)


def side_table(name: str) -> Any:
    """The cache's view (name, schema, fingerprint) of side table ``name``
    (:attr:`~hmyframe.datasets.sources.Fill.side`: never a dataset, kept in pieces only).

    Raises
    ------
    ConfigError
        If there is no such side table.
    """
    from hmyframe.errors import ConfigError, short_repr

    from ._transform import SIDE_TABLES

    try:
        return SIDE_TABLES[name]
    except (KeyError, TypeError):
        raise ConfigError(
            f"unknown side table {short_repr(name)}; valid names: {', '.join(SIDE_TABLES)}"
        ) from None


def __getattr__(name: str) -> Any:
    """The registry's names, imported on first use (see the comment above)."""
    if name in __all__:
        value = getattr(importlib.import_module(f"{__name__}.{_HOMES.get(name, '_registry')}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'hmyframe.datasets' has no attribute {name!r}")
