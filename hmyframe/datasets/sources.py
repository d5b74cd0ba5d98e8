"""How each dataset is fetched: the light half of the datasets registry.

Every dataset has a *kind*: fetched by block range, as a validator snapshot at one block, or
only by point lookups. Block-range datasets are filled by a :class:`RangeSource`: one kind of
node answer for a range of blocks (``getBlocks`` blocks, ``trace_block`` traces...). A source
says

* which datasets its answers fill (:attr:`RangeSource.fills`): siblings built together from the
  same answers, so one fetch of full blocks makes ``blocks``, ``transactions`` and
  ``staking_transactions``;
* for each of them (:class:`Fill`) what every answer must carry (``detail``: full
  transactions, signers), the last fetchable block relative to the head (``head_offset``),
  the tables of the same blocks its conversion needs (``needs``: traces need the blocks'
  transactions to name each trace's Harmony hash) and whether it has one row per block;
* the calls for a chunk of blocks (:attr:`RangeSource.plan`), cut into :class:`Piece` s whose
  answers are converted together as soon as they arrive;
* the transform that turns a piece's answers into tables (:attr:`RangeSource.transform`, a
  ``"module:function"`` path taking :class:`Answers`), imported only where conversion runs;
* what to do when the node refuses a method (:attr:`RangeSource.fallback`), and a transform
  may ask for the chunk to be fetched again with other settings (:class:`Refetch`).

The engine (:mod:`hmyframe.engine._ranges`) runs every source the same way and names no dataset.
This module is plain Python (no pyarrow): the process that plans and sends requests imports it
and starts fast; schemas and builders (the dataset modules) are imported where answers are
converted (see :mod:`hmyframe.engine._workers`).

A new dataset is its module (schema, builder; :func:`hmyframe.datasets.register` for one
defined outside the package) and, if its answers are a new kind, a :class:`RangeSource`
registered with :func:`register_source`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, overload

from hmyframe.errors import ConfigError, MethodNotFoundError, ResponseTooLargeError, RpcError, short_repr

if TYPE_CHECKING:
    from hmyframe.rpc.methods import Methods

__all__ = [
    "BLOCKS",
    "BUILT_IN_DATASETS",
    "LOGS",
    "LOGS_SPAN",
    "LOG_NEEDS",
    "LOOKUP_DATASETS",
    "RANGE_DATASETS",
    "RANGE_SOURCES",
    "RECEIPTS",
    "SNAPSHOT_DATASETS",
    "TRACES",
    "TX_POSITIONS",
    "Answers",
    "Call",
    "ChunkRequest",
    "FetchKind",
    "Fill",
    "Piece",
    "RangeSource",
    "Refetch",
    "chunk_needs",
    "fill_of",
    "head_offset",
    "kind_of",
    "register_source",
    "side_tables",
    "source_of",
    "spans",
    "unregister_source",
]

#: How the public API fetches a dataset.
FetchKind = Literal["range", "snapshot", "lookup"]


@dataclass(frozen=True)
class Call:
    """One JSON-RPC call of a plan.

    Attributes
    ----------
    method
        Full method name (``"hmyv2_getBlocks"``, ``"trace_block"``).
    params
        Positional params (JSON values).
    trace
        Sent to the shard's trace endpoint instead of its node.
    """

    method: str
    params: tuple[Any, ...] = ()
    trace: bool = False


@dataclass(frozen=True)
class Piece:
    """Calls whose answers are converted together: all of one source's calls for blocks ``first..last``."""

    first: int
    last: int
    calls: tuple[Call, ...]


