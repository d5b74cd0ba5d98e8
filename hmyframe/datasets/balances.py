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

from hmyframe.addresses import normalize_many
from hmyframe.errors import ConfigError, ResponseShapeError

from ._base import AMOUNT, ConvertContext, Dataset, column, one_column, shared
from ._blockrows import constant
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
    if not isinstance(decoded, list):
        raise ResponseShapeError(NAME, "payloads", decoded, "the decoded list of payloads")
    pairs = ctx.addresses_blocks
    if pairs is None or len(pairs) != len(decoded):
        got = "none" if pairs is None else str(len(pairs))
        raise ConfigError(
            f"{NAME}: ConvertContext.addresses_blocks must give one (address, block) per payload "
            f"({len(decoded)} payloads, {got} pairs)"
        )
    where = Where.of(NAME, [payload_path(i) for i in range(len(decoded))])
    ones, hexes = normalize_many([p[0] for p in pairs])  # AddressError (a ConfigError) if bad
    if None in ones:
        k = ones.index(None)
        raise ConfigError(f"{NAME}: ConvertContext.addresses_blocks[{k}] has no address: {pairs[k]!r}")
    values = parse_ints(decoded, where, "", required=True)
    return {
        "address": pa.array(ones, type=pa.string()),
        "address_hex": pa.array(hexes, type=pa.string()),
        "block_number": pa.array([p[1] for p in pairs], type=pa.int64()),
        "shard_id": constant(ctx.shard_id, len(pairs), pa.int32()),
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
