"""A per-shard state folded over the blocks, with checkpoints: what the token activity
(:mod:`hmyframe.devnet._gen_tokens`) and the DEX (:mod:`hmyframe.devnet._gen_dex`) share.

Whether a block's transactions succeed depends on the state the blocks before it left, so a
block's transactions are a fold over that state. :class:`BlockFold` keeps the state after every
:data:`CHECKPOINT`-th block (computed lazily, in order) and the state after the last block it
generated, so sequential generation costs O(1) per block and a random block at most
:data:`CHECKPOINT` blocks of replay (draws only, no block is built).

A block gets transactions only when it has plain ones (activity rides along with the busy
blocks; the empty blocks stay empty), Poisson(``density``) of them, drawn from the fold's own
``random.Random`` seeded by ``(tag, shard, number)``: the plain transactions' draws are untouched.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Final, Generic, Protocol, Self, TypeVar

from hmyframe.devnet._gen_codec import Codec

__all__ = ["CHECKPOINT", "BlockFold"]

#: A checkpoint is kept after every ``CHECKPOINT``-th block.
CHECKPOINT: Final = 128


class _State(Protocol):
    def copy(self) -> Self: ...


S = TypeVar("S", bound=_State)
Op = TypeVar("Op")


class BlockFold(Generic[S, Op]):
    """The state ``S`` of each shard after any block, and each block's operations ``Op``.

    A subclass writes :meth:`_block`: one block's operations, drawn from ``r`` and applied to
    ``state`` in place.

    Parameters
    ----------
    codec
        The chain's codec (the draws' seeds).
    n_shards
        Number of shards.
    density
        Expected operations per block with plain transactions (0: none).
    plain_count
        ``(shard, number) -> number of plain transactions`` of a block.
    tag
        The draws' tag (keeps them apart from every other generator's).
    empty
        A fresh state (before block 0).
    """

    def __init__(
        self,
        codec: Codec,
        n_shards: int,
        density: float,
        plain_count: Callable[[int, int], int],
        tag: int,
        empty: Callable[[], S],
    ) -> None:
        self._codec = codec
        self._plain_count = plain_count
        self._tag = tag
        self.density = density
        self._exp_minus_density = math.exp(-density)
        self._rng = random.Random(0)
        # per shard: states after blocks CHECKPOINT-1, 2*CHECKPOINT-1, ... (index k: after k*CHECKPOINT-1)
        self._checkpoints: list[list[S]] = [[empty()] for _ in range(n_shards)]
        # per shard: (number, state after that block, ops of that block)
        self._last: list[tuple[int, S, list[Op]] | None] = [None] * n_shards

    def state_after(self, shard: int, number: int) -> S:
        """The state of ``shard`` after block ``number`` (``number >= 0``); do not keep or mutate
        it (the fold advances it in place)."""
        return self._advance(shard, number)[0]

    def ops(self, shard: int, number: int) -> list[Op]:
        """The operations of block ``number`` of ``shard``, in block order."""
        if self.density <= 0 or number == 0:
            return []
        return self._advance(shard, number)[1]

    def _advance(self, shard: int, number: int) -> tuple[S, list[Op]]:
        """The state after block ``number`` and that block's operations."""
        last = self._last[shard]
        if last is not None and last[0] <= number < last[0] + CHECKPOINT:
            start, state, ops = last[0] + 1, last[1], last[2]
        else:
            k = number // CHECKPOINT  # checkpoint k: the state after block k*CHECKPOINT-1
            checkpoints = self._checkpoints[shard]
            while len(checkpoints) <= k:
                c = len(checkpoints)
                state = checkpoints[c - 1].copy()
                for n in range((c - 1) * CHECKPOINT, c * CHECKPOINT):
                    self._step(shard, n, state)
                checkpoints.append(state)
            start, state, ops = k * CHECKPOINT, checkpoints[k].copy(), []
        checkpoints = self._checkpoints[shard]
        for n in range(start, number + 1):
            ops = self._step(shard, n, state)
            if (n + 1) % CHECKPOINT == 0 and len(checkpoints) == (n + 1) // CHECKPOINT:
                checkpoints.append(state.copy())
        self._last[shard] = (number, state, ops)
        return state, ops

    def _count(self, rnd: random.Random) -> int:
        """Poisson(density) draw (Knuth; density is small)."""
        limit = self._exp_minus_density
        k = 0
        p = rnd.random()
        while p > limit:
            k += 1
            p *= rnd.random()
        return k

    def _step(self, shard: int, number: int, state: S) -> list[Op]:
        """Apply block ``number``'s operations to ``state``; return them."""
        if self.density <= 0 or number == 0 or self._plain_count(shard, number) == 0:
            return []
        r = self._rng
        r.seed(self._codec.seed_int(self._tag, shard, number))
        return self._block(r, shard, number, state, self._count(r))

    def _block(self, r: random.Random, shard: int, number: int, state: S, count: int) -> list[Op]:
        """``count`` operations of block ``number`` of ``shard``, drawn from ``r``, applied to ``state``."""
        raise NotImplementedError
