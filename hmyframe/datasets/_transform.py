"""The transforms of the range sources: one chunk's answers -> the tables of the datasets they fill.

Each function here is named by a :class:`~hmyframe.datasets.sources.RangeSource` (its
``transform``) and takes an :class:`~hmyframe.datasets.sources.Answers`; it runs where
conversion runs (a thread or a worker process of the fetch), never in the planning code, so
pyarrow and the dataset modules load only there. What is specific to one kind of answer lives
here, not in the engine: an early-2020 node's headers-only blocks without their transaction
list, ``getBlockSigners`` lists, ``trace_block`` answers of ``null`` and traces naming another
chain's block hashes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from hmyframe.datasets import sources
from hmyframe.datasets._base import ConvertContext
from hmyframe.datasets._decode import decode_blocks
from hmyframe.datasets._receiptlogs import decode_logs, decode_receipts
from hmyframe.datasets._registry import get
from hmyframe.datasets.sources import Answers, Refetch
from hmyframe.errors import InconsistentAnswerError, NotFoundError, WrongChainError, redact_url

__all__ = [
    "blocks",
    "check_log_blocks",
    "check_receipts",
    "check_trace_blocks",
    "hashes_by_number",
    "logs",
    "receipts",
    "traces",
]


def hashes_by_number(table: pa.Table) -> dict[int, str]:
    """Block number -> block hash, from a table with ``block_number`` and ``block_hash`` columns."""
    return dict(zip(table["block_number"].to_pylist(), table["block_hash"].to_pylist(), strict=True))


def blocks(answers: Answers) -> dict[str, pa.Table]:
    """Tables of the :data:`~hmyframe.datasets.sources.BLOCKS` source.

    Blocks are decoded once; every dataset of ``answers.builds`` is built from them. Signers
    come from the blocks (fetched ``withSigners``) or from ``getBlockSigners`` lists (v1), whose
    rows then take their block hash from the blocks. When signers were fetched the ``blocks``
    table leaves ``signer_count`` empty, so a block's row does not depend on how it was fetched.

    Raises
    ------
    Refetch
        Headers-only blocks without their transaction list (an early-2020 node): the chunk and
        the rest of the fetch are asked with full transactions (``headers_only=False``).
    """
    signer_method = "getBlockSigners"
    block_payloads = [
        p
        for c, p in zip(answers.calls, answers.payloads, strict=True)
        if not c.method.endswith(signer_method)
    ]
    signer_payloads = [
        p for c, p in zip(answers.calls, answers.payloads, strict=True) if c.method.endswith(signer_method)
    ]
    decoded = decode_blocks(block_payloads)
    if not sources.full_blocks(answers.detail, answers.state) and any(
        b.transactions is None for b in decoded.blocks
    ):
        raise Refetch(
            {"headers_only": False}, "the node leaves the transaction list out of headers-only blocks"
        )
    ctx = ConvertContext(shard_id=answers.shard)
    tables = {name: get(name).build(decoded, ctx) for name in answers.builds if name != "signers"}
    if "signers" in answers.builds:
        if signer_payloads:
            tables["signers"] = _signers_from_lists(
                signer_payloads, answers.first, answers.last, answers.shard, tables["blocks"]
            )
        else:
            tables["signers"] = get("signers").build(decoded, ctx)
    if "signers" in answers.detail and "blocks" in tables:
        table = tables["blocks"]
        index = table.schema.get_field_index("signer_count")
        field = table.schema.field(index)
        tables["blocks"] = table.set_column(index, field, pa.nulls(table.num_rows, type=field.type))
    return tables


def _signers_from_lists(
    payloads: Sequence[bytes], start: int, end: int, shard: int, block_table: pa.Table
) -> pa.Table:
    """The ``signers`` table of blocks ``start..end`` from their ``getBlockSigners`` answers
    (bare address lists; each row's block hash is taken from the blocks)."""
    table = get("signers").convert(
        list(payloads), ConvertContext(shard_id=shard, block_numbers=list(range(start, end + 1)))
    )
    by_number = hashes_by_number(block_table)
    index = table.schema.get_field_index("block_hash")
    hashes = pa.array([by_number.get(n) for n in table["block_number"].to_pylist()], type=pa.string())
    return table.set_column(index, table.schema.field(index), hashes)


def traces(answers: Answers) -> dict[str, pa.Table]:
    """The ``traces`` table of ``trace_block`` answers.

    Each trace's Harmony transaction hash is resolved from the blocks' ``transactions`` table
    (``answers.needed``), and every trace must name the hash of its block.

    Raises
    ------
    NotFoundError
        A ``trace_block`` answer of ``null`` for an existing block (the endpoint lacks it).
    WrongChainError
        A trace naming a block hash that is not its block's.
    """
    for call, payload in zip(answers.calls, answers.payloads, strict=True):
        if payload.strip() == b"null":
            number = int(call.params[0], 16)
            raise NotFoundError(
                -32000,
                f"trace_block returned null for existing block {number}: the trace endpoint does not have "
                "this block's traces (is it an archival/trace node for this shard?)",
                method=call.method,
                params=list(call.params),
                endpoint=answers.endpoint,
            )
    tx = answers.needed["transactions"]
    hashes = tx["transaction_hash"].to_pylist()
    eth = tx["eth_hash"].to_pylist()
    numbers = tx["block_number"].to_pylist()
    index = tx["transaction_index"].to_pylist()
    ctx = ConvertContext(
        shard_id=answers.shard,
        tx_hashes={e: h for e, h in zip(eth, hashes, strict=True) if e is not None and h is not None},
        tx_positions={
            (n, i): h
            for n, i, h in zip(numbers, index, hashes, strict=True)
            if n is not None and i is not None
        },
    )
    table = get("traces").convert(list(answers.payloads), ctx)
    check_trace_blocks(table, hashes_by_number(tx), answers.endpoint, answers.shard)
    return {"traces": table}


def check_trace_blocks(traces: pa.Table, block_hashes: Mapping[int, str], url: str, shard: int) -> None:
    """Refuse traces whose ``block_hash`` is not the hash of block ``block_number``.

    Parameters
    ----------
    traces
        A ``traces`` table.
    block_hashes
        Block number -> hash of the blocks the traces were asked for (at least those with
        transactions).
    url
        The trace endpoint (named, redacted, in the error).
    shard
        Its shard.

    Raises
    ------
    WrongChainError
        At the first trace of a block whose hash differs.
    """
    if traces.num_rows == 0:
        return
    numbers = traces["block_number"].to_pylist()
    hashes = traces["block_hash"].to_pylist()
    for number, got in zip(numbers, hashes, strict=True):
        want = block_hashes.get(number)
        if want is None or got is None or want.lower() != got.lower():
            raise WrongChainError(
                f"the trace endpoint {redact_url(url)} serves another chain than shard {shard}: its trace of "
                f"block {number} names block hash {got}, the block's hash is {want}; no trace was cached"
            )


def receipts(answers: Answers) -> dict[str, pa.Table]:
    """The ``receipts`` table of ``getBlockReceipts`` / ``getTransactionReceipt`` answers.

    Gas prices and Ethereum hashes come from the blocks' transactions (``answers.needed``), and
    the receipts are checked against the blocks (:func:`check_receipts`).
    """
    decoded = decode_receipts(answers.payloads, "receipts")
    plain, staking = answers.needed["transactions"], answers.needed["staking_transactions"]
    info: dict[str, tuple[str | None, int | None]] = {}
    for table, eth in ((plain, plain["eth_hash"].to_pylist()), (staking, [None] * staking.num_rows)):
        prices = table["gas_price"].to_pylist()
        for h, e, p in zip(table["transaction_hash"].to_pylist(), eth, prices, strict=True):
            info[h] = (e, None if p is None else int(p))
    decoded.tx_info = info
    decoded.staking_hashes = frozenset(staking["transaction_hash"].to_pylist())
    table = get("receipts").build(decoded, ConvertContext(shard_id=answers.shard))
    check_receipts(table, answers.needed["blocks"], [plain, staking], answers.shard)
    return {"receipts": table}


def _inconsistent(what: str, shard: int, number: object, text: str) -> InconsistentAnswerError:
    return InconsistentAnswerError(
        f"{what} of shard {shard} block {number}: {text}; nothing of its chunk was cached"
    )


def check_receipts(table: pa.Table, blocks: pa.Table, txs: Sequence[pa.Table], shard: int) -> None:
    """Refuse receipts that contradict their blocks (``blocks``: the blocks asked for).

    Every receipt must name its block's hash, belong to a transaction of that block (plain or
    staking), be the only one for it, every transaction must have one, and each block's
    receipts' ``gas_used`` must sum to the block's ``gas_used``.

    Raises
    ------
    InconsistentAnswerError
        At the first contradiction, naming the block.
    """
    hashes = hashes_by_number(blocks)
    gas = dict(zip(blocks["block_number"].to_pylist(), blocks["gas_used"].to_pylist(), strict=True))
    expected: dict[str, Any] = {}
    for tx in txs:
        expected.update(zip(tx["transaction_hash"].to_pylist(), tx["block_number"].to_pylist(), strict=True))
    summed: dict[int, int] = {}
    seen: set[str] = set()
    rows = zip(
        *(table[c].to_pylist() for c in ("block_number", "block_hash", "transaction_hash", "gas_used")),
        strict=True,
    )
    for number, block_hash, tx, used in rows:
        if number not in hashes:
            raise _inconsistent("receipts", shard, number, f"receipt of {tx} names a block not asked for")
        if block_hash != hashes[number].lower():
            raise _inconsistent(
                "receipts",
                shard,
                number,
                f"receipt of {tx} names block hash {block_hash}, the block's hash is {hashes[number]}",
            )
        if expected.get(tx) != number:
            raise _inconsistent(
                "receipts",
                shard,
                number,
                f"receipt of transaction {tx}, which the block does not have",
            )
        if tx in seen:
            raise _inconsistent("receipts", shard, number, f"two receipts of transaction {tx}")
        seen.add(tx)
        summed[number] = summed.get(number, 0) + used
    for tx, number in expected.items():
        if tx not in seen:
            raise _inconsistent("receipts", shard, number, f"no receipt of its transaction {tx}")
    for number, used in gas.items():
        if used is not None and summed.get(number, 0) != used:
            raise _inconsistent(
                "receipts",
                shard,
                number,
                f"its receipts' gas_used sums to {summed.get(number, 0)}, the block's gasUsed is {used}",
            )


def logs(answers: Answers) -> dict[str, pa.Table]:
    """The ``logs`` and ``token_transfers`` tables of ``hmy_getLogs`` answers (decoded once),
    checked against the blocks' hashes (:func:`check_log_blocks`)."""
    decoded = decode_logs(answers.payloads, "logs")
    ctx = ConvertContext(shard_id=answers.shard)
    log_table = get("logs").build(decoded, ctx)
    check_log_blocks(log_table, answers.needed["blocks"], answers.shard)
    tables = {"logs": log_table} if "logs" in answers.builds else {}
    if "token_transfers" in answers.builds:
        tables["token_transfers"] = get("token_transfers").build(log_table, ctx)  # decoded once
    return tables


def check_log_blocks(table: pa.Table, blocks: pa.Table, shard: int) -> None:
    """Refuse logs of a block not asked for (not in ``blocks``) or naming a hash that is not their block's.

    Raises
    ------
    InconsistentAnswerError
        At the first such log, naming the block.
    """
    hashes = {n: h.lower() for n, h in hashes_by_number(blocks).items()}
    rows = zip(*(table[c].to_pylist() for c in ("block_number", "block_hash", "log_index")), strict=True)
    for number, block_hash, index in rows:
        want = hashes.get(number)
        if want is None:
            raise _inconsistent("logs", shard, number, f"log {index} is of a block not asked for")
        if block_hash != want:
            raise _inconsistent(
                "logs",
                shard,
                number,
                f"log {index} names block hash {block_hash}, the block's hash is {want}",
            )
