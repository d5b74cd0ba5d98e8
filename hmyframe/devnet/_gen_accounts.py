"""The devnet's ONE balances and its explorer index, both folded from its own chain.

Every balance follows from the blocks (nothing is drawn here but the genesis balances):

* **genesis**: every address the chain's codec made (accounts, validators, delegators, token
  holders, contracts, created contracts) holds :func:`genesis_balance` on each shard at block
  0, log-uniform from 1e30 to 1e33 atto, large enough that nothing goes negative; any other
  address holds 0;
* **plain transactions**: the sender pays ``gas_used x gas_price`` (burned, as the devnet has
  no fee collector); a successful transaction moves value along its call tree: every frame
  whose own and ancestors' ``error`` is unset moves its ``value`` from ``from_`` to ``to``
  (calls, creations, self-destructs alike; the root frame is the transaction's own value);
* **cross-shard**: the source shard debits the value at the send; the destination shard
  credits it ``CX_PENDING_BLOCKS`` blocks later (the block whose head makes the receipt leave
  the pending list, :meth:`~hmyframe.devnet.chain.Chain.pending_cx_receipts`);
* **staking** (shard 0): the sender pays the fee; ``CreateValidator`` and ``Delegate`` debit
  the amount; ``CollectRewards`` credits what the staking engine paid out (the receipt's
  log); matured undelegations are credited at the last block of the epoch that releases
  them (the node's ``payoutUndelegations`` in ``Finalize``).

A balance "at block N" is the state **after** block N (its transactions included), as the
node's ``getBalanceByBlockNumber`` reads the state root of block N.

The fold runs block by block per shard, up to the highest block asked so far, keeping per
address the blocks where its balance changed and the balance after each (a bisect gives any
block's balance). The same pass records the explorer index of ``getTransactionsHistory``
(the node's ``api/service/explorer``: the sender's entry ``SENT``, the receiver's
``RECEIVED``, on the shard of the transaction; a self-send is ``RECEIVED`` only, as the
second write of the same key wins).
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final

from hmyframe.devnet.bloom import keccak256
from hmyframe.devnet.model import Block, StakingTransaction, TraceFrame, Transaction

__all__ = ["COLLECT_REWARDS_TOPIC", "AccountLedger", "HistoryEntry", "Movement", "genesis_balance"]

#: keccak-256 of ``Harmony/CollectRewards`` (``staking.CollectRewardsTopic`` in the node).
COLLECT_REWARDS_TOPIC: Final = "0x" + keccak256(b"Harmony/CollectRewards").hex()

_GENESIS_LOW: Final = 30
_GENESIS_SPAN: Final = 3  # decades: 1e30 .. 1e33


def genesis_balance(address: str, shard: int, known: bool) -> int:
    """Genesis balance of ``address`` (lower-case 0x) on ``shard``: 0 unless ``known`` (made
    by the chain's codec), else log-uniform in [1e30, 1e33) atto keyed by (address, shard)."""
    if not known:
        return 0
    digest = hashlib.blake2b(f"{address}|{shard}".encode(), digest_size=8).digest()
    u = int.from_bytes(digest, "big") / 2**64
    exponent = _GENESIS_LOW + _GENESIS_SPAN * u
    whole = int(exponent)
    mantissa = int(10.0 ** (exponent - whole) * 1_000_000)
    scale: int = pow(10, whole - 6)  # whole >= 30: an exact int
    return mantissa * scale + int.from_bytes(digest[:3], "big")


@dataclass(frozen=True, slots=True)
class Movement:
    """One change of one balance: ``amount`` (signed atto) of ``address`` on ``shard`` in
    ``block``, and why (``kind``: fee, value_in, value_out, cx_out, cx_in, delegate,
    create_validator, collect_rewards, undelegation_payout), with the transaction's hash."""

    shard: int
    block: int
    address: str
    amount: int
    kind: str
    tx_hash: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One explorer-index entry of an address: ``(block, index)`` orders them."""

    block: int
    index: int
    tx_hash: str
    received: bool


@dataclass(slots=True)
class _ShardFold:
    folded: int = -1
    # address -> (blocks where the balance changed, cumulative delta after each)
    changes: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    plain: dict[str, list[HistoryEntry]] = field(default_factory=dict)
    staking: dict[str, list[HistoryEntry]] = field(default_factory=dict)


def _frames(root: TraceFrame) -> Iterator[TraceFrame]:
    """Frames of a call tree that took effect (no error on the frame or any ancestor)."""
    stack = [root]
    while stack:
        frame = stack.pop()
        if frame.error is not None:
            continue
        yield frame
        stack.extend(frame.children)


def block_movements(
    block: Block,
    *,
    incoming: list[Transaction],
    collected: Callable[[int, int], int],
    released: list[tuple[str, int]],
) -> Iterator[Movement]:
    """Every balance movement of ``block``: its transactions, the cross-shard transfers it
    receives (``incoming``), rewards collected and undelegations released (shard 0)."""
    s, n = block.shard_id, block.number
    for tx in block.transactions:
        fee = tx.gas_used * tx.gas_price
        if fee:
            yield Movement(s, n, tx.sender, -fee, "fee", tx.hash)
        if not tx.success:
            continue
        if tx.is_cross_shard:
            if tx.value:
                yield Movement(s, n, tx.sender, -tx.value, "cx_out", tx.hash)
            continue
        if tx.trace is None:
            to = tx.to if tx.to is not None else tx.contract_address
            if tx.value and to is not None:
                yield Movement(s, n, tx.sender, -tx.value, "value_out", tx.hash)
                yield Movement(s, n, to, tx.value, "value_in", tx.hash)
            continue
        for frame in _frames(tx.trace):
            if frame.value and frame.from_ != frame.to:
                yield Movement(s, n, frame.from_, -frame.value, "value_out", tx.hash)
                yield Movement(s, n, frame.to, frame.value, "value_in", tx.hash)
    for tx in incoming:
        if tx.value and tx.to is not None:
            yield Movement(s, n, tx.to, tx.value, "cx_in", tx.hash)
    for stx in block.staking_transactions:
        yield from _staking_movements(stx, collected)
    for delegator, amount in released:
        if amount:
            yield Movement(s, n, delegator, amount, "undelegation_payout", None)


def _staking_movements(stx: StakingTransaction, collected: Callable[[int, int], int]) -> Iterator[Movement]:
    n = stx.block_number
    fee = stx.gas_used * stx.gas_price
    if fee:
        yield Movement(0, n, stx.sender, -fee, "fee", stx.hash)
    if stx.directive in ("Delegate", "CreateValidator"):
        amount = stx.msg["amount"]
        assert isinstance(amount, int)
        kind = "delegate" if stx.directive == "Delegate" else "create_validator"
        yield Movement(0, n, stx.sender, -amount, kind, stx.hash)
    elif stx.directive == "CollectRewards":
        paid = collected(n, stx.index)
        if paid:
            yield Movement(0, n, stx.sender, paid, "collect_rewards", stx.hash)


class AccountLedger:
    """Balances and explorer index of every shard, folded lazily from the chain's blocks.

    Parameters
    ----------
    n_shards, epoch_length
        Chain structure.
    block
        ``block(shard, number)``: the chain's block (generated on demand).
    known
        ``known(address)``: whether the chain's codec made this (lower-case 0x) address.
    collected, released
        The staking engine's payouts: ``collected(block, index)`` of a CollectRewards,
        ``released(epoch)`` the undelegations paid at the epoch's end.
    cx_delay
        Blocks from a cross-shard send to its credit on the destination shard.
    """

    def __init__(
        self,
        n_shards: int,
        epoch_length: int,
        block: Callable[[int, int], Block],
        known: Callable[[str], bool],
        collected: Callable[[int, int], int],
        released: Callable[[int], list[tuple[str, int, int]]],
        cx_delay: int,
    ) -> None:
        self._n_shards = n_shards
        self._length = epoch_length
        self._block = block
        self._known = known
        self._collected = collected
        self._released = released
        self._cx_delay = cx_delay
        self._folds = [_ShardFold() for _ in range(n_shards)]
        self._genesis: dict[tuple[str, int], int] = {}

    # ------------------------------------------------------------------ folding
    def movements(self, shard: int, number: int) -> list[Movement]:
        """The balance movements of block ``number`` of ``shard`` (the ledger's ground truth)."""
        block = self._block(shard, number)
        incoming: list[Transaction] = []
        source = number - self._cx_delay
        if source >= 1:
            for src in range(self._n_shards):
                if src != shard:
                    incoming.extend(
                        tx
                        for tx in self._block(src, source).transactions
                        if tx.to_shard_id == shard and tx.success
                    )
        released: list[tuple[str, int]] = []
        if shard == 0 and (number + 1) % self._length == 0:
            released = [(d, amount) for d, _, amount in self._released(number // self._length)]
        return list(block_movements(block, incoming=incoming, collected=self._collected, released=released))

    def fold_to(self, shard: int, number: int) -> None:
        """Fold blocks of ``shard`` up to ``number`` (inclusive) into the ledger and index."""
        fold = self._folds[shard]
        while fold.folded < number:
            n = fold.folded + 1
            deltas: dict[str, int] = {}
            for m in self.movements(shard, n):
                deltas[m.address] = deltas.get(m.address, 0) + m.amount
            for address, delta in deltas.items():
                if delta == 0:
                    continue
                seen = fold.changes.get(address)
                if seen is None:
                    fold.changes[address] = ([n], [delta])
                else:
                    seen[0].append(n)
                    seen[1].append(seen[1][-1] + delta)
            self._index(fold, self._block(shard, n))
            fold.folded = n

    @staticmethod
    def _index(fold: _ShardFold, block: Block) -> None:
        for tx in block.transactions:
            _add(fold.plain, tx.sender, HistoryEntry(block.number, tx.index, tx.hash, False))
            to = tx.to
            if to is not None:
                _add(fold.plain, to, HistoryEntry(block.number, tx.index, tx.hash, True))
        for stx in block.staking_transactions:
            _add(fold.staking, stx.sender, HistoryEntry(block.number, stx.index, stx.hash, False))
            if stx.directive in ("Delegate", "Undelegate"):
                validator = stx.msg["validatorAddress"]
                assert isinstance(validator, str)
                _add(fold.staking, validator, HistoryEntry(block.number, stx.index, stx.hash, True))

    # ------------------------------------------------------------------ reads
    def genesis(self, address: str, shard: int) -> int:
        """Genesis balance of ``address`` (lower-case 0x) on ``shard``."""
        key = (address, shard)
        value = self._genesis.get(key)
        if value is None:
            value = self._genesis[key] = genesis_balance(address, shard, self._known(address))
        return value

    def balance(self, shard: int, address: str, number: int) -> int:
        """Balance of ``address`` (lower-case 0x) on ``shard`` after block ``number``."""
        self.fold_to(shard, number)
        base = self.genesis(address, shard)
        seen = self._folds[shard].changes.get(address)
        if seen is None:
            return base
        i = bisect.bisect_right(seen[0], number)
        return base + (seen[1][i - 1] if i else 0)

    def addresses(self, shard: int, number: int) -> list[str]:
        """Addresses whose balance on ``shard`` changed in blocks ``0 .. number``, sorted."""
        self.fold_to(shard, number)
        return sorted(a for a, (blocks, _) in self._folds[shard].changes.items() if blocks[0] <= number)

    def history(self, shard: int, address: str, head: int, *, staking: bool) -> list[HistoryEntry]:
        """The explorer index of ``address`` on ``shard`` up to ``head``, ascending."""
        self.fold_to(shard, head)
        fold = self._folds[shard]
        entries = (fold.staking if staking else fold.plain).get(address, [])
        return [e for e in entries if e.block <= head]


def _add(index: dict[str, list[HistoryEntry]], address: str, entry: HistoryEntry) -> None:
    entries = index.setdefault(address, [])
    if entries and entries[-1].block == entry.block and entries[-1].index == entry.index:
        entries[-1] = entry  # the same key written twice: the node keeps the last (RECEIVED)
    else:
        entries.append(entry)
