"""The Ethereum log bloom, as the node computes it (``core/types/bloom9.go``), for checking logs.

A bloom is 2048 bits. Each log adds its address and each of its topics: for a value ``v``, the
first three big-endian 16-bit pairs of ``keccak256(v)``, each masked to 11 bits, name the bits
to set; read as one big-endian integer, bit ``i`` of that integer is bloom bit ``i``. A block's
``logsBloom`` is the union over every receipt's logs (``types.CreateBloom``; the node refuses a
block whose header says otherwise: ``core/block_validator.go`` ``ValidateState``), so the logs
of a block, all of them, give exactly its header's bloom.

Keccak-256 comes from pycryptodome (``Crypto.Hash.keccak``; Python's ``hashlib.sha3_256`` is
FIPS-202 SHA-3, whose padding differs). The devnet computes its blooms with these functions too.
"""

from __future__ import annotations

from functools import lru_cache

from Crypto.Hash import keccak

__all__ = ["EMPTY_BLOOM", "bloom_bits", "keccak256"]

#: The bloom of no log: ``0x`` and 512 zeros.
EMPTY_BLOOM = "0x" + "0" * 512


def keccak256(data: bytes) -> bytes:
    """Keccak-256 digest of ``data`` (Ethereum's "sha3")."""
    return keccak.new(digest_bits=256, data=data).digest()


@lru_cache(maxsize=65_536)
def bloom_bits(value: str) -> int:
    """The 3 bloom bits of one 0x-hex address or topic (either case), as an integer mask."""
    digest = keccak256(bytes.fromhex(value[2:]))
    mask = 0
    for i in (0, 2, 4):
        mask |= 1 << (((digest[i] << 8) | digest[i + 1]) & 0x7FF)
    return mask
