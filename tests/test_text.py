"""hmyframe._text: chain text made safe to show (escapes, width, the address beside)."""

from __future__ import annotations

import unicodedata

import pytest

from hmyframe._text import chain_text, labelled, short_address, shorten, visible

HIDDEN = ("Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp")


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\u202eevil", "\\u202eevil"),  # RIGHT-TO-LEFT OVERRIDE: would show "live"
        ("a\u2066b\u2069c", "a\\u2066b\\u2069c"),  # bidi isolates
        ("zero\u200b\u200c\u200dwidth\ufeff\u2060", "zero\\u200b\\u200c\\u200dwidth\\ufeff\\u2060"),
        ("two\nlines\r\ttab", "two\\nlines\\r\\ttab"),
        ("nul\x00bel\x07esc\x1b[31m", "nul\\x00bel\\x07esc\\x1b[31m"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("private\ue000", "private\\ue000"),
        ("tag\U000e0041", "tag\\U000e0041"),  # a tag character (Cf, astral)
        ("Café, 東京, Ünïcödé", "Café, 東京, Ünïcödé"),  # ordinary text stays as it is
        ("Rocket 🚀", "Rocket 🚀"),
        ("<script>alert(1)</script>", "<script>alert(1)</script>"),  # HTML is the page's to escape
        ("e\u0301\u0301\u0301\u0301", "e\u0301\u0301\\u0301\\u0301"),  # two accents kept, a pile not
    ],
)
def test_visible_escapes_what_a_reader_would_not_see(raw: str, shown: str) -> None:
    assert visible(raw) == shown
    assert not [c for c in visible(raw) if unicodedata.category(c) in HIDDEN]
    assert visible(visible(raw)) == visible(raw)


def test_visible_escapes_what_the_display_cannot_draw() -> None:
    ascii_only = str.isascii
    assert visible("Rocket 🚀 Café", ascii_only) == "Rocket \\U0001f680 Caf\\xe9"


def test_shorten_counts_columns_and_never_cuts_an_escape() -> None:
    assert shorten("W" * 10_000, 10) == "W" * 9 + "…"
    assert shorten("short", 10) == "short"
    assert shorten("東京東京東京", 7) == "東京東…"  # wide characters count two
    cut = shorten("abcdefg\u202ehij", 12)
    assert cut == "abcdefg…"  # not "abcdefg\\u20…"
    assert len(shorten("x" * 50 + "\n", 20)) == 20


def test_chain_text_and_labels() -> None:
    assert chain_text(None) is None
    assert chain_text(float("nan")) is None
    assert chain_text("   ") is None
    assert chain_text("\u202eevil") == "\\u202eevil"
    assert chain_text("W" * 10_000, 32) == "W" * 31 + "…"
    address = "one1qqsx09cuwq45ywz3xnvkc3n7sflc8gx3rq8ay9"
    assert short_address(address) == "one1qqsx…8ay9"
    assert short_address("0x" + "ab" * 20) == "0xababab…abab"
    assert labelled("Alpha", address) == "Alpha · one1qqsx…8ay9"
    assert labelled("", address) == "one1qqsx…8ay9"
    assert labelled(None, address) == "one1qqsx…8ay9"
    assert labelled("X" * 140, address, 20) == "X" * 19 + "… · one1qqsx…8ay9"
    assert labelled("a\nb", "0x1") == "a\\nb · 0x1"