@dataclass(frozen=True)
class ChunkRequest:
    """What a source's :attr:`~RangeSource.plan` is given.

    Attributes
    ----------
    first, last
        The chunk's blocks (inclusive).
    detail
        What the answers must carry for the datasets wanted (the union of their
        :attr:`Fill.detail`).
    rpc
        The typed methods of the configured generation, for their encoders only
        (``rpc.method("getBlocks")``, ``rpc.quantity(n)``, ``rpc.block_args(...)``).
    blocks_per_request
        Blocks per range call, or per batch of single-block calls.
    strategy
        ``"range"`` or ``"batch"`` (:class:`~hmyframe.engine.FetchOptions`).
    state
        What earlier chunks of this fetch learnt (:attr:`RangeSource.fallback`, :class:`Refetch`).
    needed
        The tables of the chunk's blocks named by the wanted datasets' :attr:`Fill.needs` (read
        from the cache, or built earlier in the chunk): a plan may take its params from them
        (``receipts`` asks for the receipts of the blocks' transactions by hash).
    """

    first: int
    last: int
    detail: frozenset[str]
    rpc: Methods
    blocks_per_request: int
    strategy: Literal["range", "batch"]
    state: Mapping[str, Any] = field(default_factory=dict)
    needed: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answers:
    """What a source's transform is given: one piece's answers and what they were asked for.

    Attributes
    ----------
    shard
        Shard of the blocks.
    first, last
        The piece's blocks.
    detail, state
        As the plan was given them.
    builds
        Datasets to build from these answers (those of :attr:`RangeSource.fills` whose detail
        was fetched).
    calls, payloads
        The calls and the raw JSON bytes of each ``result``, in the same order.
    needed
        The tables named by the builds' :attr:`Fill.needs` (pyarrow tables of at least these
        blocks), and those named by their :attr:`Fill.uses` that were built in the same chunk.
    endpoint
        URL the answers came from (redact it before showing it).
    """

    shard: int
    first: int
    last: int
    detail: frozenset[str]
    state: Mapping[str, Any]
    builds: tuple[str, ...]
    calls: tuple[Call, ...]
    payloads: Sequence[bytes]
    needed: Mapping[str, Any]
    endpoint: str


@dataclass(frozen=True)
class Fill:
    """How one dataset is filled from its source's answers.

    Attributes
    ----------
    detail
        What each answer must carry for it (a fetch of datasets needing nothing asks for the
        least: headers only, for blocks).
    head_offset
        The last fetchable block is ``head - head_offset`` (``signers``: 1, block N's signers are
        known from block N+1).
    needs
        Datasets whose table of the same blocks its conversion needs: read from the cache when
        cached, else fetched in the same chunk.
    uses
        Datasets whose table of the same blocks its conversion checks against when they are
        built in the same chunk (fetched together: ``logs`` with ``receipts``); never fetched or
        read for it, and a failure to build one leaves the conversion without it.
    per_block
        Exactly one row per block: each chunk is checked to hold every block once.
    head_reason
        Why the head is out of reach (quoted in errors), with ``head_offset``.
    side
        Not a dataset but a *side table*: built from the source's answers only for another
        dataset's conversion in the same chunk (a :attr:`needs` names it), never cached,
        returned or exported, and built only when asked (give it a ``detail`` of its own).
    instead
        (A side table) the datasets that, when all are at hand in a chunk (cached, or built in
        it), are needed in its stead (:func:`chunk_needs`): it is then not built.
    """

    detail: frozenset[str] = frozenset()
    head_offset: int = 0
    head_reason: str = ""
    needs: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    per_block: bool = False
    side: bool = False
    instead: tuple[str, ...] = ()


#: ``plan(request) -> pieces``.
Plan = Callable[[ChunkRequest], list[Piece]]
#: ``fallback(state, error) -> state update or None``.
Fallback = Callable[[Mapping[str, Any], BaseException], Mapping[str, Any] | None]


