"""A deterministic simulated Harmony chain: the devnet's generator and ground truth.

:class:`Chain` produces the format-free objects of :mod:`hmyframe.devnet.model` from a
seed. It is lazy: constructing a chain of any length costs almost nothing; blocks are
generated when asked for and kept in a bounded LRU.

How it is built (see the ``_gen_*`` modules):

* a per-shard numpy **skeleton**, generated in fixed segments of 512 blocks keyed by
  segment index: transactions per block (many empty or small blocks, a long tail, rare
  bursts of ~100), sender (a Zipf-like population of 30,000 accounts), nonce (cumulative
  count per sender and shard), kind (transfer, cross-shard transfer, contract call,
  reverted call, contract creation) and view id (occasional view changes);
* per block, everything else (values, receivers, gas, call data, signatures, trace trees)
  from one ``random.Random`` seeded by a keyed digest of ``(shard, number)``;
* the **staking engine**, processing epochs in order: elections, staking transactions on
  shard 0, who signed each block, uptime boots, rewards (see
  :mod:`hmyframe.devnet._gen_staking`), and the validator snapshots read from its state
  (:mod:`hmyframe.devnet._gen_snapshots`);
* the **token** and **exchange** engines (:mod:`hmyframe.devnet._gen_tokens`,
  :mod:`hmyframe.devnet._gen_dex`): their transactions appended to busy blocks from their own
  seeded draws, their ledgers folded in order with checkpoints;
* **self-locating identifiers**: every block / transaction / staking-transaction hash and
  every account address encodes its own location under a keyed, verified pad, so lookups
  are O(1) without any index and unknown hashes are rejected.

Because the skeleton extends segment by segment and every block is a function of
``(seed, parameters, shard, number)`` only, ``Chain(blocks=N).mine(k)`` yields exactly the
blocks of ``Chain(blocks=N + k)``.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Concatenate, Final, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

from hmyframe.devnet._gen_accounts import COLLECT_REWARDS_TOPIC, AccountLedger, HistoryEntry, Movement
from hmyframe.devnet._gen_activity import ActivityName
from hmyframe.devnet._gen_activity import activity as activity_profile
from hmyframe.devnet._gen_block import BlockFactory
from hmyframe.devnet._gen_codec import (
    ADDR_CONTRACT,
    ADDR_CREATED,
    ADDR_DELEGATOR,
    ADDR_EOA,
    ADDR_INNER,
    ADDR_VALIDATOR,
    HASH_BLOCK,
    HASH_MISC,
    HASH_STAKING,
    HASH_TX,
    Codec,
    hex_bytes,
)
from hmyframe.devnet._gen_dex import ADDR_TRADER, DEFAULT_DEX_DENSITY, DexContracts, DexEngine, DexLedger
from hmyframe.devnet._gen_hostile import hostile_description
from hmyframe.devnet._gen_population import build_population
from hmyframe.devnet._gen_skeleton import SEGMENT, Skeleton
from hmyframe.devnet._gen_snapshots import SnapshotViews
from hmyframe.devnet._gen_staking import StakingEngine
from hmyframe.devnet._gen_tokens import (
    ADDR_HOLDER,
    DEFAULT_TOKEN_DENSITY,
    SEL_BALANCE_OF,
    SEL_TOTAL_SUPPLY,
    Ledger,
    TokenEngine,
)
from hmyframe.devnet.bloom import bloom_hex, bloom_of
from hmyframe.devnet.model import (
    Block,
    CxProof,
    CxReceipt,
    Delegation,
    Log,
    StakingTransaction,
    TokenContract,
    Transaction,
    Undelegation,
    ValidatorSnapshot,
)
from hmyframe.errors import AddressError, ConfigError, short_repr

__all__ = ["BLOCK_TIME", "CX_PENDING_BLOCKS", "Chain"]

BLOCK_TIME: Final = 2
#: Cross-shard receipts from a source shard's last ``CX_PENDING_BLOCKS`` blocks (head
#: included) are still pending on the destination shard.
CX_PENDING_BLOCKS: Final = 3
_MAX_SHARDS: Final = 64
_BLOCK_LRU: Final = 1024
_TAG_CX: Final = 0x4358
_HEX = frozenset("0123456789abcdef")


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _locked(method: Callable[Concatenate[Chain, _P], _R]) -> Callable[Concatenate[Chain, _P], _R]:
    """Run ``method`` under the chain's lock (generation shares one RNG and the caches)."""

    @functools.wraps(method)
    def wrapper(self: Chain, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


def _quick_unlock(value: object) -> tuple[int, int] | None:
    if value is None:
        return None
    if (
        isinstance(value, tuple | list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
        and value[0] <= value[1]
    ):
        return (int(value[0]), int(value[1]))
    raise ConfigError(
        f"quick_unlock={short_repr(value)} must be None or epochs (first, end) with first <= end"
    )


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ConfigError(f"{name} must be an integer, got {short_repr(value)}")
    number = int(value)
    if number < low or (high is not None and number > high):
        bound = f"between {low} and {high}" if high is not None else f">= {low}"
        raise ConfigError(f"{name}={number} is out of range: expected {bound}")
    return number


def _hex_string(name: str, value: object, n_bytes: int) -> str:
    """``value`` lower-cased if it is ``0x`` + ``2 * n_bytes`` hex digits, else ConfigError."""
    if isinstance(value, str):
        text = value.lower()
        if len(text) == 2 + 2 * n_bytes and text.startswith("0x") and _HEX.issuperset(text[2:]):
            return text
    raise ConfigError(f"{name} {short_repr(value)} is not a 0x-prefixed {2 * n_bytes}-hex-digit string")


def _address(value: object) -> str:
    if isinstance(value, str):
        text = value.lower()
        if len(text) == 42 and text.startswith("0x") and _HEX.issuperset(text[2:]):
            return text
    raise AddressError(value, "the devnet chain takes 0x-prefixed 40-hex-digit addresses")


class Chain:
    """A deterministic, lazily generated Harmony network of ``shards`` shards.

    Parameters
    ----------
    seed
        Any integer; the same seed and parameters give identical objects.
    shards
        Number of shards (1 to 64).
    blocks
        Initial number of blocks per shard (the head is ``blocks - 1``).
    epoch_length
        Blocks per epoch (the same numbering on every shard).
    validators
        Size of the validator population (most created at genesis, about 12 % later).
    genesis_time
        Unix time of block 0; block ``n`` is at ``genesis_time + 2 * view_id``.
    token_density
        Expected token transactions per block with plain transactions (HRC-20/721/1155
        mints, transfers, burns and failed transfers, appended after the plain ones; see
        :mod:`hmyframe.devnet._gen_tokens`). 0 gives the chain without token activity; the
        plain transactions are the same whatever the density.
    hostile_text
        Token names and symbols and validator descriptions chosen to break displays (10,000
        characters, right-to-left overrides, zero-width and control characters, HTML, emoji;
        see :mod:`hmyframe.devnet._gen_hostile`); the chain is otherwise the same.
    dex_density
        Expected DEX transactions per block with plain transactions (a UniswapV2-style
        exchange on every shard: swaps through the router, liquidity, WONE wrapping; see
        :mod:`hmyframe.devnet._gen_dex`), appended after the token ones. 0 gives the chain
        without DEX activity; the plain and token transactions are the same whatever it is.
    activity
        How busy blocks are: ``"quiet"`` (most blocks 0-3 transactions, like mainnet today),
        ``"devnet"`` (the default, mean about 12) or ``"busy"`` (100 or more, like the
        2021-22 peak); see :mod:`hmyframe.devnet._gen_activity`.
    quick_unlock
        Epochs ``(first, end)`` in which the node's lock period is 0 (``LockPeriodInEpochV2``,
        mainnet's epochs 191..289): an undelegation is paid at the end of its own epoch.
        ``None`` (the default): 7 epochs throughout, as since mainnet's ``RedelegationEpoch``.

    Raises
    ------
    ConfigError
        A parameter is not an integer or is out of range.

    Notes
    -----
    * Signing: ``signers(shard, n)`` lists one address per signing committee key, in
      committee order, as the node does (a validator with several keys on the shard is listed
      once per key); all the keys of one validator on one shard sign or miss together and the
      leader always signs. A snapshot at block ``b`` counts ``current_epoch_signed`` over the blocks
      ``epoch_first_block(epoch_of(b)) .. b`` (inclusive) of every shard where the
      validator has elected keys, and ``current_epoch_to_sign`` is the number of those
      blocks (summed over its shards).
    * Cross-shard: receipts of a source shard's last :data:`CX_PENDING_BLOCKS` blocks are
      pending on their destination (:meth:`pending_cx_receipts`).
    * Staking senders: validator and delegator accounts only send staking transactions
      (shard 0); the 30,000 plain-transaction accounts only send plain ones. Both share the
      nonce rule checked by :meth:`transaction_count`.
    * Thread safety: every public method holds a re-entrant lock (generation shares one
      random generator and the caches), so a server thread and a test thread may share a
      chain.

    Examples
    --------
    >>> chain = Chain(seed=1, blocks=50, validators=40)
    >>> chain.head(0)
    49
    >>> chain.block(0, 10).parent_hash == chain.block(0, 9).hash
    True
    """

    def __init__(
        self,
        *,
        seed: int = 0,
        shards: int = 2,
        blocks: int = 2000,
        epoch_length: int = 200,
        validators: int = 300,
        genesis_time: int = 1_767_225_600,
        token_density: float = DEFAULT_TOKEN_DENSITY,
        activity: ActivityName = "devnet",
        dex_density: float = DEFAULT_DEX_DENSITY,
        hostile_text: bool = False,
        quick_unlock: tuple[int, int] | None = None,
    ) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
            raise ConfigError(f"seed must be an integer, got {short_repr(seed)}")
        self.seed: int = int(seed)
        self.n_shards: int = _check_int("shards", shards, 1, _MAX_SHARDS)
        blocks = _check_int("blocks", blocks, 1)
        self.epoch_length: int = _check_int("epoch_length", epoch_length, 1)
        self.n_validators: int = _check_int("validators", validators, max(4, 2 * self.n_shards))
        self.genesis_time: int = _check_int("genesis_time", genesis_time, 0)
        self.block_time: int = BLOCK_TIME
        density: object = token_density
        if isinstance(density, bool) or not isinstance(density, int | float) or not 0 <= density <= 50:
            raise ConfigError(
                f"token_density={short_repr(density)} must be a number of transactions per block from 0 to 50"
            )
        self.token_density: float = float(density)
        dex: object = dex_density
        if isinstance(dex, bool) or not isinstance(dex, int | float) or not 0 <= dex <= 50:
            raise ConfigError(
                f"dex_density={short_repr(dex)} must be a number of transactions per block from 0 to 50"
            )
        self.dex_density: float = float(dex)
        profile = activity_profile(activity)  # a ConfigError names the bad value
        self.activity: ActivityName = activity
        self.quick_unlock = _quick_unlock(quick_unlock)
        self._head = blocks - 1
        material = f"hmyframe-devnet|{self.seed}|{self.n_shards}|{self.epoch_length}|{self.n_validators}|{self.genesis_time}"
        self._codec = Codec(material.encode())
        self._skeletons = [Skeleton(self._codec, s, self.n_shards, profile) for s in range(self.n_shards)]
        self._factory = BlockFactory(
            self._codec, self.n_shards, self.genesis_time, BLOCK_TIME, self.epoch_length, profile
        )
        if not isinstance(hostile_text, bool):
            raise ConfigError(f"hostile_text must be True or False, got {short_repr(hostile_text)}")
        self.hostile_text: bool = hostile_text
        self._population = build_population(self._codec, self.n_validators, self.n_shards, self.epoch_length)
        if hostile_text:
            hostile = [
                hostile_description(v.index, v.name, v.identity, v.website, v.details)
                for v in self._population
            ]
            self._population = [
                dataclasses.replace(v, name=n, identity=i, website=w, security_contact=c, details=d)
                for v, (n, i, w, c, d) in zip(self._population, hostile, strict=True)
            ]
        self._engine = StakingEngine(
            self._codec, self._population, self.n_shards, self.epoch_length, self._view_ids, self.quick_unlock
        )
        self._snapshots = SnapshotViews(self._engine)
        self._tokens = TokenEngine(
            self._codec, self.n_shards, self.token_density, self._plain_count, hostile=hostile_text
        )
        self._dex = DexEngine(
            self._codec, self.n_shards, self.dex_density, self._plain_count, self._timestamp,
            self._tokens.contracts,
        )  # fmt: skip
        self._blocks: OrderedDict[tuple[int, int], Block] = OrderedDict()
        self._lock = threading.RLock()
        self._accounts = AccountLedger(
            self.n_shards,
            self.epoch_length,
            self._block,
            lambda a: self._codec.decode_address(a) is not None,
            self._engine.collected,
            self._engine.released,
            CX_PENDING_BLOCKS,
        )

    def __repr__(self) -> str:
        return (
            f"Chain(seed={self.seed}, shards={self.n_shards}, blocks={self._head + 1}, "
            f"epoch_length={self.epoch_length}, validators={self.n_validators}, genesis_time={self.genesis_time}, "
            f"token_density={self.token_density}"
            + ("" if self.activity == "devnet" else f", activity={self.activity!r}")
            + ("" if self.dex_density == DEFAULT_DEX_DENSITY else f", dex_density={self.dex_density}")
            + (", hostile_text=True" if self.hostile_text else "")
            + ("" if self.quick_unlock is None else f", quick_unlock={self.quick_unlock!r}")
            + ")"
        )

    # ------------------------------------------------------------------ validation
    def _shard(self, shard: object) -> int:
        return _check_int("shard", shard, 0, self.n_shards - 1)

    def _number(self, number: object, name: str = "number") -> int:
        return _check_int(name, number, 0, self._head)

    # ------------------------------------------------------------------ structure
    def head(self, shard: int) -> int:
        """Highest block number of ``shard`` (every shard has the same head).

        Raises
        ------
        ConfigError
            ``shard`` is not a shard of this chain.
        """
        self._shard(shard)
        return self._head

    @_locked
    def mine(self, n: int = 1) -> None:
        """Extend every shard by ``n`` blocks (``n >= 0``).

        The new blocks are exactly those a chain created with ``n`` more blocks has.
        """
        self._head += _check_int("n", n, 0)

    def epoch_of(self, number: int) -> int:
        """Epoch of block ``number`` (``number // epoch_length``; ``number >= 0``)."""
        return _check_int("number", number, 0) // self.epoch_length

    def epoch_first_block(self, epoch: int) -> int:
        """First block number of ``epoch`` (``epoch >= 0``)."""
        return _check_int("epoch", epoch, 0) * self.epoch_length

    def _view_ids(self, shard: int, start: int, stop: int) -> npt.NDArray[np.int64]:
        skeleton = self._skeletons[shard]
        parts: list[npt.NDArray[np.int64]] = []
        n = start
        while n < stop:
            seg = skeleton.segment_of(n)
            i0 = n - seg.start
            i1 = min(stop - seg.start, SEGMENT)
            parts.append(seg.view_ids[i0:i1])
            n = seg.start + i1
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def _timestamp(self, shard: int, number: int) -> int:
        """Unix time of block ``number`` of ``shard``, from the skeleton."""
        seg = self._skeletons[shard].segment_of(number)
        return self.genesis_time + self.block_time * int(seg.view_ids[number - seg.start])

    def _plain_count(self, shard: int, number: int) -> int:
        """Plain transactions of block ``number`` of ``shard``, from the skeleton."""
        seg = self._skeletons[shard].segment_of(number)
        i = number - seg.start
        return int(seg.offsets[i + 1] - seg.offsets[i])

    # ------------------------------------------------------------------ blocks
    @_locked
    def block(self, shard: int, number: int) -> Block:
        """Block ``number`` of ``shard`` with its transactions and staking transactions.

        Parameters
        ----------
        shard
            ``0 <= shard < n_shards``.
        number
            ``0 <= number <= head``.

        Raises
        ------
        ConfigError
            ``shard`` or ``number`` out of range.
        """
        return self._block(self._shard(shard), self._number(number))

    def _block(self, shard: int, number: int) -> Block:
        key = (shard, number)
        cached = self._blocks.get(key)
        if cached is not None:
            self._blocks.move_to_end(key)
            return cached
        seg = self._skeletons[shard].segment_of(number)
        view_id = int(seg.view_ids[number - seg.start])
        leader = self._engine.leader(shard, number, view_id)
        events = self._engine.events_at(number) if shard == 0 and number > 0 else []
        ops = self._tokens.ops(shard, number) + self._dex.ops(shard, number)
        block = self._factory.build(shard, number, seg, leader, events, ops)
        if any(stx.directive == "CollectRewards" for stx in block.staking_transactions):
            block = self._with_collect_logs(block)
        self._blocks[key] = block
        if len(self._blocks) > _BLOCK_LRU:
            self._blocks.popitem(last=False)
        return block

    def _with_collect_logs(self, block: Block) -> Block:
        """``block`` with each CollectRewards' receipt log (numbered after the plain logs)."""
        log_index = sum(len(tx.logs) for tx in block.transactions)
        stxs: list[StakingTransaction] = []
        for stx in block.staking_transactions:
            if stx.directive == "CollectRewards":
                paid = self._engine.collected(block.number, stx.index)
                data = "0x" + paid.to_bytes((paid.bit_length() + 7) // 8, "big").hex()
                log = Log(stx.sender, (COLLECT_REWARDS_TOPIC,), data, log_index)
                log_index += 1
                stx = dataclasses.replace(stx, logs=(log,))
            stxs.append(stx)
        logs = [log for tx in block.transactions for log in tx.logs] + [log for s in stxs for log in s.logs]
        return dataclasses.replace(
            block, staking_transactions=tuple(stxs), logs_bloom=bloom_hex(bloom_of(logs))
        )

    def iter_blocks(self, shard: int, start: int, end: int) -> Iterator[Block]:
        """Blocks ``start .. end`` (inclusive) of ``shard``, in order, generated as iterated.

        Raises
        ------
        ConfigError
            ``shard``, ``start`` or ``end`` out of range (raised by the call itself).
        """
        shard = self._shard(shard)
        start = self._number(start, "start")
        end = self._number(end, "end")
        return self._iter_blocks(shard, start, end)

    def _iter_blocks(self, shard: int, start: int, end: int) -> Iterator[Block]:
        for number in range(start, end + 1):
            with self._lock:
                block = self._block(shard, number)
            yield block

    def iter_transactions(self, shard: int, start: int, end: int) -> Iterator[Transaction]:
        """Plain transactions of blocks ``start .. end`` (inclusive) of ``shard``, in order.

        Raises
        ------
        ConfigError
            ``shard``, ``start`` or ``end`` out of range (raised by the call itself).
        """
        blocks = self.iter_blocks(shard, start, end)
        return (tx for block in blocks for tx in block.transactions)

    @_locked
    def transaction_counts(self, shard: int, start: int, end: int) -> list[int]:
        """Number of plain transactions of each block ``start .. end`` (inclusive) of ``shard``.

        Read from the skeleton and the token draws: no block is generated.
        """
        shard = self._shard(shard)
        start = self._number(start, "start")
        end = self._number(end, "end")
        skeleton = self._skeletons[shard]
        out: list[int] = []
        n = start
        while n <= end:
            seg = skeleton.segment_of(n)
            i0 = n - seg.start
            i1 = min(end - seg.start, SEGMENT - 1)
            out.extend(np.diff(seg.offsets[i0 : i1 + 2]).tolist())
            n = seg.start + i1 + 1
        if self.token_density > 0:  # token transactions (their draws only: no block is built)
            out = [c + len(self._tokens.ops(shard, start + i)) for i, c in enumerate(out)]
        if self.dex_density > 0:  # DEX transactions (their fold only)
            out = [c + len(self._dex.ops(shard, start + i)) for i, c in enumerate(out)]
        return out

    def genesis_hash(self, shard: int) -> str:
        """Hash of block 0 of ``shard``."""
        return self._factory.block_hash(self._shard(shard), 0)

    @_locked
    def block_by_hash(self, block_hash: str) -> Block | None:
        """The block with this hash (any shard, any case), ``None`` if unknown or beyond head.

        Raises
        ------
        ConfigError
            ``block_hash`` is not a 0x-prefixed 64-hex-digit string.
        """
        loc = self._codec.decode_hash(_hex_string("block hash", block_hash, 32))
        if loc is None:
            return None
        kind, shard, number, index, sub = loc
        if kind != HASH_BLOCK or shard >= self.n_shards or number > self._head or index or sub:
            return None
        return self._block(shard, number)

    # ------------------------------------------------------------------ transactions
    def _locate(self, text: str, name: str, want: int) -> tuple[Block, int] | None:
        loc = self._codec.decode_hash(_hex_string(name, text, 32))
        if loc is None:
            return None
        kind, shard, number, index, sub = loc
        if kind != want or shard >= self.n_shards or number > self._head or sub:
            return None
        if want == HASH_STAKING and shard != 0:
            return None
        return self._block(shard, number), index

    @_locked
    def find_transaction(self, tx_hash: str) -> Transaction | None:
        """The plain transaction with this Harmony hash (any shard, any case), else ``None``.

        Raises
        ------
        ConfigError
            ``tx_hash`` is not a 0x-prefixed 64-hex-digit string.
        """
        found = self._locate(tx_hash, "transaction hash", HASH_TX)
        if found is None:
            return None
        block, index = found
        return block.transactions[index] if index < len(block.transactions) else None

    @_locked
    def find_transaction_by_eth_hash(self, eth_hash: str) -> Transaction | None:
        """The plain transaction with this Ethereum-form hash (``ethHash``), else ``None``.

        Raises
        ------
        ConfigError
            ``eth_hash`` is not a 0x-prefixed 64-hex-digit string.
        """
        text = _hex_string("eth hash", eth_hash, 32)
        found = self._locate(self._codec.eth_to_tx_hash(text), "eth hash", HASH_TX)
        if found is None:
            return None
        block, index = found
        return block.transactions[index] if index < len(block.transactions) else None

    @_locked
    def find_staking_transaction(self, tx_hash: str) -> StakingTransaction | None:
        """The staking transaction with this hash (shard 0), else ``None``.

        Raises
        ------
        ConfigError
            ``tx_hash`` is not a 0x-prefixed 64-hex-digit string.
        """
        found = self._locate(tx_hash, "staking transaction hash", HASH_STAKING)
        if found is None:
            return None
        block, index = found
        stxs = block.staking_transactions
        return stxs[index] if index < len(stxs) else None

    @_locked
    def transaction_count(self, shard: int, address: str, block: int) -> int:
        """Account nonce of ``address`` on ``shard`` after block ``block``.

        It is the number of transactions the account sent on that shard in blocks
        ``<= block`` (plain transactions, or staking transactions on shard 0 for validator
        and delegator accounts). Unknown accounts have nonce 0.

        Raises
        ------
        ConfigError
            Bad shard or block number; :class:`~hmyframe.errors.AddressError` for a
            malformed address.
        """
        shard = self._shard(shard)
        block = self._number(block, "block")
        loc = self._codec.decode_address(_address(address))
        if loc is None:
            return 0
        kind, _, a, _ = loc
        if kind == ADDR_EOA:
            return self._skeletons[shard].count_before(a, block)
        if kind in (ADDR_VALIDATOR, ADDR_DELEGATOR) and shard == 0:
            return self._engine.staking_count(address.lower(), block)
        if kind == ADDR_HOLDER:
            return self._tokens.nonce(shard, address.lower(), block)
        if kind == ADDR_TRADER:
            return self._dex.nonce(shard, address.lower(), block)
        return 0

    # ------------------------------------------------------------------ tokens and code
    def tokens(self, shard: int) -> list[TokenContract]:
        """The token contracts of ``shard`` (deployed at genesis), in a fixed order."""
        return list(self._tokens.contracts[self._shard(shard)])

    def token(self, address: str) -> TokenContract | None:
        """The token contract at ``address`` (0x, any case, any shard): one of :meth:`tokens`,
        or the exchange's WONE or a pair's LP token; else ``None``."""
        text = _address(address)
        return self._tokens.token(text) or self._dex.token_contract(text)

    def token_holder(self, index: int) -> str:
        """Address of token holder ``index`` (0 is the minter of every token)."""
        return self._tokens.holder(index)

    @_locked
    def token_ledger(self, shard: int, block: int) -> Ledger:
        """A copy of the token ledger of ``shard`` after block ``block`` (balances, supplies,
        NFT owners, holder nonces; holders by index)."""
        return self._tokens.state_after(self._shard(shard), self._number(block, "block")).copy()

    # ------------------------------------------------------------------ the exchange
    def dex(self, shard: int) -> DexContracts:
        """The exchange of ``shard``: WONE, factory, router and the pairs of its line-up (a pair
        exists from the block of its first ``addLiquidity``: see :meth:`dex_ledger`)."""
        return self._dex.contracts[self._shard(shard)]

    def dex_trader(self, index: int) -> str:
        """Address of DEX trader ``index`` (0 is the market maker; there are
        :data:`~hmyframe.devnet._gen_dex.DEX_TRADERS`)."""
        return self._dex.trader(index)

    @_locked
    def dex_ledger(self, shard: int, block: int) -> DexLedger:
        """A copy of the exchange's state on ``shard`` after block ``block`` (pairs created,
        reserves, price accumulators, what its accounts hold, trader nonces)."""
        shard = self._shard(shard)
        block = self._number(block, "block")
        return self._dex.state_after(shard, block).copy() if self.dex_density > 0 else DexLedger()

    @_locked
    def token_balances(self, shard: int, token: str, block: int) -> tuple[int, dict[str, int]]:
        """``(total supply, {account: balance})`` of HRC-20 ``token`` on ``shard`` after
        ``block``: the token activity's ledger and the exchange's together, accounts by 0x
        address (zero balances left out).

        Raises
        ------
        ConfigError
            ``token`` is not an HRC-20 of ``shard``, or a bad shard or block.
        """
        shard = self._shard(shard)
        block = self._number(block, "block")
        contract = self._tokens.token(_address(token))
        if contract is None or contract.shard_id != shard or contract.standard != "hrc20":
            raise ConfigError(f"token {short_repr(token)} is not an HRC-20 of shard {shard}")
        index = self._tokens.contracts[shard].index(contract)
        ledger = self._tokens.state_after(shard, block) if self.token_density > 0 else Ledger()
        balances = {self._tokens.holder(h): b for h, b in ledger.balances[index].items() if b}
        minted, dex_balances = self._dex.token_overlay(shard, contract.address, block)
        balances.update({a: b for a, b in dex_balances.items() if b})
        return ledger.supply[index] + minted, balances

    @_locked
    def call(self, shard: int, address: str, data: str, block: int) -> tuple[str, str | None]:
        """What the node's ``call`` of ``data`` (0x-hex call data) to ``address`` answers at
        ``block``: ``(return data, None)`` or ``("0x", revert data)`` when the call reverts
        with a reason (see :meth:`hmyframe.devnet._gen_tokens.TokenEngine.call` and
        :meth:`hmyframe.devnet._gen_dex.DexEngine.call`)."""
        shard = self._shard(shard)
        target = _address(address)
        data = data.lower()
        block = self._number(block, "block")
        dex = self._dex.call(shard, target, data, block)
        if dex is not None:
            return dex
        result = self._tokens.call(shard, target, data, block)
        token = self._tokens.token(target)
        if (
            self.dex_density > 0
            and token is not None
            and token.shard_id == shard
            and token.standard == "hrc20"
            and data[2:10] in (SEL_TOTAL_SUPPLY, SEL_BALANCE_OF)
        ):
            minted, dex_balances = self._dex.token_overlay(shard, target, block)
            if data[2:10] == SEL_TOTAL_SUPPLY:
                return f"0x{int(result[0], 16) + minted:064x}", None
            account = "0x" + data[34:74]
            if len(data) >= 74 and account in dex_balances:
                return f"0x{dex_balances[account]:064x}", None
        return result

    @_locked
    def code(self, shard: int, address: str, block: int) -> str:
        """Runtime code at ``address`` on ``shard`` after block ``block`` (``"0x"`` for accounts).

        Token contracts and the exchange's have their code (a pair from its creation on); the
        other contracts (genesis ones, created ones once their creating block is reached) a
        short code keyed by their address.
        """
        shard = self._shard(shard)
        block = self._number(block, "block")
        text = _address(address)
        token = self._tokens.token(text)
        if token is not None:
            return token.code if token.shard_id == shard else "0x"
        dex = self._dex.code(shard, text, block)
        if dex is not None:
            return dex
        loc = self._codec.decode_address(text)
        if loc is None:
            return "0x"
        kind, on_shard, a, _ = loc
        if on_shard != shard or kind not in (ADDR_CONTRACT, ADDR_CREATED, ADDR_INNER):
            return "0x"
        if kind != ADDR_CONTRACT and a > block:
            return "0x"
        return "0x6080604052348015600f57600080fd5b50" + text[2:]

    # ------------------------------------------------------------------ signing
    @_locked
    def signers(self, shard: int, number: int) -> tuple[str, ...] | None:
        """0x addresses of the validators whose keys signed block ``number`` of ``shard``.

        One entry per signing key, in committee order: a validator with several keys on the
        shard repeats (the node's ``getSignerData``). ``None`` when ``number`` is the head
        (the node reads the signatures from block ``number + 1``).

        Raises
        ------
        ConfigError
            ``shard`` or ``number`` out of range.
        """
        shard = self._shard(shard)
        number = self._number(number)
        if number + 1 > self._head:
            return None
        return self._engine.signers(shard, number)

    @_locked
    def committee(self, shard: int, epoch: int) -> list[tuple[str, str]]:
        """``(bls_key, validator_address)`` of every elected key of ``shard`` in ``epoch``.

        In committee (election) order; the leader of view ``v`` is entry ``v % len``.
        """
        shard = self._shard(shard)
        epoch = _check_int("epoch", epoch, 0, self._head // self.epoch_length)
        info = self._engine.info(epoch)
        return [
            (key, self._population[v].address)
            for key, v in zip(info.committee_keys[shard], info.committee_owner[shard], strict=True)
        ]

    # ------------------------------------------------------------------ validators
    def validator_addresses(self) -> list[str]:
        """Every validator existing at the head, in creation order (the node's state order)."""
        return self._engine.validator_addresses(self._head)

    @_locked
    def validator(self, address: str, block: int) -> ValidatorSnapshot | None:
        """Snapshot of validator ``address`` (any case) at ``block``; ``None`` if absent there.

        Raises
        ------
        ConfigError
            ``block`` out of range; :class:`~hmyframe.errors.AddressError` for a malformed
            address.
        """
        block = self._number(block, "block")
        v = self._engine.index_of(_address(address))
        if v is None:
            return None
        return self._snapshots.snapshot(v, block)

    @_locked
    def validators(self, block: int) -> list[ValidatorSnapshot]:
        """Snapshots of the validators existing at ``block``, in creation order.

        Raises
        ------
        ConfigError
            ``block`` out of range.
        """
        return self._snapshots.snapshots(self._number(block, "block"))

    # ------------------------------------------------------------------ cross-shard
    @_locked
    def pending_cx_receipts(self, shard: int) -> list[CxProof]:
        """Cross-shard receipt proofs destined to ``shard`` and still pending at the head.

        One proof per (source shard, source block) among each other shard's last
        :data:`CX_PENDING_BLOCKS` blocks (head included) that sent something to ``shard``;
        ordered by source shard, then block number.

        Raises
        ------
        ConfigError
            ``shard`` out of range.
        """
        shard = self._shard(shard)
        out: list[CxProof] = []
        for src in range(self.n_shards):
            if src == shard:
                continue
            for number in range(max(1, self._head - CX_PENDING_BLOCKS + 1), self._head + 1):
                block = self._block(src, number)
                receipts = tuple(
                    CxReceipt(
                        tx_hash=tx.hash,
                        sender=tx.sender,
                        to=tx.to or "",
                        shard_id=tx.shard_id,
                        to_shard_id=tx.to_shard_id,
                        amount=tx.value,
                    )
                    for tx in block.transactions
                    if tx.to_shard_id == shard and tx.shard_id != shard
                )
                if not receipts:
                    continue
                dests = sorted({tx.to_shard_id for tx in block.transactions if tx.to_shard_id != src})
                rng = random.Random(self._codec.seed_int(_TAG_CX, src, number))
                out.append(
                    CxProof(
                        receipts=receipts,
                        header=block,
                        shard_ids=tuple(dests),
                        shard_hashes=tuple(self._codec.hash(HASH_MISC, src, number, d, 1) for d in dests),
                        receipt_hash=self._codec.hash(HASH_MISC, src, number, 0, 0),
                        commit_sig=bytes.fromhex(hex_bytes(rng, 96)),
                        commit_bitmap=self._engine.commit_bitmap(src, number),
                    )
                )
        return out

    # ------------------------------------------------------------------ accounts
    @_locked
    def balance(self, shard: int, address: str, block: int) -> int:
        """ONE balance (atto) of ``address`` on ``shard`` **after** block ``block`` (its
        transactions included), folded from the chain (:mod:`hmyframe.devnet._gen_accounts`).

        Raises
        ------
        ConfigError
            Bad shard or block number; :class:`~hmyframe.errors.AddressError` for a
            malformed address.
        """
        shard = self._shard(shard)
        block = self._number(block, "block")
        return self._accounts.balance(shard, _address(address), block)

    @_locked
    def genesis_balance(self, shard: int, address: str) -> int:
        """Balance of ``address`` on ``shard`` before any block (what block 0 starts from)."""
        return self._accounts.genesis(_address(address), self._shard(shard))

    @_locked
    def balance_movements(self, shard: int, block: int) -> list[Movement]:
        """Every balance change of block ``block`` of ``shard`` (fees, values, cross-shard
        sends and receipts, delegations, rewards collected, undelegations paid): the ground
        truth the balances are folded from."""
        return self._accounts.movements(self._shard(shard), self._number(block, "block"))

    @_locked
    def accounts(self, shard: int, block: int) -> list[str]:
        """Addresses whose balance on ``shard`` changed in blocks ``0 .. block``, sorted."""
        return self._accounts.addresses(self._shard(shard), self._number(block, "block"))

    @_locked
    def history(self, shard: int, address: str, *, staking: bool = False) -> list[HistoryEntry]:
        """The explorer index of ``address`` on ``shard`` at the head (``getTransactionsHistory``;
        ``staking``: ``getStakingTransactionsHistory``), ascending by (block, index)."""
        shard = self._shard(shard)
        if staking and shard != 0:
            return []
        return self._accounts.history(shard, _address(address), self._head, staking=staking)

    @_locked
    def delegations_by_delegator(self, address: str, block: int) -> list[tuple[str, Delegation]]:
        """``(validator, delegation)`` of each delegation of ``address`` after ``block``, in the
        order the delegator's delegations were made (the node's delegation index)."""
        block = self._number(block, "block")
        delegator = _address(address)
        state = self._engine.state_at(block)
        out: list[tuple[str, Delegation]] = []
        for v in state.by_delegator.get(delegator, ()):
            vs = state.validators[v]
            if vs is None:
                continue
            for d in vs.dels:
                if d.delegator == delegator:
                    undels = tuple(Undelegation(amount, epoch) for amount, epoch in d.undels)
                    out.append(
                        (self._population[v].address, Delegation(d.delegator, d.amount, d.reward, undels))
                    )
                    break
        return out
