"""Activity profiles: how busy the devnet's blocks are (transactions per block, their kinds, trace depth).

The skeleton draws each block's transaction count and each transaction's kind from its profile,
and the block factory draws trace frames with the profile's depth table; nothing else changes
with the profile (the same seed gives the same accounts, validators and staking history).

* ``devnet`` (the default): the chain the devnet has always served, byte for byte. 20 % of
  blocks empty, else a Lomax draw capped at 70, 0.3 % bursts of 80-100: mean about 12,
  median about 4.
* ``quiet``: like mainnet today, most blocks 0-3 transactions (45 % empty, mean about 1).
* ``busy``: like the 2021-22 peak, 100 or more per block (mean about 130), two thirds of them
  contract calls, traces up to six frames deep with more children per frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

from hmyframe.errors import ConfigError

__all__ = ["ACTIVITIES", "Activity", "ActivityName", "activity"]

ActivityName = Literal["quiet", "devnet", "busy"]
#: The profile names, quietest first.
ACTIVITIES: Final[tuple[str, ...]] = get_args(ActivityName)


@dataclass(frozen=True, slots=True)
class Activity:
    """One activity profile (see the module docstring).

    Attributes
    ----------
    p_empty
        Share of blocks forced empty.
    base, lomax_alpha, lomax_scale, cap
        A non-empty block holds ``min(base + floor(Lomax(alpha, scale)), cap)`` transactions.
    p_burst, burst_low, burst_span
        Share of blocks that are bursts of ``burst_low .. burst_low + burst_span - 1`` transactions.
    kinds, kinds_one_shard
        Weights of the transaction kinds (transfer, cross-shard, call, reverted call,
        creation), with several shards and with one.
    p_leaf
        Per trace depth, the probability that a frame has no children; its length is the
        deepest a trace goes below its top frame.
    max_children
        Per trace depth, a frame with children has ``1 .. max_children`` of them.
    """

    p_empty: float
    base: float
    lomax_alpha: float
    lomax_scale: float
    cap: float
    p_burst: float
    burst_low: float
    burst_span: float
    kinds: tuple[float, float, float, float, float]
    kinds_one_shard: tuple[float, float, float, float, float]
    p_leaf: tuple[float, ...]
    max_children: tuple[int, ...]


_PROFILES: Final[dict[str, Activity]] = {
    "devnet": Activity(
        p_empty=0.20, base=0.0, lomax_alpha=2.4, lomax_scale=28.0, cap=70.0,
        p_burst=0.003, burst_low=80.0, burst_span=21.0,
        kinds=(0.52, 0.10, 0.30, 0.05, 0.03), kinds_one_shard=(0.62, 0.0, 0.30, 0.05, 0.03),
        p_leaf=(0.40, 0.60, 0.70, 0.80), max_children=(3, 2, 2, 2),
    ),
    "quiet": Activity(
        p_empty=0.45, base=0.0, lomax_alpha=2.0, lomax_scale=1.5, cap=40.0,
        p_burst=0.002, burst_low=20.0, burst_span=21.0,
        kinds=(0.60, 0.05, 0.27, 0.05, 0.03), kinds_one_shard=(0.65, 0.0, 0.27, 0.05, 0.03),
        p_leaf=(0.40, 0.60, 0.70, 0.80), max_children=(3, 2, 2, 2),
    ),
    "busy": Activity(
        p_empty=0.0, base=100.0, lomax_alpha=2.4, lomax_scale=40.0, cap=400.0,
        p_burst=0.01, burst_low=400.0, burst_span=101.0,
        kinds=(0.25, 0.05, 0.58, 0.08, 0.04), kinds_one_shard=(0.30, 0.0, 0.58, 0.08, 0.04),
        p_leaf=(0.20, 0.35, 0.50, 0.60, 0.70, 0.80), max_children=(3, 3, 2, 2, 2, 2),
    ),
}  # fmt: skip


def activity(name: object) -> Activity:
    """The profile called ``name``.

    Raises
    ------
    ConfigError
        For a name that is not one of :data:`ACTIVITIES`.
    """
    found = _PROFILES.get(name) if isinstance(name, str) else None
    if found is None:
        raise ConfigError(f"activity must be one of {', '.join(ACTIVITIES)}, got {name!r}")
    return found