@dataclass(frozen=True)
class RangeSource:
    """One kind of node answer for block ranges, and the datasets it fills.

    Attributes
    ----------
    name
        Source name (the ``source`` of the datasets it fills).
    fills
        Dataset name -> :class:`Fill`, for every dataset built from these answers.
    plan
        The calls for one chunk, cut into pieces.
    transform
        ``"module:function"``: ``function(answers: Answers) -> {dataset: pyarrow.Table}``
        (imported where conversion runs).
    trace_endpoint
        Its calls go to the trace endpoint (the public fetchers then take ``trace_rpc``).
    fallback
        Called when a call fails with an error; a state update makes the engine fetch the
        chunk again with it (and keep it for later chunks), ``None`` lets the error stand.
    plans_from_needed
        Its plan takes params from :attr:`ChunkRequest.needed` (receipts: the blocks' hashes),
        so its calls wait for the tables its datasets need. ``False``: its calls go out with
        those of the sources building them, and only its conversion waits (its plan is then
        given only the needed tables read from the cache).
    merge_pieces
        Contiguous pieces of a chunk may be converted together, in one call of the transform
        (their calls and answers joined), and its tables cut back into the pieces' blocks: the
        transform's tables then depend only on the blocks answered, each sorted by
        ``block_number``. The engine does this for small answers (each conversion has a fixed
        cost that dominates near-empty blocks; see :func:`hmyframe.engine._workers.convert_pieces`).
    """

    name: str
    fills: Mapping[str, Fill]
    plan: Plan
    transform: str
    trace_endpoint: bool = False
    fallback: Fallback | None = None
    plans_from_needed: bool = True
    merge_pieces: bool = False

    def __post_init__(self) -> None:
        if ":" not in self.transform:
            raise ConfigError(
                f"source {self.name!r}: transform must be 'module:function', got {self.transform!r}"
            )
        if not self.fills:
            raise ConfigError(f"source {self.name!r} fills no dataset")

    def builds_for(self, detail: frozenset[str]) -> tuple[str, ...]:
        """The datasets answers fetched with ``detail`` can make (siblings included; a side
        table only where its own detail was asked)."""
        return tuple(name for name, f in self.fills.items() if f.detail <= detail)


class Refetch(Exception):
    """Raised by a transform: these answers cannot make the tables; fetch the chunk again.

    Parameters
    ----------
    state
        Update of the fetch's state (kept for every later chunk of the fetch).
    reason
        What was found.
    """

    def __init__(self, state: Mapping[str, Any], reason: str) -> None:
        super().__init__(reason)
        self.state = dict(state)
        self.reason = reason

    def __reduce__(self) -> tuple[Any, ...]:
        return (Refetch, (self.state, self.reason))


def spans(first: int, last: int, size: int) -> Iterator[tuple[int, int]]:
    """Consecutive ``(a, b)`` spans of at most ``size`` blocks covering ``first..last``.

    >>> list(spans(5, 12, 4))
    [(5, 8), (9, 12)]
    """
    for a in range(first, last + 1, size):
        yield a, min(last, a + size - 1)


# --------------------------------------------------------------------------- blocks


def full_blocks(detail: frozenset[str], state: Mapping[str, Any]) -> bool:
    """Whether blocks are asked with full transactions (asked for, or the node needs it)."""
    return "full_tx" in detail or not state.get("headers_only", True)


def _plan_blocks(request: ChunkRequest) -> list[Piece]:
    """``getBlocks`` ranges, or batched ``getBlockByNumber`` (plus ``getBlockSigners`` in v1)."""
    rpc = request.rpc
    full_tx = full_blocks(request.detail, request.state)
    with_signers = "signers" in request.detail
    step = request.blocks_per_request
    if request.state.get("strategy", request.strategy) == "range":
        args = rpc.block_args(full_tx, True, with_signers)
        method = rpc.method("getBlocks")
        return [
            Piece(a, b, (Call(method, (rpc.quantity(a), rpc.quantity(b), args)),))
            for a, b in spans(request.first, request.last, step)
        ]
    # hmy_getBlockByNumber (v1) cannot carry signers: ask getBlockSigners for each block, in the
    # same pieces (the calls go out together and are batched together)
    inline = with_signers and rpc.version == 2
    option = rpc.block_option(full_tx, True, inline)
    by_number, by_signers = rpc.method("getBlockByNumber"), rpc.method("getBlockSigners")
    pieces = []
    for a, b in spans(request.first, request.last, step):
        calls = [Call(by_number, (rpc.quantity(n), option)) for n in range(a, b + 1)]
        if with_signers and not inline:
            calls += [Call(by_signers, (hex(n),)) for n in range(a, b + 1)]
        pieces.append(Piece(a, b, tuple(calls)))
    return pieces


def _blocks_fallback(state: Mapping[str, Any], error: BaseException) -> Mapping[str, Any] | None:
    """A node (or proxy filter) without ``getBlocks``: batched single-block calls from now on."""
    if isinstance(error, MethodNotFoundError) and state.get("strategy") != "batch":
        return {"strategy": "batch"}
    return None


