"""``account_transactions``: an address's transactions from the node's history index
(``getTransactionsHistory``, paged, full transactions).

The columns are the ``transactions`` dataset's plus the address asked about and the
``direction`` of each transaction for it: ``"sent"``, ``"received"`` or ``"self"`` (a
contract creation the address sent is ``"sent"``). The index is the explorer's of the shard
asked: a shard lists a cross-shard transfer where it was sent (under both addresses), not
where it was received. A node without the index answers ``explorer service not started``
(``HistoryUnavailableError``); an address without history answers an empty list.

Built from a ``transactions`` table and the address of each row:
``build((transactions, address_hexes), ctx)``.
"""

from __future__ import annotations

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ResponseShapeError

from . import transactions
from ._base import ConvertContext, Dataset, column
from ._decode import decode_json

NAME = "account_transactions"

SCHEMA = pa.schema(
    [
        column("address", pa.string(), "The account whose history lists the transaction, one1 bech32."),
        column("address_hex", pa.string(), "The account, lower-case 0x hex."),
        column("direction", pa.string(), '"sent", "received" or "self", for that account.'),
        *transactions.SCHEMA,
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from ``(transactions table, address hex per row)``."""
    if not (isinstance(decoded, tuple) and len(decoded) == 2):
        raise ResponseShapeError(NAME, "input", decoded, "(transactions table, addresses)")
    table, addresses = decoded
    ones, hexes = normalize_many(list(addresses))
    senders = table["from_address_hex"].to_pylist()
    receivers = table["to_address_hex"].to_pylist()
    direction = [
        "self" if s == a and r == a else "sent" if s == a else "received"
        for a, s, r in zip(hexes, senders, receivers, strict=True)
    ]
    out = {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(hexes, type=pa.string()),
        "direction": pa.array(direction, type=pa.string()),
    }
    out.update(
        {
            name: table[name].combine_chunks() if isinstance(table[name], pa.ChunkedArray) else table[name]
            for name in transactions.SCHEMA.names
        }
    )
    return out


DATASET = Dataset(
    name=NAME,
    description="One row per (address, transaction) of the node's history index: the transaction and its direction.",
    schema=SCHEMA,
    sort_by=("address", "block_number", "transaction_index"),
    source="account_transactions",
    methods=("hmy(v2)_getTransactionsHistory",),
    builder=build,
    decoder=decode_json,
    summary="Each address's plain transactions from the node's history index, with their direction.",
    notes=(
        "Pages of ``getTransactionsHistory`` (``fullTx``, ascending, all types) are asked until "
        "one comes back short. Needs a node keeping the explorer index; the history grows with "
        "the head, so it is not cached."
    ),
)
