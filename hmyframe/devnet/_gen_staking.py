"""The devnet's beacon-chain staking: state, staking transactions, elections, signing.

Epochs are processed strictly in order, each exactly once (lazily, up to the epoch a
caller needs):

1. *election* for epoch ``e`` from the state at its first block: eligible validators
   (existing, active, not banned, self stake >= min self delegation) sorted by stake per
   key fill the committee slots key by key (EPoS style);
2. *staking transactions* of the epoch's shard-0 blocks, decided from the current state
   and applied one by one (``CreateValidator`` at the creation heights, double-sign bans
   at the ban heights, the five directives early and then at random);
3. *signing*: per (shard, epoch) a numpy matrix "block row x committee validator column"
   of who signed (all keys of one validator on one shard sign together; the leader always
   signs); its column sums give the epoch's (to_sign, signed) per validator;
4. *transition*: elected validators below 66 % signing turn inactive (until their next
   ``EditValidator``), matured undelegations are released (:func:`lock_period`).

Rewards accrue in closed form: each validator has a cumulative reward-per-stake index
``R(b)`` (piecewise linear per epoch, slope ``rho`` while elected). Whenever a validator's
delegations change, all its delegations are *settled* (reward += amount x dR, the
commission going to the self delegation), so between changes the pending reward is exact
integer arithmetic. :meth:`StakingEngine.state_at` settles a copy of the state at a block;
the validator snapshots made from it are built in :mod:`hmyframe.devnet._gen_snapshots`.

Full state copies are kept at every :data:`CHECKPOINT_EVERY`-th epoch start (and a small
LRU of others); a state at any block is a checkpoint plus the replay of stored events.
"""

from __future__ import annotations

import bisect
import math
import random
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from hmyframe.devnet._gen_codec import Codec, hex_bytes
from hmyframe.devnet._gen_population import (
    DELEGATOR_POPULATION,
    ONE,
    ValidatorStatic,
    ban_heights,
    delegator_address,
)
from hmyframe.devnet.model import ZERO_ADDRESS

__all__ = [
    "BLOCKS_PER_YEAR",
    "CHECKPOINT_EVERY",
    "LOCK_EPOCHS",
    "LOCK_EPOCHS_QUICK",
    "SCALE",
    "EpochInfo",
    "StakingEngine",
    "StakingEvent",
    "StakingState",
    "ValidatorState",
    "lock_period",
]

SCALE: Final = 10**27  # reward index unit: atto of reward per atto staked, times 1e27
BLOCKS_PER_YEAR: Final = 365 * 24 * 3600 // 2
LOCK_EPOCHS: Final = 7  # the node's LockPeriodInEpoch
LOCK_EPOCHS_QUICK: Final = 0  # the node's LockPeriodInEpochV2 (the quick-unlock epochs)
UPTIME_PERCENT: Final = 66  # below this share of blocks signed an elected validator is booted
CHECKPOINT_EVERY: Final = 16
_STATE_LRU: Final = 16
_MATRIX_LRU: Final = 64
_SLOT_SHARE: Final = 0.68  # committee slots = this share of the genesis validators' keys


def lock_period(epoch: int, quick_unlock: tuple[int, int] | None) -> int:
    """Epochs an undelegation stays locked when paid out at the end of ``epoch``: the node's
    ``GetLockPeriodInEpoch`` (internal/chain/engine.go): ``LockPeriodInEpochV2`` (0) in the
    quick-unlock epochs ``[QuickUnlockEpoch, RedelegationEpoch)`` (mainnet 191..289), else
    ``LockPeriodInEpoch`` (7). ``quick_unlock`` gives those epochs (``None``: none, as every
    epoch since mainnet's 290)."""
    if quick_unlock is not None and quick_unlock[0] <= epoch < quick_unlock[1]:
        return LOCK_EPOCHS_QUICK
    return LOCK_EPOCHS


# Forced early directives (absolute shard-0 block numbers) so that small chains have all five.
_FORCED: Final = {4: "Delegate", 9: "EditValidator", 15: "Undelegate", 23: "CollectRewards"}
# Random staking transactions: probability of one / two per block; directive mix.
_P_ONE: Final = 0.13
_P_TWO: Final = 0.02
_RANDOM_TRIES: Final = 5  # attempts of a random directive to find a fitting validator/delegation
_FORCED_TRIES: Final = 200  # attempts of a forced early directive (so that it always happens)
_P_COMEBACK: Final = 0.25  # per epoch, chance that an inactive (not abandoned) validator reactivates
_DIRECTIVE_CDF: Final = (
    (0.38, "Delegate"),
    (0.58, "Undelegate"),
    (0.85, "CollectRewards"),
    (1.0, "EditValidator"),
)

_TAG_EVENTS: Final = 0x4556
_TAG_EPOCH: Final = 0x4550
_TAG_SIGN: Final = 0x5347