#: The side table of every transaction of the blocks at its position as a log's
#: ``transactionIndex`` counts it (the plain ones, then the staking ones): ``block_number``,
#: ``transaction_index``, ``transaction_hash`` (Harmony) and ``eth_hash`` (null for staking), from
#: headers-only blocks' ``transactions``, ``transactionsInEthHash`` and ``stakingTransactions``
#: lists (the same order). What logs are resolved through when the blocks' transactions tables
#: are not at hand: headers-only blocks are a fraction of the bytes of full ones.
TX_POSITIONS = "_transaction_positions"

#: Blocks from ``getBlocks`` (or ``getBlockByNumber``): headers, transactions, staking
#: transactions and signers. Headers-only blocks still list transaction hashes, so ``blocks``
#: alone is fetched without full transactions; an early-2020 node leaves the list out, and its
#: blocks are then fetched in full (``state["headers_only"] = False``), as are those of a node
#: listing transactions without ``transactionsInEthHash`` when :data:`TX_POSITIONS` is asked.
BLOCKS = RangeSource(
    name="blocks",
    fills={
        "blocks": Fill(per_block=True),
        "transactions": Fill(detail=frozenset({"full_tx"})),
        "staking_transactions": Fill(detail=frozenset({"full_tx"})),
        "signers": Fill(
            detail=frozenset({"signers"}), head_offset=1, head_reason="block N's signers need block N+1"
        ),
        TX_POSITIONS: Fill(
            detail=frozenset({"tx_positions"}),
            side=True,
            instead=("transactions", "staking_transactions"),
        ),
    },
    plan=_plan_blocks,
    transform="hmyframe.datasets._transform:blocks",
    fallback=_blocks_fallback,
    merge_pieces=True,
)


# --------------------------------------------------------------------------- traces

#: ``trace_block`` calls per piece (the client's batch cap for them).
TRACE_PIECE = 20


def _plan_traces(request: ChunkRequest) -> list[Piece]:
    """One ``trace_block`` per block, on the trace endpoint."""
    return [
        Piece(a, b, tuple(Call("trace_block", (hex(n),), trace=True) for n in range(a, b + 1)))
        for a, b in spans(request.first, request.last, TRACE_PIECE)
    ]


#: Traces from ``trace_block`` on the trace endpoint; each trace's Harmony transaction hash is
#: resolved from the blocks' transactions (cached, or fetched in the same chunk).
TRACES = RangeSource(
    name="traces",
    fills={"traces": Fill(needs=("transactions",))},
    plan=_plan_traces,
    transform="hmyframe.datasets._transform:traces",
    trace_endpoint=True,
    plans_from_needed=False,
)


# --------------------------------------------------------------------------- receipts

#: Receipts of the blocks' transactions: one ``getBlockReceipts`` per block with transactions
#: (the node's block-wide method, by block hash), or, on a node without it, batched
#: ``getTransactionReceipt`` calls by transaction hash (``state["receipts_by"] = "tx"``). The
#: hashes come from the blocks' tables (``needs``), which also check the answers.
RECEIPT_NEEDS = ("blocks", "transactions", "staking_transactions")


def _column(table: Any, name: str) -> list[Any]:
    values: list[Any] = table.column(name).to_pylist()
    return values


def _plan_receipts(request: ChunkRequest) -> list[Piece]:
    """``getBlockReceipts`` per block with transactions, or ``getTransactionReceipt`` per transaction."""
    rpc = request.rpc
    blocks = request.needed["blocks"]
    hashes = dict(zip(_column(blocks, "block_number"), _column(blocks, "block_hash"), strict=True))
    txs: dict[int, list[str]] = {}
    for name in ("transactions", "staking_transactions"):  # plain first: the node's receipt order
        table = request.needed[name]
        for number, tx in zip(
            _column(table, "block_number"), _column(table, "transaction_hash"), strict=True
        ):
            txs.setdefault(number, []).append(tx)
    by_tx = request.state.get("receipts_by") == "tx"
    pieces = []
    for a, b in spans(request.first, request.last, request.blocks_per_request):
        with_txs = [n for n in range(a, b + 1) if txs.get(n)]
        if by_tx:
            method = rpc.method("getTransactionReceipt")
            calls = tuple(Call(method, (tx,)) for n in with_txs for tx in txs[n])
        else:
            method = rpc.method("getBlockReceipts")
            calls = tuple(Call(method, (hashes[n],)) for n in with_txs if n in hashes)
        pieces.append(Piece(a, b, calls))  # also a piece without calls: its blocks have no receipt
    return pieces


