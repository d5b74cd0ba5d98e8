"""``balances``: the exact ONE balance of an address at a block (``getBalanceByBlockNumber``).

**Semantics: the state after block N.** The node reads the account from block N's state root,
which holds the effects of every transaction of block N (and of its ``Finalize``: undelegations
paid at an epoch's last block). So ``balance(N) - balance(N - 1)`` is what block N moved; a
transaction of block N is already in ``balance(N)``. (cryo's users found its balances to be the
state before the block, cryo issue 154: hmyframe's are not.)

Each payload is one ``getBalanceByBlockNumber`` answer (``"0x..."`` in v1, a JSON number in
v2); ``ConvertContext.addresses_blocks`` gives the ``(address, block)`` it answers, in payload
order.
"""

from __future__ import annotations

import pyarrow as pa

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, per_payload, shared
from ._blockrows import address_block_columns
from ._convert import Where, amount_array, one_float_array, parse_ints
from ._decode import decode_json, payload_path

NAME = "balances"

SCHEMA = pa.schema(
    [
        column("address", pa.string(), "Account, one1 bech32."),
        column("address_hex", pa.string(), "Account, lower-case 0x hex."),
        shared("block_number", "Block after which the balance is read (its transactions included)."),
        shared("shard_id"),
        column("balance", AMOUNT, "Balance in atto after the block, exact."),
        one_column("balance", "Balance in ONE as float64 (convenience)."),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``getBalanceByBlockNumber`` answers."""
    decoded, pairs = per_payload(
        NAME, decoded, ctx.addresses_blocks, "addresses_blocks", "(address, block)", "pairs"
    )
    rows = address_block_columns(NAME, pairs, ctx.shard_id)
    where = Where.of(NAME, [payload_path(i) for i in range(len(decoded))])
    values = parse_ints(decoded, where, "", required=True)
    return {
        **rows,
        "balance": amount_array(values, where, "", parsed=True),
        "balance_one": one_float_array(values),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per (address, block): the exact ONE balance after that block.",
    schema=SCHEMA,
    sort_by=("address", "block_number"),
    source="balances",
    methods=("hmy(v2)_getBalanceByBlockNumber",),
    builder=build,
    decoder=decode_json,
    summary="Exact ONE balances of addresses at blocks (the state after each block), cached per (address, block).",
    notes=(
        "A balance at block N is the state **after** block N: block N's transactions are in it "
        "(``balance(N) - balance(N-1)`` is what block N moved). Calls are batched (one "
        "``getBalanceByBlockNumber`` per (address, block)); rows are cached per chain, shard and "
        "block, grown by union, so asking again sends no request. An address that is not one1/0x, "
        "or a block past the head, is refused before anything is sent or cached."
    ),
)