@dataclass(frozen=True, slots=True)
class StakingEvent:
    """A resolved staking transaction (or, with ``index == -1``, a double-sign ban).

    ``edit`` holds the EditValidator changes ``(rate, min_self, max_total, texts)`` where
    ``None`` means unchanged and ``texts`` maps field names to new values.
    """

    block: int
    index: int
    directive: str
    sender: str
    nonce: int
    validator: int
    delegator: str
    amount: int
    msg: dict[str, object]
    edit: tuple[int | None, int | None, int | None, tuple[tuple[str, str], ...]] | None = None


class _Del:
    __slots__ = ("amount", "delegator", "reward", "undels")

    def __init__(self, delegator: str, amount: int, reward: int, undels: list[list[int]]) -> None:
        self.delegator = delegator
        self.amount = amount
        self.reward = reward
        self.undels = undels  # [[amount, epoch], ...]

    def copy(self) -> _Del:
        return _Del(self.delegator, self.amount, self.reward, [list(u) for u in self.undels])


class ValidatorState:
    """One validator's mutable staking state: its editable fields, status and delegations."""

    __slots__ = (
        "active",
        "banned",
        "dels",
        "details",
        "identity",
        "last_rate_epoch",
        "max_total",
        "min_self",
        "name",
        "r_settle",
        "rate",
        "reward_acc",
        "security_contact",
        "update_height",
        "website",
    )

    name: str
    identity: str
    website: str
    security_contact: str
    details: str
    rate: int
    min_self: int
    max_total: int
    update_height: int
    active: bool
    banned: bool
    dels: list[_Del]
    r_settle: int
    reward_acc: int
    last_rate_epoch: int

    @classmethod
    def create(cls, st: ValidatorStatic, height: int, r_index: int) -> ValidatorState:
        v = cls()
        v.name, v.identity, v.website = st.name, st.identity, st.website
        v.security_contact, v.details = st.security_contact, st.details
        v.rate, v.min_self, v.max_total = st.rate, st.min_self, st.max_total
        v.update_height = height
        v.active, v.banned = True, False
        v.dels = [_Del(st.address, st.self_amount, 0, [])]
        v.dels.extend(_Del(d, amount, 0, []) for d, amount in st.genesis_delegations)
        v.r_settle = r_index
        v.reward_acc = 0
        v.last_rate_epoch = -1
        return v

    def copy(self) -> ValidatorState:
        v = ValidatorState()
        for name in ValidatorState.__slots__:
            setattr(v, name, getattr(self, name))
        v.dels = [d.copy() for d in self.dels]
        return v

    def total(self) -> int:
        return sum(d.amount for d in self.dels)


class StakingState:
    """Mutable staking state: validators (``None`` before creation), nonces, delegator index."""

    __slots__ = ("by_delegator", "nonces", "validators")

    def __init__(
        self,
        validators: list[ValidatorState | None],
        nonces: dict[str, int],
        by_delegator: dict[str, list[int]],
    ):
        self.validators = validators
        self.nonces = nonces
        self.by_delegator = by_delegator

    def copy(self) -> StakingState:
        return StakingState(
            [v.copy() if v is not None else None for v in self.validators],
            dict(self.nonces),
            {k: list(v) for k, v in self.by_delegator.items()},
        )


@dataclass(slots=True)
class EpochInfo:
    """Everything decided for one epoch (kept for every processed epoch)."""

    epoch: int
    first: int
    elected: dict[int, tuple[int, ...]]  # validator -> indices of its elected keys
    committee_keys: list[list[str]]  # per shard, key strings in election order
    committee_owner: list[list[int]]  # per shard, owning validator per key
    columns: list[list[int]]  # per shard, distinct validators (matrix columns)
    column_of: list[dict[int, int]]  # per shard, validator -> column
    p_sign: npt.NDArray[np.float64]  # per validator signing probability this epoch
    stake: list[int]  # per validator total delegation at the election (0 if absent)
    rho: list[int]  # per validator reward-index slope this epoch (0 unless elected)
    r_start: list[int]  # per validator reward index before the epoch's first block
    life_to_sign: npt.NDArray[np.int64]  # lifetime counters before the epoch
    life_signed: npt.NDArray[np.int64]
    events: list[StakingEvent]
    event_blocks: list[int]  # block of each event (for bisect)
    to_sign: npt.NDArray[np.int64]  # full-epoch counters (filled when the epoch is processed)
    signed: npt.NDArray[np.int64]


