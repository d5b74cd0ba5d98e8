"""DEX pairs at a block (the ``dex_pairs`` dataset) on an open :class:`~hmyframe.engine.Session`.

Each pair's ``token0()``, ``token1()`` and ``getReserves()`` are called at the block through
the client's JSON-RPC batching and cached like ``token_balances`` (one file per chain, shard
and block, grown by union: a pair asked again at that block sends no request). A revert is an
answer (a null and a reason), any other error is raised and caches nothing. The pairs' tokens
are then read by :func:`~hmyframe.engine.fetch_tokens` at the same block (its own cache) and
joined (``with_tokens``). Its public coroutine is :func:`hmyframe.dex_pairs`
(:mod:`hmyframe._public`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hmyframe import datasets as ds
from hmyframe._lazy import lazy_module
from hmyframe.engine._accounts import addresses_arg
from hmyframe.engine._at_block import (
    block_ref,
    cached_per_block,
    call_namespace,
    contract_answers,
    resolve_blocks,
)
from hmyframe.engine._session import Session, block_arg
from hmyframe.engine._tokens import fetch_tokens

if TYPE_CHECKING:
    import pyarrow as pa

    from hmyframe.datasets import dex_pairs as pair_dataset
else:
    pa = lazy_module("pyarrow")
    pair_dataset = lazy_module("hmyframe.datasets.dex_pairs")  # its schema loads pyarrow

__all__ = ["fetch_dex_pairs"]


async def _answers(
    session: Session, pairs: list[str], block: int, shard: int, progress: Callable[[int], None] | None
) -> pa.Table:
    """The ``dex_pairs`` rows of ``pairs`` at ``block``, fetched (three calls per pair)."""
    method = f"{call_namespace(session)}_call"
    functions = pair_dataset.FUNCTIONS
    calls: list[tuple[str, list[object]]] = [
        (method, [{"to": p, "data": pair_dataset.SELECTORS[f]}, block_ref(session, block)])
        for p in pairs
        for f in functions
    ]
    payloads = await contract_answers(session, calls, shard)
    if progress is not None:
        progress(len(pairs))
    ctx = ds.ConvertContext(shard_id=shard, token_calls=[(p, block, f) for p in pairs for f in functions])
    return ds.get("dex_pairs").convert(payloads, ctx)


async def fetch_dex_pairs(
    session: Session,
    pairs: object,
    block: int | None,
    shard: int,
    *,
    with_tokens: bool = True,
    progress: Callable[[int], None] | None = None,
) -> tuple[int, pa.Table]:
    """The block read at (``None``: the shard's head, asked now) and the ``dex_pairs`` rows of
    ``pairs`` (one1 or 0x, each once) there, cached per block; with ``with_tokens`` their tokens'
    names, symbols and decimals (:data:`hmyframe.datasets.dex_pairs.TOKEN_COLUMNS`)."""
    wanted = addresses_arg(pairs, "dex_pairs pairs")
    shard = block_arg(shard, "shard")
    if block is None:
        (at,) = await resolve_blocks(session, None, shard)
    else:
        at = block_arg(block, "block")  # checked against the head only when something is fetched

    async def fetch(missing: list[str]) -> pa.Table:
        if block is not None:
            await resolve_blocks(session, at, shard)  # a block past the head: one line, nothing asked
        return await _answers(session, missing, at, shard, progress)

    def keys(table: pa.Table) -> list[str]:
        return [str(a) for a in table["pair_address_hex"].to_pylist()]

    table = await cached_per_block(session, ds.get("dex_pairs"), shard, at, wanted, keys, fetch)
    if not with_tokens:
        return at, table
    tokens = list(
        dict.fromkeys(t for c in ("token0_hex", "token1_hex") for t in table[c].to_pylist() if t is not None)
    )
    meta = (
        (await fetch_tokens(session, tokens, at, shard))[1]
        if tokens
        else ds.get("tokens").schema.empty_table()
    )
    return at, pair_dataset.with_tokens(table, meta)
