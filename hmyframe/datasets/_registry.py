"""The datasets registry (heavy half): every dataset module, by name; see :mod:`hmyframe.datasets`."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hmyframe.errors import ConfigError, short_repr

from ._base import AMOUNT, SHARED, TIMESTAMP, ConvertContext, Dataset, describe, schema_fingerprint
from ._convert import Bad, parse_int
from ._decode import DecodedBlocks, DecodedTraces, Tx, decode_blocks, decode_json, decode_traces
from ._validators import DecodedValidators, decode_validators
from .sources import BUILT_IN_DATASETS

if TYPE_CHECKING:
    import pandas as pd

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

#: Every dataset, by name (the name is also the CLI word and the cache token).
DATASETS: dict[str, Dataset] = {
    name: importlib.import_module(f"{__package__}.{name}").DATASET for name in BUILT_IN_DATASETS
}
_BUILT_IN = frozenset(DATASETS)


def get(name: str) -> Dataset:
    """Return the dataset called ``name``.

    Parameters
    ----------
    name
        A key of :data:`DATASETS` (``"blocks"``, ``"transactions"``...).

    Returns
    -------
    Dataset

    Raises
    ------
    ConfigError
        If there is no such dataset; the message lists the valid names.
    """
    try:
        return DATASETS[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown dataset {short_repr(name)}; valid names: {', '.join(DATASETS)}") from None


def register(dataset: Dataset) -> None:
    """Add a dataset defined outside the package (its module declares schema and builder).

    A block-range dataset also needs its source: :func:`hmyframe.datasets.sources.register_source`.

    Raises
    ------
    ConfigError
        If ``dataset`` is not a :class:`Dataset` or its name is taken by another one.
    """
    if not isinstance(dataset, Dataset):
        raise ConfigError(f"register() takes a Dataset, got {short_repr(dataset)}")
    known = DATASETS.get(dataset.name)
    if known is not None and known is not dataset:
        raise ConfigError(f"a dataset called {dataset.name!r} exists already")
    DATASETS[dataset.name] = dataset


def unregister(name: str) -> None:
    """Remove a dataset added with :func:`register` (no error if absent; built-ins stay)."""
    if name not in _BUILT_IN:
        DATASETS.pop(name, None)


def to_pandas(table: pa.Table) -> pd.DataFrame:
    """Convert a dataset table to pandas: exact amounts as ``atto``, every other column ``pd.ArrowDtype``.

    Exact amounts (``decimal128(38, 0)``) become the ``atto`` dtype of :mod:`hmyframe.amounts`
    (exact integers that do arithmetic: ``+``, ``-``, ``sum``, ``cumsum``, ``groupby``,
    ``describe``...), and a column whose field metadata names a dtype
    (``b"hmyframe.dtype": b"uint256"`` or ``b"int256"`` on a string of digits) becomes that dtype. Every other column keeps its Arrow type as its pandas dtype (timestamps
    keep UTC). ``pa.Table.from_pandas(df, schema=table.schema)`` gives back the same Arrow types
    (without the schema, exact columns become the ``hmyframe.atto`` / ``hmyframe.uint256``
    extension types over the same storage, which this function also reads).

    Parameters
    ----------
    table
        A table produced by :meth:`Dataset.convert` / :meth:`Dataset.build` (or read back
        from the cache).

    Returns
    -------
    pandas.DataFrame
    """
    if not isinstance(table, pa.Table):
        raise ConfigError(f"to_pandas() needs a pyarrow.Table, got {short_repr(table)}")
    from hmyframe._pandas_meta import DTYPE_KEY

    frame = table.to_pandas(types_mapper=_pandas_dtype)
    # uint256 and the like: named in the field metadata (dataset schemas), or in the pandas
    # metadata pyarrow writes for a frame's extension dtype (a file from df.to_parquet)
    written = {
        c.get("field_name"): c.get("numpy_type")
        for c in (table.schema.pandas_metadata or {}).get("columns", [])
    }
    for i, f in enumerate(table.schema):
        named = (f.metadata or {}).get(DTYPE_KEY, b"").decode() or written.get(f.name)
        if named in _NAMED_DTYPES and pa.types.is_string(f.type):
            frame[f.name] = _dtype_named(named).__from_arrow__(table.column(i))
    return frame


#: exact-integer dtypes stored as digit strings, recognised by name
_NAMED_DTYPES = ("uint256", "int256")


def _dtype_named(name: str) -> Any:
    import pandas as pd

    import hmyframe.amounts  # noqa: F401  (registers the exact-integer dtypes by name)

    return pd.api.types.pandas_dtype(name)


def _pandas_dtype(t: pa.DataType) -> object:
    import pandas as pd

    from hmyframe._exactint import ExactIntType
    from hmyframe.amounts import AttoDtype

    if isinstance(t, ExactIntType):  # a file written by df.to_parquet / df.to_feather
        return t.to_pandas_dtype()
    if pa.types.is_decimal(t) and t.scale == 0:
        return AttoDtype()
    return pd.ArrowDtype(t)


def traces_context(
    decoded: DecodedBlocks,
    shard_id: int,
    requested_tx_hash: str | None = None,
) -> ConvertContext:
    """Context for the ``traces`` dataset from the decoded blocks that were traced.

    Parameters
    ----------
    decoded
        :func:`decode_blocks` output for the same blocks, fetched with full transactions.
    shard_id
        Shard of the trace node.
    requested_tx_hash
        For ``trace_transaction`` payloads: the hash that was asked for.

    Returns
    -------
    ConvertContext
        With ``tx_hashes`` (Ethereum-form hash -> Harmony hash) and ``tx_positions``
        (``(block_number, transaction_index)`` -> Harmony hash) for every full transaction.
    """
    if not isinstance(decoded, DecodedBlocks):
        raise ConfigError(f"traces_context() needs decode_blocks() output, got {short_repr(decoded)}")
    tx_hashes: dict[str, str] = {}
    positions: dict[tuple[int, int], str] = {}
    for tx, number, index in _full_transactions(decoded):
        if not isinstance(tx.hash, str):
            continue
        harmony = tx.hash.lower()
        if isinstance(tx.ethHash, str):
            tx_hashes[tx.ethHash.lower()] = harmony
        if number is not None and index is not None:
            positions[(number, index)] = harmony
    return ConvertContext(
        shard_id=shard_id, tx_hashes=tx_hashes, tx_positions=positions, requested_tx_hash=requested_tx_hash
    )


def _full_transactions(decoded: DecodedBlocks) -> Iterable[tuple[Tx, int | None, int | None]]:
    def number(v: object) -> int | None:
        try:
            return None if v is None else parse_int(v)
        except Bad:  # a malformed number cannot be a key; the traces build reports it
            return None

    for block in decoded.blocks:
        for tx in block.transactions or ():
            if not isinstance(tx, str):
                yield (
                    tx,
                    number(tx.blockNumber if tx.blockNumber is not None else block.number),
                    number(tx.transactionIndex),
                )
    for tx in decoded.txs:
        if not isinstance(tx, str):
            yield tx, number(tx.blockNumber), number(tx.transactionIndex)
