"""The cheap per-shard skeleton of the devnet chain, built with numpy in fixed segments.

A segment covers :data:`SEGMENT` consecutive block numbers of one shard and holds, per
block, the number of plain transactions and the view id, and per transaction the sender
(an index into the EOA population), its nonce and its kind. Segments are generated in
order (nonces and view ids carry over), each from its own seeded generator keyed by
``(shard, segment index)``, so the skeleton extends deterministically whatever the head:
``Chain(blocks=N).mine(k)`` and ``Chain(blocks=N + k)`` read the same segments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from hmyframe.devnet._gen_activity import Activity, activity
from hmyframe.devnet._gen_codec import Codec

__all__ = [
    "EOA_POPULATION",
    "KIND_CALL",
    "KIND_CREATE",
    "KIND_REVERT",
    "KIND_TRANSFER",
    "KIND_XSHARD",
    "SEGMENT",
    "Segment",
    "Skeleton",
]

SEGMENT: Final = 512
EOA_POPULATION: Final = 30_000

KIND_TRANSFER: Final = 0
KIND_XSHARD: Final = 1
KIND_CALL: Final = 2
KIND_REVERT: Final = 3  # contract call whose top-level frame reverts
KIND_CREATE: Final = 4

# Kind and count draws come from the chain's activity profile (_gen_activity.py).
# View changes: 0.8 % of blocks skip one view or more.
_P_VIEW_CHANGE: Final = 0.008

_TAG_SKELETON: Final = 0x5345


@dataclass(frozen=True, slots=True)
class Segment:
    """Skeleton of blocks ``start .. start + SEGMENT - 1`` of one shard.

    Attributes
    ----------
    start
        First block number.
    offsets
        ``offsets[i] .. offsets[i + 1]`` are the transactions of block ``start + i``.
    view_ids
        View id per block.
    senders, nonces, kinds
        Per transaction: EOA index, account nonce on this shard, kind code.
    """

    start: int
    offsets: npt.NDArray[np.int64]
    view_ids: npt.NDArray[np.int64]
    senders: npt.NDArray[np.uint32]
    nonces: npt.NDArray[np.uint32]
    kinds: npt.NDArray[np.uint8]


class Skeleton:
    """All skeleton segments of one shard, generated lazily and in order.

    Parameters
    ----------
    codec
        The chain's codec (for seeds).
    shard, n_shards
        This shard and the number of shards.
    profile
        The chain's activity profile (default: the ``devnet`` one).
    """

    def __init__(self, codec: Codec, shard: int, n_shards: int, profile: Activity | None = None) -> None:
        self._codec = codec
        self._shard = shard
        self._profile = p = activity("devnet") if profile is None else profile
        self._cdf = np.cumsum(p.kinds if n_shards > 1 else p.kinds_one_shard)
        self._segments: list[Segment] = []
        self._running = np.zeros(EOA_POPULATION, dtype=np.int64)
        self._next_view = 0
        # Affine bijection from popularity rank to EOA index, different per shard.
        mult = (7919, 104_729, 15_485_863, 32_452_843)
        self._mul = mult[shard % len(mult)]
        self._add = (shard * 9_973 + 1_237) % EOA_POPULATION

    def sender_index(self, rank: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Map popularity ranks to EOA indices (a per-shard bijection)."""
        return (rank * self._mul + self._add) % EOA_POPULATION

    def segment(self, index: int) -> Segment:
        """Segment ``index``, generating it (and every earlier one) if needed."""
        while len(self._segments) <= index:
            self._segments.append(self._generate(len(self._segments)))
        return self._segments[index]

    def segment_of(self, number: int) -> Segment:
        """The segment holding block ``number``."""
        return self.segment(number // SEGMENT)

    def generated_segments(self) -> int:
        """How many segments exist so far."""
        return len(self._segments)

    def _generate(self, index: int) -> Segment:
        start = index * SEGMENT
        seq = np.random.SeedSequence(self._codec.seed_words(_TAG_SKELETON, self._shard, index))
        rng = np.random.Generator(np.random.PCG64(seq))
        u = rng.random((5, SEGMENT))
        p = self._profile
        lomax = p.base + np.floor(p.lomax_scale * ((1.0 - u[0]) ** (-1.0 / p.lomax_alpha) - 1.0))
        counts = np.where(u[1] < p.p_empty, 0.0, np.minimum(lomax, p.cap))
        counts = np.where(u[2] < p.p_burst, p.burst_low + np.floor(u[3] * p.burst_span), counts).astype(
            np.int64
        )
        jumps = np.where(u[4] < _P_VIEW_CHANGE, 1 + (u[4] < _P_VIEW_CHANGE / 4).astype(np.int64), 0)
        if index == 0:
            counts[0] = 0  # genesis holds no transaction
            jumps[0] = 0
        offsets = np.zeros(SEGMENT + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        view_ids = np.arange(start, start + SEGMENT, dtype=np.int64) + self._next_view + np.cumsum(jumps)
        self._next_view = int(view_ids[-1]) - (start + SEGMENT - 1)

        total = int(offsets[-1])
        v = rng.random((2, total))
        ranks = np.minimum(np.floor(np.exp(v[0] * np.log(EOA_POPULATION))) - 1, EOA_POPULATION - 1)
        senders = self.sender_index(ranks.astype(np.int64))
        kinds = np.searchsorted(self._cdf, v[1], side="right").astype(np.uint8)
        np.minimum(kinds, KIND_CREATE, out=kinds)

        # nonce = sends of this account before the segment + rank among its sends inside it
        order = np.argsort(senders, kind="stable")
        ordered = senders[order]
        is_start = np.empty(total, dtype=bool)
        if total:
            is_start[0] = True
            np.not_equal(ordered[1:], ordered[:-1], out=is_start[1:])
        group_first = np.flatnonzero(is_start)
        within = np.arange(total) - group_first[np.cumsum(is_start) - 1]
        nonces = np.empty(total, dtype=np.int64)
        nonces[order] = self._running[ordered] + within
        self._running += np.bincount(senders, minlength=EOA_POPULATION)
        return Segment(
            start=start,
            offsets=offsets,
            view_ids=view_ids,
            senders=senders.astype(np.uint32),
            nonces=nonces.astype(np.uint32),
            kinds=kinds,
        )

    def count_before(self, eoa: int, number: int) -> int:
        """Transactions EOA ``eoa`` sent on this shard in blocks ``<= number``."""
        seg_index = number // SEGMENT
        seg = self.segment(seg_index)
        end = int(seg.offsets[number - seg.start + 1])
        while True:
            hits = np.flatnonzero(seg.senders[:end] == eoa)
            if hits.size:
                return int(seg.nonces[hits[-1]]) + 1
            if seg_index == 0:
                return 0
            seg_index -= 1
            seg = self.segment(seg_index)
            end = int(seg.offsets[-1])
