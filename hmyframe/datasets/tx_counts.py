"""``tx_counts``: an account's transaction count (nonce) at a block."""

from __future__ import annotations

import pyarrow as pa

from ._base import ConvertContext, Dataset, column, per_payload, shared
from ._blockrows import address_block_columns
from ._convert import Where, int_array
from ._decode import decode_json, payload_path

NAME = "tx_counts"

SCHEMA = pa.schema(
    [
        column("address", pa.string(), "Account, one1 bech32."),
        column("address_hex", pa.string(), "Account, lower-case 0x hex."),
        shared("block_number", "Block at which the count was read."),
        shared("shard_id"),
        column(
            "transaction_count",
            pa.int64(),
            "Transactions sent by the account up to that block (its nonce there).",
        ),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``getTransactionCount`` answers.

    Each payload is the count (``"0x9"`` in v1, ``9`` in v2); ``ctx.addresses_blocks`` gives
    the ``(address, block)`` it was asked for, in payload order.
    """
    decoded, pairs = per_payload(
        NAME, decoded, ctx.addresses_blocks, "addresses_blocks", "(address, block)", "pairs"
    )
    rows = address_block_columns(NAME, pairs, ctx.shard_id)
    where = Where.of(NAME, [payload_path(i) for i in range(len(decoded))])
    return {**rows, "transaction_count": int_array(decoded, where, "", required=True)}


DATASET = Dataset(
    name=NAME,
    description="One row per (address, block): the account's transaction count (nonce) at that block.",
    schema=SCHEMA,
    sort_by=("address", "block_number"),
    source="tx_counts",
    methods=("hmy(v2)_getTransactionCount",),
    builder=build,
    decoder=decode_json,
)
