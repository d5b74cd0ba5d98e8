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

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from hmyframe._bloom import bloom_bits
from hmyframe.datasets import sources
from hmyframe.datasets._base import ConvertContext, schema_fingerprint
from hmyframe.datasets._convert import Where, hash_array
from hmyframe.datasets._decode import Block, decode_blocks
from hmyframe.datasets._receiptlogs import decode_logs, decode_receipts
from hmyframe.datasets._registry import get
from hmyframe.datasets.sources import Answers, Refetch
from hmyframe.errors import (
    InconsistentAnswerError,
    NotFoundError,
    ResponseShapeError,
    WrongChainError,
    redact_url,
)

__all__ = [
    "blocks",
    "check_logs",
    "check_receipts",
    "check_trace_blocks",
    "hashes_by_number",
    "logs",
    "receipts",
    "traces",
    "transaction_positions",
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
    decoded = decode_blocks(block_payloads, eth_hashes=sources.TX_POSITIONS in answers.builds)
    if not sources.full_blocks(answers.detail, answers.state) and any(
        b.transactions is None for b in decoded.blocks
    ):
        raise Refetch(
            {"headers_only": False}, "the node leaves the transaction list out of headers-only blocks"
        )
    ctx = ConvertContext(shard_id=answers.shard)
    own = ("signers", sources.TX_POSITIONS)
    tables = {name: get(name).build(decoded, ctx) for name in answers.builds if name not in own}
    if sources.TX_POSITIONS in answers.builds:
        tables[sources.TX_POSITIONS] = transaction_positions(
            decoded.blocks, decoded.block_paths, tables["blocks"]["block_number"].to_pylist()
        )
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


@dataclass(frozen=True)
class SideTable:
    """What the cache needs of a side table (:attr:`~hmyframe.datasets.sources.Fill.side`): never
    written as a dataset, but kept in a slow chunk's piece files (:mod:`hmyframe.engine._keep`)
    beside the tables it is converted with, so a resumed chunk has it for the pieces it holds."""

    name: str
    schema: pa.Schema

    @property
    def fingerprint(self) -> str:
        return schema_fingerprint(self.schema)


#: The :data:`~hmyframe.datasets.sources.TX_POSITIONS` side table (see :func:`transaction_positions`).
TX_POSITIONS_TABLE = SideTable(
    sources.TX_POSITIONS,
    pa.schema(
        [
            ("block_number", pa.int64()),
            ("transaction_index", pa.int64()),
            ("transaction_hash", pa.string()),
            ("eth_hash", pa.string()),
        ]
    ),
)

#: Every side table by name.
SIDE_TABLES = {TX_POSITIONS_TABLE.name: TX_POSITIONS_TABLE}


def transaction_positions(blocks: Sequence[Block], paths: Sequence[str], numbers: Sequence[int]) -> pa.Table:
    """The :data:`~hmyframe.datasets.sources.TX_POSITIONS` side table of decoded blocks.

    Each block's plain transactions, then its staking ones, at their position in the block (as
    a log's ``transactionIndex`` counts them), with their Harmony hash and, for plain ones,
    their Ethereum-form hash: from a headers-only block's ``transactions``,
    ``transactionsInEthHash`` and ``stakingTransactions`` lists (in the same order), or from a
    full block's transaction objects (``hash``, ``ethHash``). ``numbers``: each block's number.

    Raises
    ------
    Refetch
        A headers-only block listing transactions without their Ethereum-form hashes (a node
        before 2021-04): the chunk and the rest of the fetch are asked in full.
    ResponseShapeError
        A list of another length than the block's transactions, or a hash that is not one.
    """
    numbers_col: list[int] = []
    positions: list[int] = []
    hashes: list[Any] = []
    eths: list[Any] = []
    starts: list[int] = []  # each block's first row (its rows' paths are made only for an error)
    for block, number in zip(blocks, numbers, strict=True):
        starts.append(len(hashes))
        plain, staking = block.transactions or [], block.stakingTransactions or []
        if plain and isinstance(plain[0], str):
            eth = _eth_hashes(block, plain, paths[len(starts) - 1])
            hashes += plain
            eths += eth
        else:
            hashes += [getattr(t, "hash", None) for t in plain]
            eths += [getattr(t, "ethHash", None) for t in plain]
        hashes += [t if isinstance(t, str) else t.hash for t in staking]
        eths += [None] * len(staking)
        count = len(plain) + len(staking)
        numbers_col += [number] * count
        positions += range(count)

    def path(column: int) -> Callable[[int], str]:
        return lambda row: _position_path(blocks, paths, starts, row, column)

    return pa.table(
        {
            "block_number": pa.array(numbers_col, pa.int64()),
            "transaction_index": pa.array(positions, pa.int64()),
            "transaction_hash": hash_array(hashes, Where("blocks", path(0)), "", required=True),
            "eth_hash": hash_array(eths, Where("blocks", path(1)), ""),
        },
        schema=TX_POSITIONS_TABLE.schema,
    )


def _eth_hashes(block: Block, plain: Sequence[object], path: str) -> list[str]:
    """A headers-only block's ``transactionsInEthHash`` (one per transaction)."""
    eth: list[str] | None = getattr(block, "transactionsInEthHash", None)  # (decoded with eth_hashes)
    if eth is None:
        raise Refetch(
            {"headers_only": False}, "the node leaves transactionsInEthHash out of headers-only blocks"
        )
    if len(eth) != len(plain):
        raise ResponseShapeError(
            "blocks",
            f"{path}.transactionsInEthHash",
            f"{len(eth)} hashes",
            f"one per transaction of the block ({len(plain)})",
        )
    return eth


def _position_path(
    blocks: Sequence[Block], paths: Sequence[str], starts: Sequence[int], row: int, column: int
) -> str:
    """The path of row ``row``'s Harmony (``column`` 0) or Ethereum-form (1) hash in the answers."""
    k = bisect.bisect_right(starts, row) - 1
    block, i = blocks[k], row - starts[k]
    plain = block.transactions or []
    if i >= len(plain):
        staking = (block.stakingTransactions or [])[i - len(plain)]
        return f"{paths[k]}.stakingTransactions[{i - len(plain)}]" + (
            "" if isinstance(staking, str) else ".hash"
        )
    if isinstance(plain[i], str):
        return f"{paths[k]}.{('transactions', 'transactionsInEthHash')[column]}[{i}]"
    return f"{paths[k]}.transactions[{i}].{('hash', 'ethHash')[column]}"


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
    """The ``logs`` and ``token_transfers`` tables of ``hmy_getLogs`` answers (decoded once).

    Which hash a log names its transaction by depends on the node, not on the chain: a log is
    stored with its transaction's Harmony hash (``core/state/statedb.go`` ``AddLog``, the
    transaction context set from ``tx.Hash()`` in ``core/state_processor.go``), but the node
    rewrites the hash of the logs it holds in its receipts cache (``BlockChain.GetReceiptsByHash``
    returns the cached objects) to the Ethereum-form hash in place whenever an ``eth_`` call
    touches the block: ``eth_getTransactionReceipt``/``eth_getBlockReceipts``
    (``rpc/harmony/eth/types.go`` ``NewReceipt``) and ``eth_getLogs`` (``hmy/blockchain.go``
    ``GetLogs`` with ``isEth``, which rewrites the receipts' own hash too). Its later ``hmy_``
    and ``hmyv2_`` answers (receipts' logs, ``hmy_getLogs``) then carry the Ethereum-form hash
    for plain transactions (staking receipts come after the plain ones and keep theirs); the
    mainnet answers of ``tests/real/mainnet-2023`` show both states. So every log is resolved
    through its block's transactions (``answers.needed``: the ``transactions`` and
    ``staking_transactions`` tables, or the headers' :data:`~hmyframe.datasets.sources.TX_POSITIONS`
    side table): by its ``transactionIndex`` (a plain transaction's position, or the number of
    plain ones plus a staking transaction's position) and either hash of that transaction;
    ``transaction_hash`` is then the Harmony hash and ``eth_hash`` the Ethereum-form one (null
    for a staking transaction). The logs are checked first (:func:`check_logs`).
    """
    decoded = decode_logs(answers.payloads, "logs")
    ctx = ConvertContext(shard_id=answers.shard)
    table = get("logs").build(decoded, ctx)
    needed = answers.needed
    if sources.TX_POSITIONS in needed:  # every transaction at its position: none left for staking
        plain, staking = needed[sources.TX_POSITIONS], needed[sources.TX_POSITIONS].slice(0, 0)
    else:
        plain, staking = needed["transactions"], needed["staking_transactions"]
    harmony, eth = check_logs(
        table, needed["blocks"], plain, staking, answers.shard, receipts=needed.get("receipts")
    )
    for name, values in (("transaction_hash", harmony), ("eth_hash", eth)):
        index = table.schema.get_field_index(name)
        table = table.set_column(index, table.schema.field(index), pa.array(values, type=pa.string()))
    tables = {"logs": table} if "logs" in answers.builds else {}
    if "token_transfers" in answers.builds:
        tables["token_transfers"] = get("token_transfers").build(table, ctx)  # decoded once
    return tables


#: The columns of a log that check_logs reads, besides its topics.
_LOG_COLUMNS = (
    "block_number",
    "block_hash",
    "transaction_hash",
    "transaction_index",
    "log_index",
    "address_hex",
)


def check_logs(
    table: pa.Table,
    blocks: pa.Table,
    plain: pa.Table,
    staking: pa.Table,
    shard: int,
    *,
    receipts: pa.Table | None = None,
) -> tuple[list[str], list[str | None]]:
    """Check a ``logs`` table of unfiltered ``getLogs`` answers against its blocks; resolve hashes.

    Per block of ``blocks`` (the blocks the logs were asked for):

    * every log names the block's hash, and a transaction of the block: its
      ``transactionIndex`` is the position of a plain transaction (or, past them, of a staking
      one) and its ``transactionHash`` is that transaction's Harmony or Ethereum-form hash;
    * no log index repeats, and the indexes run 0..n-1 (the node numbers a block's logs across
      its transactions), unless ``receipts`` show the same count for every transaction;
    * with ``receipts`` (fetched in the same chunk): each transaction has as many logs as its
      receipt says;
    * with the blocks' ``logs_bloom``: the logs' addresses and topics give exactly that bloom
      (the node's header bloom is the union of every receipt's logs), so a log of another block
      or a missing one is seen even where the indexes look whole.

    Parameters
    ----------
    table
        The ``logs`` table as the node's answers give it (``transaction_hash`` either form).
    blocks, plain, staking
        The ``blocks``, ``transactions`` and ``staking_transactions`` tables of those blocks (or,
        as ``plain``, their :data:`~hmyframe.datasets.sources.TX_POSITIONS` side table of every
        transaction at its position, and ``staking`` without rows).
    shard
        Their shard (named in errors).
    receipts
        The ``receipts`` table of those blocks, if fetched with them.

    Returns
    -------
    (list of str, list of str or None)
        Each log's transaction: its Harmony hash and its Ethereum-form hash (None for staking).

    Raises
    ------
    InconsistentAnswerError
        At the first contradiction: one line naming the shard, the block and the log.
    """
    hashes = {n: h.lower() for n, h in hashes_by_number(blocks).items()}
    blooms = _header_blooms(blocks)
    by_position = _by_position(plain, staking)
    rows = zip(*(table[c].to_pylist() for c in _LOG_COLUMNS), strict=True)
    topics = list(zip(*(table[f"topic{k}"].to_pylist() for k in range(4)), strict=True))
    harmony: list[str] = []
    eth: list[str | None] = []
    indexes: dict[int, list[int]] = {}
    per_tx: dict[int, dict[str, int]] = {}
    bloom: dict[int, list[tuple[int, int]]] = {}  # per block: each log's index and bloom bits
    for row, (number, block_hash, tx, position, index, address) in enumerate(rows):
        found = _log_transaction(shard, hashes, by_position, number, block_hash, tx, position, index)
        harmony.append(found[0])
        eth.append(found[1])
        indexes.setdefault(number, []).append(index)
        counts = per_tx.setdefault(number, {})
        counts[found[0]] = counts.get(found[0], 0) + 1
        if blooms.get(number) is not None:
            bloom.setdefault(number, []).append((index, _log_bits(address, topics[row])))
    receipt_counts = _receipt_counts(receipts)
    for number in hashes:
        _check_block_logs(
            shard,
            number,
            indexes.get(number, []),
            per_tx.get(number, {}),
            receipt_counts.get(number) if receipts is not None else None,
            blooms.get(number),
            bloom.get(number, []),
        )
    return harmony, eth


def _header_blooms(blocks: pa.Table) -> dict[int, str | None]:
    """Each block's ``logs_bloom`` (none without the column; null where an answer lacked it)."""
    if "logs_bloom" not in blocks.column_names:
        return {}
    return dict(zip(blocks["block_number"].to_pylist(), blocks["logs_bloom"].to_pylist(), strict=True))


def _log_bits(address: str, topics: Sequence[str | None]) -> int:
    """The bloom bits one log sets: its address's and each of its topics'."""
    bits = bloom_bits(address)
    for topic in topics:
        if topic is not None:
            bits |= bloom_bits(topic)
    return bits


def _receipt_counts(receipts: pa.Table | None) -> dict[int, dict[str, int]]:
    """Each block's receipts' log counts by transaction hash (``{}`` without receipts)."""
    counts: dict[int, dict[str, int]] = {}
    if receipts is not None:
        for n, h, c in zip(
            *(receipts[k].to_pylist() for k in ("block_number", "transaction_hash", "log_count")), strict=True
        ):
            counts.setdefault(n, {})[h] = c
    return counts


def _by_position(plain: pa.Table, staking: pa.Table) -> dict[tuple[int, int], tuple[str, str | None]]:
    """The transactions of each block by ``(block, position)``: the plain ones, then the staking
    ones after them (as a log's ``transactionIndex`` counts); each its Harmony and Ethereum-form
    hash (None for staking)."""
    by_position: dict[tuple[int, int], tuple[str, str | None]] = {}
    plain_count: dict[int, int] = {}
    for n, i, h, e in zip(
        *(
            plain[c].to_pylist()
            for c in ("block_number", "transaction_index", "transaction_hash", "eth_hash")
        ),
        strict=True,
    ):
        by_position[(n, i)] = (h, e)
        plain_count[n] = plain_count.get(n, 0) + 1
    for n, j, h in zip(
        *(staking[c].to_pylist() for c in ("block_number", "transaction_index", "transaction_hash")),
        strict=True,
    ):
        by_position[(n, plain_count.get(n, 0) + j)] = (h, None)
    return by_position


def _log_transaction(
    shard: int,
    hashes: Mapping[int, str],
    by_position: Mapping[tuple[int, int], tuple[str, str | None]],
    number: int,
    block_hash: str,
    tx: str,
    position: int,
    index: int,
) -> tuple[str, str | None]:
    """One log's block (asked for, its hash) and transaction (at its position, either hash):
    the transaction's Harmony and Ethereum-form hashes (see :func:`check_logs`)."""
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
    found = by_position.get((number, position))
    if found is None or tx not in found:
        at = (
            "no transaction"
            if found is None
            else f"transaction {found[0]}" + (f" ({found[1]})" if found[1] else "")
        )
        raise _inconsistent(
            "logs",
            shard,
            number,
            f"log {index} names transaction {tx} at position {position}, where the block has {at}",
        )
    return found


def _check_block_logs(
    shard: int,
    number: int,
    indexes: list[int],
    per_tx: Mapping[str, int],
    receipts: Mapping[str, int] | None,
    header_bloom: str | None,
    bits: Sequence[tuple[int, int]],
) -> None:
    """One block's log indexes, per-transaction counts and bloom (see :func:`check_logs`)."""
    seen: set[int] = set()
    for index in indexes:
        if index in seen:
            raise _inconsistent("logs", shard, number, f"log index {index} appears twice")
        seen.add(index)
    if receipts is not None:
        for tx in sorted(set(receipts) | set(per_tx)):
            got, expected = per_tx.get(tx, 0), receipts.get(tx)
            if expected is not None and got != expected:
                raise _inconsistent(
                    "logs",
                    shard,
                    number,
                    f"transaction {tx} has {got} logs, its receipt lists {expected}",
                )
    missing = sorted(set(range(len(indexes))) - seen)
    if missing and receipts is None:
        raise _inconsistent(
            "logs",
            shard,
            number,
            f"log index {missing[0]} is missing (its {len(indexes)} logs have indexes "
            f"{min(indexes)}..{max(indexes)})",
        )
    if header_bloom is None:
        return
    header = int(header_bloom, 16)
    bloom = 0
    for _, b in bits:
        bloom |= b
    if bloom == header:
        return
    if not indexes:
        raise _inconsistent("logs", shard, number, "no log, but the block's logsBloom is not empty")
    if not header:
        raise _inconsistent("logs", shard, number, f"{len(indexes)} logs, but the block's logsBloom is empty")
    foreign = next((index for index, b in bits if b & ~header), None)
    if foreign is not None:
        raise _inconsistent(
            "logs",
            shard,
            number,
            f"log {foreign}'s address or topics are not in the block's logsBloom (a log of another block)",
        )
    raise _inconsistent(
        "logs",
        shard,
        number,
        f"the block's logsBloom has bits none of its {len(indexes)} logs sets (a log is missing)",
    )