#: The node's answer when a method panics (``eth/rpc/service.go``).
HANDLER_CRASHED = "method handler crashed"


def _receipts_fallback(state: Mapping[str, Any], error: BaseException) -> Mapping[str, Any] | None:
    """Receipts by transaction hash from now on, on a node without ``getBlockReceipts`` (older
    than 2022-03), or whose ``getBlockReceipts`` crashes on the block.

    It does crash on a block whose cached receipts an ``eth_getLogs`` touched: ``hmy.GetLogs``
    with ``isEth`` rewrites the cached receipts' own ``TxHash`` to the Ethereum-form hash
    (``hmy/blockchain.go``), and ``GetBlockReceipts`` looks each transaction's receipt up by its
    Harmony hash in a map keyed by those (``rpc/harmony/blockchain.go``): it finds none and the
    receipt renderer dereferences nil. ``getTransactionReceipt`` takes the receipt by position.
    """
    if state.get("receipts_by") == "tx":
        return None
    crashed = (
        isinstance(error, RpcError)
        and error.method.endswith("_getBlockReceipts")
        and error.rpc_message == HANDLER_CRASHED
    )
    if isinstance(error, MethodNotFoundError) or crashed:
        return {"receipts_by": "tx"}
    return None


#: Receipts of every transaction (plain and staking), checked against their blocks.
RECEIPTS = RangeSource(
    name="receipts",
    fills={"receipts": Fill(needs=RECEIPT_NEEDS)},
    plan=_plan_receipts,
    transform="hmyframe.datasets._transform:receipts",
    fallback=_receipts_fallback,
)


# --------------------------------------------------------------------------- logs

#: Blocks per ``hmy_getLogs`` call: the node refuses ``toBlock - fromBlock > 1024``
#: (``rpcGetLogsLimit``); a span of 1,024 blocks stays inside it.
LOGS_SPAN = 1024
#: Error texts meaning "this range has too many logs for one answer" (the Harmony node sets no
#: count limit, but proxies and other providers do: "query returned more than 10000 results",
#: "Log response size exceeded", "too many results"...), and the node's own range cap.
_TOO_MANY = re.compile(
    r"too many|more than \d+ (?:results|logs)|response size|limit exceeded|exceeds? (?:the )?(?:max|limit)"
    r"|must be smaller than size",
    re.I,
)


def _plan_logs(request: ChunkRequest) -> list[Piece]:
    """``hmy_getLogs`` over spans of at most :data:`LOGS_SPAN` blocks (``state["logs_span"]`` once split)."""
    span = min(int(request.state.get("logs_span", LOGS_SPAN)), LOGS_SPAN)
    return [
        Piece(a, b, (Call("hmy_getLogs", ({"fromBlock": hex(a), "toBlock": hex(b)},)),))
        for a, b in spans(request.first, request.last, span)
    ]


