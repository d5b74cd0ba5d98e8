"""The devnet's chain model: plain, format-free facts about a simulated Harmony chain.

This module is the contract between the two halves of the devnet:

* :mod:`hmyframe.devnet.chain` *generates* these objects deterministically from a seed;
* :mod:`hmyframe.devnet.render` turns them into the exact JSON a real node sends (v1 hex /
  v2 numbers, current / legacy profile), and :mod:`hmyframe.devnet.server` serves that JSON.

Nothing here knows about JSON, hex encodings or bech32. Conventions:

* hashes, addresses and byte strings are lower-case ``0x``-prefixed hex ``str``
  (addresses 20 bytes, hashes 32 bytes); the renderer converts addresses to ``one1``
  where the node does;
* amounts (atto), gas prices and stakes are exact Python ``int``;
* ratios (commission rates, percentages, voting power, APR) are :class:`decimal.Decimal`
  with at most 18 fractional digits (the node's ``numeric.Dec``);
* timestamps are unix seconds (``int``).

The same objects are the devnet's *ground truth*: tests compare what hmyframe fetched
over HTTP with these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

__all__ = [
    "EMPTY_BLOOM",
    "ZERO_ADDRESS",
    "ZERO_HASH",
    "Block",
    "BlsKeyMetric",
    "CxProof",
    "CxReceipt",
    "Delegation",
    "Directive",
    "Log",
    "StakingTransaction",
    "TokenContract",
    "TraceFrame",
    "Transaction",
    "Undelegation",
    "ValidatorSnapshot",
    "flatten_trace",
]

ZERO_HASH = "0x" + "00" * 32
ZERO_ADDRESS = "0x" + "00" * 20
#: ``logsBloom`` without logs: 256 zero bytes.
EMPTY_BLOOM = "0x" + "00" * 256

Directive = Literal["CreateValidator", "EditValidator", "Delegate", "Undelegate", "CollectRewards"]


@dataclass(frozen=True, slots=True)
class TraceFrame:
    """One node of a transaction's call tree (Parity-style trace before flattening).

    The renderer flattens the tree depth-first; ``traceAddress`` is the path of child
    indices from the root and ``subtraces`` is ``len(children)``.

    Attributes
    ----------
    type
        ``"call"``, ``"create"`` or ``"suicide"``.
    call_type
        For ``call``: ``"call"``, ``"callcode"``, ``"delegatecall"`` or ``"staticcall"``;
        ``None`` otherwise.
    from_
        Caller (``call``/``create``), or the destroyed contract (``suicide``: action.address).
    to
        Callee (``call``), the created contract (``create``: result.address), or the
        refund address (``suicide``: action.refundAddress).
    value
        Value moved (``suicide``: the balance refunded). The node omits ``action.value``
        for ``staticcall`` and ``delegatecall``; keep 0 there.
    gas, gas_used
        Gas given to the frame and gas it used.
    input
        Call data (``call``) or init code (``create``); ``"0x"`` if none.
    output
        Return data (``call``) or deployed code (``create``); ``"0x"`` if none.
    error
        ``None`` on success; ``"Reverted"`` for a failed frame (the node then sends
        ``"error"`` and ``"revert"`` and *no* ``"result"`` key).
    revert
        Revert data (``0x``-hex) when ``error`` is set, else ``None``.
    children
        Sub-calls in execution order.
    """

    type: Literal["call", "create", "suicide"]
    call_type: Literal["call", "callcode", "delegatecall", "staticcall"] | None
    from_: str
    to: str
    value: int
    gas: int
    gas_used: int
    input: str = "0x"
    output: str = "0x"
    error: str | None = None
    revert: str | None = None
    children: tuple[TraceFrame, ...] = ()


@dataclass(frozen=True, slots=True)
class Log:
    """One event log of a transaction's receipt.

    Attributes
    ----------
    address
        The emitting contract.
    topics
        0 to 4 32-byte topics (``topics[0]`` the event signature's keccak for Solidity events).
    data
        Non-indexed arguments, ``0x``-hex (``"0x"`` if none).
    log_index
        Position of the log in its block (the node's ``logIndex``: counts across the block's
        transactions, from 0).
    """

    address: str
    topics: tuple[str, ...]
    data: str
    log_index: int


@dataclass(frozen=True, slots=True)
class TokenContract:
    """A token contract of one shard (deployed at genesis) and how it answers metadata calls.

    Attributes
    ----------
    address, shard_id
        Where it lives.
    standard
        ``"hrc20"``, ``"hrc721"`` or ``"hrc1155"``.
    name, symbol
        What ``name()`` / ``symbol()`` return, by ``*_kind``: ``"string"`` (ABI string of
        these bytes, which may be invalid UTF-8), ``"bytes32"`` (the bytes right-padded into
        one word), ``"revert"`` (the call reverts with ``Error(name)``), ``"none"`` (the
        contract has no such function: the node answers ``"0x"``).
    decimals
        ``decimals()``; ``None``: the contract has no such function (``"0x"``).
    code
        Runtime bytecode (``getCode``).
    """

    address: str
    shard_id: int
    standard: Literal["hrc20", "hrc721", "hrc1155"]
    name: bytes
    name_kind: Literal["string", "bytes32", "revert", "none"]
    symbol: bytes
    symbol_kind: Literal["string", "bytes32", "revert", "none"]
    decimals: int | None
    code: str


@dataclass(frozen=True, slots=True)
class Transaction:
    """A plain (EVM) transaction as included in a block.

    Attributes
    ----------
    hash
        Harmony transaction hash (what ``getTransactionByHash`` takes).
    eth_hash
        Ethereum-form hash of the same transaction (``ethHash``; what ``trace_block`` reports
        as ``transactionHash``). Different from ``hash``.
    shard_id, to_shard_id
        Sender's and receiver's shard; they differ for a cross-shard transfer.
    block_number, block_hash, index, timestamp
        Position in the chain; ``timestamp`` is the block's.
    sender
        Sender address. The node renders it as one1, except for contract creations where
        it sends lower-case 0x hex.
    to
        Receiver; ``None`` for a contract creation (current node sends ``""``, the legacy
        profile ``null``).
    value, gas, gas_price, nonce
        As signed by the sender; ``value`` in atto, may exceed 2**64.
    input
        Call data, ``0x``-hex.
    v, r, s
        Signature values.
    gas_used
        Gas used by execution (receipt).
    success
        Receipt status.
    contract_address
        Address created by a contract creation, else ``None``.
    trace
        Root call frame for ``trace_block``/``trace_transaction``; ``None`` when the node
        produces no trace for this transaction.
    logs
        The receipt's event logs (none when the transaction failed).
    """

    hash: str
    eth_hash: str
    shard_id: int
    to_shard_id: int
    block_number: int
    block_hash: str
    index: int
    timestamp: int
    sender: str
    to: str | None
    value: int
    gas: int
    gas_price: int
    nonce: int
    input: str
    v: int
    r: int
    s: int
    gas_used: int
    success: bool = True
    contract_address: str | None = None
    trace: TraceFrame | None = None
    logs: tuple[Log, ...] = ()

    @property
    def is_cross_shard(self) -> bool:
        """True when sender and receiver are on different shards."""
        return self.shard_id != self.to_shard_id

    @property
    def is_contract_creation(self) -> bool:
        """True for a contract-creation transaction (no receiver)."""
        return self.to is None


@dataclass(frozen=True, slots=True)
class StakingTransaction:
    """A staking transaction (shard 0 only).

    ``msg`` holds the directive's fields under the node's camelCase keys (see the RPC notes
    §1.4): addresses as 0x hex (rendered as one1), amounts and the 1e18-scaled integer rates
    as ``int``, texts as ``str``, ``slotPubKeys`` as a list of 96-hex-char strings without
    ``0x``, optional EditValidator fields as ``None``.
    """

    hash: str
    block_number: int
    block_hash: str
    index: int
    timestamp: int
    sender: str
    nonce: int
    gas: int
    gas_price: int
    v: int
    r: int
    s: int
    directive: Directive
    msg: dict[str, object]
    gas_used: int = 0
    logs: tuple[Log, ...] = ()
    """The staking receipt's logs: a CollectRewards writes one (address the delegator, topic
    ``keccak256("Harmony/CollectRewards")``, data the amount paid as minimal big-endian bytes)."""


@dataclass(frozen=True, slots=True)
class Block:
    """A block of one shard.

    ``signers`` of block N come from block N+1's commit bitmap; the chain computes them on
    demand (see ``Chain.signers``), so they are not stored here. ``gas_used`` sums the
    receipts' gas (plain, then staking transactions); ``logs_bloom`` is the union of the
    receipts' blooms.
    """

    shard_id: int
    number: int
    hash: str
    parent_hash: str
    timestamp: int
    epoch: int
    view_id: int
    leader: str
    size: int
    gas_limit: int
    gas_used: int
    state_root: str
    transactions_root: str
    receipts_root: str
    extra_data: str
    vrf: str
    vrf_proof: str
    transactions: tuple[Transaction, ...] = ()
    staking_transactions: tuple[StakingTransaction, ...] = ()
    logs_bloom: str = EMPTY_BLOOM


@dataclass(frozen=True, slots=True)
class Undelegation:
    """Stake leaving a validator: ``amount`` atto, unlocking after ``epoch``."""

    amount: int
    epoch: int


@dataclass(frozen=True, slots=True)
class Delegation:
    """One delegator's stake with a validator (the validator's own stake is one too)."""

    delegator: str
    amount: int
    reward: int
    undelegations: tuple[Undelegation, ...] = ()


@dataclass(frozen=True, slots=True)
class BlsKeyMetric:
    """Voting power of one BLS key of an elected validator in the current epoch.

    ``group_percent`` values of all keys on one shard sum to exactly 1; ``overall_percent``
    is the key's share of the whole shard committee's voting power.
    """

    key: str
    shard_id: int
    group_percent: Decimal
    overall_percent: Decimal
    effective_stake: Decimal
    raw_stake: Decimal
    earned_reward: int


@dataclass(frozen=True, slots=True)
class ValidatorSnapshot:
    """Everything the node reports about one validator at one block.

    ``snapshot_block`` / ``snapshot_epoch`` say which moment it describes. Fields map onto
    the current format (RPC notes §1.6) and the legacy one (spec: ``current-epoch-voting-power``
    from ``metrics``, ``availability`` from the lifetime counters, ``active``/``banned`` from
    the statuses).
    """

    snapshot_block: int
    snapshot_epoch: int
    address: str
    name: str
    identity: str
    website: str
    security_contact: str
    details: str
    bls_keys: tuple[str, ...]
    rate: Decimal
    max_rate: Decimal
    max_change_rate: Decimal
    min_self_delegation: int
    max_total_delegation: int
    update_height: int
    creation_height: int
    last_epoch_in_committee: int
    delegations: tuple[Delegation, ...]
    total_delegation: int
    currently_in_committee: bool
    epos_status: str
    epos_winning_stake: Decimal | None
    booted_status: str | None
    active_status: str
    banned: bool
    current_epoch_signed: int
    current_epoch_to_sign: int
    current_epoch_signing_percentage: Decimal
    lifetime_signed: int
    lifetime_to_sign: int
    reward_accumulated: int
    apr: Decimal
    epoch_apr: tuple[tuple[int, Decimal], ...] | None
    metrics: tuple[BlsKeyMetric, ...] | None = None
    epoch_blocks: tuple[tuple[int, int, int], ...] | None = field(default=None)
    """Per recent epoch: (epoch, to_sign, signed); ``None`` when the node has no stats."""

    @property
    def active(self) -> bool:
        """Legacy ``active`` flag: the validator is active (not inactive, not banned)."""
        return self.active_status == "active"


@dataclass(frozen=True, slots=True)
class CxReceipt:
    """One cross-shard transfer waiting to be received on ``to_shard_id``."""

    tx_hash: str
    sender: str
    to: str
    shard_id: int
    to_shard_id: int
    amount: int


@dataclass(frozen=True, slots=True)
class CxProof:
    """A pending cross-shard receipts proof (one source block, one destination shard).

    ``header`` is the source block; ``commit_sig`` / ``commit_bitmap`` are raw bytes (the
    node sends them base64-encoded).
    """

    receipts: tuple[CxReceipt, ...]
    header: Block
    shard_ids: tuple[int, ...]
    shard_hashes: tuple[str, ...]
    receipt_hash: str
    commit_sig: bytes
    commit_bitmap: bytes


def flatten_trace(root: TraceFrame) -> list[tuple[tuple[int, ...], TraceFrame]]:
    """Flatten a call tree depth-first, as the node lists traces.

    Parameters
    ----------
    root
        The transaction's root frame.

    Returns
    -------
    list of (trace_address, frame)
        ``trace_address`` is the path of child indices from the root (``()`` for the root);
        the order is pre-order depth-first, children in execution order.
    """
    out: list[tuple[tuple[int, ...], TraceFrame]] = []
    stack: list[tuple[tuple[int, ...], TraceFrame]] = [((), root)]
    while stack:
        address, frame = stack.pop()
        out.append((address, frame))
        for i in range(len(frame.children) - 1, -1, -1):
            stack.append(((*address, i), frame.children[i]))
    return out
