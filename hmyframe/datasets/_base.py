"""The :class:`Dataset` record, the :class:`ConvertContext` and the shared column definitions.

Every dataset module declares its Arrow schema once with :func:`column` / :func:`shared`; the
one-line description of each column lives in the field metadata under ``b"description"``.
Columns that mean the same thing in several tables (``block_number``, ``shard_id``,
``timestamp``...) are defined once here in :data:`SHARED` so they have the same name, type and
description everywhere.
"""

from __future__ import annotations

import gc
import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pyarrow as pa

from hmyframe._lazy import lazy_module
from hmyframe._pandas_meta import DTYPE_KEY
from hmyframe.datasets import sources
from hmyframe.errors import ConfigError, ResponseShapeError, short_repr

from ._convert import one_from_exact
from ._types import AMOUNT, TIMESTAMP

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:
    pc = lazy_module("pyarrow.compute")  # (a ~0.1 s import: only once a table is built)

__all__ = [
    "AMOUNT",
    "SHARED",
    "TIMESTAMP",
    "ConvertContext",
    "Dataset",
    "column",
    "describe",
    "gc_paused",
    "one_column",
    "one_of",
    "one_values",
    "per_payload",
    "schema_fingerprint",
    "shared",
    "uint256_column",
]

_DESCRIPTION = b"description"
_ONE_OF = b"one_of"


