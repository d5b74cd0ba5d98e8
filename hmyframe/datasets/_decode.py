"""Decoding raw payload bytes, once per source, into the forms the dataset builders read.

* ``blocks`` source -> :class:`DecodedBlocks` via :func:`decode_blocks` (typed msgspec
  structs: the fast path for the big tables).
* ``traces`` -> :class:`DecodedTraces` via :func:`decode_traces` (typed structs).
* ``validators``, ``cx_receipts``, ``shards``, ``tx_counts`` -> plain JSON values
  (:func:`decode_json`), walked by the builders (these answers are small).

JSON numbers are decoded exactly: integers of any size become ``int``; a number written with
a fraction or an exponent (the ``hmy`` CLI's ``3.46e+19``) becomes ``Decimal`` of its text,
never a float. Quantity fields are typed ``Any`` so one struct accepts v1 hex strings, v2
numbers and those decimals; the column builders in :mod:`._convert` validate them.

A payload that is not JSON, or whose structure does not fit (an object where an array is
expected...), raises :class:`~hmyframe.errors.ResponseShapeError` naming the dataset, the
path (``payload[2][0].transactions[5].hash``) and the offending value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

import msgspec

from hmyframe.errors import ConfigError, ResponseShapeError, short_repr

__all__ = [
    "Block",
    "DecodedBlocks",
    "DecodedTraces",
    "StakingMsg",
    "StakingTx",
    "Trace",
    "Tx",
    "decode_blocks",
    "decode_json",
    "decode_traces",
    "payload_path",
    "require",
]

_S = TypeVar("_S", bound=msgspec.Struct)
_T = TypeVar("_T")


# ---------------------------------------------------------------------------------------
# typed structs (unknown keys are ignored; every field is optional so that missing keys are
# reported by the builders with the dataset and field names)
# ---------------------------------------------------------------------------------------


class Tx(msgspec.Struct, gc=False):
    """A transaction object (``getTransactionByHash``, ``fullTx`` blocks).

    Fields are declared in the node's key order, which lets msgspec match each key at once.
    """

    blockHash: str | None = None
    blockNumber: Any = None
    from_: str | None = msgspec.field(default=None, name="from")
    timestamp: Any = None
    gas: Any = None
    gasPrice: Any = None
    hash: str | None = None
    ethHash: str | None = None
    input: str | None = None
    nonce: Any = None
    to: str | None = None
    transactionIndex: Any = None
    value: Any = None
    shardID: Any = None
    toShardID: Any = None


class StakingMsg(msgspec.Struct, gc=False):
    """The ``msg`` of a staking transaction (all directives' fields, flattened)."""

    validatorAddress: str | None = None
    delegatorAddress: str | None = None
    amount: Any = None
    commissionRate: Any = None
    maxCommissionRate: Any = None
    maxChangeRate: Any = None
    minSelfDelegation: Any = None
    maxTotalDelegation: Any = None
    name: str | None = None
    website: str | None = None
    identity: str | None = None
    securityContact: str | None = None
    details: str | None = None
    slotPubKeys: list[str] | None = None
    slotPubKeyToAdd: str | None = None
    slotPubKeyToRemove: str | None = None


class StakingTx(msgspec.Struct, gc=False):
    """A staking transaction object (``type`` + ``msg``; no to/value/input), in the node's key order."""

    blockHash: str | None = None
    blockNumber: Any = None
    from_: str | None = msgspec.field(default=None, name="from")
    timestamp: Any = None
    gas: Any = None
    gasPrice: Any = None
    hash: str | None = None
    nonce: Any = None
    transactionIndex: Any = None
    type: str | None = None
    msg: StakingMsg | None = None


class Block(msgspec.Struct, gc=False):
    """A block object (``getBlockByNumber``, ``getBlockByHash``, one element of ``getBlocks``).

    Fields are declared in the node's (alphabetical) key order.
    """

    epoch: Any = None
    extraData: str | None = None
    gasLimit: Any = None
    gasUsed: Any = None
    hash: str | None = None
    logsBloom: str | None = None
    miner: str | None = None
    mixHash: str | None = None
    number: Any = None
    parentHash: str | None = None
    receiptsRoot: str | None = None
    signers: list[Any] | None = None
    size: Any = None
    stakingTransactions: list[StakingTx | str] | None = None
    stateRoot: str | None = None
    timestamp: Any = None
    transactions: list[Tx | str] | None = None
    transactionsRoot: str | None = None
    viewID: Any = None
    vrf: str | None = None


class _Item(Block, gc=False):
    """Any top-level object of a ``blocks``-source payload: the block keys plus all the others."""

    # transaction / staking transaction
    blockHash: str | None = None
    blockNumber: Any = None
    transactionIndex: Any = None
    from_: str | None = msgspec.field(default=None, name="from")
    gas: Any = None
    gasPrice: Any = None
    nonce: Any = None
    ethHash: str | None = None
    to: str | None = None
    value: Any = None
    input: str | None = None
    shardID: Any = None
    toShardID: Any = None
    type: str | None = None
    msg: StakingMsg | None = None
    # getStakingTransactionsHistory wrapper
    staking_transactions: list[StakingTx | str] | None = None


# The same objects with every quantity typed ``int | str | None`` (v2 numbers, v1 hex strings):
# the first decoder tried. Its columns then hold only ints, strings and None, which the
# builders' bulk paths take without checking each value's type. A payload it rejects (a JSON
# float such as the CLI's 3.46e+19, a boolean...) is decoded again with the classes above.
_Q = int | str | None


class _TypedTx(Tx, gc=False):
    blockNumber: _Q = None
    timestamp: _Q = None
    gas: _Q = None
    gasPrice: _Q = None
    nonce: _Q = None
    transactionIndex: _Q = None
    value: _Q = None
    shardID: _Q = None
    toShardID: _Q = None


class _TypedStakingMsg(StakingMsg, gc=False):
    amount: _Q = None
    commissionRate: _Q = None
    maxCommissionRate: _Q = None
    maxChangeRate: _Q = None
    minSelfDelegation: _Q = None
    maxTotalDelegation: _Q = None


class _TypedStakingTx(StakingTx, gc=False):
    blockNumber: _Q = None
    timestamp: _Q = None
    gas: _Q = None
    gasPrice: _Q = None
    nonce: _Q = None
    transactionIndex: _Q = None
    msg: _TypedStakingMsg | None = None


class _TypedItem(_Item, gc=False):
    epoch: _Q = None
    gasLimit: _Q = None
    gasUsed: _Q = None
    number: _Q = None
    size: _Q = None
    stakingTransactions: list[_TypedStakingTx | str] | None = None  # type: ignore[assignment]
    timestamp: _Q = None
    transactions: list[_TypedTx | str] | None = None  # type: ignore[assignment]
    viewID: _Q = None
    blockNumber: _Q = None
    transactionIndex: _Q = None
    gas: _Q = None
    gasPrice: _Q = None
    nonce: _Q = None
    value: _Q = None
    shardID: _Q = None
    toShardID: _Q = None
    msg: _TypedStakingMsg | None = None
    staking_transactions: list[_TypedStakingTx | str] | None = None  # type: ignore[assignment]


class _EthItem(_Item, gc=False):
    """An :class:`_Item` keeping a headers-only block's ``transactionsInEthHash`` too (decoded
    only when asked: a blocks export has no use for them)."""

    transactionsInEthHash: list[str] | None = None


class _TypedEthItem(_TypedItem, gc=False):
    transactionsInEthHash: list[str] | None = None


_BLOCK_KEYS = ("number", "parentHash", "miner", "stateRoot", "transactionsRoot", "gasLimit", "logsBloom")

#: A list's ``null`` entries are the gaps of the 2020 node's pool listings (see
#: :func:`_pool_gaps`); anywhere else they are refused.
_BlocksPayload = _Item | list[_Item | str | None] | None


class TraceAction(msgspec.Struct, gc=False):
    """``action`` of a Parity-style trace (call, create and suicide keys together)."""

    callType: str | None = None
    from_: str | None = msgspec.field(default=None, name="from")
    to: str | None = None
    value: Any = None
    gas: Any = None
    input: str | None = None
    init: str | None = None
    address: str | None = None
    refundAddress: str | None = None
    balance: Any = None


class TraceResult(msgspec.Struct, gc=False):
    """``result`` of a Parity-style trace."""

    output: str | None = None
    gasUsed: Any = None
    address: str | None = None
    code: str | None = None


class Trace(msgspec.Struct, gc=False):
    """One Parity-style trace entry (``trace_block`` / ``trace_transaction``)."""

    blockNumber: Any = None
    blockHash: str | None = None
    transactionHash: str | None = None
    transactionPosition: Any = None
    subtraces: Any = None
    traceAddress: list[Any] | None = None
    type: str | None = None
    action: TraceAction | None = None
    result: TraceResult | None = None
    error: str | None = None
    revert: str | None = None


_TracesPayload = list[Trace] | None


# ---------------------------------------------------------------------------------------
# error mapping
# ---------------------------------------------------------------------------------------

_PATH_RE = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)
_SEGMENT_RE = re.compile(r"\[(\d+)\]|\.([^.\[]+)")
_ANY = msgspec.json.Decoder(float_hook=Decimal)