def _logs_fallback(state: Mapping[str, Any], error: BaseException) -> Mapping[str, Any] | None:
    """A "too many results" answer (or one over the client's size cap): half the refused span, down to 1 block."""
    too_many = isinstance(error, ResponseTooLargeError) or (
        isinstance(error, RpcError)
        and not isinstance(error, MethodNotFoundError)
        and _TOO_MANY.search(error.rpc_message) is not None
    )
    span = int(state.get("logs_span", LOGS_SPAN))
    refused = _span_of(getattr(error, "params", None))
    if refused is not None:  # the span actually refused (a chunk may be shorter than the span)
        span = min(span, refused)
    if too_many and span > 1:
        return {"logs_span": span // 2}
    return None


def _span_of(params: object) -> int | None:
    """Blocks of a refused ``getLogs`` call's ``[{"fromBlock", "toBlock"}]`` params (None if not that)."""
    try:
        query = params[0]  # type: ignore[index]
        return int(query["toBlock"], 16) - int(query["fromBlock"], 16) + 1
    except (TypeError, KeyError, IndexError, ValueError):
        return None


#: Logs from ``hmy_getLogs`` (no ``hmyv2_`` twin exists; logs have one format), and the token
#: transfers decoded from them. A log names its transaction by the Harmony hash or the
#: Ethereum-form one, as the node's receipts cache has it (see ``_transform.logs``): both are
#: resolved through the blocks' transactions (their position in the block and either hash), and
#: the logs are checked against the blocks (hash, log indexes, logsBloom) and, fetched in the
#: same chunk, the receipts (each transaction's log count). The blocks' transactions are the
#: ``transactions`` and ``staking_transactions`` tables where both are at hand (cached, or
#: fetched in the same chunk), else the headers-only blocks' hash lists (:data:`TX_POSITIONS`,
#: never cached): full blocks are about 3 times the bytes of headers-only ones on a devnet of
#: about 12 transactions a block, and a logs export of 2,000 such blocks asking them took 1.4
#: times the CPU and 1.3 times the memory.
LOG_NEEDS = ("blocks", TX_POSITIONS)
LOGS = RangeSource(
    name="logs",
    fills={
        "logs": Fill(needs=LOG_NEEDS, uses=("receipts",)),
        "token_transfers": Fill(needs=LOG_NEEDS, uses=("receipts",)),
    },
    plan=_plan_logs,
    transform="hmyframe.datasets._transform:logs",
    fallback=_logs_fallback,
    plans_from_needed=False,
)


# --------------------------------------------------------------------------- the registry

#: Range sources by name.
_SOURCES: dict[str, RangeSource] = {}
#: The range sources registered now, by name (read-only view).
RANGE_SOURCES: Mapping[str, RangeSource] = MappingProxyType(_SOURCES)
#: The built-in datasets, in :data:`hmyframe.datasets.DATASETS` order; each is defined by the
#: module of its name (``hmyframe.datasets.<name>``).
BUILT_IN_DATASETS: tuple[str, ...] = (
    "blocks",
    "transactions",
    "staking_transactions",
    "signers",
    "traces",
    "receipts",
    "logs",
    "token_transfers",
    "validators",
    "voting_power",
    "delegations",
    "undelegations",
    "cx_receipts",
    "shards",
    "tx_counts",
    "tokens",
    "balances",
    "account_transactions",
    "delegator_delegations",
    "native_transfers",
    "rewards_collected",
    "token_balances",
    "dex_pairs",
)

#: Datasets of validator snapshots (every page of ``getAllValidatorInformationByBlockNumber``).
SNAPSHOT_DATASETS: tuple[str, ...] = ("validators", "voting_power", "delegations", "undelegations")
#: Datasets only fetched by point lookups (hashes, addresses, the pool); ``tokens`` is cached
#: per block (:mod:`hmyframe.engine._tokens`).
LOOKUP_DATASETS: tuple[str, ...] = (
    "cx_receipts",
    "shards",
    "tx_counts",
    "tokens",
    # accounts (issue 26; hmyframe.engine._accounts): by address, at blocks, or derived from
    # cached range datasets
    "balances",
    "account_transactions",
    "delegator_delegations",
    "native_transfers",
    "rewards_collected",
    "token_balances",
    # DEX pairs at a block (hmyframe.engine._dex), cached per block as tokens
    "dex_pairs",
)


def register_source(source: RangeSource) -> None:
    """Add a range source (its datasets become fetchable by range and exportable).

    Raises
    ------
    ConfigError
        If a dataset it fills is already filled by another source or has another kind.
    """
    if not isinstance(source, RangeSource):
        raise ConfigError(f"register_source() takes a RangeSource, got {short_repr(source)}")
    for name in source.fills:
        owner = _owner(name)
        if owner is not None and owner.name != source.name:
            raise ConfigError(f"dataset {name!r} is already filled by source {owner.name!r}")
        if name in SNAPSHOT_DATASETS or name in LOOKUP_DATASETS:
            raise ConfigError(f"dataset {name!r} is not fetched by block range")
    _SOURCES[source.name] = source


def unregister_source(name: str) -> None:
    """Remove a range source added with :func:`register_source` (no error if absent)."""
    _SOURCES.pop(name, None)


def _owner(name: str) -> RangeSource | None:
    for source in _SOURCES.values():
        if name in source.fills:
            return source
    return None


def kind_of(name: str) -> FetchKind:
    """How dataset ``name`` is fetched.

    Raises
    ------
    ConfigError
        For a name no source, snapshot or lookup declares.
    """
    owner = _owner(name)
    if owner is not None and not owner.fills[name].side:
        return "range"
    if name in SNAPSHOT_DATASETS:
        return "snapshot"
    if name in LOOKUP_DATASETS:
        return "lookup"
    known = [*RANGE_DATASETS, *SNAPSHOT_DATASETS, *LOOKUP_DATASETS]
    raise ConfigError(f"unknown dataset {short_repr(name)}; valid names: {', '.join(known)}")


def side_tables() -> frozenset[str]:
    """The side tables (:attr:`Fill.side`) of the registered range sources: built in a chunk,
    never a dataset (:data:`TX_POSITIONS`)."""
    return frozenset(name for src in _SOURCES.values() for name, fill in src.fills.items() if fill.side)


def source_of(name: str) -> RangeSource:
    """The range source filling dataset ``name``.

    Raises
    ------
    ConfigError
        If ``name`` is not fetched by block range.
    """
    source = _owner(name)
    if source is None:
        raise ConfigError(
            f"dataset {short_repr(name)} is not fetched by block range; range datasets: {', '.join(RANGE_DATASETS)}"
        )
    return source


def fill_of(name: str) -> Fill:
    """How dataset ``name`` is filled by its range source."""
    return source_of(name).fills[name]


def head_offset(names: Sequence[str]) -> tuple[int, str]:
    """The largest :attr:`Fill.head_offset` of range datasets ``names``, and its reason.

    The last block fetchable for all of them is ``head - offset``.

    >>> head_offset(["blocks", "signers"])
    (1, "block N's signers need block N+1")
    """
    fills = [fill_of(name) for name in names]
    best = max(fills, key=lambda f: f.head_offset, default=Fill())
    return best.head_offset, best.head_reason


def chunk_needs(wanted: Sequence[str], cached: Callable[[str], bool]) -> dict[str, tuple[str, ...]]:
    """The tables each dataset of ``wanted`` needs in one chunk: its :attr:`Fill.needs`, a side
    table replaced by its :attr:`Fill.instead` datasets where all of those are at hand.

    A dataset is at hand when it is cached (``cached(name)``, never asked of a side table), or
    built in the chunk: wanted, needed by a wanted one, or a sibling of one of those that the
    detail its source is asked for makes (``staking_transactions`` with ``transactions``).

    >>> chunk_needs(["logs"], lambda name: False)
    {'logs': ('blocks', '_transaction_positions')}
    >>> chunk_needs(["logs", "transactions"], lambda name: False)["logs"]
    ('blocks', 'transactions', 'staking_transactions')
    >>> chunk_needs(["logs"], lambda name: name != "blocks")["logs"]
    ('blocks', 'transactions', 'staking_transactions')
    """
    built = set(wanted)
    for name in wanted:
        built.update(n for n in fill_of(name).needs if not fill_of(n).side and not cached(n))
    asked: dict[str, frozenset[str]] = {}  # the detail each source is asked for in the chunk
    for name in built:
        source = source_of(name)
        asked[source.name] = asked.get(source.name, frozenset()) | source.fills[name].detail

    def at_hand(name: str) -> bool:
        source = source_of(name)
        made = source.name in asked and source.fills[name].detail <= asked[source.name]
        return made or cached(name)

    out: dict[str, tuple[str, ...]] = {}
    for name in wanted:
        needs: list[str] = []
        for need in fill_of(name).needs:
            side = fill_of(need)
            swap = side.side and side.instead and all(at_hand(n) for n in side.instead)
            needs.extend(side.instead if swap else (need,))
        out[name] = tuple(dict.fromkeys(needs))
    return out


class _RangeNames(Sequence[str]):
    """The range datasets, as the registry has them now (sources may be added)."""

    def _names(self) -> tuple[str, ...]:
        return tuple(n for source in _SOURCES.values() for n, f in source.fills.items() if not f.side)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __repr__(self) -> str:
        return repr(self._names())


#: Datasets fetched by block range (a live view: sources registered later are included).
RANGE_DATASETS: Sequence[str] = _RangeNames()

register_source(BLOCKS)
register_source(TRACES)
register_source(RECEIPTS)
register_source(LOGS)
