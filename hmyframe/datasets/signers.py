"""``signers``: one row per (block, validator that signed it), with how many of its keys signed.

The node lists a block's signers one address per signing BLS key (``GetBLSSigners``: each key
of the committee whose bit is set in the next block's commit bitmap, mapped to its validator's
account), so a validator with several keys appears several times: 245 entries for 64 validators
on mainnet block 42,379,341. One row per (block, validator) keeps that count as ``key_count``:
the validator's share of the signing keys, from which stake-weighted signing follows (the node
spreads a validator's effective stake equally over its keys: ``staking/effective/calculate.go``).
"""

from __future__ import annotations

import pyarrow as pa

from hmyframe.errors import ConfigError, ResponseShapeError

from ._base import ConvertContext, Dataset, column, shared
from ._blockrows import constant
from ._convert import Where, address_arrays, hash_array, int_array
from ._decode import DecodedBlocks, decode_blocks, payload_path, require

NAME = "signers"

SCHEMA = pa.schema(
    [
        shared("block_number"),
        shared("block_hash"),
        shared("shard_id"),
        column(
            "signer_index",
            pa.int64(),
            "Position of the validator among the block's signers (0..k-1), in the order the node first lists it.",
        ),
        column("signer_address", pa.string(), "Account of a validator that signed the block, one1 bech32."),
        column("signer_address_hex", pa.string(), "The signer, lower-case 0x hex."),
        column(
            "key_count",
            pa.int64(),
            "How many of the validator's BLS keys signed: the node lists one address per signing key.",
        ),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads.

    Signers come from blocks fetched ``withSigners`` and from ``getBlockSigners`` answers
    (whose block number is ``ctx.block_numbers[payload index]``). The node lists an address
    once per signing key: a (block, signer) pair is one row, ``key_count`` the times it is listed.
    """
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    numbers: list[object] = []
    hashes: list[str | None] = []
    signers: list[object] = []
    paths: list[str] = []
    number_paths: list[str] = []
    for bi, block in enumerate(data.blocks):
        if not block.signers:
            continue
        k = len(block.signers)
        numbers.extend([block.number] * k)
        hashes.extend([block.hash] * k)
        signers.extend(block.signers)
        paths.extend(f"{data.block_paths[bi]}.signers[{j}]" for j in range(k))
        number_paths.extend([data.block_paths[bi]] * k)
    for payload, addresses in data.signer_lists:
        given = ctx.block_numbers
        number = given[payload] if given is not None and payload < len(given) else None
        if number is None:
            raise ConfigError(
                f"{NAME}: payload {payload} is a getBlockSigners answer (a bare address list); "
                "pass its block number in ConvertContext.block_numbers"
            )
        k = len(addresses)
        numbers.extend([number] * k)
        hashes.extend([None] * k)
        signers.extend(addresses)
        paths.extend(payload_path(payload, f"[{j}]") for j in range(k))
        number_paths.extend([f"ConvertContext.block_numbers[{payload}]"] * k)
    where = Where.of(NAME, paths)
    for i, s in enumerate(signers):
        if type(s) is not str or not s:
            raise ResponseShapeError(NAME, paths[i], s, "a signer address (one1 bech32 or 0x hex)")
    one, hex_ = address_arrays(signers, where, "", required=True)
    blocks = int_array(numbers, Where.of(NAME, number_paths), "number", required=True)
    first, rank, counts = _per_validator(blocks.to_pylist(), one.to_pylist())
    take = pa.array(first, type=pa.int64())
    return {
        "block_number": blocks.take(take),
        "block_hash": hash_array(hashes, where, "hash", checked=True).take(take),
        "shard_id": constant(ctx.shard_id, len(first), pa.int32()),
        "signer_index": pa.array(rank, type=pa.int64()),
        "signer_address": one.take(take),
        "signer_address_hex": hex_.take(take),
        "key_count": pa.array(counts, type=pa.int64()),
    }


def _per_validator(numbers: list[object], addresses: list[object]) -> tuple[list[int], list[int], list[int]]:
    """For each (block, address) pair, in the order first listed: the position of its first entry,
    its rank among its block's distinct signers, and how many entries list it."""
    row: dict[tuple[object, object], int] = {}
    first: list[int] = []
    rank: list[int] = []
    counts: list[int] = []
    per_block: dict[object, int] = {}
    for i, pair in enumerate(zip(numbers, addresses, strict=True)):
        k = row.get(pair)
        if k is None:
            row[pair] = len(first)
            first.append(i)
            rank.append(per_block.get(pair[0], 0))
            per_block[pair[0]] = rank[-1] + 1
            counts.append(1)
        else:
            counts[k] += 1
    return first, rank, counts


DATASET = Dataset(
    name=NAME,
    description="One row per (block, validator that signed it) with the number of its keys that signed (from blocks fetched withSigners, or getBlockSigners answers).",
    schema=SCHEMA,
    sort_by=("block_number", "signer_index"),
    source="blocks",
    methods=("hmy(v2)_getBlocks / getBlockByNumber (withSigners)", "hmy(v2)_getBlockSigners"),
    builder=build,
    decoder=decode_blocks,
    summary="Signers of blocks ``start..end``: one row per (block, validator), with its signing key count.",
    notes="Block N's signers are known from block N+1, so ``end`` is at most ``head - 1`` (the default end).",
)
