"""Chain text chosen by strangers, at its worst: what ``Chain(hostile_text=True)`` serves.

Token names and symbols come from whoever deployed the contract, validator descriptions from
whoever created the validator: nothing stops them from being ten thousand characters long,
reversing the text around them (U+202E RIGHT-TO-LEFT OVERRIDE), hiding characters (zero-width
ones), carrying control characters (NUL, BEL, ANSI escapes, newlines), HTML and script, emoji,
or matplotlib's mathtext dollars. With ``hostile_text`` the devnet's token contracts answer
``name()`` / ``symbol()`` with such strings (the ``bytes32``, reverting and missing variants keep
their kind, with hostile bytes where there are bytes) and every validator's description gets
one, within the node's limits (``staking/types/validator.go``: name, identity, website and
security contact 140 bytes, details 280).

Nothing else changes: the draws are the same, so a hostile chain has the same blocks, balances
and validators as the plain one of the same seed.
"""

from __future__ import annotations

from typing import Final

__all__ = ["HOSTILE_TOKEN_TEXT", "MAX_DETAILS", "MAX_NAME", "hostile_description"]

#: The node's limits on a validator description (bytes).
MAX_NAME: Final = 140
MAX_DETAILS: Final = 280

RLO: Final = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: "\u202eevil" shows as "live"

#: ``(name, symbol)`` bytes per token of ``TOKEN_SPECS`` (same order) under ``hostile_text``.
HOSTILE_TOKEN_TEXT: Final[tuple[tuple[bytes, bytes], ...]] = (
    (("W" * 10_000).encode(), (RLO + "evil").encode()),  # 10,000 characters, no space to wrap at
    (
        b"<script>alert('name')</script><img src=x onerror=alert(1)><b>HUGE</b>",
        b"</td></tr></table><h1>HUGE",
    ),
    ((RLO + "B32 evil").encode(), b"\x1b[31mRED\x1b[0m"),  # bytes32: 32 bytes at most
    (b"name is disabled", "ZERO\u200b\u200c\u200d\ufeffWIDTH\u2060".encode()),  # the name reverts
    (b"Caf\xe9 \xff Token", b"NL\nCR\rTAB\tNUL\x00BEL\x07"),  # the name is not UTF-8
    (
        "Rocket \U0001f680\U0001f315 to the moon \u0301\u0301\u0301\u0301\u0301".encode(),
        "\U0001f680".encode(),
    ),
    (("Long name " * 1_000).encode(), b"$\\frac{1}{0}$ $$"),  # mathtext for matplotlib
    (b"", b""),  # HRC-1155 without name() / symbol(): nothing to say
)

_NAMES: Final = (
    lambda n: RLO + n,
    lambda n: n + "<script>alert(1)</script>",
    lambda n: "X" * MAX_NAME,
    lambda n: n + "\n\r\t\x00\x07\x1b[2J",
    lambda n: n + " \U0001f680\U0001f315",
    lambda n: "Zero\u200bWidth\u2066" + n,
    lambda n: "$\\frac{a}{b}$ " + n + " $$",
    lambda n: n,
)


def _fit(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` UTF-8 bytes (whole characters)."""
    data = text.encode()
    return data[:limit].decode(errors="ignore") if len(data) > limit else text


def hostile_description(
    index: int, name: str, identity: str, website: str, details: str
) -> tuple[str, str, str, str, str]:
    """``(name, identity, website, security_contact, details)`` of validator ``index`` under
    ``hostile_text``: its own texts made hostile, one kind of hostility per validator (cycling)."""
    kind = index % len(_NAMES)
    return (
        _fit(_NAMES[kind](name), MAX_NAME),
        _fit((RLO + identity) if kind % 2 else f"<b>{identity}</b>", MAX_NAME),
        _fit("javascript:alert(1)" if kind % 3 == 0 else website + "/" + "a" * 130, MAX_NAME),
        _fit(f"sec\u202eurity@{index}.example\n", MAX_NAME),
        _fit(details + "\n" + "detail " * 40 + RLO + "\x00", MAX_DETAILS),
    )
