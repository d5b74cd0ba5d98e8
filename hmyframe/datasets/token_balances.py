"""``token_balances``: ``balanceOf(holder)`` of (token, holder) pairs at a block, by contract call.

Each payload is one ``call`` answer of ``balanceOf(address)`` (selector ``0x70a08231``, the
holder as one ABI word): the ``result`` (0x hex: the first 32-byte word is the balance, exact
uint256) or, for a call that reverted, ``{"error": {...}}``; ``"0x"`` means no such function
(or no contract). Those give a null ``token_balance`` and a ``reason``.
``ConvertContext.token_holders`` gives the ``(token, holder, block)`` each payload answers.
The same ``balanceOf`` on an HRC-721 token counts the holder's tokens.
"""

from __future__ import annotations

from typing import Any, Final

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ResponseShapeError

from ._base import ConvertContext, Dataset, column, per_payload, shared, uint256_column
from ._blockrows import constant
from ._decode import decode_json, payload_path

NAME = "token_balances"

#: ``balanceOf(address)``.
BALANCE_OF: Final = "0x70a08231"

SCHEMA = pa.schema(
    [
        column("token_address", pa.string(), "Token contract, one1 bech32."),
        column("token_address_hex", pa.string(), "Token contract, lower-case 0x hex."),
        column("holder_address", pa.string(), "Holder, one1 bech32."),
        column("holder_address_hex", pa.string(), "Holder, lower-case 0x hex."),
        shared("block_number", "Block at which balanceOf was called (the state after it)."),
        shared("shard_id"),
        uint256_column(
            "token_balance",
            "balanceOf(holder) in the token's smallest unit, exact uint256; null when unreadable.",
        ),
        column(
            "reason", pa.string(), "Why token_balance is null (reverted, no such function); null otherwise."
        ),
    ]
)


def call_data(holder_hex: str) -> str:
    """The ``balanceOf(holder)`` call data."""
    return BALANCE_OF + "00" * 12 + holder_hex[2:].lower()


def _value(answer: Any, where: str) -> tuple[int | None, str | None]:
    if isinstance(answer, dict) and "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        return None, f"balanceOf() reverted: {error.get('message', '')}".rstrip(": ")
    if not isinstance(answer, str) or not answer.startswith("0x"):
        raise ResponseShapeError(NAME, where, answer, "0x hex return data or a revert")
    data = answer[2:]
    if not data:
        return None, "balanceOf() missing"
    if len(data) < 64:
        return None, f"balanceOf() returned {len(data) // 2} bytes, not a 32-byte word"
    return int(data[:64], 16), None


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded ``balanceOf`` answers."""
    decoded, triples = per_payload(
        NAME, decoded, ctx.token_holders, "token_holders", "(token, holder, block)", "triples"
    )
    t_one, t_hex = normalize_many([t[0] for t in triples])
    h_one, h_hex = normalize_many([t[1] for t in triples])
    values = [_value(a, payload_path(i)) for i, a in enumerate(decoded)]
    n = len(triples)
    return {
        "token_address": pa.array(t_one, type=pa.string()),
        "token_address_hex": pa.array(t_hex, type=pa.string()),
        "holder_address": pa.array(h_one, type=pa.string()),
        "holder_address_hex": pa.array(h_hex, type=pa.string()),
        "block_number": pa.array([t[2] for t in triples], type=pa.int64()),
        "shard_id": constant(ctx.shard_id, n, pa.int32()),
        "token_balance": pa.array([None if v is None else str(v) for v, _ in values], type=pa.string()),
        "reason": pa.array([r for _, r in values], type=pa.string()),
    }


DATASET = Dataset(
    name=NAME,
    description="One row per (token, holder, block): balanceOf(holder), exact uint256.",
    schema=SCHEMA,
    sort_by=("token_address", "holder_address", "block_number"),
    source="token_balances",
    methods=("hmy(v2)_call",),
    builder=build,
    decoder=decode_json,
    summary="balanceOf of (token, holder) pairs at a block, exact uint256, by batched contract calls.",
    notes=(
        "One ``call`` of ``balanceOf(holder)`` per pair, batched; a revert or a missing function "
        "is a null balance with a ``reason``, never an error. ``hmyframe.holders(token, ...)`` "
        "replays ``token_transfers`` instead and checks a sample against these calls."
    ),
)