_GC_LOCK = threading.Lock()
_gc_pausers = 0  # conversions under way that paused the cyclic garbage collector
_gc_was_enabled = False  # the collector's state when the first of them began


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while converting.

    Decoding allocates one container per JSON array (a trace's ``traceAddress``...) and none of
    them forms a cycle; with the collector running, those allocations trigger collections that
    walk every tracked object of the process, over and over. Nested and concurrent conversions
    share one pause; the collector is enabled again (if it was) when the last one ends.
    """
    global _gc_pausers, _gc_was_enabled
    with _GC_LOCK:
        if _gc_pausers == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pausers += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _gc_pausers -= 1
            if _gc_pausers == 0 and _gc_was_enabled:
                gc.enable()


def column(name: str, type_: pa.DataType, description: str) -> pa.Field:
    """Declare one column: a nullable Arrow field carrying its one-line description.

    Parameters
    ----------
    name
        snake_case column name.
    type_
        Arrow type.
    description
        One line saying what the column holds (shown by ``hmyframe schema`` and docs/datasets.md).

    Returns
    -------
    pyarrow.Field
    """
    if not description or "\n" in description:
        raise ConfigError(f"column {name!r} needs a one-line description, got {description!r}")
    return pa.field(name, type_, nullable=True, metadata={_DESCRIPTION: description.encode()})


def uint256_column(name: str, description: str) -> pa.Field:
    """Declare one exact uint256 column (token amounts and ids, 0 .. 2**256 - 1).

    Arrow has no exact integer that wide (``decimal256`` stops at 76 digits), so the column is
    a ``string`` of base-10 digits marked ``hmyframe.dtype: uint256`` in its field metadata:
    DataFrames give it the ``uint256`` dtype, plain readers see the digits.

    Parameters
    ----------
    name
        snake_case column name.
    description
        One line saying what the column holds.

    Returns
    -------
    pyarrow.Field
    """
    f = column(name, pa.string(), description)
    return f.with_metadata({**(f.metadata or {}), DTYPE_KEY: b"uint256"})


def one_column(of: str, description: str) -> pa.Field:
    """Declare the float64 ONE companion of the exact atto column ``of`` (named ``<of>_one``).

    A dataset's builder need not supply it: :meth:`Dataset.build` derives it from the exact
    column (each value one correctly rounded division by 10**18).

    Parameters
    ----------
    of
        Name of the exact ``decimal128(38, 0)`` column.
    description
        One line saying what the column holds.

    Returns
    -------
    pyarrow.Field
    """
    f = column(f"{of}_one", pa.float64(), description)
    return f.with_metadata({**(f.metadata or {}), _ONE_OF: of.encode()})


def one_of(f: pa.Field) -> str | None:
    """The exact column a ``*_one`` companion is derived from (``None`` for other columns)."""
    raw = (f.metadata or {}).get(_ONE_OF)
    return raw.decode() if isinstance(raw, bytes) else None


def describe(f: pa.Field) -> str:
    """The one-line description stored in a field's metadata (``""`` if none)."""
    meta = f.metadata or {}
    raw = meta.get(_DESCRIPTION, b"")
    return raw.decode() if isinstance(raw, bytes) else str(raw)


#: Columns shared by several tables: same name, type and description everywhere.
SHARED: dict[str, pa.Field] = {
    f.name: f
    for f in (
        column("block_number", pa.int64(), "Block number (height) on its shard; null for a pending entry."),
        column("block_hash", pa.string(), "0x hash of the block; null for a pending entry."),
        column("shard_id", pa.int32(), "Shard the row belongs to (the shard whose node answered)."),
        column("timestamp", TIMESTAMP, "Block time (UTC, from the block header's unix seconds)."),
        column("epoch", pa.int64(), "Epoch number."),
        column("transaction_hash", pa.string(), "0x Harmony hash of the transaction."),
        column(
            "transaction_index", pa.int64(), "Position of the transaction in its block; null when pending."
        ),
        column("from_address", pa.string(), "Sender, one1 bech32."),
        column("from_address_hex", pa.string(), "Sender, lower-case 0x hex."),
        column("to_address", pa.string(), "Receiver, one1 bech32; null for a contract creation."),
        column("to_address_hex", pa.string(), "Receiver, lower-case 0x hex; null for a contract creation."),
        column("validator_address", pa.string(), "Validator, one1 bech32."),
        column("validator_address_hex", pa.string(), "Validator, lower-case 0x hex."),
        column("delegator_address", pa.string(), "Delegator, one1 bech32."),
        column("delegator_address_hex", pa.string(), "Delegator, lower-case 0x hex."),
        column(
            "snapshot_block", pa.int64(), "Block at which the validator snapshot was taken (null if unknown)."
        ),
        column("snapshot_epoch", pa.int64(), "Epoch of the validator snapshot (null if unknown)."),
        column("gas_price", AMOUNT, "Gas price in atto per gas unit, exact."),
        column("nonce", pa.int64(), "Sender's transaction count before this transaction."),
        column(
            "to_shard_id", pa.int32(), "Destination shard; differs from shard_id for a cross-shard transfer."
        ),
        column("bls_public_key", pa.string(), "BLS public key, 96 hex digits without 0x."),
    )
}


def shared(name: str, description: str | None = None) -> pa.Field:
    """Return the shared column ``name`` (see :data:`SHARED`).

    Parameters
    ----------
    name
        A key of :data:`SHARED`.
    description
        A more specific one-line description for this table (name and type stay the same).
    """
    try:
        f = SHARED[name]
    except KeyError:
        raise ConfigError(f"no shared column {name!r}; known: {', '.join(sorted(SHARED))}") from None
    return f if description is None else column(f.name, f.type, description)


def schema_fingerprint(schema: pa.Schema) -> str:
    """Stable hash of a schema's column names, types, nullability and metadata.

    Parameters
    ----------
    schema
        The Arrow schema.

    Returns
    -------
    str
        16 hex digits; changes whenever a column is added, removed, renamed, retyped or
        re-described.
    """
    canon = [
        [
            f.name,
            str(f.type),
            f.nullable,
            sorted((k.decode(), v.decode()) for k, v in (f.metadata or {}).items()),
        ]
        for f in schema
    ]
    return hashlib.sha256(json.dumps(canon, sort_keys=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ConvertContext:
    """What a conversion needs to know besides the payload bytes.

    Parameters
    ----------
    shard_id
        Shard whose node produced the payloads (blocks carry no shard id of their own).
    snapshot_block, snapshot_epoch
        ``validators`` source: the block (and epoch) the pages were fetched at. When absent, the
        current format's ``current-epoch-performance.block/epoch`` is used where present.
    tx_hashes
        ``traces`` source: Ethereum-form hash -> Harmony hash of every transaction of the traced
        blocks (see :func:`hmyframe.datasets.traces_context`).
    tx_positions
        ``traces`` source: ``(block_number, transaction_position)`` -> Harmony hash.
    requested_tx_hash
        ``traces`` source, ``trace_transaction``: the hash that was asked for.
    addresses_blocks
        ``tx_counts`` source: ``(address, block)`` queried for each payload, in payload order.
    block_numbers
        ``blocks`` source: for payloads that carry no block number of their own (a
        ``getBlockSigners`` answer is a bare list of addresses), the block each payload was
        fetched for, aligned with the payloads (other entries are ignored and may be ``None``).
    token_calls
        ``tokens`` source: ``(address, block, function)`` each payload answers, in payload
        order; ``function`` is ``"getCode"``, ``"name"``, ``"symbol"``, ``"decimals"`` or
        ``"totalSupply"`` (see :mod:`hmyframe.datasets.tokens`); ``dex_pairs`` source: ``(pair,
        block, function)``, ``function`` ``"token0"``, ``"token1"`` or ``"getReserves"``.
    token_holders
        ``token_balances`` source: ``(token, holder, block)`` each ``balanceOf`` answer is for,
        in payload order.
    """

    shard_id: int
    snapshot_block: int | None = None
    snapshot_epoch: int | None = None
    tx_hashes: Mapping[str, str] | None = None
    tx_positions: Mapping[tuple[int, int], str] | None = None
    requested_tx_hash: str | None = None
    addresses_blocks: Sequence[tuple[str, int]] | None = None
    block_numbers: Sequence[int | None] | None = None
    token_calls: Sequence[tuple[str, int, str]] | None = None
    token_holders: Sequence[tuple[str, str, int]] | None = None

    def __post_init__(self) -> None:
        for name in ("shard_id", "snapshot_block", "snapshot_epoch"):
            value = getattr(self, name)
            if value is None and name != "shard_id":
                continue
            if type(value) is not int or value < 0:
                raise ConfigError(
                    f"ConvertContext.{name} must be a non-negative int, got {short_repr(value)}"
                )


#: ``build(decoded, ctx) -> {column name: Arrow array}`` supplied by each dataset module.
Builder = Callable[[Any, ConvertContext], Mapping[str, pa.Array]]
#: ``decode(payloads, what) -> decoded`` for a source.
Decoder = Callable[[Sequence[bytes], str], Any]


@dataclass(frozen=True)
class Dataset:
    """One table hmyframe can produce: its schema (declared once) and its conversion.

    Attributes
    ----------
    name
        Dataset name; also the CLI word and the cache-file token.
    description
        One sentence for listings.
    schema
        The Arrow schema; each field's metadata holds its description.
    sort_by
        Columns the converted table is sorted by (ascending, nulls last).
    source
        Which kind of payload feeds it (see :mod:`hmyframe.datasets`; for a block-range dataset,
        the name of its :class:`~hmyframe.datasets.sources.RangeSource`).
    fingerprint
        Stable hash of the schema, for cache validation.
    methods
        The node methods whose answers it converts (documentation).
    summary, notes
        First line of its public fetcher's documentation, and what is worth knowing about
        fetching it (both optional).
    """

    name: str
    description: str
    schema: pa.Schema
    sort_by: tuple[str, ...]
    source: str
    methods: tuple[str, ...]
    builder: Builder = field(repr=False, compare=False)
    decoder: Decoder = field(repr=False, compare=False)
    summary: str = ""
    notes: str = ""
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fingerprint", schema_fingerprint(self.schema))
        missing = [c for c in self.sort_by if c not in self.schema.names]
        if missing:
            raise ConfigError(f"dataset {self.name!r}: sort_by names unknown columns {missing}")
        for f in self.schema:
            base = one_of(f)
            if base is not None and (base not in self.schema.names or self.schema.field(base).type != AMOUNT):
                raise ConfigError(
                    f"dataset {self.name!r}: {f.name} is the companion of no exact column {base!r}"
                )

    @property
    def fetched_by(self) -> sources.FetchKind:
        """How the public API fetches it: ``"range"`` (by block range, cached per range),
        ``"snapshot"`` (a validator snapshot at one block) or ``"lookup"`` (point lookups only);
        declared in :mod:`hmyframe.datasets.sources`."""
        return sources.kind_of(self.name)

    @property
    def block_detail(self) -> frozenset[str]:
        """For a block-range dataset: what each answer must carry for it (``"full_tx"``,
        ``"signers"``; see :class:`~hmyframe.datasets.sources.Fill`); empty for others."""
        return sources.fill_of(self.name).detail if self.fetched_by == "range" else frozenset()

    def decode(self, payloads: Sequence[bytes]) -> Any:
        """Decode raw payload bytes once (they may then feed several :meth:`build` calls).

        Parameters
        ----------
        payloads
            Raw JSON bytes of the JSON-RPC ``result`` members.

        Returns
        -------
        object
            The decoded form of this dataset's :attr:`source` (e.g.
            :class:`~hmyframe.datasets.DecodedBlocks`).
        """
        with gc_paused():
            return self.decoder(_check_payloads(payloads, self.name), self.name)

    def build(self, decoded: Any, ctx: ConvertContext) -> pa.Table:
        """Build the table from decoded payloads.

        Parameters
        ----------
        decoded
            What :meth:`decode` (or the source's module-level decoder, such as
            :func:`~hmyframe.datasets.decode_blocks`) returned.
        ctx
            The conversion context.

        Returns
        -------
        pyarrow.Table
            With exactly :attr:`schema`, sorted by :attr:`sort_by`.
        """
        if not isinstance(ctx, ConvertContext):
            raise ConfigError(f"{self.name}: ctx must be a ConvertContext, got {short_repr(ctx)}")
        with gc_paused():
            columns = self.builder(decoded, ctx)
        table = pa.Table.from_arrays(
            [columns[f.name] if f.name in columns else _derived(f, columns) for f in self.schema],
            schema=self.schema,
        )
        if self.sort_by and table.num_rows > 1:
            order = pc.sort_indices(table, sort_keys=[(c, "ascending") for c in self.sort_by])  # nulls last
            if not np.array_equal(order.to_numpy(), np.arange(table.num_rows)):  # often already in order
                table = table.take(order)
        return table

    def convert(self, payloads: Sequence[bytes], ctx: ConvertContext) -> pa.Table:
        """Decode and build in one call.

        Parameters
        ----------
        payloads
            Raw JSON bytes of the JSON-RPC ``result`` members (see the module docs for what
            each source accepts).
        ctx
            The conversion context.

        Returns
        -------
        pyarrow.Table
            With exactly :attr:`schema`, sorted by :attr:`sort_by`.

        Raises
        ------
        ResponseShapeError
            If a payload is malformed; the message names the dataset, the field path and the
            offending value.
        """
        with gc_paused():
            return self.build(self.decode(payloads), ctx)


def one_values(exact: pa.Array | pa.ChunkedArray) -> pa.Array:
    """ONE as float64 from an exact atto column (each value one correctly rounded division)."""
    return one_from_exact(exact.cast(AMOUNT))


def _derived(f: pa.Field, columns: Mapping[str, pa.Array]) -> pa.Array:
    """A column the builder left out: the ONE companion of an exact column."""
    base = one_of(f)
    if base is None:
        raise KeyError(f.name)  # a builder bug: every other column is the builder's
    return one_values(columns[base])


T = TypeVar("T")


def per_payload(
    name: str, decoded: object, given: Sequence[T] | None, field: str, each: str, counted: str
) -> tuple[list[Any], Sequence[T]]:
    """``decoded`` (a builder's payloads: a list) and ``given`` (``ConvertContext.<field>``, one
    ``each`` per payload), checked: ResponseShapeError for payloads that are no list, ConfigError
    naming the context field (and how many payloads and ``counted`` it holds) otherwise."""
    if not isinstance(decoded, list):
        raise ResponseShapeError(name, "payloads", decoded, "the decoded list of payloads")
    if given is None or len(given) != len(decoded):
        got = "none" if given is None else str(len(given))
        raise ConfigError(
            f"{name}: ConvertContext.{field} must give one {each} per payload "
            f"({len(decoded)} payloads, {got} {counted})"
        )
    return decoded, given


def _check_payloads(payloads: Sequence[bytes], what: str) -> Sequence[bytes]:
    if isinstance(payloads, (bytes, bytearray, memoryview, str)):
        raise ConfigError(
            f"{what}: payloads must be a sequence of bytes objects, not one {type(payloads).__name__}"
        )
    for i, p in enumerate(payloads):
        if not isinstance(p, (bytes, bytearray, memoryview)):
            raise ConfigError(f"{what}: payloads[{i}] must be bytes (raw JSON), got {short_repr(p)}")
    return payloads
