"""BIP-173 bech32 for ``one1`` addresses, written for the tests (no hmyframe code): the
independent side of every address comparison of the replay tests and the corpus's address check.
Checked against published vectors in ``test_replay_lookups.py`` and against the node's own pairs
in ``test_replay_mainnet.py``."""

from __future__ import annotations

__all__ = ["bech32_valid", "hex_to_one", "one_to_hex"]

_CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_GEN = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)


def _polymod(values: list[int]) -> int:
    chk = 1
    for v in values:
        top = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= _GEN[i] if (top >> i) & 1 else 0
    return chk


def _hrp_expand(hrp: str) -> list[int]:
    return [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]


def _regroup(data: list[int], src: int, dst: int, pad: bool) -> list[int]:
    acc = bits = 0
    out = []
    for value in data:
        acc = (acc << src) | value
        bits += src
        while bits >= dst:
            bits -= dst
            out.append((acc >> bits) & ((1 << dst) - 1))
    if pad and bits:
        out.append((acc << (dst - bits)) & ((1 << dst) - 1))
    elif not pad and (bits >= src or (acc << (dst - bits)) & ((1 << dst) - 1)):
        raise ValueError("bad padding")
    return out


def one_to_hex(address: str) -> str:
    """``one1...`` -> lower-case ``0x`` + 40 hex digits (BIP-173, checksum checked)."""
    hrp, _, rest = address.lower().rpartition("1")
    data = [_CHARSET.index(c) for c in rest]
    if hrp != "one" or _polymod(_hrp_expand(hrp) + data) != 1:
        raise ValueError(f"not a one1 address: {address!r}")
    raw = _regroup(data[:-6], 5, 8, False)
    if len(raw) != 20:
        raise ValueError(f"not 20 bytes: {address!r}")
    return "0x" + bytes(raw).hex()


def hex_to_one(address: str) -> str:
    """``0x`` + 40 hex digits (any case) -> ``one1...``."""
    raw = bytes.fromhex(address[2:] if address[:2].lower() == "0x" else address)
    if len(raw) != 20:
        raise ValueError(f"not 20 bytes: {address!r}")
    data = _regroup(list(raw), 8, 5, True)
    check = _polymod([*_hrp_expand("one"), *data, 0, 0, 0, 0, 0, 0]) ^ 1
    data += [(check >> 5 * (5 - i)) & 31 for i in range(6)]
    return "one1" + "".join(_CHARSET[d] for d in data)


def bech32_valid(text: str) -> bool:
    """Whether ``text`` is a well-formed ``one1`` address: 42 characters, one case, good checksum."""
    if len(text) != 42 or text not in (text.lower(), text.upper()):
        return False
    lower = text.lower()
    if not lower.startswith("one1") or any(c not in _CHARSET for c in lower[4:]):
        return False
    return _polymod(_hrp_expand("one") + [_CHARSET.index(c) for c in lower[4:]]) == 1
