"""Keccak-256 and the Ethereum log bloom, as the node computes them (``core/types/bloom9.go``).

Keccak comes from pycryptodome (``Crypto.Hash.keccak``): a maintained C implementation, the
backend ethereum-etl's own hashing (``eth-hash``) uses; Python's ``hashlib.sha3_256`` is the
FIPS-202 SHA-3, whose padding differs, so it gives other digests. The bits of one value are
:func:`hmyframe._bloom.bloom_bits`, the function hmyframe checks fetched logs with.

A bloom is 2048 bits. Each log adds its address and each of its topics: for a value ``v``,
the first three big-endian 16-bit pairs of ``keccak(v)``, each masked to 11 bits, name the
bits to set; bit ``i`` is bit ``i % 8`` of byte ``255 - i // 8``, i.e. bit ``i`` of the
bloom read as one big-endian integer.
"""

from __future__ import annotations

from collections.abc import Iterable

from hmyframe._bloom import bloom_bits as _bits
from hmyframe._bloom import keccak256
from hmyframe.devnet.model import Log

__all__ = ["bloom_contains", "bloom_hex", "bloom_of", "keccak256", "selector", "topic_of"]


def selector(signature: str) -> str:
    """The 4-byte function selector of ``signature`` (e.g. ``"transfer(address,uint256)"``),
    8 hex digits without ``0x``."""
    return keccak256(signature.encode()).hex()[:8]


def topic_of(signature: str) -> str:
    """``topics[0]`` of event ``signature`` (e.g. ``"Transfer(address,address,uint256)"``)."""
    return "0x" + keccak256(signature.encode()).hex()


def bloom_of(logs: Iterable[Log]) -> int:
    """The bloom of ``logs`` (addresses and topics) as a 2048-bit integer."""
    bloom = 0
    for log in logs:
        bloom |= _bits(log.address)
        for topic in log.topics:
            bloom |= _bits(topic)
    return bloom


def bloom_hex(bloom: int) -> str:
    """A bloom integer as the node's ``logsBloom`` (``0x`` + 512 hex digits)."""
    return f"0x{bloom:0512x}"


def bloom_contains(bloom: str | int, value: str) -> bool:
    """Whether ``bloom`` (hex or integer) may contain the 0x-hex address or topic ``value``."""
    number = int(bloom, 16) if isinstance(bloom, str) else bloom
    mask = _bits(value.lower())
    return number & mask == mask
