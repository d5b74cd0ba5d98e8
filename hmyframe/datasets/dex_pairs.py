"""``dex_pairs``: UniswapV2-style pairs at a block: their two tokens and reserves, by contract call.

Each pair costs three calls: ``token0()`` (selector ``0x0dfe1681``), ``token1()``
(``0xd21220a7``) and ``getReserves()`` (``0x0902f1ac``). Each payload is one call's answer: its
``result`` (0x hex: an address word for the tokens; three words for the reserves: ``reserve0``,
``reserve1`` (uint112) and ``blockTimestampLast`` (uint32)) or, for a call that reverted,
``{"error": {"code": 3, "message": "execution reverted..."}}``. ``"0x"`` (no data) means no
such function, or no contract at that block (a pair not created yet). Those give nulls and a
``reason``, never an error. ``ConvertContext.token_calls`` says which ``(pair, block, function)``
each payload answers.

With ``with_tokens=True`` (the default of :func:`hmyframe.dex_pairs`) each pair's tokens are
joined with the ``tokens`` dataset read at the same block (:data:`TOKEN_COLUMNS`): names,
symbols and decimals, so prices and volumes can be scaled (:mod:`hmyframe.metrics.dex`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import pyarrow as pa

from hmyframe.addresses import normalize_many
from hmyframe.errors import ConfigError, ResponseShapeError, short_repr

from ._base import ConvertContext, Dataset, column, per_payload, shared, uint256_column
from ._blockrows import constant
from ._decode import decode_json, payload_path
from .tokens import token_metadata

__all__ = ["FUNCTIONS", "NAME", "SCHEMA", "SELECTORS", "TOKEN_COLUMNS", "build", "with_tokens"]

NAME = "dex_pairs"

#: What a pair row is read with, in payload order.
FUNCTIONS: Final = ("token0", "token1", "getReserves")
#: The 4-byte selectors (keccak-256 of the signatures) of those calls.
SELECTORS: Final = {"token0": "0x0dfe1681", "token1": "0xd21220a7", "getReserves": "0x0902f1ac"}

SCHEMA = pa.schema(
    [
        column("pair_address", pa.string(), "The pair contract (also its LP token), one1 bech32."),
        column("pair_address_hex", pa.string(), "The pair contract, lower-case 0x hex."),
        shared("block_number", "Block at which the pair was read (the state after it)."),
        shared("shard_id"),
        column("token0", pa.string(), "token0(), one1 bech32; null when unreadable."),
        column("token0_hex", pa.string(), "token0(), lower-case 0x hex; null when unreadable."),
        column("token1", pa.string(), "token1(), one1 bech32; null when unreadable."),
        column("token1_hex", pa.string(), "token1(), lower-case 0x hex; null when unreadable."),
        uint256_column(
            "reserve0", "getReserves() reserve0 in token0's smallest unit, exact; null when unreadable."
        ),
        uint256_column(
            "reserve1", "getReserves() reserve1 in token1's smallest unit, exact; null when unreadable."
        ),
        column(
            "block_timestamp_last",
            pa.int64(),
            "getReserves() blockTimestampLast: the unix time (mod 2**32) of the reserves' last update.",
        ),
        column(
            "reason",
            pa.string(),
            'Why values are null, \'; \'-separated ("token0() missing", "getReserves() reverted: ..."); '
            "null when none.",
        ),
    ]
)

#: The columns ``with_tokens=True`` adds (from the ``tokens`` dataset at the same block).
TOKEN_COLUMNS = pa.schema(
    [
        column(f"token{k}_{what}", type_, f"token{k}'s {call} (tokens dataset); null when unknown.")
        for k in (0, 1)
        for what, type_, call in (
            ("name", pa.string(), "name()"),
            ("symbol", pa.string(), "symbol()"),
            ("decimals", pa.int32(), "decimals()"),
        )
    ]
)


def _answer(value: object, where: str) -> tuple[bytes | None, str | None]:
    """``(return data, None)`` or ``(None, the error's message)`` of one payload."""
    if isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) % 2 == 0:
        try:
            return bytes.fromhex(value[2:]), None
        except ValueError:
            pass
    error = value.get("error") if isinstance(value, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        message = str(error["message"])
        return None, message.replace("execution reverted", "reverted", 1) if message else "failed"
    raise ResponseShapeError(NAME, where, value, 'a 0x hex string or {"error": {"code", "message"}}')


def _address(function: str, data: bytes | None, error: str | None) -> tuple[str | None, str | None]:
    """``(0x address, reason)`` of a ``token0()`` / ``token1()`` answer."""
    if error is not None:
        return None, f"{function}() {error}"
    if not data:
        return None, f"{function}() missing"
    if len(data) < 32 or any(data[:12]):
        return None, f"{function}() returned {len(data)} bytes, not an address word"
    return "0x" + data[12:32].hex(), None


def _reserves(data: bytes | None, error: str | None) -> tuple[tuple[int, int, int] | None, str | None]:
    """``((reserve0, reserve1, blockTimestampLast), reason)`` of a ``getReserves()`` answer."""
    if error is not None:
        return None, f"getReserves() {error}"
    if not data:
        return None, "getReserves() missing"
    if len(data) < 96:
        return None, f"getReserves() returned {len(data)} bytes, not three words"
    words = [int.from_bytes(data[k : k + 32], "big") for k in (0, 32, 64)]
    return (words[0], words[1], words[2]), None


def _calls(calls: Sequence[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    for k, call in enumerate(calls):
        item: object = call
        if not isinstance(item, (tuple, list)) or len(item) != 3 or item[2] not in FUNCTIONS:
            raise ConfigError(
                f"{NAME}: ConvertContext.token_calls[{k}] must be (pair, block, one of "
                f"{', '.join(FUNCTIONS)}), got {short_repr(call)}"
            )
    return [(str(a), int(b), str(f)) for a, b, f in calls]


def build(decoded: object, ctx: ConvertContext) -> dict[str, pa.Array]:
    """Columns of :data:`SCHEMA` from decoded call answers (see the module docs)."""
    decoded, given = per_payload(
        NAME, decoded, ctx.token_calls, "token_calls", "(pair, block, function)", "given"
    )
    calls = _calls(given)
    _, hexes = normalize_many([c[0] for c in calls])  # AddressError (a ConfigError) if bad
    rows: dict[tuple[str, int], dict[str, tuple[bytes | None, str | None]]] = {}
    for k, (value, (_, block, function), pair) in enumerate(zip(decoded, calls, hexes, strict=True)):
        rows.setdefault((str(pair), block), {})[function] = _answer(value, payload_path(k))
    out: dict[str, list[object]] = {name: [] for name in SCHEMA.names}
    for (pair, block), answers in rows.items():
        token0, why0 = _address("token0", *answers.get("token0", (None, "not asked")))
        token1, why1 = _address("token1", *answers.get("token1", (None, "not asked")))
        reserves, why_r = _reserves(*answers.get("getReserves", (None, "not asked")))
        reasons = [r for r in (why0, why1, why_r) if r is not None]
        out["pair_address_hex"].append(pair)
        out["block_number"].append(block)
        out["token0_hex"].append(token0)
        out["token1_hex"].append(token1)
        out["reserve0"].append(None if reserves is None else str(reserves[0]))
        out["reserve1"].append(None if reserves is None else str(reserves[1]))
        out["block_timestamp_last"].append(None if reserves is None else reserves[2])
        out["reason"].append("; ".join(reasons) if reasons else None)
    columns = {name: pa.array(out[name], type=SCHEMA.field(name).type) for name in SCHEMA.names}
    for name in ("pair_address", "token0", "token1"):
        ones, _ = normalize_many(out[f"{name}_hex"])  # type: ignore[arg-type]
        columns[name] = pa.array(ones, type=pa.string())
    columns["shard_id"] = constant(ctx.shard_id, len(rows), pa.int32())
    return columns


def with_tokens(pairs: pa.Table, tokens: pa.Table) -> pa.Table:
    """``pairs`` (this dataset) with :data:`TOKEN_COLUMNS` from ``tokens`` (the tokens dataset):
    each token matched on its shard and address (the row of the highest block when read at
    several); a token not in ``tokens`` gets nulls."""
    meta = token_metadata(tokens)
    shards = pairs["shard_id"].to_pylist()
    for k in (0, 1):
        found = [
            meta.get((s, a)) if a is not None else None
            for s, a in zip(shards, pairs[f"token{k}_hex"].to_pylist(), strict=True)
        ]
        for i, what in enumerate(("name", "symbol", "decimals"), start=1):
            field = TOKEN_COLUMNS.field(f"token{k}_{what}")
            values = [None if f is None else f[i] for f in found]
            pairs = pairs.append_column(field, pa.array(values, type=field.type))
    return pairs


DATASET = Dataset(
    name=NAME,
    description="One row per (pair, block): a UniswapV2-style pair's token0, token1 and reserves there.",
    schema=SCHEMA,
    sort_by=("pair_address", "block_number"),
    source="dex_pairs",
    methods=("hmy(v2)_call",),
    builder=build,
    decoder=decode_json,
    summary="UniswapV2-style pairs at a block: token0, token1 and getReserves(), by contract calls.",
    notes=(
        "Each pair costs three calls (token0, token1, getReserves), sent in JSON-RPC batches; its "
        "tokens' names, symbols and decimals come from the ``tokens`` dataset at the same block "
        "(``with_tokens``). A pair's state at a block never changes, so rows are cached per chain, "
        "shard and block: asking again (with an explicit block) sends no request. A call that "
        "reverts or returns nothing (no such function, no contract yet) gives nulls and a "
        "``reason``, never an error."
    ),
)
