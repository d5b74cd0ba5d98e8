"""Row gathering and the columns shared by ``transactions`` and ``staking_transactions``; the
``(address, block)`` columns of ``balances`` and ``tx_counts``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from itertools import chain, repeat
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ConfigError, ResponseShapeError

from ._base import ConvertContext
from ._convert import (
    ZERO_HASH,
    Where,
    address_columns,
    amount_array,
    hash_array,
    int_array,
    one_float_array,
    parse_ints,
    timestamp_array,
)
from ._decode import Block, DecodedBlocks, StakingTx, Tx

__all__ = [
    "CommonFields",
    "TxRows",
    "address_block_columns",
    "common_fields",
    "constant",
    "gather",
    "shard_column",
    "tx_common_columns",
]


def constant(value: Any, n: int, type_: pa.DataType) -> pa.Array:
    """An array of ``n`` copies of ``value``."""
    return pa.array([value] * n, type=type_)


def address_block_columns(name: str, pairs: Sequence[tuple[str, int]], shard_id: int) -> dict[str, pa.Array]:
    """``address``, ``address_hex``, ``block_number`` and ``shard_id`` of one row per ``(address,
    block)`` of ``pairs`` (``ConvertContext.addresses_blocks``), each pair checked (ConfigError
    naming the first bad one; AddressError for a value that is no address)."""
    for k, pair in enumerate(pairs):
        item: object = pair
        if not isinstance(item, (tuple, list)) or len(item) != 2 or type(item[1]) is not int or item[1] < 0:
            raise ConfigError(
                f"{name}: ConvertContext.addresses_blocks[{k}] must be (address, block number), got {pair!r}"
            )
    ones, hexes = normalize_many([p[0] for p in pairs])  # AddressError (a ConfigError) if bad
    if None in ones:
        k = ones.index(None)
        raise ConfigError(f"{name}: ConvertContext.addresses_blocks[{k}] has no address: {pairs[k]!r}")
    return {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(hexes, type=pa.string()),
        "block_number": pa.array([p[1] for p in pairs], type=pa.int64()),
        "shard_id": constant(shard_id, len(pairs), pa.int32()),
    }


class TxRows:
    """Transactions of one kind gathered from blocks and loose payloads.

    ``owner[i]`` is the index of the block holding row ``i`` (``-1`` for a loose transaction),
    ``pos[i]`` its position inside that block's list (or in the loose list). Both are built on
    first use: the usual conversion never needs them.
    """

    def __init__(
        self,
        rows: list[Any],
        spans: list[tuple[int, int]],
        loose: int,
        where_of: Callable[[TxRows], Where],
        typed: bool = False,
    ) -> None:
        self.rows = rows
        self._spans = spans  # (block index, number of rows) for each block that has rows
        self._loose = loose
        self._where_of = where_of
        #: every quantity is an int, a str or None (see DecodedBlocks.typed)
        self.typed = typed

    @property
    def where(self) -> Where:
        """Names the rows in errors (made on each use: kept on the rows, it would refer back to
        them, a cycle keeping every decoded transaction alive until the cyclic collector runs,
        which conversion pauses and the untracked decoded structs never trigger)."""
        return self._where_of(self)

    @property
    def spans(self) -> list[tuple[int, int]]:
        """``(block index, row count)`` for each block that holds rows, in row order."""
        return self._spans

    @property
    def loose(self) -> int:
        """How many rows came without a block (at the end of :attr:`rows`)."""
        return self._loose

    @cached_property
    def owner(self) -> list[int]:
        out: list[int] = []
        for block, count in self._spans:
            out.extend([block] * count)
        out.extend([-1] * self._loose)
        return out

    @cached_property
    def pos(self) -> list[int]:
        out: list[int] = []
        for _, count in self._spans:
            out.extend(range(count))
        out.extend(range(self._loose))
        return out


def gather(decoded: DecodedBlocks, what: str, staking: bool) -> TxRows:
    """Collect full transaction objects (``staking`` selects which list) with their provenance.

    A bare hash among them (a block fetched without ``fullTx``) raises
    :class:`~hmyframe.errors.ResponseShapeError` naming it.
    """
    key = "stakingTransactions" if staking else "transactions"
    rows: list[Any] = []
    spans: list[tuple[int, int]] = []
    for bi, block in enumerate(decoded.blocks):
        txs = block.stakingTransactions if staking else block.transactions
        if txs:
            rows.extend(txs)
            spans.append((bi, len(txs)))
    loose: list[Any] = decoded.staking_txs if staking else decoded.txs
    loose_paths = decoded.staking_paths if staking else decoded.tx_paths
    rows.extend(loose)
    block_paths = decoded.block_paths

    def where_of(gathered: TxRows) -> Where:
        def path(i: int) -> str:
            b = gathered.owner[i]
            p = gathered.pos[i]
            return f"{block_paths[b]}.{key}[{p}]" if b >= 0 else loose_paths[p]

        return Where(what, path)

    gathered = TxRows(rows, spans, len(loose), where_of, decoded.typed)
    if str in set(map(type, rows)):
        i = next(i for i, t in enumerate(rows) if type(t) is str)
        hint = "request blocks with fullTx=true" if gathered.owner[i] >= 0 else "request fullTx=true"
        raise gathered.where.error(i, "", rows[i], f"a full transaction object ({hint})")
    return gathered


class CommonFields(NamedTuple):
    """The raw values of the fields every (staking) transaction has, one list per field.

    ``numbers``, ``stamps`` and ``block_hashes`` may be ``None``: every row comes from a block
    and repeats its block's number, time and hash (the caller checked it while gathering).
    """

    numbers: list[Any] | None
    stamps: list[Any] | None
    indexes: list[Any]
    block_hashes: list[Any] | None
    hashes: list[Any]
    senders: list[Any]
    gas: list[Any]
    gas_prices: list[Any]
    nonces: list[Any]


def common_fields(rows: list[Tx] | list[StakingTx]) -> CommonFields:
    """:class:`CommonFields` of ``rows``, one list comprehension per field."""
    return CommonFields(
        [t.blockNumber for t in rows],
        [t.timestamp for t in rows],
        [t.transactionIndex for t in rows],
        [t.blockHash for t in rows],
        [t.hash for t in rows],
        [t.from_ for t in rows],
        [t.gas for t in rows],
        [t.gasPrice for t in rows],
        [t.nonce for t in rows],
    )


# long: the table of the shared columns, and its row-by-row fallback (a benchmarked hot path)
def tx_common_columns(
    gathered: TxRows,
    blocks: list[Block],
    ctx: ConvertContext,
    fields: CommonFields | None = None,
    addresses: Sequence[tuple[str, list[Any], str, bool]] = (),
) -> dict[str, pa.Array]:
    """Columns every (staking) transaction has.

    A pending transaction (``blockNumber`` null) gets null block hash, index and timestamp
    (the node sends the zero hash and 0 for them). A transaction without ``timestamp`` (the
    early-2020 v1 format) takes its block's time; without ``shardID`` it takes
    ``ctx.shard_id``.

    ``fields`` are the rows' values when the caller gathered them already (see
    :class:`CommonFields`). ``addresses`` are the table's other address columns, ``(column,
    values, field name, required)`` each: they are converted together with ``from`` (each
    distinct address once) into ``column`` and ``column_hex``.
    """
    where = gathered.where
    typed = gathered.typed
    fields = fields or common_fields(gathered.rows)
    _, _, indexes_raw, _, hashes, senders, gas, gas_prices, nonces = fields

    parts = [(senders, "from", True), *((values, name, req) for _, values, name, req in addresses)]
    pairs = address_columns(parts, where)
    gas_price = amount_array(gas_prices, where, "gasPrice", required=True, typed=typed)
    cols: dict[str, pa.Array] = {
        "transaction_hash": hash_array(hashes, where, "hash", required=True, checked=True),
        "from_address": pairs[0][0],
        "from_address_hex": pairs[0][1],
        "gas": int_array(gas, where, "gas", required=True, typed=typed),
        "gas_price": gas_price,
        "gas_price_one": one_float_array(gas_prices, exact=gas_price),
        "nonce": int_array(nonces, where, "nonce", required=True, typed=typed),
    }
    for (column, *_), (one, hex_) in zip(addresses, pairs[1:], strict=True):
        cols[column] = one
        cols[f"{column}_hex"] = hex_
    shared = _block_columns(gathered, blocks, fields)
    if shared is not None:  # the usual case: each row repeats its block's number, time and hash
        numbers_col, stamps_col, hashes_col = shared
        cols.update(
            {
                "block_number": numbers_col,
                "block_hash": hashes_col,
                "transaction_index": int_array(indexes_raw, where, "transactionIndex", typed=typed),
                "timestamp": stamps_col,
            }
        )
        return cols

    rows = gathered.rows
    numbers_raw = [t.blockNumber for t in rows] if fields.numbers is None else fields.numbers
    stamps_raw = [t.timestamp for t in rows] if fields.stamps is None else fields.stamps
    block_hashes = [t.blockHash for t in rows] if fields.block_hashes is None else fields.block_hashes
    if None in numbers_raw:
        owner = gathered.owner
        numbers_raw = [
            v if v is not None or owner[i] < 0 else blocks[owner[i]].number for i, v in enumerate(numbers_raw)
        ]
    numbers = parse_ints(numbers_raw, where, "blockNumber")
    pending = [v is None for v in numbers] if None in numbers else None
    if None in stamps_raw:
        owner = gathered.owner
        stamps_raw = [
            v if v is not None or owner[i] < 0 else blocks[owner[i]].timestamp
            for i, v in enumerate(stamps_raw)
        ]
    stamps = parse_ints(stamps_raw, where, "timestamp")
    indexes = parse_ints(indexes_raw, where, "transactionIndex")
    if pending is not None:
        stamps = [None if p else v for v, p in zip(stamps, pending, strict=True)]
        indexes = [None if p else v for v, p in zip(indexes, pending, strict=True)]
        block_hashes = [ZERO_HASH if p else v for v, p in zip(block_hashes, pending, strict=True)]
    cols.update(
        {
            "block_number": int_array(numbers, where, "blockNumber", parsed=True),
            "block_hash": hash_array(block_hashes, where, "blockHash", zero_is_null=True, checked=True),
            "transaction_index": int_array(indexes, where, "transactionIndex", parsed=True),
            "timestamp": timestamp_array(stamps, where, "timestamp", parsed=True),
        }
    )
    return cols


def _block_columns(
    gathered: TxRows, blocks: list[Block], fields: CommonFields
) -> tuple[pa.Array, pa.Array, pa.Array] | None:
    """Block number, time and hash columns built once per block and spread over its rows, when
    every row comes from a block and repeats exactly its block's values (checked in C by list
    comparison, unless ``fields`` says the caller checked it) and those values pass; else
    ``None`` (the row-by-row path names what is wrong)."""
    spans = gathered.spans
    if gathered.loose or not spans:
        return None
    owners = [blocks[b] for b, _ in spans]
    counts = [c for _, c in spans]
    block_numbers = [b.number for b in owners]
    block_stamps = [b.timestamp for b in owners]
    block_hashes = [b.hash for b in owners]

    def spread(values: list[Any]) -> list[Any]:
        return list(chain.from_iterable(map(repeat, values, counts)))

    numbers, stamps, hashes = fields.numbers, fields.stamps, fields.block_hashes
    if numbers is not None and numbers != spread(block_numbers):
        return None
    if stamps is not None and stamps != spread(block_stamps):
        return None
    if hashes is not None and hashes != spread(block_hashes):
        return None
    if None in block_numbers or None in block_stamps or None in block_hashes:
        return None  # pending rows: the row-by-row path nulls their block fields
    per_block = Where("", str)  # never raises: checked=... and the bulk paths below return None instead
    try:
        number_col = int_array(block_numbers, per_block, "", required=True)
        stamp_col = timestamp_array(block_stamps, per_block, "", required=True)
        hash_col = hash_array(block_hashes, per_block, "", required=True, zero_is_null=True)
    except ResponseShapeError:
        return None
    index = pa.array(np.repeat(np.arange(len(spans)), counts))
    return number_col.take(index), stamp_col.take(index), hash_col.take(index)


def shard_column(
    values: list[Any], where: Where, name: str, default: int | None, *, typed: bool = False
) -> pa.Array:
    """A shard id column (``int32``); missing values take ``default``."""
    if default is not None and None in values:
        values = [default if v is None else v for v in values]
    return int_array(values, where, name, type_=pa.int32(), typed=typed)
