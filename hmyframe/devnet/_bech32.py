"""Minimal BIP-173 bech32 for Harmony ``one1`` addresses (20 bytes, HRP ``"one"``).

The devnet renders every address it sends as ``one1...`` and accepts either form in
params, so it needs both directions. Results are cached: a devnet renders the same few
thousand addresses over and over.

This is the bech32 checksum of BIP-173 (constant 1), not bech32m, regrouping the 20 raw
address bytes from 8-bit to 5-bit groups, as the node's ``AddressToBech32`` does.
"""

from __future__ import annotations

from functools import lru_cache

from hmyframe.errors import AddressError

__all__ = ["hex_to_one", "one_to_hex", "parse_address"]

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_CHARSET_INDEX = {c: i for i, c in enumerate(_CHARSET)}
_GENERATOR = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
_HRP = "one"
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _xor_table() -> tuple[int, ...]:
    table = []
    for top in range(32):
        acc = 0
        for i in range(5):
            if (top >> i) & 1:
                acc ^= _GENERATOR[i]
        table.append(acc)
    return tuple(table)


# XOR of the generator terms selected by each possible 5-bit "top" of the checksum state.
_TOP_XOR = _xor_table()


def _polymod(values: list[int], chk: int = 1) -> int:
    table = _TOP_XOR
    for value in values:
        chk = ((chk & 0x1FFFFFF) << 5) ^ value ^ table[chk >> 25]
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _convert_bits(data: bytes | list[int], from_bits: int, to_bits: int, pad: bool) -> list[int] | None:
    acc = 0
    bits = 0
    out: list[int] = []
    max_value = (1 << to_bits) - 1
    for value in data:
        acc = (acc << from_bits) | value
        bits += from_bits
        while bits >= to_bits:
            bits -= to_bits
            out.append((acc >> bits) & max_value)
    if pad:
        if bits:
            out.append((acc << (to_bits - bits)) & max_value)
    elif bits >= from_bits or ((acc << (to_bits - bits)) & max_value):
        return None
    return out


def _is_hex_address(text: str) -> bool:
    return len(text) == 42 and text[:2] in ("0x", "0X") and all(c in _HEX_DIGITS for c in text[2:])


# Checksum state after the expanded HRP "one" (the same prefix for every address).
_HRP_CHECKSUM_STATE = _polymod(_hrp_expand(_HRP))


@lru_cache(maxsize=65536)
def hex_to_one(address: str) -> str:
    """Encode a ``0x`` address (any case) as a ``one1`` bech32 address.

    Parameters
    ----------
    address
        ``0x`` followed by 40 hex digits.

    Returns
    -------
    str
        The ``one1...`` form (42 characters).

    Raises
    ------
    AddressError
        If ``address`` is not a 0x-prefixed 20-byte hex string.
    """
    text: object = address
    if not isinstance(text, str) or not _is_hex_address(text):
        raise AddressError(address, "not a 0x-prefixed 40-hex-digit address")
    value = int(address[2:], 16)
    data = [(value >> shift) & 31 for shift in range(155, -1, -5)]  # 160 bits -> 32 groups of 5
    polymod = _polymod([*data, 0, 0, 0, 0, 0, 0], _HRP_CHECKSUM_STATE) ^ 1
    checksum = [(polymod >> 5 * (5 - i)) & 31 for i in range(6)]
    return _HRP + "1" + "".join(_CHARSET[d] for d in data + checksum)


@lru_cache(maxsize=65536)
def one_to_hex(address: str) -> str:
    """Decode a ``one1`` bech32 address to lower-case ``0x`` hex.

    Parameters
    ----------
    address
        A ``one1...`` address (all lower-case or all upper-case).

    Returns
    -------
    str
        ``0x`` followed by 40 lower-case hex digits.

    Raises
    ------
    AddressError
        On a wrong prefix, bad character, bad checksum or wrong length.
    """
    value: object = address
    if not isinstance(value, str):
        raise AddressError(address, "not a string")
    if address.lower() != address and address.upper() != address:
        raise AddressError(address, "mixed upper and lower case")
    text = address.lower()
    if not text.startswith(_HRP + "1"):
        raise AddressError(address, "does not start with 'one1'")
    body = text[len(_HRP) + 1 :]
    if len(body) < 6:
        raise AddressError(address, "too short")
    try:
        data = [_CHARSET_INDEX[c] for c in body]
    except KeyError as exc:
        raise AddressError(address, f"character {exc.args[0]!r} is not in the bech32 alphabet") from None
    if _polymod(_hrp_expand(_HRP) + data) != 1:
        raise AddressError(address, "bad bech32 checksum")
    decoded = _convert_bits(data[:-6], 5, 8, False)
    if decoded is None or len(decoded) != 20:
        raise AddressError(address, "does not hold exactly 20 bytes")
    return "0x" + bytes(decoded).hex()


def parse_address(text: str) -> str:
    """Parse an address given in either form to lower-case ``0x`` hex.

    Parameters
    ----------
    text
        ``one1...`` bech32 or ``0x`` + 40 hex digits.

    Returns
    -------
    str
        Lower-case ``0x`` hex.

    Raises
    ------
    AddressError
        If ``text`` is neither form.
    """
    value: object = text
    if isinstance(value, str) and _is_hex_address(value):
        return value.lower()
    return one_to_hex(text)
