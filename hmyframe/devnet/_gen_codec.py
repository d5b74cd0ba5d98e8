"""Keyed, invertible identifiers and small seeded-random helpers for the devnet generator.

Every hash or address the generator hands out for something that can be looked up
(blocks, transactions, staking transactions, accounts) *carries its own location*, in
the style of a synthetic-IV construction:

* ``tag = MAC_k(payload)`` (a keyed BLAKE2b digest of the location), then
* ``body = payload XOR pad(tag)`` where ``pad`` is a keyed affine map of the tag
  (cheap; the tag is already uniformly random, so the body looks random too),
* the identifier is ``tag || body``.

Decoding recovers ``payload = body XOR pad(tag)`` and accepts it only when
``MAC_k(payload) == tag``. So a lookup costs two BLAKE2b calls and needs no index, the
identifiers look uniformly random, and a random or foreign hash decodes to ``None``
(with probability ``1 - 2**-128`` for hashes, ``1 - 2**-64`` for addresses).

The keys come from the chain's seed and structural parameters, so two chains with
different seeds (or shard counts, epoch lengths...) never share identifiers.
"""

from __future__ import annotations

import hashlib
import random
import struct
from typing import Final

__all__ = [
    "ADDR_CONTRACT",
    "ADDR_CREATED",
    "ADDR_DELEGATOR",
    "ADDR_EOA",
    "ADDR_INNER",
    "ADDR_VALIDATOR",
    "HASH_BLOCK",
    "HASH_MISC",
    "HASH_STAKING",
    "HASH_TX",
    "Codec",
    "big_below",
    "hex_bytes",
]

# Hash kinds (first payload byte).
HASH_BLOCK: Final = 1
HASH_TX: Final = 2
HASH_STAKING: Final = 4
HASH_MISC: Final = 5  # receipt / shard hashes of CX proofs: not looked up

# Address kinds.
ADDR_EOA: Final = 1  # the population sending plain transactions
ADDR_DELEGATOR: Final = 2  # accounts that only send staking transactions
ADDR_VALIDATOR: Final = 3  # validator operator addresses
ADDR_CONTRACT: Final = 4  # contracts existing at genesis
ADDR_CREATED: Final = 5  # contracts created by a top-level creation (a=block, b=tx index)
ADDR_INNER: Final = 6  # contracts created inside a trace (a=block, b=tx index * 256 + ordinal)

_HASH_PAYLOAD = struct.Struct(">BBQIH")  # kind, shard, number, index, sub  -> 16 bytes
_ADDR_PAYLOAD = struct.Struct(">BBQH")  # kind, shard, a, b               -> 12 bytes
_MASK256 = (1 << 256) - 1
_MASK128 = (1 << 128) - 1
_MASK96 = (1 << 96) - 1