class StakingEngine:
    """Epoch-by-epoch staking simulation of one devnet chain.

    Parameters
    ----------
    codec
        The chain's codec.
    population
        The static validators, in creation order.
    n_shards, epoch_length
        Chain structure.
    view_ids
        ``view_ids(shard, start, stop)`` gives the view ids of blocks ``start .. stop - 1``.
    quick_unlock
        Epochs ``[first, end)`` in which undelegations unlock at the end of their own epoch
        (:func:`lock_period`); ``None``: none.
    """

    def __init__(
        self,
        codec: Codec,
        population: list[ValidatorStatic],
        n_shards: int,
        epoch_length: int,
        view_ids: Callable[[int, int, int], npt.NDArray[np.int64]],
        quick_unlock: tuple[int, int] | None = None,
    ) -> None:
        self._codec = codec
        self._quick_unlock = quick_unlock
        self.population = population
        self._n_shards = n_shards
        self._length = epoch_length
        self._view_ids = view_ids
        self._heights = [v.creation_height for v in population]
        self._ban_heights = ban_heights(len(population), epoch_length)
        self._index = {v.address: v.index for v in population}
        self._slots = max(
            n_shards, int(sum(len(v.keys) for v in population if v.creation_height == 0) * _SLOT_SHARE)
        )
        self._infos: list[EpochInfo] = []
        self._elected_epochs: list[list[int]] = [[] for _ in population]
        self._sent: dict[str, list[int]] = {}
        self._checkpoints: dict[int, StakingState] = {}
        self._state_lru: OrderedDict[int, StakingState] = OrderedDict()
        self._matrices: OrderedDict[tuple[int, int], npt.NDArray[np.bool_]] = OrderedDict()
        self._delegators: dict[int, str] = {}
        # what CollectRewards paid, by (block, staking index), and the undelegations released
        # at each epoch's end: (delegator, validator, amount); filled by _apply / _transition
        # (replays write the same values again)
        self._collected: dict[tuple[int, int], int] = {}
        self._released: dict[int, list[tuple[str, int, int]]] = {}
        genesis = [ValidatorState.create(v, 0, 0) if v.creation_height == 0 else None for v in population]
        by_delegator: dict[str, list[int]] = {}
        for v, vs in enumerate(genesis):
            if vs is not None:
                for d in vs.dels:
                    by_delegator.setdefault(d.delegator, []).append(v)
        self._running = StakingState(genesis, {}, by_delegator)

    @property
    def n_shards(self) -> int:
        """Number of shards of the chain."""
        return self._n_shards

    @property
    def epoch_length(self) -> int:
        """Blocks per epoch."""
        return self._length

    def elected_epochs(self, v: int) -> list[int]:
        """The processed epochs in which validator ``v`` was elected, ascending (do not mutate)."""
        return self._elected_epochs[v]

    # ------------------------------------------------------------------ epochs
    def info(self, epoch: int) -> EpochInfo:
        """The epoch's decisions, processing every earlier epoch first if needed."""
        while len(self._infos) <= epoch:
            self._process_next_epoch()
        return self._infos[epoch]

    def processed_epochs(self) -> int:
        """How many epochs have been processed."""
        return len(self._infos)

    def _process_next_epoch(self) -> None:
        e = len(self._infos)
        state = self._running
        if e % CHECKPOINT_EVERY == 0:
            self._checkpoints[e] = state.copy()
        prev = self._infos[-1] if self._infos else None
        info = self._elect(state, e, prev)
        self._infos.append(info)
        self._generate_events(state, info)
        self._count_signatures(info)
        for v in info.elected:
            self._elected_epochs[v].append(e)
        self._transition(state, info)

    def _elect(self, state: StakingState, e: int, prev: EpochInfo | None) -> EpochInfo:
        first = e * self._length
        n = len(self.population)
        stake = [0] * n
        candidates: list[tuple[int, int]] = []
        for v, vs in enumerate(state.validators):
            if vs is None:
                continue
            total = vs.total()
            stake[v] = total
            created_before = self._heights[v] == 0 or self._heights[v] < first
            if (
                created_before
                and vs.active
                and not vs.banned
                and total > 0
                and vs.dels[0].amount >= vs.min_self
            ):
                candidates.append((-(total // len(self.population[v].keys)), v))
        candidates.sort()
        elected: dict[int, list[int]] = {}
        per_shard: list[list[tuple[str, int]]] = [[] for _ in range(self._n_shards)]
        filled = 0
        for _, v in candidates:
            if filled >= self._slots:
                break
            st = self.population[v]
            for k, key in enumerate(st.keys):
                if filled >= self._slots:
                    break
                elected.setdefault(v, []).append(k)
                per_shard[st.key_shards[k]].append((key, v))
                filled += 1
        # Never leave a shard without a committee: take the best eligible validator with a
        # key there, else (tiny populations) any existing validator that is not banned.
        fallback = [
            v
            for v, vs in enumerate(state.validators)
            if vs is not None and not vs.banned and (self._heights[v] == 0 or self._heights[v] < first)
        ]
        for s in range(self._n_shards):
            if per_shard[s]:
                continue
            for v in [v for _, v in candidates] + fallback:
                st = self.population[v]
                ks = [k for k, ks_ in enumerate(st.key_shards) if ks_ == s and k not in elected.get(v, [])]
                if ks:
                    elected.setdefault(v, []).append(ks[0])
                    per_shard[s].append((st.keys[ks[0]], v))
                    break
        columns: list[list[int]] = []
        column_of: list[dict[int, int]] = []
        for s in range(self._n_shards):
            cols: list[int] = []
            col_of: dict[int, int] = {}
            for _, v in per_shard[s]:
                if v not in col_of:
                    col_of[v] = len(cols)
                    cols.append(v)
            columns.append(cols)
            column_of.append(col_of)

        rng = random.Random(self._codec.seed_int(_TAG_EPOCH, e))
        p_sign = np.zeros(n, dtype=np.float64)
        rho = [0] * n
        for v, st in enumerate(self.population):
            u = rng.random()
            if rng.random() < 0.03:  # anyone can have a bad epoch
                p = 0.40 + 0.30 * u
            elif st.reliability == 2:
                p = 0.30 + 0.35 * u
            elif st.reliability == 1:
                p = 0.80 + 0.17 * u
            else:
                p = 0.97 + 0.03 * u
            p_sign[v] = p
            apr_ppm = int((70_000 + 50_000 * rng.random()) * p)
            if v in elected:
                rho[v] = apr_ppm * SCALE // (1_000_000 * BLOCKS_PER_YEAR)
        if prev is None:
            r_start = [0] * n
            life_to_sign = np.zeros(n, dtype=np.int64)
            life_signed = np.zeros(n, dtype=np.int64)
        else:
            r_start = [a + b * self._length for a, b in zip(prev.r_start, prev.rho, strict=True)]
            life_to_sign = prev.life_to_sign + prev.to_sign
            life_signed = prev.life_signed + prev.signed
        return EpochInfo(
            epoch=e,
            first=first,
            elected={v: tuple(ks) for v, ks in elected.items()},
            committee_keys=[[k for k, _ in per_shard[s]] for s in range(self._n_shards)],
            committee_owner=[[v for _, v in per_shard[s]] for s in range(self._n_shards)],
            columns=columns,
            column_of=column_of,
            p_sign=p_sign,
            stake=stake,
            rho=rho,
            r_start=r_start,
            life_to_sign=life_to_sign,
            life_signed=life_signed,
            events=[],
            event_blocks=[],
            to_sign=np.zeros(n, dtype=np.int64),
            signed=np.zeros(n, dtype=np.int64),
        )

    # ------------------------------------------------------------------ rewards
    def _r_index(self, info: EpochInfo, v: int, block: int) -> int:
        return info.r_start[v] + info.rho[v] * (block - info.first + 1)

    def _settle(self, vs: ValidatorState, info: EpochInfo, v: int, block: int) -> None:
        r = self._r_index(info, v, block)
        dr = r - vs.r_settle
        if dr == 0:
            return
        vs.r_settle = r
        total_base = 0
        commission = 0
        rate = vs.rate
        for i, d in enumerate(vs.dels):
            base = d.amount * dr // SCALE
            total_base += base
            if i == 0:
                d.reward += base
            else:
                cut = base * rate // ONE
                commission += cut
                d.reward += base - cut
        vs.dels[0].reward += commission
        vs.reward_acc += total_base

    def _pending(self, vs: ValidatorState, info: EpochInfo, v: int, block: int, d: _Del, first: bool) -> int:
        base = d.amount * (self._r_index(info, v, block) - vs.r_settle) // SCALE
        return base if first else base - base * vs.rate // ONE

    # ------------------------------------------------------------------ events
    def _delegator(self, index: int) -> str:
        addr = self._delegators.get(index)
        if addr is None:
            addr = self._delegators[index] = delegator_address(self._codec, index)
        return addr

    def _existing(self, block: int) -> int:
        """Number of validators created strictly before ``block`` (a prefix of the population)."""
        return bisect.bisect_left(self._heights, block) if block > 0 else 0

    def _generate_events(self, state: StakingState, info: EpochInfo) -> None:
        e = info.epoch
        rng = random.Random(self._codec.seed_int(_TAG_EVENTS, e))
        first = max(info.first, 1)
        last = info.first + self._length - 1
        creations = {
            st.creation_height: st.index
            for st in self.population
            if first <= st.creation_height <= last and st.creation_height > 0
        }
        bans = {h for h in self._ban_heights if first <= h <= last}
        # inactive validators come back with an EditValidator (unless they were abandoned)
        comebacks: dict[int, list[int]] = {}
        for v, vs in enumerate(state.validators):
            returning = vs is not None and not vs.active and not vs.banned and self.population[v].returns
            if returning and rng.random() < _P_COMEBACK:
                at = first + int(rng.random() * (last + 1 - first))
                comebacks.setdefault(at, []).append(v)
        for block in range(first, last + 1):
            index = 0
            # (directive, target validator, attempts to find a fitting delegation/validator)
            todo: list[tuple[str, int | None, int]] = []
            v_new = creations.get(block)
            if v_new is not None:
                todo.append(("CreateValidator", v_new, 1))
            forced = _FORCED.get(block)
            if forced is not None:
                todo.append((forced, None, _FORCED_TRIES))
            todo.extend(("EditValidator", v, 1) for v in comebacks.get(block, ()))
            u = rng.random()
            n_random = 1 if u < _P_ONE else 2 if u < _P_ONE + _P_TWO else 0
            for _ in range(n_random):
                w = rng.random()
                todo.append((next(name for cut, name in _DIRECTIVE_CDF if w <= cut), None, _RANDOM_TRIES))
            for directive, target, tries in todo:
                event = self._decide(state, info, rng, block, index, directive, target, tries)
                if event is not None:
                    self._apply(state, info, event)
                    self._sent.setdefault(event.sender, []).append(block)
                    info.events.append(event)
                    info.event_blocks.append(block)
                    index += 1
            if block in bans:  # a member of this epoch's committee is caught double-signing
                holders = [0] * self._n_shards  # non-banned validators with a key on each shard
                for v, vs in enumerate(state.validators):
                    if vs is not None and not vs.banned:
                        for shard in set(self.population[v].key_shards):
                            holders[shard] += 1
                suspects = [  # never ban the last validator able to sign for a shard
                    v
                    for v in sorted(info.elected)
                    if (vs := state.validators[v]) is not None
                    and not vs.banned
                    and all(holders[shard] > 1 for shard in self.population[v].key_shards)
                ]
                if suspects:
                    v_ban = suspects[int(rng.random() * len(suspects))]
                    ban = StakingEvent(block, -1, "Ban", ZERO_ADDRESS, 0, v_ban, "", 0, {})
                    self._apply(state, info, ban)
                    info.events.append(ban)
                    info.event_blocks.append(block)

    def _decide(
        self,
        state: StakingState,
        info: EpochInfo,
        rng: random.Random,
        block: int,
        index: int,
        directive: str,
        target: int | None,
        tries: int,
    ) -> StakingEvent | None:
        """Decide one staking transaction from the current state (``None``: nothing fits).

        ``target`` is the validator of a ``CreateValidator`` or of a come-back
        ``EditValidator``; other directives pick their own, with up to ``tries`` random
        attempts (many for the forced early directives, so that they always happen).
        """
        n_existing = self._existing(block)
        if directive == "CreateValidator":
            assert target is not None
            return self._decide_create(state, block, index, target)
        if n_existing == 0:
            return None
        if directive == "Delegate":
            return self._decide_delegate(state, rng, block, index, n_existing, tries)
        if directive == "Undelegate":
            return self._decide_undelegate(state, rng, block, index, n_existing, tries)
        if directive == "CollectRewards":
            return self._decide_collect(state, info, rng, block, index, n_existing, tries)
        return self._decide_edit(state, info, rng, block, index, n_existing, target, tries)

    def _tx(
        self,
        state: StakingState,
        block: int,
        index: int,
        directive: str,
        sender: str,
        validator: int,
        delegator: str,
        amount: int,
        msg: dict[str, object],
        edit: tuple[int | None, int | None, int | None, tuple[tuple[str, str], ...]] | None = None,
    ) -> StakingEvent:
        return StakingEvent(
            block,
            index,
            directive,
            sender,
            state.nonces.get(sender, 0),
            validator,
            delegator,
            amount,
            msg,
            edit,
        )

    def _decide_create(self, state: StakingState, block: int, index: int, v: int) -> StakingEvent:
        st = self.population[v]
        rng = random.Random(self._codec.seed_int(_TAG_EVENTS, 1 << 40, v))
        msg: dict[str, object] = {
            "validatorAddress": st.address,
            "commissionRate": st.rate,
            "maxCommissionRate": st.max_rate,
            "maxChangeRate": st.max_change_rate,
            "minSelfDelegation": st.min_self,
            "maxTotalDelegation": st.max_total,
            "amount": st.self_amount,
            "name": st.name,
            "website": st.website,
            "identity": st.identity,
            "securityContact": st.security_contact,
            "details": st.details,
            "slotPubKeys": list(st.keys),
            "slotKeySigs": [bytes.fromhex(hex_bytes(rng, 96)) for _ in st.keys],
        }
        return self._tx(
            state, block, index, "CreateValidator", st.address, v, st.address, st.self_amount, msg
        )

    def _pick_validator(
        self, state: StakingState, rng: random.Random, n_existing: int, popular: bool, tries: int
    ) -> int | None:
        for _ in range(tries):
            if popular:  # log-uniform over creation order: older validators are more popular
                v = int(math.exp(rng.random() * math.log(n_existing + 1))) - 1
            else:
                v = int(rng.random() * n_existing)
            v = min(v, n_existing - 1)
            vs = state.validators[v]
            if vs is not None and not vs.banned:
                return v
        return None

    def _decide_delegate(
        self, state: StakingState, rng: random.Random, block: int, index: int, n_existing: int, tries: int
    ) -> StakingEvent | None:
        v = self._pick_validator(state, rng, n_existing, popular=True, tries=tries)
        if v is None:
            return None
        vs = state.validators[v]
        assert vs is not None
        if rng.random() < 0.15:
            delegator = self.population[v].address
        else:
            rank = int(math.exp(rng.random() * math.log(DELEGATOR_POPULATION))) - 1
            delegator = self._delegator((rank * 7_919 + 11) % DELEGATOR_POPULATION)
        amount = (1 + int(rng.random() * 99)) * 10 ** (20 + int(rng.random() * 4))
        room = vs.max_total - vs.total()
        amount = min(amount, room)
        if amount < 100 * ONE:
            return None
        msg: dict[str, object] = {
            "delegatorAddress": delegator,
            "validatorAddress": self.population[v].address,
            "amount": amount,
        }
        return self._tx(state, block, index, "Delegate", delegator, v, delegator, amount, msg)

    @staticmethod
    def _random_delegation(
        state: StakingState, rng: random.Random, n_existing: int
    ) -> tuple[int, ValidatorState, int, _Del] | None:
        """A random existing validator and one of its delegations (index 0 is the self-delegation),
        or ``None`` when the drawn validator does not exist (yet); draws the same random numbers
        either way, so callers' sequences stay as they were."""
        v = min(int(rng.random() * n_existing), n_existing - 1)
        vs = state.validators[v]
        if vs is None:
            return None
        i = int(rng.random() * len(vs.dels))
        return v, vs, i, vs.dels[i]

    def _decide_undelegate(
        self, state: StakingState, rng: random.Random, block: int, index: int, n_existing: int, tries: int
    ) -> StakingEvent | None:
        for _ in range(tries):
            picked = self._random_delegation(state, rng, n_existing)
            if picked is None:
                continue
            v, vs, i, d = picked
            available = d.amount - vs.min_self if i == 0 else d.amount
            if available < 100 * ONE:
                continue
            if i > 0 and rng.random() < 0.3:
                amount = available
            else:
                amount = max(ONE, available * (1 + int(rng.random() * 9)) // 10 // ONE * ONE)
            msg: dict[str, object] = {
                "delegatorAddress": d.delegator,
                "validatorAddress": self.population[v].address,
                "amount": amount,
            }
            return self._tx(state, block, index, "Undelegate", d.delegator, v, d.delegator, amount, msg)
        return None

    def _decide_collect(
        self,
        state: StakingState,
        info: EpochInfo,
        rng: random.Random,
        block: int,
        index: int,
        n_existing: int,
        tries: int,
    ) -> StakingEvent | None:
        for _ in range(tries):
            picked = self._random_delegation(state, rng, n_existing)
            if picked is None:
                continue
            v, vs, i, d = picked
            if d.reward + self._pending(vs, info, v, block, d, i == 0) <= 0:
                continue
            msg: dict[str, object] = {"delegatorAddress": d.delegator}
            return self._tx(state, block, index, "CollectRewards", d.delegator, v, d.delegator, 0, msg)
        return None

    def _decide_edit(
        self,
        state: StakingState,
        info: EpochInfo,
        rng: random.Random,
        block: int,
        index: int,
        n_existing: int,
        target: int | None,
        tries: int,
    ) -> StakingEvent | None:
        v = target if target is not None else self._pick_validator(state, rng, n_existing, False, tries)
        if v is None:
            return None
        vs = state.validators[v]
        assert vs is not None
        st = self.population[v]
        new_rate: int | None = None
        if rng.random() < 0.5 and vs.last_rate_epoch != info.epoch:
            steps = max(1, st.max_change_rate // (ONE // 100))
            delta = (1 + int(rng.random() * steps)) * (ONE // 100)
            candidate = vs.rate + delta if rng.random() < 0.5 else vs.rate - delta
            candidate = min(max(candidate, 0), st.max_rate)
            if candidate != vs.rate:
                new_rate = candidate
        new_min: int | None = None
        if rng.random() < 0.1 and vs.dels[0].amount >= 2 * vs.min_self:
            new_min = 2 * vs.min_self
        new_max: int | None = None
        if rng.random() < 0.1:
            new_max = 2 * vs.max_total
        texts: list[tuple[str, str]] = []
        if rng.random() < 0.3:
            texts.append(
                (
                    "details",
                    f"Update {block}: {('new servers', 'lower fees', 'moved region')[int(rng.random() * 3)]}",
                )
            )
        if rng.random() < 0.1:
            texts.append(("website", f"https://v{v}-{block}.example.org"))
        msg: dict[str, object] = {
            "validatorAddress": st.address,
            "commissionRate": new_rate if new_rate is not None else 0,
            "minSelfDelegation": new_min,
            "maxTotalDelegation": new_max,
            "name": "",
            "website": "",
            "identity": "",
            "securityContact": "",
            "details": "",
            "slotPubKeyToAdd": None,
            "slotPubKeyToRemove": None,
            "slotKeyToAddSig": None,
        }
        for field, value in texts:
            msg[field] = value
        edit = (new_rate, new_min, new_max, tuple(texts))
        return self._tx(state, block, index, "EditValidator", st.address, v, "", 0, msg, edit)

    def _apply(self, state: StakingState, info: EpochInfo, ev: StakingEvent) -> None:
        """Apply one event (generation and replay share this: it is the only mutation)."""
        if ev.index >= 0:
            state.nonces[ev.sender] = state.nonces.get(ev.sender, 0) + 1
        v = ev.validator
        block = ev.block
        if ev.directive == "CreateValidator":
            st = self.population[v]
            state.validators[v] = ValidatorState.create(st, block, self._r_index(info, v, block))
            state.by_delegator.setdefault(st.address, []).append(v)
            return
        if ev.directive == "Ban":
            vs = state.validators[v]
            assert vs is not None
            vs.banned = True
            return
        # a staking transaction of block b runs before b's Finalize pays b's rewards (the node's
        # AccumulateRewardsAndCountSigs): rewards are settled through block b - 1, so a
        # CollectRewards pays what the state after b - 1 shows, and a delegation changed in b
        # earns b's reward with its new amount
        before = block - 1
        if ev.directive == "CollectRewards":
            paid = 0
            for w in state.by_delegator.get(ev.delegator, ()):
                ws = state.validators[w]
                assert ws is not None
                self._settle(ws, info, w, before)
                for d in ws.dels:
                    if d.delegator == ev.delegator:
                        paid += d.reward
                        d.reward = 0
            self._collected[(block, ev.index)] = paid
            return
        vs = state.validators[v]
        assert vs is not None
        self._settle(vs, info, v, before)
        if ev.directive == "Delegate":
            for d in vs.dels:
                if d.delegator == ev.delegator:
                    d.amount += ev.amount
                    break
            else:
                vs.dels.append(_Del(ev.delegator, ev.amount, 0, []))
                state.by_delegator.setdefault(ev.delegator, []).append(v)
        elif ev.directive == "Undelegate":
            for d in vs.dels:
                if d.delegator == ev.delegator:
                    d.amount -= ev.amount
                    if d.undels and d.undels[-1][1] == info.epoch:
                        d.undels[-1][0] += ev.amount
                    else:
                        d.undels.append([ev.amount, info.epoch])
                    break
        elif ev.directive == "EditValidator":
            assert ev.edit is not None
            new_rate, new_min, new_max, texts = ev.edit
            if new_rate is not None:
                vs.rate = new_rate
                vs.last_rate_epoch = info.epoch
            if new_min is not None:
                vs.min_self = new_min
            if new_max is not None:
                vs.max_total = new_max
            for field, value in texts:
                setattr(vs, field, value)
            vs.update_height = block
            vs.active = True

    def _transition(self, state: StakingState, info: EpochInfo) -> None:
        """End of ``info.epoch``: uptime boots and release of matured undelegations."""
        for v in info.elected:
            vs = state.validators[v]
            if vs is not None and info.signed[v] * 100 < UPTIME_PERCENT * info.to_sign[v]:
                vs.active = False
        # the node's payoutUndelegations at the epoch's last block: an undelegation made in
        # epoch U is paid when epoch - U >= the lock period (RemoveUnlockedUndelegations; the
        # early unlock of a validator out of the committee is off since NoEarlyUnlockEpoch)
        epoch = info.epoch
        lock = lock_period(epoch, self._quick_unlock)
        released: list[tuple[str, int, int]] = []
        for v, vs in enumerate(state.validators):
            if vs is None:
                continue
            for d in vs.dels:
                if d.undels and epoch - d.undels[0][1] >= lock:
                    paid = sum(u[0] for u in d.undels if epoch - u[1] >= lock)
                    released.append((d.delegator, v, paid))
                    d.undels = [u for u in d.undels if epoch - u[1] < lock]
        self._released[info.epoch] = released

    # ------------------------------------------------------------------ signing
    def matrix(self, shard: int, epoch: int) -> npt.NDArray[np.bool_]:
        """Signed flags of epoch ``epoch`` on ``shard``: rows = blocks, columns = validators."""
        key = (shard, epoch)
        m = self._matrices.get(key)
        if m is not None:
            self._matrices.move_to_end(key)
            return m
        m = self._build_matrix(self.info(epoch), shard)
        self._matrices[key] = m
        if len(self._matrices) > _MATRIX_LRU:
            self._matrices.popitem(last=False)
        return m

    def _build_matrix(self, info: EpochInfo, shard: int) -> npt.NDArray[np.bool_]:
        cols = info.columns[shard]
        seq = np.random.SeedSequence(self._codec.seed_words(_TAG_SIGN, shard, info.epoch))
        rng = np.random.Generator(np.random.PCG64(seq))
        m = rng.random((self._length, len(cols))) < info.p_sign[cols][None, :]
        if cols:
            views = self._view_ids(shard, info.first, info.first + self._length)
            keys = info.committee_owner[shard]
            leader_cols = [info.column_of[shard][keys[int(x) % len(keys)]] for x in views]
            m[np.arange(self._length), leader_cols] = True
        return m

    def _count_signatures(self, info: EpochInfo) -> None:
        n = len(self.population)
        to_sign = np.zeros(n, dtype=np.int64)
        signed = np.zeros(n, dtype=np.int64)
        for s in range(self._n_shards):
            cols = info.columns[s]
            if not cols:
                continue
            m = self._build_matrix(info, s)
            self._matrices[(s, info.epoch)] = m
            if len(self._matrices) > _MATRIX_LRU:
                self._matrices.popitem(last=False)
            idx = np.asarray(cols, dtype=np.int64)
            to_sign[idx] += self._length
            signed[idx] += m.sum(axis=0)
        info.to_sign = to_sign
        info.signed = signed

    def leader(self, shard: int, number: int, view_id: int) -> str:
        """Address of the validator whose key leads view ``view_id`` of block ``number``."""
        info = self.info(number // self._length)
        owners = info.committee_owner[shard]
        if not owners:
            return ZERO_ADDRESS
        return self.population[owners[view_id % len(owners)]].address

    def signers(self, shard: int, number: int) -> tuple[str, ...]:
        """The node's signers of block ``number`` on ``shard``: one address per committee key
        whose bit is set in the commit bitmap, in committee order (a validator with several
        keys on the shard is listed once per key), as ``getSignerData`` lists them."""
        e = number // self._length
        info = self.info(e)
        row = self.matrix(shard, e)[number - info.first]
        col_of = info.column_of[shard]
        return tuple(self.population[v].address for v in info.committee_owner[shard] if row[col_of[v]])

    def commit_bitmap(self, shard: int, number: int) -> bytes:
        """The commit bitmap of block ``number``: bit i (LSB first) set when committee key i signed."""
        e = number // self._length
        info = self.info(e)
        row = self.matrix(shard, e)[number - info.first]
        col_of = info.column_of[shard]
        bits = [bool(row[col_of[v]]) for v in info.committee_owner[shard]]
        out = bytearray((len(bits) + 7) // 8)
        for i, bit in enumerate(bits):
            if bit:
                out[i // 8] |= 1 << (i % 8)
        return bytes(out)

    # ------------------------------------------------------------------ events access
    def events_at(self, block: int) -> list[StakingEvent]:
        """Staking transactions (not bans) of shard-0 block ``block``, in block order."""
        info = self.info(block // self._length)
        lo = bisect.bisect_left(info.event_blocks, block)
        hi = bisect.bisect_right(info.event_blocks, block)
        return [ev for ev in info.events[lo:hi] if ev.index >= 0]

    def staking_count(self, sender: str, block: int) -> int:
        """Staking transactions ``sender`` sent in blocks ``<= block``."""
        self.info(block // self._length)
        blocks = self._sent.get(sender)
        return bisect.bisect_right(blocks, block) if blocks else 0

    def collected(self, block: int, index: int) -> int:
        """What the CollectRewards at staking index ``index`` of shard-0 block ``block`` paid out
        (atto; 0 for any other transaction)."""
        self.info(block // self._length)
        return self._collected.get((block, index), 0)

    def released(self, epoch: int) -> list[tuple[str, int, int]]:
        """Undelegations paid back at the end of ``epoch`` (its last block, as the node's
        ``payoutUndelegations``): ``(delegator, validator index, amount)`` per delegation."""
        self.info(epoch)
        return list(self._released.get(epoch, ()))

    def index_of(self, address: str) -> int | None:
        """Population index of a validator address, or ``None``."""
        return self._index.get(address)

    # ------------------------------------------------------------------ states
    def _epoch_start_state(self, e: int) -> StakingState:
        self.info(e)
        if e in self._checkpoints:
            return self._checkpoints[e]
        cached = self._state_lru.get(e)
        if cached is not None:
            self._state_lru.move_to_end(e)
            return cached
        base = e - e % CHECKPOINT_EVERY
        state = self._checkpoints[base].copy()
        for k in range(base, e):
            info = self._infos[k]
            for ev in info.events:
                self._apply(state, info, ev)
            self._transition(state, info)
        self._state_lru[e] = state
        if len(self._state_lru) > _STATE_LRU:
            self._state_lru.popitem(last=False)
        return state

    def state_at(self, block: int) -> StakingState:
        """The staking state after block ``block``, every validator settled at ``block``."""
        e = block // self._length
        info = self.info(e)
        state = self._epoch_start_state(e).copy()
        hi = bisect.bisect_right(info.event_blocks, block)
        for ev in info.events[:hi]:
            self._apply(state, info, ev)
        for v, vs in enumerate(state.validators):
            if vs is not None:
                self._settle(vs, info, v, block)
        return state

    def validator_addresses(self, head: int) -> list[str]:
        """Validators created at or before ``head``, in creation order."""
        return [st.address for st in self.population[: bisect.bisect_right(self._heights, head)]]

    def exists_at(self, v: int, block: int) -> bool:
        """Whether validator ``v`` exists at ``block``."""
        return self._heights[v] <= block
