"""The devnet's static validator population: who exists, since when, with which keys.

Everything here is fixed by the chain parameters (never by the head): addresses, creation
heights (creation order = index order), BLS keys and the shard of each key (the node's
rule: the key, read as a big-endian integer, modulo the shard count), descriptions,
commission parameters, genesis delegations, reliability class and ban height.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final

from hmyframe.devnet._gen_codec import ADDR_DELEGATOR, ADDR_VALIDATOR, Codec, hex_bytes

__all__ = [
    "DELEGATOR_POPULATION",
    "FORCED_CREATE_HEIGHT",
    "ONE",
    "ValidatorStatic",
    "ban_heights",
    "build_population",
    "delegator_address",
]

ONE: Final = 10**18
DELEGATOR_POPULATION: Final = 4_000
FORCED_CREATE_HEIGHT: Final = 12  # first validator created after genesis (so small chains have one)
_LATE_SHARE: Final = 0.12  # validators created after genesis
_LATE_SPAN: Final = 3_000  # blocks over which late creations are spread
_TAG_POPULATION: Final = 0x504F

_WORDS_A = (
    "Harmony", "Stellar", "Lunar", "Nebula", "Atlas", "Orbit", "Quantum", "Crystal", "Nova",
    "Summit", "Granite", "Aurora", "Zenith", "Blue", "Iron", "Silver", "Golden", "Polar",
    "Cosmic", "Prime", "Vertex", "Echo", "Delta", "Falcon",
)  # fmt: skip
_WORDS_B = (
    "Staking", "Node", "Validator", "Labs", "Capital", "Pool", "Vault", "Network", "Works",
    "Systems", "Guild", "Stake", "Collective", "Foundry", "Hub", "Ventures",
)  # fmt: skip
_DETAILS = (
    "Reliable validator with 99.9% uptime",
    "Community run node in multiple regions",
    "Low commission, long-term operator",
    "Professional infrastructure since 2019",
    "Staking services for Harmony ONE",
    "Run by a small team of engineers",
    "",
)


@dataclass(frozen=True, slots=True)
class ValidatorStatic:
    """Facts about validator ``index`` that never change.

    Rates are 1e18-scaled integers (the node's raw ``numeric.Dec``); amounts are atto.
    """

    index: int
    address: str
    creation_height: int
    keys: tuple[str, ...]
    key_shards: tuple[int, ...]
    name: str
    identity: str
    website: str
    security_contact: str
    details: str
    rate: int
    max_rate: int
    max_change_rate: int
    min_self: int
    max_total: int
    self_amount: int
    genesis_delegations: tuple[tuple[str, int], ...]
    reliability: int  # 0 reliable, 1 medium, 2 flaky
    returns: bool  # False: abandoned once turned inactive (never sends the come-back edit)


def delegator_address(codec: Codec, index: int) -> str:
    """Address of delegator ``index`` of the delegator population."""
    return codec.address(ADDR_DELEGATOR, 0, index)


def _bls_key(rng: random.Random, shard: int, n_shards: int) -> str:
    """A 48-byte key whose big-endian value is ``shard`` modulo ``n_shards``."""
    x = rng.getrandbits(384) | (1 << 383)  # keep the full 96 hex digits
    x = x - (x % n_shards) + shard
    if x >= 1 << 384:
        x -= n_shards
    return f"{x:096x}"


def _amount(rng: random.Random, low_exp: int, high_exp: int) -> int:
    """A round-ish amount ``d * 10**k`` with ``low_exp <= k < high_exp`` and ``1 <= d <= 99``."""
    scale: int = 10 ** (low_exp + int(rng.random() * (high_exp - low_exp)))
    return (1 + int(rng.random() * 99)) * scale


def ban_heights(n_validators: int, epoch_length: int) -> list[int]:
    """Blocks at which an elected validator is caught double-signing (one per 100 validators).

    Early in epochs 1, 4, 7...: small chains see one, the default chain sees three.
    """
    return [
        epoch_length * (1 + 3 * k) + max(1, epoch_length // 3) for k in range(max(1, n_validators // 100))
    ]


def build_population(
    codec: Codec, n_validators: int, n_shards: int, epoch_length: int
) -> list[ValidatorStatic]:
    """Generate the ``n_validators`` validators of a chain, in creation order."""
    rng = random.Random(codec.seed_int(_TAG_POPULATION))
    n_late = max(1, round(n_validators * _LATE_SHARE))
    n_genesis = n_validators - n_late
    heights = [0] * n_genesis
    h = FORCED_CREATE_HEIGHT
    mean_gap = max(2.0, _LATE_SPAN / n_late)
    for _ in range(n_late):
        heights.append(h)
        h += 1 + int(-math.log(1.0 - rng.random()) * mean_gap)

    out: list[ValidatorStatic] = []
    for i in range(n_validators):
        address = codec.address(ADDR_VALIDATOR, 0, i)
        u = rng.random()
        n_keys = 1 if u < 0.45 else 2 if u < 0.75 else 3 if u < 0.90 else 4
        if i < n_shards:  # the first validators cover every shard
            shards = [i] + [int(rng.random() * n_shards) for _ in range(n_keys - 1)]
        else:
            shards = [int(rng.random() * n_shards) for _ in range(n_keys)]
        keys = tuple(_bls_key(rng, s, n_shards) for s in shards)
        a = _WORDS_A[int(rng.random() * len(_WORDS_A))]
        b = _WORDS_B[int(rng.random() * len(_WORDS_B))]
        slug = f"{a}{b}".lower()
        name = f"{a} {b}" if rng.random() < 0.7 else f"{a} {b} {1 + int(rng.random() * 99)}"
        identity = hex_bytes(rng, 8).upper() if rng.random() < 0.6 else ""
        website = f"https://{slug}.io" if rng.random() < 0.8 else ""
        security_contact = f"security@{slug}.io" if rng.random() < 0.5 else ""
        details = _DETAILS[int(rng.random() * len(_DETAILS))]
        rate = (5, 5, 6, 7, 8, 10, 10, 12, 15, 20)[int(rng.random() * 10)] * ONE // 100
        max_rate = max(rate, (50, 80, 90, 100)[int(rng.random() * 4)] * ONE // 100)
        max_change_rate = (1, 2, 5, 5, 10)[int(rng.random() * 5)] * ONE // 100
        min_self = (10_000, 10_000, 10_000, 50_000, 100_000)[int(rng.random() * 5)] * ONE
        self_amount = min_self * (1 + int(rng.random() ** 3 * 150))
        # popular validators attract many delegators (cubic skew)
        n_del = int(rng.random() ** 3 * 40)
        seen: set[str] = set()
        dels: list[tuple[str, int]] = []
        for _ in range(n_del):
            rank = int(math.exp(rng.random() * math.log(DELEGATOR_POPULATION))) - 1
            idx = (rank * 7_919 + 11) % DELEGATOR_POPULATION
            d = delegator_address(codec, idx)
            if d not in seen:
                seen.add(d)
                dels.append((d, _amount(rng, 20, 24)))
        total = self_amount + sum(x for _, x in dels)
        max_total = total + total // 20 if rng.random() < 0.05 else (1 + int(rng.random() * 9)) * 10**26
        max_total = max(max_total, total)
        r = rng.random()
        reliability = 2 if r < 0.06 else 1 if r < 0.18 else 0
        out.append(
            ValidatorStatic(
                index=i,
                address=address,
                creation_height=heights[i],
                keys=keys,
                key_shards=tuple(shards),
                name=name,
                identity=identity,
                website=website,
                security_contact=security_contact,
                details=details,
                rate=rate,
                max_rate=max_rate,
                max_change_rate=max_change_rate,
                min_self=min_self,
                max_total=max_total,
                self_amount=self_amount,
                genesis_delegations=tuple(dels) if heights[i] == 0 else (),
                reliability=reliability,
                returns=rng.random() >= 0.1,
            )
        )
    return out