class Codec:
    """Encode locations into hashes/addresses and decode them back.

    Parameters
    ----------
    key_material
        Bytes identifying the chain (seed and structural parameters).
    """

    __slots__ = (
        "_addr_a",
        "_addr_b",
        "_addr_mac",
        "_eth_inv",
        "_eth_mul",
        "_hash_a",
        "_hash_b",
        "_hash_mac",
        "_seed_key",
    )

    def __init__(self, key_material: bytes) -> None:
        def derive(label: bytes) -> bytes:
            return hashlib.blake2b(key_material, key=label, digest_size=32).digest()

        self._hash_mac = derive(b"hmyframe-devnet-hash-mac")
        self._addr_mac = derive(b"hmyframe-devnet-addr-mac")
        self._seed_key = derive(b"hmyframe-devnet-seeds")
        pads = derive(b"hmyframe-devnet-pads") + derive(b"hmyframe-devnet-pads-2")
        self._hash_a = int.from_bytes(pads[0:16], "big") | 1
        self._hash_b = int.from_bytes(pads[16:32], "big")
        self._addr_a = int.from_bytes(pads[32:44], "big") | 1
        self._addr_b = int.from_bytes(pads[44:56], "big")
        self._eth_mul = int.from_bytes(derive(b"hmyframe-devnet-eth"), "big") | 1
        self._eth_inv = pow(self._eth_mul, -1, 1 << 256)

    # -- 32-byte hashes -------------------------------------------------------------
    def hash(self, kind: int, shard: int, number: int, index: int = 0, sub: int = 0) -> str:
        """The 0x hash of location ``(kind, shard, number, index, sub)``."""
        payload = _HASH_PAYLOAD.pack(kind, shard, number, index, sub)
        tag = hashlib.blake2b(payload, key=self._hash_mac, digest_size=16).digest()
        pad = (int.from_bytes(tag, "big") * self._hash_a + self._hash_b) & _MASK128
        return f"0x{tag.hex()}{int.from_bytes(payload, 'big') ^ pad:032x}"

    def decode_hash(self, text: str) -> tuple[int, int, int, int, int] | None:
        """``(kind, shard, number, index, sub)`` of a hash made by :meth:`hash`, else ``None``.

        ``text`` must already be a lower-case ``0x`` + 64 hex string.
        """
        raw = bytes.fromhex(text[2:])
        tag = raw[:16]
        pad = (int.from_bytes(tag, "big") * self._hash_a + self._hash_b) & _MASK128
        payload = (int.from_bytes(raw[16:], "big") ^ pad).to_bytes(16, "big")
        if hashlib.blake2b(payload, key=self._hash_mac, digest_size=16).digest() != tag:
            return None
        kind, shard, number, index, sub = _HASH_PAYLOAD.unpack(payload)
        return kind, shard, number, index, sub

    def tx_hashes(self, shard: int, number: int, index: int) -> tuple[str, str]:
        """``(hash, eth_hash)`` of transaction ``index`` of block ``number`` of ``shard``.

        The Ethereum-form hash is the Harmony hash under a keyed 256-bit permutation
        (multiply by an odd constant modulo 2**256, then xor-shift by 131 bits, which is
        its own inverse), so it also locates the transaction (see :meth:`eth_to_tx_hash`)
        and looks unrelated to the other.
        """
        payload = _HASH_PAYLOAD.pack(HASH_TX, shard, number, index, 0)
        tag = hashlib.blake2b(payload, key=self._hash_mac, digest_size=16).digest()
        t = int.from_bytes(tag, "big")
        x = (t << 128) | (int.from_bytes(payload, "big") ^ ((t * self._hash_a + self._hash_b) & _MASK128))
        y = (x * self._eth_mul) & _MASK256
        y ^= y >> 131
        return f"0x{x:064x}", f"0x{y:064x}"

    def eth_to_tx_hash(self, eth_hash: str) -> str:
        """Invert the permutation of :meth:`tx_hashes` (``eth_hash`` lower-case 0x + 64 hex)."""
        y = int(eth_hash[2:], 16)
        y ^= y >> 131
        y = (y * self._eth_inv) & _MASK256
        return f"0x{y:064x}"

    # -- 20-byte addresses ----------------------------------------------------------
    def address(self, kind: int, shard: int, a: int, b: int = 0) -> str:
        """The 0x address of account ``(kind, shard, a, b)`` (``a`` < 2**64, ``b`` < 2**16)."""
        payload = _ADDR_PAYLOAD.pack(kind, shard, a, b)
        tag = hashlib.blake2b(payload, key=self._addr_mac, digest_size=8).digest()
        pad = (int.from_bytes(tag, "big") * self._addr_a + self._addr_b) & _MASK96
        return f"0x{tag.hex()}{int.from_bytes(payload, 'big') ^ pad:024x}"

    def decode_address(self, text: str) -> tuple[int, int, int, int] | None:
        """``(kind, shard, a, b)`` of an address made by :meth:`address`, else ``None``.

        ``text`` must already be a lower-case ``0x`` + 40 hex string.
        """
        raw = bytes.fromhex(text[2:])
        tag = raw[:8]
        pad = (int.from_bytes(tag, "big") * self._addr_a + self._addr_b) & _MASK96
        payload = (int.from_bytes(raw[8:], "big") ^ pad).to_bytes(12, "big")
        if hashlib.blake2b(payload, key=self._addr_mac, digest_size=8).digest() != tag:
            return None
        kind, shard, a, b = _ADDR_PAYLOAD.unpack(payload)
        return kind, shard, a, b

    # -- seeds ----------------------------------------------------------------------
    def seed_int(self, *parts: int) -> int:
        """A 128-bit integer seed for a ``random.Random`` keyed by ``parts`` (non-negative)."""
        data = b"".join(p.to_bytes(8, "big") for p in parts)
        return int.from_bytes(hashlib.blake2b(data, key=self._seed_key, digest_size=16).digest(), "big")

    def seed_words(self, *parts: int) -> list[int]:
        """32-bit words for a ``numpy.random.SeedSequence`` keyed by ``parts``."""
        value = self.seed_int(*parts)
        return [(value >> (32 * i)) & 0xFFFFFFFF for i in range(4)]


def big_below(rng: random.Random, n: int) -> int:
    """Uniform integer in ``[0, n)`` for any ``n >= 1`` (rejection on ``getrandbits``)."""
    bits = n.bit_length()
    while True:
        x = rng.getrandbits(bits)
        if x < n:
            return x


def hex_bytes(rng: random.Random, n: int) -> str:
    """``n`` random bytes as lower-case hex without ``0x`` (``2 * n`` characters)."""
    if n <= 0:
        return ""
    return f"{rng.getrandbits(8 * n):0{2 * n}x}"
