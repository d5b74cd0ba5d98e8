"""``tx_counts``: an account's transaction count (nonce) at a block."""

from __future__ import annotations

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ConfigError, ResponseShapeError

from ._base import ConvertContext, Dataset, column, shared
from ._blockrows import constant
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
    if not isinstance(decoded, list):
        raise ResponseShapeError(NAME, "payloads", decoded, "the decoded list of payloads")
    pairs = ctx.addresses_blocks
    if pairs is None or len(pairs) != len(decoded):
        got = "none" if pairs is None else str(len(pairs))
        raise ConfigError(
            f"{NAME}: ConvertContext.addresses_blocks must give one (address, block) per payload "
            f"({len(decoded)} payloads, {got} pairs)"
        )
    for k, pair in enumerate(pairs):
        item: object = pair
        if not isinstance(item, (tuple, list)) or len(item) != 2 or type(item[1]) is not int or item[1] < 0:
            raise ConfigError(
                f"{NAME}: ConvertContext.addresses_blocks[{k}] must be (address, block number), got {pair!r}"
            )
    where = Where.of(NAME, [payload_path(i) for i in range(len(decoded))])
    ones, hexes = normalize_many([p[0] for p in pairs])  # AddressError (a ConfigError) if bad
    if None in ones:
        k = ones.index(None)
        raise ConfigError(f"{NAME}: ConvertContext.addresses_blocks[{k}] has no address: {pairs[k]!r}")
    return {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(hexes, type=pa.string()),
        "block_number": pa.array([p[1] for p in pairs], type=pa.int64()),
        "shard_id": constant(ctx.shard_id, len(pairs), pa.int32()),
        "transaction_count": int_array(decoded, where, "", required=True),
    }


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
