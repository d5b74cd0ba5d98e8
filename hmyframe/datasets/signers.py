"""``signers``: one row per (block, signer)."""

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
        column("signer_index", pa.int64(), "Position of the signer in the node's list."),
        column("signer_address", pa.string(), "Account of a validator that signed the block, one1 bech32."),
        column("signer_address_hex", pa.string(), "The signer, lower-case 0x hex."),
    ]
)


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``blocks``-source payloads.

    Signers come from blocks fetched ``withSigners`` and from ``getBlockSigners`` answers
    (whose block number is ``ctx.block_numbers[payload index]``). A (block, signer) pair seen
    twice is kept once.
    """
    data = require(decoded, DecodedBlocks, NAME, "blocks")
    numbers: list[object] = []
    hashes: list[str | None] = []
    index: list[int] = []
    signers: list[object] = []
    paths: list[str] = []
    number_paths: list[str] = []
    for bi, block in enumerate(data.blocks):
        if not block.signers:
            continue
        k = len(block.signers)
        numbers.extend([block.number] * k)
        hashes.extend([block.hash] * k)
        index.extend(range(k))
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
        index.extend(range(k))
        signers.extend(addresses)
        paths.extend(payload_path(payload, f"[{j}]") for j in range(k))
        number_paths.extend([f"ConvertContext.block_numbers[{payload}]"] * k)
    where = Where.of(NAME, paths)
    for i, s in enumerate(signers):
        if type(s) is not str or not s:
            raise ResponseShapeError(NAME, paths[i], s, "a signer address (one1 bech32 or 0x hex)")
    one, hex_ = address_arrays(signers, where, "", required=True)
    blocks = int_array(numbers, Where.of(NAME, number_paths), "number", required=True)
    keep = _first_occurrences(blocks.to_pylist(), one.to_pylist())
    cols = {
        "block_number": blocks,
        "block_hash": hash_array(hashes, where, "hash", checked=True),
        "shard_id": constant(ctx.shard_id, len(signers), pa.int32()),
        "signer_index": pa.array(index, type=pa.int64()),
        "signer_address": one,
        "signer_address_hex": hex_,
    }
    if keep is not None:
        mask = pa.array(keep, type=pa.bool_())
        cols = {k: v.filter(mask) for k, v in cols.items()}
    return cols


def _first_occurrences(numbers: list[object], addresses: list[object]) -> list[bool] | None:
    seen: set[tuple[object, object]] = set()
    keep: list[bool] = []
    for pair in zip(numbers, addresses, strict=True):
        keep.append(pair not in seen)
        seen.add(pair)
    return None if all(keep) else keep


DATASET = Dataset(
    name=NAME,
    description="One row per block signer (from blocks fetched withSigners, or getBlockSigners answers).",
    schema=SCHEMA,
    sort_by=("block_number", "signer_index"),
    source="blocks",
    methods=("hmy(v2)_getBlocks / getBlockByNumber (withSigners)", "hmy(v2)_getBlockSigners"),
    builder=build,
    decoder=decode_blocks,
    summary="Signers of blocks ``start..end``: one row per (block, signer).",
    notes="Block N's signers are known from block N+1, so ``end`` is at most ``head - 1`` (the default end).",
)
