"""``account_transactions``: an address's plain AND staking transactions from the node's history
index (``getTransactionsHistory`` and ``getStakingTransactionsHistory``, paged, full
transactions), in one frame.

An analyst asking "what did this address do" wants one timeline, so both kinds are rows of one
frame told apart by ``kind`` (``"plain"`` / ``"staking"``): the columns are the ``transactions``
dataset's, then the staking fields that say what a staking transaction moved (``directive``,
``validator_address``, ``delegator_address``, ``amount``); a plain row has those null, a staking
row has the plain-only ones null (``to_address``, ``value``, ``input``, ``eth_hash``...). The
full staking columns (commission rates, keys, texts) stay in ``staking_transactions``.

``direction`` is the transaction's for the address asked: ``"sent"`` (it signed it),
``"received"`` (it is the receiver, or the validator of a Delegate / Undelegate: the node's index
lists the validator as RECEIVED) or ``"self"``. The index is the explorer's of the shard asked:
a shard lists a cross-shard transfer where it was sent (under both addresses), not where it was
received; staking transactions are on the beacon shard (0) only. A node without the index
answers ``explorer service not started`` (``HistoryUnavailableError``); an address without
history answers an empty list.

Rows are sorted by address, block, kind (a block's plain transactions run before its staking
ones) and index, whichever end of the history was asked for. Built from the ``transactions``
and ``staking_transactions`` tables of the history answers and the address of each row:
``build((transactions, addresses[, staking_transactions, staking_addresses]), ctx)``.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ResponseShapeError

from . import staking_transactions, transactions
from ._base import ConvertContext, Dataset, column
from ._decode import decode_json

NAME = "account_transactions"

#: The staking transaction columns kept beside the plain ones.
STAKING_COLUMNS = (
    "directive",
    "validator_address",
    "validator_address_hex",
    "delegator_address",
    "delegator_address_hex",
    "amount",
    "amount_one",
)
#: Plain and staking transactions share these (the rest of a row's other kind is null).
_SHARED = frozenset(transactions.SCHEMA.names) & frozenset(staking_transactions.SCHEMA.names)

SCHEMA = pa.schema(
    [
        column("address", pa.string(), "The account whose history lists the transaction, one1 bech32."),
        column("address_hex", pa.string(), "The account, lower-case 0x hex."),
        column("direction", pa.string(), '"sent", "received" or "self", for that account.'),
        column("kind", pa.string(), '"plain" or "staking".'),
        *transactions.SCHEMA,
        *(staking_transactions.SCHEMA.field(name) for name in STAKING_COLUMNS),
    ]
)


def _column(table: pa.Table, name: str) -> pa.Array:
    col = table[name]
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from the plain and staking tables and each row's address."""
    if not (isinstance(decoded, tuple) and len(decoded) in (2, 4)):
        raise ResponseShapeError(
            NAME, "input", decoded, "(transactions, addresses[, staking_transactions, staking addresses])"
        )
    txs, tx_addresses = decoded[0], list(decoded[1])
    if len(decoded) == 4:
        stxs, stx_addresses = decoded[2], list(decoded[3])
    else:
        stxs, stx_addresses = staking_transactions.SCHEMA.empty_table(), []
    n_plain = len(tx_addresses)
    ones, hexes = normalize_many(tx_addresses + stx_addresses)
    senders = _column(txs, "from_address_hex").to_pylist() + _column(stxs, "from_address_hex").to_pylist()
    receivers: list[Any] = _column(txs, "to_address_hex").to_pylist() + [None] * len(stx_addresses)
    direction = [
        "self" if s == a and r == a else "sent" if s == a else "received"
        for a, s, r in zip(hexes, senders, receivers, strict=True)
    ]
    columns: dict[str, pa.Array] = {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(hexes, type=pa.string()),
        "direction": pa.array(direction, type=pa.string()),
        "kind": pa.array(["plain"] * n_plain + ["staking"] * len(stx_addresses), type=pa.string()),
    }
    for field in list(SCHEMA)[4:]:
        name = field.name
        plain = _column(txs, name) if name in transactions.SCHEMA.names else pa.nulls(n_plain, field.type)
        staking = (
            _column(stxs, name)
            if name in _SHARED or name in STAKING_COLUMNS
            else pa.nulls(len(stx_addresses), field.type)
        )
        columns[name] = pa.concat_arrays([plain.cast(field.type), staking.cast(field.type)])
    return columns


DATASET = Dataset(
    name=NAME,
    description="One row per (address, transaction) of the node's history index, plain and staking: the transaction, its kind and direction.",
    schema=SCHEMA,
    sort_by=("address", "block_number", "kind", "transaction_index"),
    source="account_transactions",
    methods=("hmy(v2)_getTransactionsHistory", "hmy(v2)_getStakingTransactionsHistory"),
    builder=build,
    decoder=decode_json,
    summary="Each address's plain and staking transactions from the node's history index, with their direction.",
    notes=(
        "Pages of ``getTransactionsHistory`` and (on shard 0) ``getStakingTransactionsHistory`` "
        "(``fullTx``, all types) are asked until one comes back short, oldest first or, with "
        '``order="desc"``, newest first (``limit`` stops early: the last N of a busy address). '
        "Needs a node keeping the explorer index. Not cached: the history of an address grows "
        "with the head, so no stored answer stays true (the transactions themselves are in the "
        "range datasets' cache)."
    ),
)