def payload_path(index: int, rest: str = "") -> str:
    """``payload[i]`` followed by a JSON path tail such as ``[3].transactions[0]``."""
    return f"payload[{index}]{rest}"


def _value_at(node: Any, path: str) -> object:
    """The value at a msgspec error path inside decoded JSON (best effort, for messages)."""
    for idx, key in _SEGMENT_RE.findall(path):
        try:
            node = node[int(idx)] if idx else node[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return "<missing>"
    return node


def _shape_error(what: str, index: int, data: bytes, exc: msgspec.MsgspecError) -> ResponseShapeError:
    try:
        tree: Any = _ANY.decode(data)
    except msgspec.DecodeError as bad_json:
        # a typed decoder may reject the first token before it sees the JSON is broken
        return ResponseShapeError(what, payload_path(index), bytes(data[:120]), f"valid JSON ({bad_json})")
    text = str(exc)
    m = _PATH_RE.match(text)
    msg, path = (m.group("msg"), m.group("path") or "") if m else (text, "")
    return ResponseShapeError(what, payload_path(index, path), _value_at(tree, path), _expected(msg))


def _expected(msgspec_message: str) -> str:
    # "Expected `str | null`, got `int`" -> "str | null (got int)"
    m = re.match(r"Expected `(.+?)`, got `(.+?)`", msgspec_message)
    if m:
        return f"{m.group(1)} (got {m.group(2)})"
    return msgspec_message


def _decode(decoder: msgspec.json.Decoder[Any], what: str, index: int, data: bytes) -> Any:
    try:
        return decoder.decode(data)
    except msgspec.MsgspecError as exc:
        try:
            error = _shape_error(what, index, data, exc)
        except RecursionError:
            error = ResponseShapeError(what, payload_path(index), bytes(data[:120]), _expected(str(exc)))
        raise error from None
    except RecursionError:
        raise ResponseShapeError(
            what, payload_path(index), bytes(data[:120]), "JSON nested less deeply"
        ) from None


def decode_json(payloads: Sequence[bytes], what: str) -> list[Any]:
    """Decode each payload to plain JSON values (exact ints, ``Decimal`` for fractions)."""
    return [_decode(_ANY, what, i, p) for i, p in enumerate(payloads)]


# ---------------------------------------------------------------------------------------
# blocks source
# ---------------------------------------------------------------------------------------


@dataclass
class DecodedBlocks:
    """Decoded ``blocks``-source payloads, ready for the block-derived datasets.

    Attributes
    ----------
    blocks
        Block objects, in payload order.
    block_paths
        Path of each block (``payload[i]`` or ``payload[i][j]``), for error messages.
    txs, tx_paths
        Transaction objects that came without a block (``getTransactionByHash``,
        ``pendingTransactions``...), and their paths.
    staking_txs, staking_paths
        Staking transaction objects that came without a block, and their paths.
    signer_lists
        ``(payload index, addresses)`` for each ``getBlockSigners`` answer.
    typed
        True when every quantity of every object is an ``int``, a ``str`` or ``None`` (all
        payloads passed the typed decoder); the column builders then skip per-value type checks.
    """

    blocks: list[Block] = field(default_factory=list)
    block_paths: list[str] = field(default_factory=list)
    txs: list[Tx | str] = field(default_factory=list)
    tx_paths: list[str] = field(default_factory=list)
    staking_txs: list[StakingTx | str] = field(default_factory=list)
    staking_paths: list[str] = field(default_factory=list)
    signer_lists: list[tuple[int, list[str]]] = field(default_factory=list)
    typed: bool = False


#: (typed, untyped) decoders, without and with ``transactionsInEthHash``.
_BLOCKS_DECODERS = {
    False: (
        msgspec.json.Decoder(_TypedItem | list[_TypedItem | str | None] | None, float_hook=Decimal),
        msgspec.json.Decoder(_BlocksPayload, float_hook=Decimal),
    ),
    True: (
        msgspec.json.Decoder(_TypedEthItem | list[_TypedEthItem | str | None] | None, float_hook=Decimal),
        msgspec.json.Decoder(_EthItem | list[_EthItem | str | None] | None, float_hook=Decimal),
    ),
}


def _convert(item: _Item, cls: type[_S]) -> _S:
    return cls(**{n: getattr(item, n) for n in cls.__struct_fields__})


def _classify(item: _Item, path: str, out: DecodedBlocks, what: str) -> None:
    if any(getattr(item, k) is not None for k in _BLOCK_KEYS):
        out.blocks.append(item)  # an _Item is a Block (its other fields are None)
        out.block_paths.append(path)
    elif item.staking_transactions is not None:
        for j, stx in enumerate(item.staking_transactions):
            out.staking_txs.append(stx)
            out.staking_paths.append(f"{path}.staking_transactions[{j}]")
    elif item.transactions is not None and item.from_ is None:
        for j, tx in enumerate(item.transactions):
            out.txs.append(tx)
            out.tx_paths.append(f"{path}.transactions[{j}]")
    elif item.type is not None or item.msg is not None:
        out.staking_txs.append(_convert(item, _TypedStakingTx if isinstance(item, _TypedItem) else StakingTx))
        out.staking_paths.append(path)
    elif item.from_ is not None or item.hash is not None:
        out.txs.append(_convert(item, _TypedTx if isinstance(item, _TypedItem) else Tx))
        out.tx_paths.append(path)
    else:
        shown = {k: v for k, v in msgspec.structs.asdict(item).items() if v is not None}
        raise ResponseShapeError(
            what, path, shown or "{}", "a block, transaction or staking transaction object"
        )


def _pool_gaps(items: list[Any], index: int, what: str) -> None:
    """Check the ``null`` entries of an array answer: only a pool listing may hold them.

    From early 2020 until harmony 579250a07 (2020-07-29) ``pendingTransactions`` and
    ``pendingStakingTransactions`` allocated one slot per pool entry and filled only the entries
    of their own kind: a staking transaction in the pool (or a plain one, for the staking
    listing), or one whose sender could not be read, left a ``null`` (harmony-one/harmony#2922;
    internal/hmyapi/apiv1 PendingTransactions at 48298c2e9). Such a slot holds no transaction:
    nothing to take. Among blocks or signer addresses a ``null`` is an error.
    """
    gap = items.index(None)
    for item in items:
        if isinstance(item, str):
            raise ResponseShapeError(
                what, payload_path(index, f"[{gap}]"), None, "a signer address like the rest of the array"
            )
        if item is not None and any(getattr(item, k) is not None for k in _BLOCK_KEYS):
            raise ResponseShapeError(
                what, payload_path(index, f"[{gap}]"), None, "a block like the rest of the array"
            )


def decode_blocks(
    payloads: Sequence[bytes], what: str = "blocks", *, eth_hashes: bool = False
) -> DecodedBlocks:
    """Decode ``blocks``-source payloads once for every block-derived dataset.

    Parameters
    ----------
    payloads
        Raw JSON ``result`` bytes, each one of: a block object (``getBlockByNumber``,
        ``getBlockByHash``; ``null`` for an unknown hash gives nothing), an array of block
        objects (``getBlocks``), a transaction or staking-transaction object or an array of them
        (``getTransactionByHash``, ``pendingTransactions``, ``pendingStakingTransactions``,
        ``getStakingTransactionByHash``...; a pool listing's ``null`` entries hold no
        transaction and are skipped), a ``{"staking_transactions": [...]}`` history
        page, or an array of signer addresses (``getBlockSigners``; give its block number in
        :attr:`ConvertContext.block_numbers`). Any generation (v1 hex / v2 numbers) and format
        (early-2020 or current).
    what
        Name used in error messages (the dataset being built).
    eth_hashes
        Keep headers-only blocks' ``transactionsInEthHash`` (``block.transactionsInEthHash``;
        without it the key is skipped).

    Returns
    -------
    DecodedBlocks
        Pass it to ``DATASETS[name].build(decoded, ctx)`` for ``blocks``, ``transactions``,
        ``staking_transactions`` and ``signers``.

    Raises
    ------
    ResponseShapeError
        For bytes that are not JSON or a structure that fits none of the above.
    """
    out = DecodedBlocks(typed=True)
    typed, untyped = _BLOCKS_DECODERS[eth_hashes]
    for i, data in enumerate(payloads):
        try:
            decoded = typed.decode(data)
        except (msgspec.MsgspecError, RecursionError):  # not JSON, or a value of another type
            out.typed = False
            decoded = _decode(untyped, what, i, data)
        if decoded is None:
            continue
        if isinstance(decoded, _Item):
            _classify(decoded, payload_path(i), out, what)
            continue
        if None in decoded:
            _pool_gaps(decoded, i, what)
            for j, entry in enumerate(decoded):
                if entry is not None:
                    assert isinstance(entry, _Item)
                    _classify(entry, payload_path(i, f"[{j}]"), out, what)
            continue
        strings = [s for s in decoded if isinstance(s, str)]
        if strings:
            if len(strings) != len(decoded):
                bad = next(j for j, v in enumerate(decoded) if not isinstance(v, str))
                raise ResponseShapeError(
                    what,
                    payload_path(i, f"[{bad}]"),
                    "<object>",
                    "a signer address string like the rest of the array",
                )
            out.signer_lists.append((i, strings))
            continue
        if all(item.number is not None for item in decoded):
            # the usual getBlocks answer: every item a block (what _classify finds, in one pass)
            prefix = payload_path(i)
            out.blocks.extend(decoded)
            out.block_paths.extend([f"{prefix}[{j}]" for j in range(len(decoded))])
            continue
        for j, item in enumerate(decoded):
            assert isinstance(item, _Item)
            _classify(item, payload_path(i, f"[{j}]"), out, what)
    return out


# ---------------------------------------------------------------------------------------
# traces source
# ---------------------------------------------------------------------------------------


@dataclass
class DecodedTraces:
    """Decoded ``trace_block`` / ``trace_transaction`` payloads.

    Attributes
    ----------
    traces
        Every trace entry, in payload order.
    payload_index
        Index of the payload each trace came from.
    paths
        Path of each trace, for error messages.
    """

    traces: list[Trace] = field(default_factory=list)
    payload_index: list[int] = field(default_factory=list)
    paths: Sequence[str] = field(default_factory=list)


class _TracePaths(Sequence[str]):
    """``payload[i][j]`` of every trace, made only when asked for (error messages)."""

    def __init__(self, payload_index: list[int]) -> None:
        self._payload_index = payload_index
        self._first: dict[int, int] | None = None

    def __len__(self) -> int:
        return len(self._payload_index)

    def __getitem__(self, row: int) -> str:  # type: ignore[override]
        if self._first is None:
            self._first = {}
            for i, p in enumerate(self._payload_index):
                self._first.setdefault(p, i)
        payload = self._payload_index[row]
        return payload_path(payload, f"[{row - self._first[payload]}]")


_TRACES_DECODER = msgspec.json.Decoder(_TracesPayload, float_hook=Decimal)


def decode_traces(payloads: Sequence[bytes], what: str = "traces") -> DecodedTraces:
    """Decode ``trace_block`` / ``trace_transaction`` results (arrays, or ``null``).

    Parameters
    ----------
    payloads
        Raw JSON ``result`` bytes.
    what
        Name used in error messages.

    Returns
    -------
    DecodedTraces
    """
    out = DecodedTraces()
    for i, data in enumerate(payloads):
        decoded = _decode(_TRACES_DECODER, what, i, data)
        if decoded:
            out.traces.extend(decoded)
            out.payload_index.extend([i] * len(decoded))
    out.paths = _TracePaths(out.payload_index)
    return out


def require(decoded: object, cls: type[_T], what: str, source: str) -> _T:
    """``decoded`` if it is a ``cls``; else a :class:`ConfigError` saying what to pass."""
    if isinstance(decoded, cls):
        return decoded
    raise ConfigError(
        f"{what}: build() needs the decoded {source!r} source ({cls.__name__}, from "
        f"Dataset.decode or the source's decoder), got {short_repr(decoded)}"
    )
