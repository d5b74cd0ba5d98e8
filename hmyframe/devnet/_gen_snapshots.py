"""The devnet's validator snapshots: what ``getAllValidatorInformation*`` answers are made of.

Built from the staking engine's state (:mod:`hmyframe.devnet._gen_staking`), read only: the
state settled at the snapshot block, the epoch's election and signing matrices, and the past
epochs' reward slopes and counters. Per snapshot block (cached in a small LRU):

* *signing so far*: each validator's (signed, to_sign) over the epoch's blocks up to the
  snapshot block, from the signing matrices;
* *voting power* (per epoch): raw stake per key, effective stake clamped to 85..115 % of the
  median, each shard's committee keys sharing 10^18 units by effective stake (largest
  remainders), and the EPoS winning stake;
* per validator, the statuses (EPoS, booted, active), signing percentage, APR and per-epoch
  history over the last :data:`STATS_WINDOW` elected epochs, key metrics and delegations, as a
  :class:`~hmyframe.devnet.model.ValidatorSnapshot`.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Final

import numpy as np
import numpy.typing as npt

from hmyframe.devnet._gen_population import ONE, ValidatorStatic
from hmyframe.devnet._gen_staking import (
    BLOCKS_PER_YEAR,
    SCALE,
    EpochInfo,
    StakingEngine,
    StakingState,
    ValidatorState,
)
from hmyframe.devnet.model import BlsKeyMetric, Delegation, Undelegation, ValidatorSnapshot

__all__ = ["BANNED", "STATS_WINDOW", "SnapshotViews", "dec18"]

STATS_WINDOW: Final = 30  # epochs kept in epoch_apr / epoch_blocks
_VIEW_LRU: Final = 8

BANNED: Final = "banned forever from network because was caught double-signing"
_EPOS_ELECTED: Final = "currently elected"
_EPOS_ELIGIBLE: Final = "eligible to be elected next epoch"
_EPOS_NOT_ELIGIBLE: Final = "not eligible to be elected next epoch"
_BOOT_NOT_BOOTED: Final = "not booted"
_BOOT_LOST: Final = "lost epos auction"
_BOOT_INACTIVE: Final = "manually turned inactive or insufficient uptime"

_D18: Final = Decimal("1E-18")
_ZERO18: Final = Decimal(0).quantize(_D18)


def dec18(units: int) -> Decimal:
    """The Decimal ``units * 1e-18`` with exactly 18 fractional digits, whatever its size.

    Built from a string, which is exact: ``Decimal.scaleb`` would round to the context's
    28 significant digits and lose the low digits of a stake in atto.
    """
    return Decimal(f"{units}E-18")


@dataclass(frozen=True, slots=True)
class _BlockView:
    info: EpochInfo
    state: StakingState
    partial_signed: npt.NDArray[np.int64]
    partial_to_sign: npt.NDArray[np.int64]
    metrics: dict[int, list[tuple[int, int, int, int, int]]]
    winning: dict[int, int]


class SnapshotViews:
    """Validator snapshots of one devnet chain, read from its staking engine.

    Parameters
    ----------
    engine
        The chain's staking engine; only read (epochs it has not processed yet are processed
        on demand, as for any other caller).
    """

    def __init__(self, engine: StakingEngine) -> None:
        self._engine = engine
        self._population = engine.population
        self._views: OrderedDict[int, _BlockView] = OrderedDict()
        self._metric_cache: OrderedDict[
            int, tuple[dict[int, list[tuple[int, int, int, int, int]]], dict[int, int]]
        ] = OrderedDict()

    def _metrics(
        self, info: EpochInfo
    ) -> tuple[dict[int, list[tuple[int, int, int, int, int]]], dict[int, int]]:
        """Per elected validator: (key index, shard, group units, eff18, raw18); and winning eff18."""
        raw: dict[int, int] = {}
        all_raw: list[int] = []
        for v, ks in info.elected.items():
            raw[v] = info.stake[v] * ONE // len(self._population[v].keys)
            all_raw.extend([raw[v]] * len(ks))
        all_raw.sort()
        mid = len(all_raw) // 2
        median = all_raw[mid] if len(all_raw) % 2 else (all_raw[mid - 1] + all_raw[mid]) // 2
        lo, hi = median * 85 // 100, median * 115 // 100
        eff = {v: min(max(r, lo), hi) for v, r in raw.items()}
        out: dict[int, list[tuple[int, int, int, int, int]]] = {v: [] for v in info.elected}
        winning = {v: eff[v] * len(ks) for v, ks in info.elected.items()}
        for s in range(self._engine.n_shards):
            owners = info.committee_owner[s]
            if not owners:
                continue
            effs = [eff[v] for v in owners]
            total = sum(effs)
            unit = 10**18
            floors = [x * unit // total for x in effs]
            rema = [x * unit % total for x in effs]
            missing = unit - sum(floors)
            order = sorted(range(len(effs)), key=lambda i: (-rema[i], i))
            for i in order[:missing]:
                floors[i] += 1
            keys_of: dict[int, list[int]] = {}
            for i, v in enumerate(owners):
                keys_of.setdefault(v, []).append(i)
            for v, positions in keys_of.items():
                shard_keys = [k for k in info.elected[v] if self._population[v].key_shards[k] == s]
                for k, pos in zip(shard_keys, positions, strict=True):
                    out[v].append((k, s, floors[pos], eff[v], raw[v]))
        return out, winning

    def _block_view(self, block: int) -> _BlockView:
        """State, partial signing counters and voting power for snapshots at ``block`` (cached)."""
        view = self._views.get(block)
        if view is not None:
            self._views.move_to_end(block)
            return view
        e = block // self._engine.epoch_length
        info = self._engine.info(e)
        state = self._engine.state_at(block)
        row = block - info.first
        partial_signed = np.zeros(len(self._population), dtype=np.int64)
        partial_to_sign = np.zeros(len(self._population), dtype=np.int64)
        for s in range(self._engine.n_shards):
            cols = info.columns[s]
            if cols:
                idx = np.asarray(cols, dtype=np.int64)
                partial_signed[idx] += self._engine.matrix(s, e)[: row + 1].sum(axis=0)
                partial_to_sign[idx] += row + 1
        metrics, winning = self._epoch_metrics(info)
        view = _BlockView(info, state, partial_signed, partial_to_sign, metrics, winning)
        self._views[block] = view
        if len(self._views) > _VIEW_LRU:
            self._views.popitem(last=False)
        return view

    def _epoch_metrics(
        self, info: EpochInfo
    ) -> tuple[dict[int, list[tuple[int, int, int, int, int]]], dict[int, int]]:
        cached = self._metric_cache.get(info.epoch)
        if cached is None:
            cached = self._metrics(info)
            self._metric_cache[info.epoch] = cached
            if len(self._metric_cache) > _VIEW_LRU:
                self._metric_cache.popitem(last=False)
        else:
            self._metric_cache.move_to_end(info.epoch)
        return cached

    def snapshot(self, v: int, block: int) -> ValidatorSnapshot | None:
        """Snapshot of validator ``v`` at ``block``, ``None`` if it does not exist there."""
        st = self._population[v]
        if st.creation_height > block:
            return None
        view = self._block_view(block)
        vs = view.state.validators[v]
        assert vs is not None
        return self._snapshot(v, st, vs, view, block)

    def snapshots(self, block: int) -> list[ValidatorSnapshot]:
        """Snapshots at ``block`` of every validator existing there, in creation order."""
        view = self._block_view(block)
        out: list[ValidatorSnapshot] = []
        for v, st in enumerate(self._population):
            vs = view.state.validators[v]
            if vs is None or st.creation_height > block:
                continue
            out.append(self._snapshot(v, st, vs, view, block))
        return out

    def _snapshot(
        self,
        v: int,
        st: ValidatorStatic,
        vs: ValidatorState,
        view: _BlockView,
        block: int,
    ) -> ValidatorSnapshot:
        info = view.info
        metrics, winning = view.metrics, view.winning
        partial_signed, partial_to_sign = view.partial_signed, view.partial_to_sign
        e = info.epoch
        elected = v in info.elected
        signed = int(partial_signed[v])
        to_sign = int(partial_to_sign[v])
        pct = (
            (Decimal(signed) / Decimal(to_sign)).quantize(_D18, rounding=ROUND_HALF_EVEN)
            if to_sign
            else _ZERO18
        )
        epochs = self._engine.elected_epochs(v)
        past = epochs[max(0, bisect.bisect_left(epochs, e) - STATS_WINDOW) : bisect.bisect_left(epochs, e)]
        has_stats = elected or bool(past)
        epoch_apr: tuple[tuple[int, Decimal], ...] | None = None
        epoch_blocks: tuple[tuple[int, int, int], ...] | None = None
        apr = _ZERO18
        if past:
            entries = []
            blocks = []
            for k in past:
                pk = self._engine.info(k)
                entries.append((k, dec18(pk.rho[v] * BLOCKS_PER_YEAR * ONE // SCALE)))
                blocks.append((k, int(pk.to_sign[v]), int(pk.signed[v])))
            epoch_apr = tuple(entries)
            epoch_blocks = tuple(blocks)
            apr = entries[-1][1]
        last_in_committee = e if elected else (past[-1] if past else 0)
        metric_objs: tuple[BlsKeyMetric, ...] | None = None
        winning_stake: Decimal | None = None
        if elected:
            n_elected = len(info.elected[v])
            earned = info.stake[v] * info.rho[v] * (block - info.first + 1) // SCALE // n_elected
            metric_objs = tuple(
                BlsKeyMetric(
                    key=st.keys[k],
                    shard_id=s,
                    group_percent=dec18(units),
                    overall_percent=dec18(units),
                    effective_stake=dec18(eff),
                    raw_stake=dec18(raw),
                    earned_reward=earned,
                )
                for k, s, units, eff, raw in metrics[v]
            )
            winning_stake = dec18(winning[v])
        if vs.banned:
            epos_status = BANNED
            active_status = BANNED
        else:
            active_status = "active" if vs.active else "inactive"
            if elected:
                epos_status = _EPOS_ELECTED
            elif vs.active and vs.dels[0].amount >= vs.min_self:
                epos_status = _EPOS_ELIGIBLE
            else:
                epos_status = _EPOS_NOT_ELIGIBLE
        if elected:
            booted: str | None = None
        elif not has_stats:
            booted = _BOOT_NOT_BOOTED
        elif vs.banned:
            booted = BANNED
        elif not vs.active:
            booted = _BOOT_INACTIVE
        else:
            booted = _BOOT_LOST
        delegations = tuple(
            Delegation(
                delegator=d.delegator,
                amount=d.amount,
                reward=d.reward,
                undelegations=tuple(Undelegation(amount=a, epoch=ep) for a, ep in d.undels),
            )
            for d in vs.dels
        )
        return ValidatorSnapshot(
            snapshot_block=block,
            snapshot_epoch=e,
            address=st.address,
            name=vs.name,
            identity=vs.identity,
            website=vs.website,
            security_contact=vs.security_contact,
            details=vs.details,
            bls_keys=st.keys,
            rate=dec18(vs.rate),
            max_rate=dec18(st.max_rate),
            max_change_rate=dec18(st.max_change_rate),
            min_self_delegation=vs.min_self,
            max_total_delegation=vs.max_total,
            update_height=vs.update_height,
            creation_height=st.creation_height,
            last_epoch_in_committee=last_in_committee,
            delegations=delegations,
            total_delegation=sum(d.amount for d in delegations),
            currently_in_committee=elected,
            epos_status=epos_status,
            epos_winning_stake=winning_stake,
            booted_status=booted,
            active_status=active_status,
            banned=vs.banned,
            current_epoch_signed=signed,
            current_epoch_to_sign=to_sign,
            current_epoch_signing_percentage=pct,
            lifetime_signed=int(info.life_signed[v]) + signed,
            lifetime_to_sign=int(info.life_to_sign[v]) + to_sign,
            reward_accumulated=vs.reward_acc,
            apr=apr,
            epoch_apr=epoch_apr,
            metrics=metric_objs,
            epoch_blocks=epoch_blocks,
        )
